"""The agens format on careless and hostile input: options checked like data, budgets in Agens' own
text, huge and deep values, cycles, and what the format cannot say reported instead of hidden."""

from __future__ import annotations

import datetime as dt
import re
import time
from typing import Any

import pytest
from time_bounds import AT_ONCE  # tests/time_bounds.py (pytest's pythonpath)

from promptwire.core.errors import FieldError
from promptwire.core.prompt import Prompt
from promptwire.renderers import agens
from promptwire.renderers.agens import render, to_prompt

INPUT = "## Input\nThe following is the original input from the user:\n\n"
CONTEXT = "## Context\nThe following is critical context relevant to this task:\n\n"
HUGE_INT = 10**5000  # more digits than Python prints by default


# --- options are checked like prompt data -------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "pattern"),
    [
        ({"order": "otp26"}, r"^order: must be 'declared' or 'alphabetical', not 'otp26'$"),
        ({"order": HUGE_INT}, r"^order: must be 'declared' or 'alphabetical', not a value of type int$"),
        ({"order": ["declared"]}, r"^order: .* not a value of type list$"),
        ({"order": "x" * 10_000}, r"^order: .* not 'x{40}\.\.\.'$"),
        ({"prefixes": {HUGE_INT: ("a", "b")}}, r"^prefixes\.a value of type int: unknown Agens prefix"),
        ({"prefixes": {"input": HUGE_INT}}, r"^prefixes\.input: must be a \(heading, detail\) pair of strings, not a"),
        ({"prefixes": "input"}, r"^prefixes: must be a mapping"),
        ({"strict": "no"}, r"^strict: must be true or false, not 'no'$"),
        ({"strict": 1}, r"^strict: must be true or false, not 1$"),
    ],
)
def test_bad_options_are_field_errors_naming_the_option(options: dict[str, Any], pattern: str) -> None:
    with pytest.raises(FieldError, match=pattern) as caught:
        agens.renderer.render(Prompt(instruction="x"), **options)
    assert len(str(caught.value)) < 300  # an untrusted value is never quoted whole


def test_a_long_heading_pair_is_accepted_as_it_is() -> None:
    _, user = render({"input": "x"}, prefixes={"input": ("In", "d" * 5000)})
    assert user == "## In\n" + "d" * 5000 + ":\n\nx\n"


# --- budgets measure the text Agens prints --------------------------------------------------------


def _context(value: Any, budget: Any, label: str | None = None) -> str:
    prompt = Prompt.model_validate({"context": [{"value": value, "budget": budget, "label": label}]})
    system = agens.renderer.render(prompt).system
    assert system is not None
    return system


def test_a_list_keeps_the_items_whose_compact_json_fits() -> None:
    # Agens prints a list as compact JSON: [1,2,3] is 7 characters, [1,2,3,4] is 9.
    assert _context([1, 2, 3, 4], 7) == CONTEXT + "[1,2,3]\n"
    assert _context([1, 2, 3, 4], 9) == CONTEXT + "[1,2,3,4]\n"
    assert _context([10, 2], 3) == CONTEXT + "[]\n"  # not even the first item fits: nothing of it is shown


def test_a_map_keeps_its_first_entries_whose_json_fits() -> None:
    # The kept entries are the first ones given; Jason then prints them in its own key order.
    assert _context({"b": 1, "a": 2}, 7) == CONTEXT + '{"b":1}\n'
    assert _context({"b": 1, "a": 2}, 13) == CONTEXT + '{"a":2,"b":1}\n'


def test_a_string_keeps_its_first_code_points() -> None:
    # Code points, not UTF-16 units: an astral character counts once and is never split.
    assert _context("ab😀cd", 3) == CONTEXT + "ab😀\n"


def test_a_date_with_a_budget_prints_as_jason_prints_it() -> None:
    day = dt.date(2026, 5, 22)
    assert _context(day, 3) == CONTEXT + '"2026-05-22"\n'
    assert _context([day, day], 14) == CONTEXT + '["2026-05-22"]\n'


# --- size and depth ------------------------------------------------------------------------------------


def _deep(levels: int) -> Any:
    value: Any = "leaf"
    for _ in range(levels):
        value = [value]
    return value


def test_values_nested_a_thousand_levels_render() -> None:
    value = _deep(1000)
    expected = INPUT + "[" * 1000 + '"leaf"' + "]" * 1000 + "\n"
    assert render({"input": value})[1] == expected
    prompt = Prompt.model_validate({"instruction": value, "context": [{"value": value, "budget": 5000}]})
    rendered = agens.renderer.render(prompt)
    assert rendered.user == expected


