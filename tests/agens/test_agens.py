"""The Agens 0.2.0 front door (build, render), reader and renderer, pinned byte for byte.

The expected strings are Agens' own: its default prefixes, copied verbatim, and five prompts that
Agens 0.2.0 was run on (the worked examples below). Hypothesis compares the renderer with a short,
independent Python restatement of Agens' prompt building on random messages, and feeds untrusted
data to the front door.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import promptwire
from promptwire.core.errors import FieldError, PromptwireError, UnsupportedFieldsError, UnsupportedFieldsWarning
from promptwire.core.prompt import Prompt
from promptwire.core.rendered import RenderWarning
from promptwire.plugins.manager import PluginHost
from promptwire.renderers import agens
from promptwire.renderers.agens import (
    DEFAULT_PREFIXES,
    GENERIC_RETRY,
    AgensMessage,
    AgensResource,
    build,
    render,
    to_prompt,
)
from promptwire.renderers.agens.jason import encode
from promptwire.renderers.agens.renderer import UNLOADED_RESOURCE

from hypothesis_profile import examples

# --- Agens.Prefixes.default/0, verbatim -----------------------------------------------------------------

TOOL_DEFS_DETAIL = (
    "You have access to the following MCP tools. If you need to call one or more tools to complete the task, "
    "populate the `tool_calls` field in your structured response. If tool results have already been provided, "
    "use them to generate your response in `body` and `outputs` instead of making additional tool calls. "
    "The available tools are:\n"
)

REFERENCE_PREFIXES = {
    "context": ("Context", "The following is critical context relevant to this task"),
    "objective": ("Node Objective", "The objective of this node is to"),
    "description": ("Job Description", "This is part of a multi-node job to achieve the following"),
    "input": ("Input", "The following is the original input from the user"),
    "previous_result": ("Previous Result", "The following is the result from the previous node in this job"),
    "schema": ("Schema", "It is critical to only return a JSON object matching the exact specification below"),
    "retry": (
        "Retry",
        "The response did not pass validation. Please try again and fix the following validation errors",
    ),
    "tool_defs": ("Tool Definitions", TOOL_DEFS_DETAIL),
    "tool_calls": ("Tool Calls", "The following MCP tool calls were made by this node"),
    "tool_results": (
        "Tool Results",
        "The following are the results of MCP tool calls for this node. "
        "Use these results to formulate your response in `body` and `outputs`",
    ),
    "resources": ("Resources", "The following resources are provided as context for this node"),
}


def test_default_prefixes_are_verbatim() -> None:
    assert dict(DEFAULT_PREFIXES) == REFERENCE_PREFIXES
    assert len(DEFAULT_PREFIXES) == 11
    assert DEFAULT_PREFIXES["tool_defs"][1].endswith("are:\n")
    assert GENERIC_RETRY == "The previous response did not pass validation. Please review and try again."


def test_default_prefixes_cannot_be_mutated() -> None:
    with pytest.raises(TypeError):
        DEFAULT_PREFIXES["input"] = ("x", "y")  # type: ignore[index]


# --- five prompts as Agens 0.2.0 printed them -----------------------------------------------------------------

EX1: dict[str, Any] = {"input": "Write a haiku about autumn."}
EX1_SYSTEM = ""
EX1_USER = "## Input\nThe following is the original input from the user:\n\nWrite a haiku about autumn.\n"

EX2: dict[str, Any] = {
    "input": "Summarize the attached report.",
    "job_description": "Produce an executive brief",
    "node_objective": "summarize the report in three bullet points",
    "previous_result": "Report: revenue grew 12% YoY.",
}
EX2_CONTEXT = "You are a concise analyst."
EX2_SYSTEM_ALPHABETICAL = (
    "## Context\nThe following is critical context relevant to this task:\n\nYou are a concise analyst.\n\n"
    "## Job Description\nThis is part of a multi-node job to achieve the following:\n\nProduce an executive brief\n\n"
    "## Node Objective\nThe objective of this node is to:\n\nsummarize the report in three bullet points\n"
)
EX2_SYSTEM_DECLARED = (
    "## Job Description\nThis is part of a multi-node job to achieve the following:\n\nProduce an executive brief\n\n"
    "## Node Objective\nThe objective of this node is to:\n\nsummarize the report in three bullet points\n\n"
    "## Context\nThe following is critical context relevant to this task:\n\nYou are a concise analyst.\n"
)
EX2_USER = (
    "## Input\nThe following is the original input from the user:\n\nSummarize the attached report.\n\n"
    "## Previous Result\nThe following is the result from the previous node in this job:\n\n"
    "Report: revenue grew 12% YoY.\n"
)

EX3: dict[str, Any] = {"input": "Classify: 'great product'", "node_objective": "classify sentiment", "retries": 1}
EX3_SYSTEM = "## Node Objective\nThe objective of this node is to:\n\nclassify sentiment\n"
EX3_USER = (
    "## Input\nThe following is the original input from the user:\n\nClassify: 'great product'\n\n"
    "## Retry\nThe response did not pass validation. Please try again and fix the following validation errors:\n\n"
    "The previous response did not pass validation. Please review and try again.\n"
)

EX4: dict[str, Any] = {
    "input": "What is in the doc?",
    "retries": 2,
    "retry_reason": "outputs.score must be an integer between 1 and 10",
    "resources": [
        {"uri": "file:///notes.txt", "name": "notes", "content": "line one\nline two"},
        {"uri": "file:///empty.txt", "name": "empty"},
    ],
}
EX4_SYSTEM = (
    "## Resources\nThe following resources are provided as context for this node:\n\n"
    "### file:///notes.txt\n\n```\nline one\nline two\n```\n"
)
EX4_USER = (
    "## Input\nThe following is the original input from the user:\n\nWhat is in the doc?\n\n"
    "## Retry\nThe response did not pass validation. Please try again and fix the following validation errors:\n\n"
    "outputs.score must be an integer between 1 and 10\n"
)

EX5_CALL: dict[str, Any] = {
    "id": "call_1",
    "name": "echo",
    "arguments": [{"key": "message", "value": "hello"}],
    "server_name": "demo",
    "type": "tool_call",
}
EX5: dict[str, Any] = {
    "input": "Echo hello",
    "node_objective": "echo the user's message using the tool",
    "tool_defs": ["echo"],
    "tool_calls": [EX5_CALL],
    "tool_results": {"call_1": "Echo: hello"},
}
EX5_SYSTEM = (
    "## Node Objective\nThe objective of this node is to:\n\necho the user's message using the tool\n\n"
    "## Tool Definitions\n" + TOOL_DEFS_DETAIL + ':\n\n["echo"]\n'
)
EX5_TOOL_CALLS = (
    "## Tool Calls\nThe following MCP tool calls were made by this node:\n\n"
    '[{"arguments":[{"key":"message","value":"hello"}],"id":"call_1","name":"echo","server_name":"demo",'
    '"type":"tool_call"}]\n'
)
EX5_TOOL_RESULTS = (
    "## Tool Results\nThe following are the results of MCP tool calls for this node. Use these results to "
    'formulate your response in `body` and `outputs`:\n\n{"call_1":"Echo: hello"}\n'
)
EX5_USER = (
    "## Input\nThe following is the original input from the user:\n\nEcho hello\n\n"
    + EX5_TOOL_CALLS
    + "\n"
    + EX5_TOOL_RESULTS
)

# (message, context, alphabetical (system, user), declared (system, user)); the reference gives the
# declared form of Ex 2 and says the other examples read the same in both orders.
WORKED_EXAMPLES: dict[str, tuple[dict[str, Any], str | None, tuple[str, str], tuple[str, str]]] = {
    "ex1-minimal": (EX1, None, (EX1_SYSTEM, EX1_USER), (EX1_SYSTEM, EX1_USER)),
    "ex2-job-context-previous": (
        EX2,
        EX2_CONTEXT,
        (EX2_SYSTEM_ALPHABETICAL, EX2_USER),
        (EX2_SYSTEM_DECLARED, EX2_USER),
    ),
    "ex3-retry-generic": (EX3, None, (EX3_SYSTEM, EX3_USER), (EX3_SYSTEM, EX3_USER)),
    "ex4-retry-reason-resources": (EX4, None, (EX4_SYSTEM, EX4_USER), (EX4_SYSTEM, EX4_USER)),
    "ex5-tools": (EX5, None, (EX5_SYSTEM, EX5_USER), (EX5_SYSTEM, EX5_USER)),
}


@pytest.mark.parametrize("name", WORKED_EXAMPLES)
def test_worked_example_alphabetical(name: str) -> None:
    message, context, expected, _ = WORKED_EXAMPLES[name]
    assert render(message, context=context, order="alphabetical") == expected


@pytest.mark.parametrize("name", WORKED_EXAMPLES)
def test_worked_example_declared(name: str) -> None:
    message, context, _, expected = WORKED_EXAMPLES[name]
    assert render(message, context=context) == expected
    assert render(message, context=context, order="declared") == expected


@pytest.mark.parametrize("name", WORKED_EXAMPLES)
def test_worked_example_through_the_registered_renderer(name: str) -> None:
    message, context, _, (system, user) = WORKED_EXAMPLES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedFieldsWarning)  # what it leaves out is asserted below
        rendered = promptwire.render(to_prompt(message, context), "agens")
    assert rendered.format == "agens"
    assert [m.role for m in rendered.messages] == ["system", "user"]
    assert (rendered.messages[0].content, rendered.messages[1].content) == (system, user)
    # Agens leaves a resource without content out; the format says so, as of every field left out.
    unloaded = [index for index, item in enumerate(message.get("resources") or ()) if item.get("content") is None]
    assert rendered.warnings == tuple(
        RenderWarning("agens", f"resources[{index}]", UNLOADED_RESOURCE) for index in unloaded
    )


@pytest.mark.parametrize("name", WORKED_EXAMPLES)
def test_worked_example_from_a_message_model(name: str) -> None:
    message, context, _, expected = WORKED_EXAMPLES[name]
    assert render(AgensMessage.parse(message), context=context) == expected
    assert render(AgensMessage.model_validate(message), context=context) == expected


def test_the_orders_differ_on_a_retry_with_tools() -> None:
    message = {**EX5, "retries": 1, "previous_result": "before"}
    retry = (
        "## Retry\nThe response did not pass validation. Please try again and fix the following validation "
        "errors:\n\nThe previous response did not pass validation. Please review and try again.\n"
    )
    head = (
        "## Input\nThe following is the original input from the user:\n\nEcho hello\n\n"
        "## Previous Result\nThe following is the result from the previous node in this job:\n\nbefore\n"
    )
    _, declared = render(message)
    _, alphabetical = render(message, order="alphabetical")
    assert declared == "\n".join([head, EX5_TOOL_CALLS, EX5_TOOL_RESULTS, retry])
    assert alphabetical == "\n".join([head, retry, EX5_TOOL_CALLS, EX5_TOOL_RESULTS])


def test_every_section_in_both_orders() -> None:
    message = {
        **EX5,
        "job_description": "d",
        "previous_result": "p",
        "retries": 1,
        "resources": [{"uri": "u", "name": "n", "content": "c"}],
    }
    system_pairs, user_pairs = build(message, context="ctx")
    assert [heading for (heading, _), _ in system_pairs] == [
        "Job Description",
        "Node Objective",
        "Context",
        "Tool Definitions",
        "Resources",
    ]
    assert [heading for (heading, _), _ in user_pairs] == [
        "Input",
        "Previous Result",
        "Tool Calls",
        "Tool Results",
        "Retry",
    ]
    system_pairs, user_pairs = build(message, context="ctx", order="alphabetical")
    assert [heading for (heading, _), _ in system_pairs] == [
        "Context",
        "Job Description",
        "Node Objective",
        "Resources",
        "Tool Definitions",
    ]
    assert [heading for (heading, _), _ in user_pairs] == [
        "Input",
        "Previous Result",
        "Retry",
        "Tool Calls",
        "Tool Results",
    ]


def test_unknown_order_is_an_error() -> None:
    with pytest.raises(FieldError, match=r"^order: must be 'declared' or 'alphabetical'"):
        render(EX1, order="otp26")
    with pytest.raises(FieldError, match=r"^order:"):
        render(EX1, order="Declared")


# --- build: the pairs ---------------------------------------------------------------------------------


def test_build_returns_prefix_value_pairs_with_raw_values() -> None:
    system, user = build(EX5)
    assert system == [
        (REFERENCE_PREFIXES["objective"], "echo the user's message using the tool"),
        (REFERENCE_PREFIXES["tool_defs"], ["echo"]),
    ]
    assert user == [
        (REFERENCE_PREFIXES["input"], "Echo hello"),
        (REFERENCE_PREFIXES["tool_calls"], [EX5_CALL]),
        (REFERENCE_PREFIXES["tool_results"], {"call_1": "Echo: hello"}),
    ]


def test_build_resources_and_retry_values_are_text() -> None:
    system, user = build(EX4)
    assert system == [(REFERENCE_PREFIXES["resources"], "### file:///notes.txt\n\n```\nline one\nline two\n```")]
    assert user[1] == (REFERENCE_PREFIXES["retry"], "outputs.score must be an integer between 1 and 10")


# --- custom prefixes --------------------------------------------------------------------------------


def test_custom_prefixes_override_only_the_fields_they_name() -> None:
    system, user = render(EX2, context=EX2_CONTEXT, prefixes={"objective": ("Goal", "Your goal is to")})
    assert system == EX2_SYSTEM_DECLARED.replace(
        "## Node Objective\nThe objective of this node is to:", "## Goal\nYour goal is to:"
    )
    assert user == EX2_USER


def test_custom_prefixes_accept_lists_and_reproduce_the_colon_quirk() -> None:
    system, _ = render({"input": "x", "tool_defs": ["a"]}, prefixes={"tool_defs": ["Tools", "Pick one:\n"]})
    assert system == '## Tools\nPick one:\n:\n\n["a"]\n'


def test_custom_prefix_for_the_unused_schema_field_is_accepted() -> None:
    assert render(EX1, prefixes={"schema": ("S", "s")}) == (EX1_SYSTEM, EX1_USER)


def test_all_prefixes_replaced() -> None:
    prefixes = {name: (name.upper(), f"about {name}") for name in REFERENCE_PREFIXES}
    system, user = render({**EX5, "retries": 1}, prefixes=prefixes, order="alphabetical")
    assert system.startswith("## OBJECTIVE\nabout objective:\n\n")
    assert "## TOOL_DEFS\nabout tool_defs:\n\n" in system
    assert user.split("\n\n## ")[1].startswith("RETRY\nabout retry:")


@pytest.mark.parametrize(
    ("prefixes", "pattern"),
    [
        ({"node_objective": ("a", "b")}, r"^prefixes\.node_objective: unknown Agens prefix \(known: context, "),
        ({"input": ("a",)}, r"^prefixes\.input: must be a \(heading, detail\) pair"),
        ({"input": ("a", 1)}, r"^prefixes\.input: must be a \(heading, detail\) pair"),
        ({"input": "ab"}, r"^prefixes\.input: must be a \(heading, detail\) pair"),
        ([("input", ("a", "b"))], r"^prefixes: must be a mapping"),
    ],
)
def test_bad_prefixes_name_the_field(prefixes: Any, pattern: str) -> None:
    with pytest.raises(FieldError, match=pattern):
        render(EX1, prefixes=prefixes)


# --- what Agens drops and keeps --------------------------------------------------------------------------------------

INPUT = "## Input\nThe following is the original input from the user:\n\n"
RETRY = "## Retry\nThe response did not pass validation. Please try again and fix the following validation errors:\n\n"


def _user(message: dict[str, Any]) -> str:
    return render(message)[1]


def _system(message: dict[str, Any], context: str | None = None) -> str:
    return render(message, context=context)[0]


def test_empty_string_and_none_are_dropped() -> None:
    assert render({"input": ""}) == ("", "")
    assert render({"input": "x", "node_objective": "", "job_description": None, "previous_result": ""}) == (
        "",
        INPUT + "x\n",
    )
    assert _system({"input": "x"}, context="") == ""
    assert _system({"input": "x"}, context=None) == ""


def test_empty_lists_and_maps_in_text_fields_keep_their_section() -> None:
    system, user = render({"input": [], "node_objective": [], "job_description": {}})
    assert system == (
        "## Job Description\nThis is part of a multi-node job to achieve the following:\n\n{}\n\n"
        "## Node Objective\nThe objective of this node is to:\n\n[]\n"
    )
    assert user == INPUT + "[]\n"


def test_lists_and_maps_in_text_fields_print_as_compact_json() -> None:
    user = _user({"input": {"b": [1.0, 1e3], "a": "\x1f"}})
    assert user == INPUT + '{"a":"\\u001F","b":[1.0,1.0e3]}\n'


def test_text_is_verbatim() -> None:
    text = 'tab\there "quotes" \\ \x01 é 😀\n'
    assert _user({"input": text}) == INPUT + text + "\n"  # a trailing newline makes a blank line


def test_retry_needs_a_positive_count() -> None:
    assert RETRY not in _user({"input": "x", "retries": 0, "retry_reason": "ignored"})
    assert _user({"input": "x", "retries": 3}) == INPUT + "x\n\n" + RETRY + GENERIC_RETRY + "\n"
    assert _user({"input": "x", "retries": 1, "retry_reason": ""}).endswith(RETRY + GENERIC_RETRY + "\n")
    assert _user({"input": "x", "retries": 1, "retry_reason": None}).endswith(RETRY + GENERIC_RETRY + "\n")
    assert _user({"input": "x", "retries": None}) == INPUT + "x\n"


def test_retry_reason_list_prints_as_json_not_the_generic_text() -> None:
    assert _user({"input": "x", "retries": 1, "retry_reason": []}).endswith(RETRY + "[]\n")
    assert _user({"input": "x", "retries": 1, "retry_reason": {"score": ["too big"]}}).endswith(
        RETRY + '{"score":["too big"]}\n'
    )


def test_empty_tool_lists_leave_no_section_but_an_empty_results_map_does() -> None:
    assert render({"input": "x", "tool_defs": [], "tool_calls": []}) == ("", INPUT + "x\n")
    results = (
        "## Tool Results\nThe following are the results of MCP tool calls for this node. Use these results to "
        "formulate your response in `body` and `outputs`:\n\n{}\n"
    )
    assert _user({"input": "x", "tool_results": {}}) == INPUT + "x\n\n" + results


def test_tool_definitions_stay_opaque() -> None:
    # JSON-encoded schemas (as Agens' test support passes them) are encoded a second time
    system = _system({"input": "x", "tool_defs": ["{}", {"name": "echo", "b": 1.5}]})
    assert system.endswith(':\n\n["{}",{"b":1.5,"name":"echo"}]\n')


def test_resources() -> None:
    def resources(*items: dict[str, Any]) -> str:
        return _system({"input": "x", "resources": list(items)})

    head = "## Resources\nThe following resources are provided as context for this node:\n\n"
    assert resources() == ""
    assert resources({"uri": "a", "name": "a"}, {"uri": "b", "name": "b", "content": None}) == ""
    assert resources({"uri": "a", "name": "a", "content": ""}) == head + "### a\n\n```\n\n```\n"
    assert (
        resources(
            {"uri": "a", "name": "not shown", "description": "not shown", "content": "1"},
            {"uri": "skipped", "name": "s"},
            {"uri": "c", "name": "c", "content": "3\n"},
        )
        == head + "### a\n\n```\n1\n```\n\n### c\n\n```\n3\n\n```\n"
    )


def test_a_resource_without_content_is_reported_as_left_out_and_refused_when_strict() -> None:
    prompt = Prompt.model_validate(
        {"instruction": "x", "resources": [{"uri": "a", "content": "1"}, {"uri": "b"}, {"uri": "c", "content": None}]}
    )
    with pytest.warns(UnsupportedFieldsWarning) as caught:
        rendered = promptwire.render(prompt, "agens")
    assert [str(w.message) for w in caught] == [
        f"format 'agens': resources[{index}]: a resource without content is not loaded, and Agens leaves it out"
        for index in (1, 2)
    ]
    assert rendered.warnings == (
        RenderWarning("agens", "resources[1]", UNLOADED_RESOURCE),
        RenderWarning("agens", "resources[2]", UNLOADED_RESOURCE),
    )
    assert "### a" in rendered.messages[0].content and "### b" not in rendered.messages[0].content
    with pytest.raises(UnsupportedFieldsError, match=r"left out: resources\[1\], resources\[2\]$"):
        agens.renderer.render(prompt, strict=True)


def test_resources_as_models() -> None:
    resource = AgensResource(uri="file:///notes.txt", name="notes", content="line one\nline two")
    message = AgensMessage(
        input="What is in the doc?", resources=[resource], retries=2, retry_reason=EX4["retry_reason"]
    )
    assert render(message) == (EX4_SYSTEM, EX4_USER)


def test_other_agens_message_fields_are_ignored() -> None:
    message: dict[str, Any] = {
        **EX1,
        "id": "m1",
        "caller": None,
        "run_id": "r",
        "system": "old system",
        "user": "old user",
        "result": "old result",
        "outputs": {"a": 1},
        "next": [],
        "serving_name": "s",
        "agent_id": None,
        "job_id": "j",
        "node_id": "n",
        "thread_id": "t",
        "parent_run_id": None,
    }
    assert render(message) == (EX1_SYSTEM, EX1_USER)


# --- upstream bugs we do not copy ------------------------------------------------------------------


def test_failed_tool_calls_become_error_text() -> None:
    message = {
        "input": "x",
        "tool_results": {
            "a": ("error", "timeout"),
            "b": RuntimeError("boom"),
            "c": ("error", ValueError()),
            "d": ("error", {"code": 3}),
            "e": "fine",
        },
    }
    assert _user(message).endswith(
        ':\n\n{"a":"error: timeout","b":"error: RuntimeError: boom","c":"error: ValueError",'
        '"d":"error: {\\"code\\":3}","e":"fine"}\n'
    )
    results = to_prompt(message).tool_results
    assert [(r.call_id, r.is_error) for r in results] == [
        ("a", True),
        ("b", True),
        ("c", True),
        ("d", True),
        ("e", False),
    ]


@pytest.mark.parametrize(
    ("message", "context", "pattern"),
    [
        ({"input": 1}, None, r"^input: must be a string, a list or a map, not int"),
        ({}, None, r"^input: Field required"),
        (
            {"input": "x", "retries": 1, "retry_reason": 1},
            None,
            r"^retry_reason: must be a string, a list or a map, not int",
        ),
        ({"input": "x", "node_objective": 2.5}, None, r"^node_objective: must be"),
        ({"input": "x", "job_description": ("a",)}, None, r"^job_description: must be"),
        ({"input": "x", "previous_result": {}}, None, r"^previous_result: must be a string, not dict"),
        ({"input": "x", "previous_result": ["a"]}, None, r"^previous_result: must be a string"),
        ({"input": "x"}, 3, r"^context: must be a string or None, not int"),
        ({"input": "x"}, {"a": 1}, r"^context: must be a string"),
        ({"input": "x", "retry_reasons": "typo"}, None, r"^retry_reasons: unknown field"),
        ({"input": "x", "context": "c"}, None, r"^context: is not a field of Agens.Message; pass it as the context"),
        ({"input": "x", 3: "c"}, None, r"^message: field names must be strings"),
        ({"input": "x", "tool_calls": [{"args": ("a", "b")}]}, None, r"^tool_calls\[0\]\.args: a tuple has no JSON"),
        ({"input": "x", "tool_results": {"c": {"v": (1, 2)}}}, None, r"^tool_results\.c\.v: a tuple has no JSON"),
        ({"input": "x", "tool_results": {"c": ("error", b"x")}}, None, r"^tool_results\.c: bytes"),
        ({"input": "x", "tool_results": {"c": float("nan")}}, None, r"^tool_results\.c: nan has no JSON form"),
        ({"input": ["\ud800"]}, None, r"^input\[0\]: text holds a lone surrogate"),
        ({"input": "x", "resources": [{"uri": "u"}]}, None, r"^resources\[0\]\.name: Field required"),
        (
            {"input": "x", "resources": [{"uri": "u", "name": "n", "content": {"a": 1}}]},
            None,
            r"^resources\[0\]\.content: a dict has no text form",
        ),
        ({"input": "x", "resources": [{"uri": ("u",), "name": "n", "content": "c"}]}, None, r"^resources\[0\]\.uri:"),
        ({"input": "x", "resources": ["file:///a"]}, None, r"^resources\[0\]:"),
        ({"input": "x", "tool_results": {(1, 2): "a"}}, None, r"^tool_results: a map key must be"),
        ({"input": "x", "resources": [{"uri": "u", "name": "n", "size": 3}]}, None, r"^resources\[0\]\.size: unknown"),
    ],
)
def test_bad_messages_name_the_field(message: Any, context: Any, pattern: str) -> None:
    with pytest.raises(FieldError, match=pattern):
        render(message, context=context)
    with pytest.raises(FieldError, match=pattern):
        build(message, context=context)


def test_a_message_must_be_a_mapping() -> None:
    with pytest.raises(FieldError, match=r"^message: must be an AgensMessage or a mapping"):
        render("Write a haiku")  # type: ignore[arg-type]


def test_parse_names_the_field() -> None:
    with pytest.raises(FieldError, match=r"^input:"):
        AgensMessage.parse({"input": 5})


# --- to_prompt: the reader's mapping into the core model -------------------------------------


def test_to_prompt_mapping() -> None:
    message = {**EX2, **EX5, "retries": 2, "retry_reason": ["r"], "resources": EX4["resources"]}
    prompt = to_prompt(message, "ctx")
    assert prompt.system == "ctx"
    assert prompt.instruction == "Echo hello"
    assert [(s.kind, s.key, s.value) for s in prompt.sections] == [
        ("info", "job_description", "Produce an executive brief"),
        ("instruct", "node_objective", "echo the user's message using the tool"),
    ]
    assert prompt.previous_result == "Report: revenue grew 12% YoY."
    assert [(t.name, t.native) for t in prompt.tools] == [("echo", "echo")]
    assert [(c.name, c.id, c.arguments, c.native) for c in prompt.tool_calls] == [
        ("echo", "call_1", {"message": "hello"}, EX5_CALL)
    ]
    assert [(r.call_id, r.content, r.is_error) for r in prompt.tool_results] == [("call_1", "Echo: hello", False)]
    assert [(r.uri, r.name, r.content) for r in prompt.resources] == [
        ("file:///notes.txt", "notes", "line one\nline two"),
        ("file:///empty.txt", "empty", None),
    ]
    assert prompt.retry is not None
    assert (prompt.retry.reason, prompt.retry.attempt) == ('["r"]', 2)
    assert prompt.identity is None and prompt.context == [] and prompt.history == []


def test_to_prompt_drops_what_agens_drops() -> None:
    prompt = to_prompt(
        {"input": "", "previous_result": "", "node_objective": "", "retries": 0, "retry_reason": "r"}, ""
    )
    assert prompt.populated_fields() == ()


def test_tool_names_of_opaque_definitions() -> None:
    prompt = to_prompt({"input": "x", "tool_defs": ["echo", '{"name": "search"}', "{}", {"name": "m"}, 7]})
    assert [t.name for t in prompt.tools] == ["echo", "search", "{}", "m", "tool 4"]


# --- the registered renderer on any Prompt ------------------------------------------------------------


def test_registered_through_the_plugin_host() -> None:
    host = PluginHost(entry_points=False)
    assert "agens" in host.names("renderers")
    rendered = host.renderer("agens").render(to_prompt(EX5))
    assert (rendered.system, rendered.user) == (EX5_SYSTEM, EX5_USER)
    prompt = host.reader("agens").read({**EX2, "context": EX2_CONTEXT})
    assert promptwire.render(prompt, "agens", host=host).system == EX2_SYSTEM_DECLARED


def test_renderer_options() -> None:
    rendered = agens.renderer.render(
        to_prompt(EX2, EX2_CONTEXT), order="alphabetical", prefixes={"input": ("In", "Given")}
    )
    assert rendered.system == EX2_SYSTEM_ALPHABETICAL
    assert rendered.user == EX2_USER.replace(
        "## Input\nThe following is the original input from the user:", "## In\nGiven:"
    )
    assert [(s.role, s.key, s.title) for s in rendered.sections] == [
        ("system", "context", "Context"),
        ("system", "description", "Job Description"),
        ("system", "objective", "Node Objective"),
        ("user", "input", "In"),
        ("user", "previous_result", "Previous Result"),
    ]
    assert rendered.sections[0].body == EX2_CONTEXT
    assert rendered.sections[0].detail == REFERENCE_PREFIXES["context"][1]


def test_empty_render_still_has_both_messages() -> None:
    rendered = agens.renderer.render(Prompt())
    assert [(m.role, m.content) for m in rendered.messages] == [("system", ""), ("user", "")]


def test_a_generic_prompt_in_agens_layout() -> None:
    prompt = Prompt.model_validate(
        {
            "identity": {"role": "analyst", "description": "Be brief."},
            "system": "Answer in English.",
            "developer": "Never guess.",
            "context": [
                {"value": {"b": 1, "a": [1.0, None]}, "label": "data", "source": "†data.x"},
                {"value": "abcdefgh", "budget": 3},
                {"value": [1, 2, 3, 4], "budget": 7, "label": "clipped list"},
            ],
            "sections": [{"kind": "examples", "value": ["x -> y"]}, {"kind": "custom", "key": "Tone", "value": "dry"}],
            "instruction": "Summarize.",
            "previous_result": 42,
            "tools": [{"name": "search", "description": "web search", "parameters": {"type": "object"}}],
            "tool_calls": [{"name": "search", "id": "c1", "arguments": {"q": "x"}}, {"name": "now"}],
            "tool_results": [{"call_id": "c1", "content": ["r"]}, {"name": "now", "content": "noon"}],
            "retry": {"reason": "bad", "previous_output": {"x": 1}},
            "output": {"schema": {"type": "object"}},
        }
    )
    rendered = agens.renderer.render(prompt)
    # The source expression and the rejected output have no place in Agens' sections: said, not hidden.
    assert [(w.format, w.field) for w in rendered.warnings] == [
        ("agens", "context.source"),
        ("agens", "retry.previous_output"),
    ]
    assert rendered.system == (
        "## Context\nThe following is critical context relevant to this task:\n\n"
        "You are analyst.\nBe brief.\n\nAnswer in English.\n\nNever guess.\n\n"
        '### data\n\n{"a":[1.0,null],"b":1}\n\nabc\n\n### clipped list\n\n[1,2,3]\n\n'
        '### examples\n\n["x -> y"]\n\n### Tone\n\ndry\n\n'
        "## Tool Definitions\n" + TOOL_DEFS_DETAIL + ":\n\n"
        '[{"description":"web search","inputSchema":{"type":"object"},"name":"search"}]\n'
    )
    assert rendered.user == (
        INPUT + "Summarize.\n\n"
        "## Previous Result\nThe following is the result from the previous node in this job:\n\n42\n\n"
        "## Tool Calls\nThe following MCP tool calls were made by this node:\n\n"
        '[{"arguments":[{"key":"q","value":"x"}],"id":"c1","name":"search","type":"tool_call"},'
        '{"arguments":[],"name":"now","type":"tool_call"}]\n\n'
        "## Tool Results\nThe following are the results of MCP tool calls for this node. Use these results to "
        'formulate your response in `body` and `outputs`:\n\n{"c1":["r"],"now":"noon"}\n\n' + RETRY + "bad\n"
    )


def test_fields_agens_cannot_show_are_warned_about_once() -> None:
    prompt = Prompt.model_validate(
        {
            "instruction": "x",
            "history": [{"role": "user", "content": "hi"}],
            "attachments": [{"type": "image", "url": "https://example.com/a.png"}],
        }
    )
    with pytest.warns(UnsupportedFieldsWarning) as caught:
        rendered = promptwire.render(prompt, "agens")
    assert [str(w.message) for w in caught] == [
        "format 'agens' cannot express these prompt fields, which were left out: history, attachments"
    ]
    assert [w.field for w in rendered.warnings] == ["history", "attachments"]
    assert rendered.user == INPUT + "x\n"
    with pytest.raises(UnsupportedFieldsError):
        agens.renderer.render(prompt, strict=True)


def test_duplicate_tool_result_ids_are_an_error() -> None:
    prompt = Prompt.model_validate({"tool_results": [{"call_id": "a", "content": 1}, {"call_id": "a", "content": 2}]})
    with pytest.raises(FieldError, match=r"^tool_results\[1\]\.call_id: two results for call 'a'"):
        agens.renderer.render(prompt)


def test_unencodable_prompt_values_name_the_prompt_field() -> None:
    prompt = Prompt.model_validate({"context": [{"value": {"k": {1, 2}}}]})
    with pytest.raises(FieldError, match=r"^context\[0\]\.value\.k: a set"):
        agens.renderer.render(prompt)


# --- properties ----------------------------------------------------------------------------------

_text = st.text(max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)
_text_field = _text | st.lists(_json, max_size=3) | st.dictionaries(_text, _json, max_size=3)
_resource = st.fixed_dictionaries(
    {"uri": _text, "name": _text}, optional={"description": st.none() | _text, "content": st.none() | _text}
)
_messages = st.fixed_dictionaries(
    {"input": _text_field},
    optional={
        "node_objective": st.none() | _text_field,
        "job_description": st.none() | _text_field,
        "previous_result": st.none() | _text,
        "resources": st.none() | st.lists(_resource, max_size=3),
        "tool_defs": st.none() | st.lists(_text | st.dictionaries(_text, _json, max_size=2), max_size=3),
        "tool_calls": st.none() | st.lists(st.dictionaries(_text, _json, max_size=3), max_size=3),
        "tool_results": st.none() | st.dictionaries(_text, _json, max_size=3),
        "retries": st.integers(min_value=0, max_value=5),
        "retry_reason": st.none() | _text_field,
    },
)
_contexts = st.none() | _text


def _reference_render(msg: dict[str, Any], context: str | None, order: str) -> tuple[str, str]:
    """Agens' prompt building restated in a few lines of Python (one map of values, drop nil and "",
    keep the keys of each message in order), with Jason's encoder for lists and maps."""
    v: dict[str, Any] = {
        "objective": msg.get("node_objective"),
        "description": msg.get("job_description"),
        "input": msg["input"],
    }
    if context is not None:
        v["context"] = context
    if msg.get("previous_result") is not None:
        v["previous_result"] = msg["previous_result"]
    res = msg.get("resources") or []
    body = "\n\n".join(f"### {r['uri']}\n\n```\n{r['content']}\n```" for r in res if r.get("content") is not None)
    if body:
        v["resources"] = body
    for k in ("tool_defs", "tool_calls"):
        if isinstance(msg.get(k), list) and msg[k]:
            v[k] = msg[k]
    if isinstance(msg.get("tool_results"), dict):
        v["tool_results"] = msg["tool_results"]
    if isinstance(msg.get("retries"), int) and msg["retries"] > 0:
        v["retry"] = msg.get("retry_reason") or GENERIC_RETRY
        if isinstance(msg.get("retry_reason"), list | dict):  # [] is falsy in Python, not in Elixir
            v["retry"] = msg["retry_reason"]
    v = {k: x for k, x in v.items() if x is not None and x != ""}
    system_keys = ("description", "objective", "context", "tool_defs", "resources")
    user_keys = ("input", "previous_result", "tool_calls", "tool_results", "retry")
    keys = (sorted(system_keys), sorted(user_keys)) if order == "alphabetical" else (system_keys, user_keys)

    def section(key: str) -> str:
        heading, detail = REFERENCE_PREFIXES[key]
        value = v[key]
        return f"## {heading}\n{detail}:\n\n{value if isinstance(value, str) else encode(value)}\n"

    system, user = ("\n".join(section(k) for k in ks if k in v) for ks in keys)
    return system, user


