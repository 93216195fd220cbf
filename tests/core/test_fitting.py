"""The generic budget fit: the longest prefix whose text, in the format's own form, fits."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from promptwire.core.fitting import TextForm, fit

COMPACT = TextForm(text=lambda value: value if isinstance(value, str) else json.dumps(value))


def test_a_string_keeps_its_first_units() -> None:
    assert fit("abcdef", 3, COMPACT).value == "abc"
    assert fit("abc", 3, COMPACT).clipped is False


def test_a_list_keeps_the_longest_fitting_prefix() -> None:
    fitted = fit([1, 22, 333, 4444], 12, COMPACT)  # "[1, 22, 333]" is 12 characters
    assert (fitted.value, fitted.text, fitted.clipped) == ([1, 22, 333], "[1, 22, 333]", True)


def test_a_mapping_keeps_the_longest_fitting_prefix_of_entries() -> None:
    fitted = fit({"a": 1, "b": 2, "c": 3}, 16, COMPACT)
    assert fitted.value == {"a": 1, "b": 2}


def test_nothing_fits_gives_an_empty_container() -> None:
    assert fit(["long item"], 3, COMPACT).value == []


def test_scalars_and_unlimited_values_are_whole() -> None:
    assert fit(12345678, 2, COMPACT).value == 12345678
    assert fit([1, 2, 3], None, COMPACT).clipped is False


@given(st.lists(st.integers() | st.text(max_size=5), max_size=40), st.integers(min_value=1, max_value=200))
def test_the_prefix_is_the_longest_that_fits(items: list[Any], limit: int) -> None:
    fitted = fit(items, limit, COMPACT)
    kept = len(fitted.value)
    assert fitted.value == items[:kept]
    assert fitted.text == json.dumps(items[:kept])
    if fitted.clipped:
        assert kept == 0 or len(fitted.text) <= limit  # an empty container shows even past the limit
        assert len(json.dumps(items[: kept + 1])) > limit
    else:
        assert kept == len(items)
