"""The interpreter's runtime rules, one at a time, on small programs written here.

The rules are AgentScript 0.1.5's: values, equality and truthiness, lists and members, loops,
bindings as JSON, cycles as ``"[Circular]"``, the runtime error texts, and the call-depth limit of
1000, reached as the reference reaches it rather than as a Python RecursionError.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from promptwire import PluginHost
from promptwire.frontend.agentscript.interpreter import RunError
from promptwire.runs.options import RunOptions
from promptwire.runs.run import run

HOST = PluginHost(entry_points=False)
HEAD = 'import llm M from "openai://gpt-4o"\nimport tool S from "mcp://tools/search"\n'


def _program(main_body: str, *, functions: str = "", agents: str = "") -> str:
    return (
        HEAD
        + 'main agent A {\n    model M\n    role "R"\n    description "D"\n\n'
        + "    main func(input) {\n"
        + "".join(f"        {line}\n" for line in main_body.strip("\n").split("\n"))
        + "    }\n"
        + functions
        + "}\n"
        + agents
    )


def _value(main_body: str, **parts: str) -> Any:
    return run(_program(main_body, **parts), {}, host=HOST, path="t.as").value


def _error(main_body: str, **parts: str) -> RunError:
    with pytest.raises(RunError) as caught:
        run(_program(main_body, **parts), {}, host=HOST, path="t.as")
    return caught.value


def test_values_lists_loops_and_bindings_follow_the_reference() -> None:
    value = run(
        _program(
            """
