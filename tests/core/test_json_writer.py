"""json_writer writes what ``json.dumps(value, ensure_ascii=False)`` writes, and fails as it fails;
all_text tells values (a mapping's keys) that are exactly text."""

from __future__ import annotations

import enum
import json
import math
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptwire.core.json_text import all_text, escape_surrogates, json_writer, safe_json

write = json_writer()

json_data = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@given(json_data)
def test_the_text_is_json_dumps_text(value: Any) -> None:
    assert write(value) == json.dumps(value, ensure_ascii=False)


class Colour(enum.StrEnum):
    RED = "red"


@pytest.mark.parametrize(
    "value",
    [
        "half \ud800 a character, a line separator \u2028, é",
        {1: "a", None: "b", 1.5: "c", False: "d"},
        (1, 2),
        {"colour": Colour.RED},
        [math.nan, math.inf, -0.0, 1e300],
    ],
)
def test_values_json_dumps_takes_are_written_the_same(value: Any) -> None:
    assert write(value) == json.dumps(value, ensure_ascii=False)


def _error(write_with: Any, value: Any) -> tuple[type[BaseException], str]:
    with pytest.raises(Exception) as caught:
        write_with(value)
    return caught.type, str(caught.value)


def test_a_cycle_is_named_as_json_dumps_names_it() -> None:
    looped: dict[str, Any] = {}
    looped["self"] = [looped]
    assert _error(write, looped) == (ValueError, "Circular reference detected")
    assert write({"after": "a failed call"}) == '{"after": "a failed call"}'


def test_what_json_dumps_refuses_is_refused_with_its_error() -> None:
    for value in ({"object": object()}, {(1, 2): "a tuple key"}):
        assert _error(write, value) == _error(lambda v: json.dumps(v, ensure_ascii=False), value)


class _Text(str):
    pass


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({}, True),
        ({"a": 1, "b": 2}, True),
        ({"a": 1, 2: "b"}, False),
        ({_Text("a"): 1}, False),  # a subclass of str is not text to a JSON writer's fast path
        (["user", "assistant"], True),
        (["user", None], False),
    ],
)
def test_all_text_is_every_value_exactly_a_str(values: object, expected: bool) -> None:
    assert all_text(values) is expected


_TERMINAL_CONTROLS = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_TRICKY = st.text(
    alphabet=st.sampled_from('a{}"\\\x7f\x80\x9f\u061c\u200f\u2028\u202e\u2066\u00e9\ud800\udc00\U0001f600')
)


@given(_TRICKY | st.text())
def test_safe_json_escapes_what_a_terminal_acts_on_and_nothing_else(text: str) -> None:
    # ASCII text is given back without the pattern (compiled only for the rest): DEL is its one
    # character the pattern matches.
    expected = _TERMINAL_CONTROLS.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
    assert safe_json(text) == expected


@given(_TRICKY | st.text())
def test_escape_surrogates_leaves_text_without_halves_as_it_is(text: str) -> None:
    if re.search("[\ud800-\udfff]", text) is None:
        assert escape_surrogates(text) == text
    else:
        assert re.search("[\ud800-\udfff]", escape_surrogates(text)) is None
