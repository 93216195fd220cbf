"""A request body's bytes (``json_text.to_bytes``, its encoder made once) are those ``json.dumps``
writes with the same options, half characters escaped: every request byte stays as it was."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptwire.core.json_text import escape_surrogates, json_writer, to_bytes

_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)  # surrogates, controls, astral
_JSON: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)


def _written_by_dumps(value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return escape_surrogates(text).encode("utf-8")


@given(_JSON)
def test_the_bytes_are_json_dumps_with_the_same_options(value: Any) -> None:
    assert to_bytes(value) == _written_by_dumps(value)


def test_half_a_character_is_escaped_and_a_pair_joined() -> None:
    assert to_bytes({"a": "x\ud83d", "b": "\ud83d\ude00"}) == '{"a":"x\\ud83d","b":"😀"}'.encode()


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_no_nan_or_infinity_is_written(number: float) -> None:
    with pytest.raises(ValueError, match="JSON compliant"):
        to_bytes({"n": number})


def test_a_cycle_is_refused_every_time_and_the_encoder_still_works_after() -> None:
    looped: list[Any] = []
    looped.append(looped)
    for _ in range(2):  # the kept encoder keeps no state between calls
        with pytest.raises(ValueError, match="Circular reference"):
            to_bytes({"a": looped})
    assert to_bytes({"a": [1]}) == b'{"a":[1]}'


_SEPARATORS = st.sampled_from([(", ", ": "), (",", ":"), (",\n", ": ")])


@given(_JSON, _SEPARATORS, st.booleans())
def test_a_json_writer_writes_what_json_dumps_writes_with_the_same_options(
    value: Any, separators: tuple[str, str], allow_nan: bool
) -> None:
    write = json_writer(separators=separators, allow_nan=allow_nan)
    assert write(value) == json.dumps(value, ensure_ascii=False, separators=separators, allow_nan=allow_nan)


def test_a_json_writer_takes_nan_only_when_allowed() -> None:
    assert json_writer()([math.nan, math.inf]) == "[NaN, Infinity]"
    with pytest.raises(ValueError, match="JSON compliant"):
        json_writer(allow_nan=False)([math.nan])