def test_deeper_values_are_one_clear_field_error() -> None:
    with pytest.raises(FieldError, match=r"^input: the value is nested deeper than 1000 levels$"):
        render({"input": _deep(1001)})
    with pytest.raises(FieldError, match=r"^tool_results\.c: the value is nested deeper than 1000 levels$"):
        render({"input": "x", "tool_results": {"c": _deep(1001)}})
    result: Any = {"c": _deep(1000)}  # the results map around a value is the format's own level
    assert render({"input": "x", "tool_results": result})[1].endswith(
        '{"c":' + "[" * 1000 + '"leaf"' + "]" * 1000 + "}\n"
    )


def test_a_value_that_contains_itself_is_the_same_error_as_elsewhere() -> None:
    loop: list[Any] = []
    loop.append(loop)
    message = "the value contains itself (a circular structure cannot be printed)"  # core.nesting' words
    with pytest.raises(FieldError, match="^input: " + re.escape(message) + "$"):
        render({"input": {"a": loop}})
    with pytest.raises(FieldError, match=r"^tool_calls: the value contains itself"):
        render({"input": "x", "tool_calls": [loop]})


def test_integers_beyond_python_printing_are_field_errors() -> None:
    with pytest.raises(FieldError, match=r"^input\.n: integer has too many digits to print$"):
        render({"input": {"n": HUGE_INT}})
    with pytest.raises(FieldError, match=r"^resources\[0\]\.content: integer has too many digits"):
        render({"input": "x", "resources": [{"uri": "u", "name": "n", "content": HUGE_INT}]})
    with pytest.raises(FieldError, match=r"^tool_results: integer has too many digits"):
        render({"input": "x", "tool_results": {HUGE_INT: 1}})


def test_a_tool_definition_string_that_breaks_the_json_parser_is_just_a_name() -> None:
    deep = "{" + '"a":[' * 100_000
    prompt = to_prompt({"input": "x", "tool_defs": [deep, '{"n": ' + "1" * 5000 + "}"]})
    assert [tool.name for tool in prompt.tools] == [deep, '{"n": ' + "1" * 5000 + "}"]


def test_a_large_input_renders_at_once() -> None:
    # A 200,000-item list costs two walks of Jason's encoder (the reader checks it, the renderer
    # prints it), about twice json.dumps(value, indent=2): a second or so. A walk that was not
    # linear would take hours. (How fast it is belongs in benchmarks/, not in a test.)
    value = [{"id": index, "name": f"item {index}", "ok": index % 2 == 0} for index in range(200_000)]
    start = time.perf_counter()
    _, user = render({"input": value})
    assert time.perf_counter() - start < AT_ONCE
    assert user.endswith('{"id":199999,"name":"item 199999","ok":false}]\n')


# --- what Agens cannot say is reported ----------------------------------------------------------------


def test_a_description_hidden_by_native_is_reported() -> None:
    prompt = Prompt.model_validate(
        {"tools": [{"name": "echo", "description": "repeat the text", "native": "echo"}, {"name": "plain"}]}
    )
    rendered = agens.renderer.render(prompt)
    assert rendered.system is not None and rendered.system.endswith(':\n\n["echo",{"name":"plain"}]\n')
    assert [(w.field, w.reason) for w in rendered.warnings] == [
        ("tools[0].description", "Agens prints the tool's native form, which leaves this description out")
    ]


def test_failed_results_and_tool_returns_are_reported_as_unexpressed() -> None:
    # Agens prints a failed result exactly like a success and has no place for what a tool returns.
    prompt = Prompt.model_validate(
        {
            "tools": [{"name": "now", "returns": {"type": "string"}}],
            "tool_results": [{"call_id": "c", "content": "boom", "is_error": True}],
        }
    )
    rendered = agens.renderer.render(prompt)
    assert [w.field for w in rendered.warnings] == ["tools.returns", "tool_results.is_error"]
    assert rendered.user is not None and rendered.user.endswith(':\n\n{"c":"boom"}\n')


def test_a_bad_agens_entry_names_its_field() -> None:
    with pytest.raises(FieldError, match=r"^native\.agens\.tool_results: "):
        agens.renderer.render(Prompt(native={"agens": {"tool_results": {"a": 1}}}))
    with pytest.raises(FieldError, match=r"^native\.agens\.colour: unknown field"):
        agens.renderer.render(Prompt(native={"agens": {"colour": 1}}))
    with pytest.raises(FieldError, match=r"^native\.agens\.null_tool_defs: a position is outside the list"):
        agens.renderer.render(Prompt(native={"agens": {"null_tool_defs": [0]}}))
    with pytest.raises(FieldError, match=r"^native\.agens\.tool_result_keys: has 1 keys for 0 tool results"):
        agens.renderer.render(Prompt(native={"agens": {"tool_result_keys": [1]}}))
