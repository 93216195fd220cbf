"""Values whose parts are shared: a Python value (or a YAML file's aliases) may use one list in
several places, and every format prints it in full at each. Written once, printed 2**40 times, a
render would never end; so a prompt is refused at validation when its repeats stand for more than
a budget (``core.nesting``), with the field named, in a fraction of a second.

| payload | defence |
|---|---|
| ``a = [x, x]; b = [a, a]``... 40 levels, in any free field (instruction, context, a section, a tool call's arguments, a result, ``native``...) | ``parts used in several places print as more than 1,000,000 values in all`` |
| one list of 1,000,000 values in two context items | refused: the budget is the prompt's, not each value's |
| one text of 1 MiB in a list 18 times | ``... more than 16,777,216 characters in all`` |
| a dict with a key of 1 MiB, shared 18 times | refused: keys print too |
| a shared list 600 levels deep, used again under 400 more levels | ``nested deeper than 1000 levels`` (accepted before: a part met again deeper was not walked again) |
| a DAG within the budget (2**15 leaves), 16 copies of a 1 MiB text | accepted, and every format renders it in time linear in what it prints |
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from time_bounds import AT_ONCE  # tests/time_bounds.py (pytest's pythonpath)

import promptwire
from promptwire.core.errors import FieldError
from promptwire.core.nesting import LONG_TEXT, MAX_DEPTH, MAX_REPEATED_CHARS, MAX_REPEATED_VALUES

FORMATS = ("agentscript", "messages", "agens", "agently")


def shared(levels: int, leaf: Any = "x") -> Any:
    value: Any = [leaf]
    for _ in range(levels):
        value = [value, value]
    return value


def nested(levels: int, inner: Any) -> Any:
    for _ in range(levels):
        inner = [inner]
    return inner


FIELDS: dict[str, tuple[Any, str]] = {
    "instruction": (lambda value: {"instruction": value}, "instruction"),
    "a context value": (lambda value: {"context": [{"value": value}]}, "context[0].value"),
    "a section": (lambda value: {"sections": [{"kind": "info", "value": value}]}, "sections[0].value"),
    "a tool call's arguments": (
        lambda value: {"tool_calls": [{"name": "t", "arguments": {"a": value}}]},
        "tool_calls[0]",
    ),
    "a tool result": (lambda value: {"tool_results": [{"content": value}]}, "tool_results[0].content"),
    "the previous result": (lambda value: {"previous_result": value}, "previous_result"),
    "native": (lambda value: {"native": {"agens": value}}, "native"),
}

VALUES_REFUSED = f"parts used in several places print as more than {MAX_REPEATED_VALUES:,} values in all"
CHARS_REFUSED = f"parts used in several places print as more than {MAX_REPEATED_CHARS:,} characters in all"


def refused(data: dict[str, Any]) -> FieldError:
    started = time.perf_counter()
    with pytest.raises(FieldError) as caught:
        promptwire.render(data)
    assert time.perf_counter() - started < AT_ONCE
    return caught.value


@pytest.mark.parametrize("field", FIELDS)
def test_a_value_shared_at_40_levels_is_refused_at_once_naming_the_field(field: str) -> None:
    build, path = FIELDS[field]
    error = refused(build(shared(40)))
    assert str(error) == (
        f"prompt.{path}: {VALUES_REFUSED} (each place prints the whole part): write the data out, or send less of it"
    )


def test_generate_refuses_it_before_any_call() -> None:
    with pytest.raises(FieldError, match=VALUES_REFUSED):
        promptwire.generate({"instruction": shared(40)})


def test_the_budget_is_the_prompts_not_each_values() -> None:
    big = list(range(MAX_REPEATED_VALUES))
    promptwire.render({"context": [{"value": big}]})  # written once: no repeat
    error = refused({"context": [{"value": big}, {"value": big}]})
    assert str(error).startswith(f"prompt.context[1].value: {VALUES_REFUSED}")


def test_a_long_text_used_in_many_places_counts_its_characters() -> None:
    text = "y" * 2**20
    assert len(text) >= LONG_TEXT
    promptwire.render({"instruction": [text] * 17})  # 16 repeats: the budget exactly
    error = refused({"instruction": [text] * 18})
    assert str(error).startswith(f"prompt.instruction: {CHARS_REFUSED}")
    key_error = refused({"instruction": [{text: 0}] * 18})
    assert str(key_error).startswith(f"prompt.instruction: {CHARS_REFUSED}")


def test_a_shared_part_met_again_deeper_is_checked_where_it_is() -> None:
    part = nested(600, 0)
    assert str(refused({"instruction": [part, nested(400, part)]})) == (
        f"prompt.instruction: the value is nested deeper than {MAX_DEPTH} levels"
    )
    promptwire.render({"instruction": [part, nested(399, part)]})  # 1000 levels: the limit


@pytest.mark.parametrize("format_name", FORMATS)
def test_shared_parts_within_the_budget_render_in_every_format(format_name: str) -> None:
    text = "y" * 2**20
    data = {"instruction": "go", "context": [{"value": shared(15)}, {"value": [text] * 16}]}
    started = time.perf_counter()
    rendered = promptwire.render(data, format_name)
    assert time.perf_counter() - started < AT_ONCE
    assert sum(len(str(message.content)) for message in rendered.messages) > 16 * 2**20
