"""Budgets clip exactly as AgentScript 0.1.5 does, without looking at more of a value than needed.

The rule: a string keeps its first N UTF-16 units; a list or an object keeps its longest prefix of
items (entries in JS key order) whose pretty JSON text fits; scalars are never cut. The reference
cases are the ported programs tc04, tc05 and tc14 (and the sizes in the use-context example's trace). A naive
implementation, written here the way upstream does it (serialise, then binary-search the prefix
length over fully serialised prefixes), is the oracle for random values and limits.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptwire.renderers.agentscript.clipping import Clip, clip, value_text
from promptwire.renderers.agentscript.jsjson import object_entries, pretty, utf16_len, utf16_slice

ALPHABET = "abcdefghijklmnopqrstuvwxyz"
NOTES = 'Line one.\nLine two has "quotes".\n'  # tc14's notes.md, 33 characters


def naive_clip(value: Any, limit: int | None) -> tuple[Any, str]:
    """Upstream's algorithm, literally: full text first, then a binary search over prefixes."""
    text = value_text(value)
    if not limit or utf16_len(text) <= limit:
        return value, text
    if isinstance(value, str):
        cut = utf16_slice(value, limit)
        return cut, cut
    if isinstance(value, list | tuple | Mapping):
        items = object_entries(value) if isinstance(value, Mapping) else list(value)

        def prefix(n: int) -> Any:
            return dict(items[:n]) if isinstance(value, Mapping) else value[:n]

        low, high = 0, len(items)
        while low < high:
            middle = (low + high + 1) // 2
            if utf16_len(pretty(prefix(middle))) <= limit:
                low = middle
            else:
                high = middle - 1
        return prefix(low), pretty(prefix(low))
    return value, text


class TestReferenceCases:
    @pytest.mark.parametrize(("limit", "text"), [(10, "abcdefghij"), (1000, ALPHABET), (5, "abcde")])
    def test_tc04_strings(self, limit: int, text: str) -> None:
        result = clip(ALPHABET, limit)
        assert (result.value, result.text, result.clipped) == (text, text, text != ALPHABET)
        assert (result.original_size, result.clipped_size) == (26, len(text))

    def test_tc05_list_object_number(self) -> None:
        items = clip(["alpha", "beta", "gamma"], 25)
        assert items.text == '[\n  "alpha",\n  "beta"\n]'
        assert (items.value, items.clipped, items.clipped_size, items.original_size) == (
            ["alpha", "beta"],
            True,
            23,
            34,
        )
        record = clip({"first": "alpha", "second": "beta", "third": {"deep": [1, 2]}}, 30)
        assert record.text == '{\n  "first": "alpha"\n}'
        assert (record.value, record.clipped) == ({"first": "alpha"}, True)
        number = clip(12345, 3)
        assert (number.text, number.clipped, number.original_size, number.clipped_size) == ("12345", False, 5, 5)

    def test_tc14_file_text_and_parsed_json(self) -> None:
        notes = clip(NOTES, 15)
        assert (notes.text, notes.clipped, notes.original_size, notes.clipped_size) == (
            "Line one.\nLine ",
            True,
            33,
            15,
        )
        config = clip({"name": "cfg", "values": [1, 2, 3], "nested": {"on": True}}, None)
        assert (config.clipped, config.original_size, config.clipped_size) == (False, 92, 92)


