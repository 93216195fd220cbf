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


def _walked_one_by_one(values: list[tuple[tuple[str | int, ...], object]]) -> nesting._Walk:
    walk = nesting._Walk()
    for path, value in values:
        walk.value(value, path)
    return walk


@given(st.lists(st.integers(min_value=0, max_value=5), max_size=12), st.booleans())
def test_empty_mappings_are_recorded_as_each_would_be(picks: list[int], seen_before: bool) -> None:
    """Empty dicts given as one EmptyMappings (the schemas of bare tools) leave the walk as the same
    dicts given one by one at their own paths do: each recorded, and any repeat (among them, or of
    a dict a value before held) counted."""
    pool: list[dict[object, object]] = [{} for _ in range(6)]
    schemas = nesting.EmptyMappings(pool[pick] for pick in picks)
    before: list[tuple[tuple[str | int, ...], object]] = [(("instruction",), [pool[0]])] if seen_before else []
    batched = _walked_one_by_one(before)
    batched.empty_mappings(schemas, ("tools",))
    one_by_one = _walked_one_by_one([*before, *((("tools", i), schema) for i, schema in enumerate(schemas))])
    assert batched.done == one_by_one.done
    assert (batched.repeated_values, batched.repeated_chars) == (one_by_one.repeated_values, 0)
    assert {id(value) for value in batched.kept} == {id(value) for value in one_by_one.kept}


def test_check_values_names_the_tool_whose_empty_schema_passes_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    schema: dict[object, object] = {}
    monkeypatch.setattr(nesting, "MAX_REPEATED_VALUES", 2)
    with pytest.raises(nesting.FieldError) as caught:
        nesting.check_values([(("tools",), nesting.EmptyMappings([schema] * 5))])
    assert caught.value.field == "tools[3]"  # the fourth is the third repeat: one value past the budget


def test_a_prompt_of_bare_tools_given_twice_the_same_tool_counts_the_repeat(monkeypatch: pytest.MonkeyPatch) -> None:
    from promptwire.core.prompt import Prompt, ToolDefinition

    tool = ToolDefinition(name="lookup", description="Looks a record up.")
    monkeypatch.setattr(nesting, "MAX_REPEATED_VALUES", 1)
    Prompt(tools=[tool, tool])  # one repeat: within the budget
    with pytest.raises(ValueError, match="parts used in several places"):
        Prompt(tools=[tool, tool, tool])