@settings(max_examples=examples(1.5))
@given(_messages, _contexts, st.sampled_from(["declared", "alphabetical"]))
def test_matches_the_reference_restatement(message: dict[str, Any], context: str | None, order: str) -> None:
    assert render(message, context=context, order=order) == _reference_render(message, context, order)


@settings(max_examples=examples(0.5))
@given(_messages, _contexts)
def test_front_door_equals_the_registered_renderer(message: dict[str, Any], context: str | None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedFieldsWarning)  # a resource without content: its own test
        rendered = promptwire.render(to_prompt(message, context), "agens")
    assert (rendered.system, rendered.user) == render(message, context=context)


@settings(max_examples=examples(0.5))
@given(_messages, _contexts)
def test_every_section_ends_with_one_newline(message: dict[str, Any], context: str | None) -> None:
    for text in render(message, context=context):
        assert text == "" or (text.startswith("## ") and text.endswith("\n"))


_untrusted_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4) | st.binary(max_size=2),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=3) | st.integers() | st.none(), inner, max_size=3)
    ),
    max_leaves=10,
)
_field_names = st.sampled_from(
    [
        "input",
        "node_objective",
        "job_description",
        "previous_result",
        "resources",
        "tool_defs",
        "tool_calls",
        "tool_results",
        "retries",
        "retry_reason",
        "id",
        "context",
        "bogus",
    ]
)


@settings(max_examples=examples(1.5))
@given(st.dictionaries(_field_names, _untrusted_values, max_size=6), _untrusted_values)
def test_untrusted_input_renders_or_raises_a_field_error(message: dict[str, Any], context: Any) -> None:
    try:
        system, user = render(message, context=context)
    except PromptwireError as error:
        assert isinstance(error, FieldError)
        assert error.field and error.reason
        return
    assert isinstance(system, str) and isinstance(user, str)