class TestRules:
    @pytest.mark.parametrize("limit", [None, 0])
    def test_no_limit_means_no_clipping(self, limit: int | None) -> None:
        value = {"k": "v" * 100}
        result = clip(value, limit)
        assert (result.value, result.text, result.clipped) == (value, value_text(value), False)

    def test_negative_limit_is_refused(self) -> None:
        with pytest.raises(ValueError, match="negative"):
            clip("abc", -1)

    def test_exact_fit_is_not_clipped(self) -> None:
        assert clip("abc", 3).clipped is False
        assert clip([1], 7).clipped is False  # "[\n  1\n]" is 7 units
        assert clip([1], 6).text == "[]"

    def test_empty_prefix_even_when_brackets_exceed_the_limit(self) -> None:
        assert (clip(["long"], 1).text, clip(["long"], 1).clipped, clip(["long"], 1).clipped_size) == ("[]", True, 2)
        assert (clip({"k": 1}, 1).text, clip({"k": 1}, 1).value) == ("{}", {})

    @pytest.mark.parametrize("value", [12345678901234567890, 1.5e300, True, False, None])
    def test_scalars_are_never_cut(self, value: Any) -> None:
        result = clip(value, 1)
        assert (result.value, result.text, result.clipped) == (value, value_text(value), False)

    def test_nested_values_are_never_cut_inside(self) -> None:
        value = [{"a": "x" * 10}, {"b": "y" * 50}]
        assert clip(value, 40).value == [{"a": "x" * 10}]
        assert clip({"big": ["z"] * 30, "small": 1}, 50).value == {}

    def test_object_prefix_follows_js_key_order(self) -> None:
        result = clip({"b": "bee", "2": "two", "a": "a"}, 30)
        assert result.value == {"2": "two", "b": "bee"}
        assert result.text == '{\n  "2": "two",\n  "b": "bee"\n}'

    def test_string_clip_counts_utf16_and_may_split_a_pair(self) -> None:
        result = clip("ab😀cd", 3)
        assert (result.text, result.clipped, result.original_size, result.clipped_size) == ("ab\ud83d", True, 6, 3)
        assert clip("😀😀", 4).clipped is False  # 4 code units, 2 code points

    def test_list_clip_counts_utf16(self) -> None:
        # '[\n  "😀"\n]' is 10 UTF-16 units (9 code points)
        assert clip(["😀"], 10).clipped is False
        assert clip(["😀"], 9).text == "[]"

    def test_tuples_clip_like_lists(self) -> None:
        assert clip(("a", "b", "c"), 12).value == ("a",)

    def test_clip_is_frozen(self) -> None:
        with pytest.raises(dataclasses.FrozenInstanceError):
            clip("abc", 1).text = "x"  # type: ignore[misc]


class TestAgainstNaive:
    values = st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=10)),
        lambda children: st.one_of(
            st.lists(children, max_size=6),
            st.dictionaries(st.sampled_from(["a", "b", "2", "10", "01", "é", "😀"]), children, max_size=5),
        ),
        max_leaves=25,
    )

    @given(values, st.one_of(st.none(), st.integers(0, 120)))
    def test_same_result_as_serialise_then_search(self, value: Any, limit: int | None) -> None:
        expected_value, expected_text = naive_clip(value, limit)
        result = clip(value, limit)
        assert result.text == expected_text
        assert json.dumps(result.value) == json.dumps(expected_value)  # same keys, same order
        assert result.clipped == (expected_text != value_text(value))
        assert result.clipped_size == utf16_len(expected_text)
        assert result.original_size == utf16_len(value_text(value))
        if limit and result.clipped and not isinstance(value, str):
            assert result.clipped_size <= limit or result.text in ("[]", "{}")


class CountingMapping(Mapping[str, object]):
    """An object that counts how often its values are read, to prove what clipping looks at."""

    reads = 0

    def __init__(self, data: dict[str, object]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> object:
        CountingMapping.reads += 1
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


class TestLaziness:
    def test_clipping_reads_only_what_fits_and_sizes_the_rest_on_demand(self) -> None:
        rows = [CountingMapping({"id": i, "text": f"row {i}"}) for i in range(20_000)]
        CountingMapping.reads = 0
        result = clip(rows, 4000)
        assert result.clipped
        kept = len(result.value)  # type: ignore[arg-type]
        assert 50 < kept < 150
        # Two values per row, read once to measure (one more row: the misfit) and once to print.
        assert CountingMapping.reads <= 2 * (kept + 1) + 2 * kept
        assert result.text == pretty([dict(row) for row in rows[:kept]])
        CountingMapping.reads = 0
        assert result.original_size == utf16_len(pretty([dict(row) for row in rows]))
        assert CountingMapping.reads >= 2 * len(rows)  # the full walk happens only when asked
        CountingMapping.reads = 0
        assert result.original_size > 4000  # cached
        assert CountingMapping.reads == 0

    def test_unclipped_values_know_their_size_without_a_walk(self) -> None:
        result = clip([CountingMapping({"a": 1})], 100)
        CountingMapping.reads = 0
        assert result.original_size == result.clipped_size
        assert CountingMapping.reads == 0

    def test_clip_equality_ignores_the_lazy_parts(self) -> None:
        assert clip("abc", 2) == Clip("ab", "ab", True, 2, "abc")


def test_merged_non_string_keys_fit_whole() -> None:
    # {1: ..., "1": ...} is one JS property: it fits, so nothing is clipped.
    result = clip({1: "a", "1": "b"}, 100)
    assert (result.clipped, result.text) == (False, '{\n  "1": "b"\n}')
