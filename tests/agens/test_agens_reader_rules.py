"""The reader accepts every message Agens 0.2.0 renders without complaint, and prints it as Agens does.

Each test states one rule of Agens' prompt building in words and pins the exact bytes. What crashes
Agens itself is refused with a FieldError naming the field (tests/agens/test_agens.py has that list).
"""

from __future__ import annotations

from typing import Any

import pytest

import promptwire
from promptwire.renderers.agens import render, to_prompt

INPUT = "## Input\nThe following is the original input from the user:\n\n"
RETRY = "## Retry\nThe response did not pass validation. Please try again and fix the following validation errors:\n\n"
GENERIC = "The previous response did not pass validation. Please review and try again.\n"
TOOL_DEFS = (
    "## Tool Definitions\nYou have access to the following MCP tools. If you need to call one or more tools to "
    "complete the task, populate the `tool_calls` field in your structured response. If tool results have already "
    "been provided, use them to generate your response in `body` and `outputs` instead of making additional tool "
    "calls. The available tools are:\n:\n\n"
)
TOOL_CALLS = "## Tool Calls\nThe following MCP tool calls were made by this node:\n\n"
TOOL_RESULTS = (
    "## Tool Results\nThe following are the results of MCP tool calls for this node. Use these results to "
    "formulate your response in `body` and `outputs`:\n\n"
)
RESOURCES = "## Resources\nThe following resources are provided as context for this node:\n\n"


def test_input_none_is_allowed_and_leaves_no_input_section() -> None:
    # Only sending a message refuses a nil input; building its prompt just has no Input section.
    assert render({"input": None}) == ("", "")
    assert render({"input": None, "previous_result": "p"}) == (
        "",
        "## Previous Result\nThe following is the result from the previous node in this job:\n\np\n",
    )
    assert "instruction" not in to_prompt({"input": None}).model_dump()


def test_integer_map_keys_print_through_to_string_and_sort_first() -> None:
    # A map's integer keys print as their digits and come before its string keys, in numeric order.
    assert render({"input": {"b": 1, 10: "ten", 2: "two"}})[1] == INPUT + '{"2":"two","10":"ten","b":1}\n'


def test_integer_tool_result_keys_keep_agens_order() -> None:
    # The results map is printed with Agens' own keys, so integer ids sort numerically before strings.
    message = {"input": "x", "tool_results": {"b": "B", 10: "ten", 2: "two"}}
    assert render(message)[1] == INPUT + "x\n\n" + TOOL_RESULTS + '{"2":"two","10":"ten","b":"B"}\n'
    prompt = to_prompt(message)
    assert [result.call_id for result in prompt.tool_results] == ["b", "10", "2"]
    assert prompt.native == {"agens": {"tool_result_keys": ["b", 10, 2]}}
    assert promptwire.render(prompt, "agens").user == render(message)[1]


def test_none_items_inside_lists_are_kept_as_null() -> None:
    # Agens keeps nil items of a list and Jason prints them as null.
    message = {"input": "x", "tool_defs": ["echo", None], "tool_calls": [None], "node_objective": [None, 1]}
    system, user = render(message)
    assert (
        system == "## Node Objective\nThe objective of this node is to:\n\n[null,1]\n\n" + TOOL_DEFS + '["echo",null]\n'
    )
    assert user == INPUT + "x\n\n" + TOOL_CALLS + "[null]\n"


@pytest.mark.parametrize("retries", [1.0, True, "1", -1, 0, None, [1]])
def test_retries_that_are_not_a_positive_integer_mean_no_retry(retries: Any) -> None:
    # The Retry section needs an integer above zero; a float, true (an atom in Elixir), a string or a
    # count of zero or less leave it out, whatever the reason says.
    assert render({"input": "x", "retries": retries, "retry_reason": "r"}) == ("", INPUT + "x\n")


def test_a_retry_reason_agens_never_prints_is_not_checked() -> None:
    # The reason is only printed (and so only able to crash Agens) when there is a Retry section.
    assert render({"input": "x", "retries": 0, "retry_reason": 5}) == ("", INPUT + "x\n")
    assert render({"input": "x", "retries": 2})[1] == INPUT + "x\n\n" + RETRY + GENERIC


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("tool_defs", "echo"),
        ("tool_defs", {"name": "echo"}),
        ("tool_calls", {"id": "c"}),
        ("tool_results", ["a"]),
        ("tool_results", "a"),
        ("resources", {"uri": "u", "name": "n", "content": "c"}),
        ("resources", 3),
    ],
)
def test_lists_and_maps_of_the_wrong_container_type_are_skipped(field: str, value: Any) -> None:
    # Agens puts tool_defs, tool_calls and resources only when they are lists, tool_results only when
    # it is a map; anything else leaves no section.
    assert render({"input": "x", field: value}) == ("", INPUT + "x\n")


def test_a_resource_uri_of_nil_prints_as_empty_text() -> None:
    # The resource heading interpolates the uri: nil becomes "".
    system, _ = render({"input": "x", "resources": [{"uri": None, "name": "n", "content": "c"}]})
    assert system == RESOURCES + "### \n\n```\nc\n```\n"


def test_resource_content_goes_through_string_chars() -> None:
    # Interpolation prints a number as its digits (a float in Erlang's short form), true/false as
    # words, and a list as the text its code points and strings spell.
    resources = [
        {"uri": 7, "name": "n", "content": 42},
        {"uri": "f", "name": "n", "content": 1000.0},
        {"uri": "b", "name": "n", "content": False},
        {"uri": "l", "name": "n", "content": [104, "i", [33]]},
    ]
    system, _ = render({"input": "x", "resources": resources})
    assert system == RESOURCES + (
        "### 7\n\n```\n42\n```\n\n### f\n\n```\n1.0e3\n```\n\n### b\n\n```\nfalse\n```\n\n### l\n\n```\nhi!\n```\n"
    )


def test_an_empty_results_map_is_native_agens_data_not_a_section() -> None:
    # Agens keeps an empty results map and prints {}; other formats see it only as native.agens.
    message = {"input": "x", "tool_results": {}}
    assert render(message)[1] == INPUT + "x\n\n" + TOOL_RESULTS + "{}\n"
    prompt = to_prompt(message)
    assert prompt.sections == []
    assert prompt.native == {"agens": {"tool_results": {}}}
    assert prompt.populated_fields() == ("instruction", "native.agens")
    assert promptwire.render(prompt, "agens").warnings == ()
    agently = promptwire.PluginHost(entry_points=False).renderer("agently").render(prompt)
    assert "tool_results" not in (agently.text or "") + str([m.content for m in agently.messages])
    assert [w.field for w in agently.warnings] == ["native.agens"]


def test_the_agens_entry_survives_a_save_and_load() -> None:
    # A prompt dumped and loaded again renders the same bytes.
    message = {"input": "x", "tool_results": {}, "tool_defs": [None, "a"], "tool_calls": [None]}
    prompt = to_prompt(message)
    again = promptwire.Prompt.model_validate_json(prompt.model_dump_json())
    assert promptwire.render(again, "agens").messages == promptwire.render(prompt, "agens").messages
    assert (promptwire.render(again, "agens").system, promptwire.render(again, "agens").user) == render(message)