xs = []
xs.add(1)
xs.add({ a: 1, b: 2 })
ys = []
loop until ys.length == 3 max 10 {
    ys.add(1)
}
repeat * 2 {
    ys.add(2)
}
seen = []
for x in xs max 1 {
    seen.add(x)
}
o = { p: 1 }
o.p = 2
{ len: xs.length, s: xs.summary, first: xs[1].b, ys: ys, seen: seen, o: o, m: M, f: helper, ag: A, sm: S.search, k: 2k, e: 1e5 }
""",
            functions="\n    func helper() {\n        1\n    }\n",
        ),
        {},
        host=HOST,
        path="t.as",
    )
    assert value.to_dict()["value"] == {
        "len": 2,
        "s": [1, {"a": 1, "b": 2}],
        "first": 2,
        "ys": [1, 1, 1, 2, 2],
        "seen": [1],
        "o": {"p": 2},
        "m": {"llm": "M", "uri": "openai://gpt-4o"},
        "f": {"function": "helper", "agent": "A"},
        "ag": {"agent": "A"},
        "sm": {"tool": "S", "method": "search"},
        "k": 2,
        "e": 100000,
    }
    assert value.trace == [{"kind": "for", "data": {"item": "x", "index": 0, "value": 1}}]


def test_equality_compares_json_text_and_and_or_give_booleans() -> None:
    assert _value(
        "{ same: { a: 1, b: 2 } == { a: 1, b: 2 }, order: { a: 1, b: 2 } == { b: 2, a: 1 }, "
        'lt: 1 < 2, and: 1 and "x", or: none or [], not: not [], notzero: not 0, text: not "" }'
    ) == {
        "same": True,
        "order": False,
        "lt": True,
        "and": True,
        "or": False,
        "not": True,
        "notzero": True,
        "text": True,
    }


def test_a_value_that_contains_itself_is_shown_as_circular() -> None:
    result = run(
        _program("o = { a: 1 }\nxs = [1]\nxs.add(xs)\no.self = o\nuse o\ngenerate({ input: [xs, xs] })\no == o"),
        {},
        host=HOST,
        path="t.as",
    )
    assert result.value is True
    (call,) = result.calls
    assert call.prompt.context[0].value == {"a": 1, "self": "[Circular]"}
    # Only a value inside itself is circular; the same list twice side by side is printed twice.
    assert call.prompt.instruction == [[1, "[Circular]"], [1, "[Circular]"]]


@pytest.mark.parametrize(
    ("body", "message", "where"),
    [
        # The index's own errors point inside the brackets, a value that is no list at the value.
        ("xs = [1]\nxs[3]", "List index 3 is out of range", (10, 12)),
        ('xs = [1]\nxs["a"]', "List index must be a non-negative integer", (10, 12)),
        ("o = { a: 1 }\no[0]", "Index access requires a list value", (10, 9)),
        ("xs = []\nxs.foo", "Unknown list property 'foo'", (10, 9)),
        ("x = 1\nx.foo", "Cannot read property 'foo'", (10, 9)),
        ("xs = []\nxs.a = 1", "Cannot assign a property on a list value", (10, 9)),
        ("x = 1\nx.a = 1", "Cannot assign a property on a non-object value", (10, 9)),
        ('"a" < 1', "operator '<' requires number operands", (9, 9)),
        ("x = { a: 1 }\nx.a(1)", "Unsupported member call 'a'", (10, 9)),
        ("S.search({ q: 1 })", "Unsupported tool URI scheme 'mcp'", (9, 9)),
        # A use is evaluated at the generate, in its own scope, and its error points at the use.
        ('use input.missing as m\ngenerate({ input: "x" })', "Unknown object property 'missing'", (9, 13)),
    ],
)
def test_runtime_errors_have_the_references_text_and_place(body: str, message: str, where: tuple[int, int]) -> None:
    error = _error(body)
    assert error.message == message
    assert str(error).startswith(f"t.as:{where[0]}:{where[1]}: error[RUNTIME_ERROR]: {message}\n")


def test_a_context_budget_too_large_to_count_clips_nothing() -> None:
    # The reference's context limit, 1e23 here, is longer than any text: nothing is clipped. (As
    # an output limit no provider takes it: the checks refuse it, tests/agentscript/test_as_bad_programs.py.)
    result = run(_program('use "abc" max 99999999999999999999k as t\ngenerate({ input: "x" })'), {}, host=HOST)
    assert result.calls[0].rendered.user == 'Context:\n[t]\nsource: "abc"\nabc\nInstruction:\nx'
    (data,) = [event["data"] for event in result.trace if event["kind"] == "generate"]
    assert data["context"]["context"][0]["budget"] == {"amount": 10**20, "unit": "k"}


RECURSE = "\n    func f(x) {\n        f(x)\n    }\n"


def _recursing_in_blocks(depth: int) -> str:
    body = "".join("    " * (2 + level) + "if true {\n" for level in range(depth))
    body += "    " * (2 + depth) + "f(x)\n"
    body += "".join("    " * (2 + level) + "}\n" for level in reversed(range(depth)))
    return "\n    func f(x) {\n" + body + "    }\n"


@pytest.mark.parametrize("functions", [RECURSE, _recursing_in_blocks(4)], ids=["bare", "in-four-blocks"])
def test_endless_recursion_stops_at_the_references_call_depth(functions: str) -> None:
    limit = sys.getrecursionlimit()
    error = _error("f(1)", functions=functions)
    assert error.message == "Maximum call depth of 1000 exceeded"
    assert sys.getrecursionlimit() == limit  # the room a run takes is given back


def test_agents_calling_each_other_stop_at_the_call_depth_too() -> None:
    agents = (
        'agent B {\n    model M\n    role "R"\n    description "D"\n    main func(x) {\n'
        "        for i in [1] max 1 {\n            A.go([[x]])\n        }\n    }\n}\n"
    )
    functions = "\n    func go(x) {\n        B(x)\n    }\n"
    assert _error("B(1)", functions=functions, agents=agents).message == "Maximum call depth of 1000 exceeded"


def test_calls_too_deep_for_pythons_stack_are_a_located_error() -> None:
    # Thirty blocks around each call: Python's stack ends before 1000 calls; still no RecursionError.
    error = _error("f(1)", functions=_recursing_in_blocks(30))
    assert error.message.startswith("Program nests too deeply to run")
    assert str(error).startswith("t.as:43:129: error[RUNTIME_ERROR]")  # the innermost call


def _nested(levels: int, tail: str) -> str:
    return (
        f"o = {{}}\nys = []\nloop until ys.length == {levels} max {levels} {{\n    ys.add(1)\n    o = {{ a: o }}\n}}\n"
        + tail
    )


def test_a_prompt_value_nested_past_the_prompt_limit_is_refused_at_its_use() -> None:
    error = _error(_nested(1500, 'use o as deep\ngenerate({ input: "x" })'))
    assert error.message == "Cannot build the prompt: context[0].value: the value is nested deeper than 1000 levels"
    assert (error.line, error.column) == (15, 9)


def test_a_deep_value_the_program_returns_can_be_shown() -> None:
    result = run(_program(_nested(3000, "o")), {}, host=HOST, path="t.as")
    shown = result.to_dict()["value"]
    for _ in range(3000):
        shown = shown["a"]
    assert shown == {}


def test_a_failed_run_keeps_every_call_it_made_on_the_error() -> None:
    # A later call fails its checks on both attempts: the first generate's call and both failed
    # attempts are on the error, as the run made them, for whoever shows a failed run's calls.
    program = _program(
        'first = generate({ input: "one" })\nsecond = generate({ input: "two", attempts: 2 }) -> {\n    n number\n}'
    )
    replies = ["fine", '{"n": "x"}', '{"n": "y"}']
    with pytest.raises(RunError, match="LLM result field must be a number") as caught:
        run(program, {}, RunOptions(responses=replies), host=HOST, path="t.as")
    calls = caught.value.calls
    assert [(str(call.site), call.attempt) for call in calls] == [
        ("t.as:9:17", 1),
        ("t.as:10:18", 1),
        ("t.as:10:18", 2),
    ]
    assert [call.reply.text if call.reply else None for call in calls] == replies
    assert calls[2].error == "LLM result field must be a number at 11:13"
