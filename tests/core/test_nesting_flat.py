"""The nesting check records a dict of scalars and short texts without a walk, as the walk would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from promptwire.core import nesting

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.text(min_size=nesting.LONG_TEXT, max_size=nesting.LONG_TEXT + 5),
    st.lists(st.integers(), max_size=3),
)
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
