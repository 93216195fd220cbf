"""The nesting check records a dict of scalars and short texts without a walk, as the walk would."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptwire.core import nesting

FLAT_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.text(min_size=nesting.LONG_TEXT, max_size=nesting.LONG_TEXT + 5),
)
SCALARS = st.one_of(FLAT_SCALARS, st.lists(st.integers(), max_size=3))
KEYS = st.one_of(st.text(max_size=10), st.integers())


@given(st.dictionaries(KEYS, SCALARS, min_size=1, max_size=8))
def test_a_flat_dict_is_recorded_as_its_walk_records_it(mapping: dict[object, object]) -> None:
    fast, walked = nesting._Walk(), nesting._Walk()
    fast.value(mapping, ("x",))
    walked.walk(mapping, ("x",))
    assert fast.done[id(mapping)] == walked.done[id(mapping)]
    assert fast.texts == walked.texts


def test_a_flat_dict_given_twice_counts_as_a_repeat() -> None:
    arguments = {"order": 7, "note": "x" * 10}
    walk = nesting._Walk()
    walk.value(arguments, ("a",))
    walk.value(arguments, ("b",))
    assert (walk.repeated_values, walk.repeated_chars) == (5, len("order") + len("note") + 10)


CHILDREN = st.one_of(
    FLAT_SCALARS,
    st.lists(FLAT_SCALARS, max_size=4),
    st.lists(FLAT_SCALARS, max_size=3).map(tuple),
    st.dictionaries(KEYS, FLAT_SCALARS, max_size=4),
    st.lists(st.lists(st.integers(), max_size=2), max_size=2),  # deeper: left to the walk
)


@given(st.dictionaries(KEYS, CHILDREN, min_size=1, max_size=6))
def test_a_dict_of_flat_containers_is_recorded_as_its_walk_records_it(mapping: dict[object, object]) -> None:
    fast, walked = nesting._Walk(), nesting._Walk()
    fast.value(mapping, ("x",))
    walked.walk(mapping, ("x",))
    assert fast.done == walked.done  # the children's entries too: a later repeat of one reads them
    assert fast.texts == walked.texts
    assert (fast.repeated_values, fast.repeated_chars) == (walked.repeated_values, walked.repeated_chars)


def test_a_child_used_twice_in_a_dict_counts_as_a_repeat() -> None:
    names = ["INV-1008", "INV-1009"]
    walk = nesting._Walk()
    walk.value({"open": names, "due": names}, ("context", 0, "value"))
    assert (walk.repeated_values, walk.repeated_chars) == (3, 16)


def test_a_child_seen_in_an_earlier_value_counts_as_a_repeat() -> None:
    names = ["INV-1008", "INV-1009"]
    walk = nesting._Walk()
    walk.value(names, ("instruction",))
    walk.value({"open": names}, ("context", 0, "value"))
    assert (walk.repeated_values, walk.repeated_chars) == (3, 16)
    assert walk.done[id(names)] == (1, 3, 16)


def test_a_dict_of_scalars_and_flat_lists_needs_no_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    value = {"plan": "pro", "seats": 4, "open_invoices": ["INV-1008", "INV-1009"], "owner": {"name": "Ann"}}
    walked = nesting._Walk()
    walked.walk(value, ("context", 0, "value"))

    def no_walk(*_: object) -> None:
        raise AssertionError("walked")

    monkeypatch.setattr(nesting._Walk, "walk", no_walk)
    fast = nesting._Walk()
    fast.value(value, ("context", 0, "value"))
    assert fast.done == walked.done
    assert fast.done[id(value)] == (2, 13, 53)
