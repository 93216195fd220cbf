"""Tool and memory calls in programs: they reach the scheme a plugin registered for the URI, are
traced as AgentScript traces them, and fail with AgentScript's messages."""

from __future__ import annotations

from typing import Any

import pytest

from promptwire import PluginHost, hookimpl
from promptwire.core.tools import MemoryOutcome, ToolContext, ToolError, ToolOutcome, ToolRequest
from promptwire.frontend.agentscript.interpreter import RunError
from promptwire.runs.run import run

from agentscript_source import as_program

PROGRAM = as_program(
    """
    saved = Notes.put({ key: "a", value: input.text })
    Lessons.add({ text: "keep it short" })
    found = Lessons.query({ text: "short" })
    use Notes.get({ key: "a" }) as note
    generate({ input: found })
    """,
    'import tool Notes from "kv://notes"',
    'import memory Lessons from "kv://lessons"',
)


class KeyValueScheme:
    """A scheme kept in memory: tools put and get values, memories add and query records."""

    name = "kv"
    description = "an in-memory key-value store, for tests"
    kinds = frozenset({"tool", "memory"})

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.records: list[Any] = []

    def call_tool(self, call: ToolRequest, context: ToolContext) -> ToolOutcome:
        method = call.method
        (request,) = call.args
        if method == "put":
            self.values[request["key"]] = request["value"]
            return ToolOutcome({"ok": True}, effects=[{"put": request["key"]}])
        if method == "get":
            if request["key"] not in self.values:
                raise ToolError(f"no value under {request['key']!r}")
            return ToolOutcome(self.values[request["key"]])
        raise ToolError(f"unknown method {method!r}")

    def call_memory(self, call: ToolRequest, context: ToolContext) -> MemoryOutcome:
        operation = call.method
        (request,) = call.args
        if operation == "add":
            self.records.append(request)
            return MemoryOutcome({"ok": True}, count=1, id=len(self.records), record=request)
        hits = [record for record in self.records if request["text"] in record["text"]]
        return MemoryOutcome(hits, count=len(hits))


class Plugin:
    def __init__(self, scheme: KeyValueScheme) -> None:
        self.scheme = scheme

    @hookimpl
    def register_tool_schemes(self, register: Any) -> None:
        register(self.scheme)


def _host() -> tuple[PluginHost, KeyValueScheme]:
    scheme = KeyValueScheme()
    return PluginHost(entry_points=False, plugins=[Plugin(scheme)]), scheme


def test_tool_and_memory_calls_reach_the_registered_scheme_and_are_traced() -> None:
    host, scheme = _host()
    result = run(PROGRAM, {"text": "hello"}, host=host, path="kv.as")
    assert scheme.values == {"a": "hello"}
    (call,) = result.calls
    assert call.rendered.user == (
        'Context:\n[note]\nsource: Notes.get({ key: "a" })\nhello\nInstruction:\n[\n  {\n    "text": "keep it short"\n  }\n]'
    )
    tool, add, query = [event for event in result.trace if event["kind"] in ("tool", "memory")][:3]
    assert tool == {
        "kind": "tool",
        "data": {
            "tool": "Notes",
            "method": "put",
            "scheme": "kv",
            "uri": "kv://notes",
            "args": [{"key": "a", "value": "hello"}],
            "result": {"ok": True},
            "effects": [{"put": "a"}],
        },
    }
    assert list(add["data"]) == ["memory", "operation", "uri", "args", "result", "count", "id", "record"]
    assert list(query["data"]) == ["memory", "operation", "uri", "args", "result", "count"]
    assert query["data"]["count"] == 1


def test_a_failing_tool_names_itself_its_method_and_uri() -> None:
    host, _ = _host()
    program = PROGRAM.replace('Notes.put({ key: "a", value: input.text })', 'Notes.get({ key: "zzz" })')
    with pytest.raises(RunError) as caught:
        run(program, {"text": "x"}, host=host, path="kv.as")
    assert caught.value.message == "Tool Notes.get (kv://notes) failed: no value under 'zzz'"
    assert (caught.value.line, caught.value.column) == (11, 17)


def test_an_unknown_scheme_gets_the_references_error() -> None:
    program = PROGRAM.replace('"kv://notes"', '"mcp://notes"')
    with pytest.raises(RunError, match="Unsupported tool URI scheme 'mcp'"):
        run(program, {"text": "x"}, host=PluginHost(entry_points=False), path="kv.as")


def test_a_scheme_serving_only_tools_is_no_memory() -> None:
    host, scheme = _host()
    scheme.kinds = frozenset({"tool"})
    with pytest.raises(RunError, match="Unsupported memory URI scheme 'kv'"):
        run(PROGRAM, {"text": "x"}, host=host, path="kv.as")


REFERENCES = as_program(
    """
    draft = { title: "T", lines: ["one", "two"] }
    Notes.put({ key: "doc", value: "†input.document" })
    Notes.put({ key: "second", value: "†state.draft.lines.1", _outputPath: "†state.kept" })
    Notes.put({ key: "either", value: "†input.missing || †state.draft.title" })
    Notes.put({ key: "literal", value: "††input.document" })
    """,
    'import tool Notes from "kv://notes"',
)


def test_dagger_references_in_tool_arguments_reach_the_tool_resolved_and_the_trace_as_written() -> None:
    host, scheme = _host()
    result = run(REFERENCES, {"document": "a long document"}, host=host, path="refs.as")
    assert scheme.values == {"doc": "a long document", "second": "two", "either": "T", "literal": "†input.document"}
    traced = [event["data"]["args"][0] for event in result.trace if event["kind"] == "tool"]
    assert traced[0] == {"key": "doc", "value": "†input.document"}
    assert traced[1] == {"key": "second", "value": "†state.draft.lines.1", "_outputPath": "†state.kept"}


def test_an_unresolvable_reference_fails_the_tool_call_naming_the_argument_and_the_missing_segment() -> None:
    host, scheme = _host()
    program = REFERENCES.replace('"†input.document"', '"†input.documnet"')
    with pytest.raises(RunError) as caught:
        run(program, {"document": "x"}, host=host, path="refs.as")
    assert caught.value.message == (
        "Tool Notes.put (kv://notes) failed: value: unresolved reference '†input.documnet': '†input' has no 'documnet'"
    )
    assert caught.value.line == 11
    assert scheme.values == {}


def test_a_malformed_reference_is_an_error_not_a_literal() -> None:
    host, _ = _host()
    program = REFERENCES.replace('"†input.document"', '"†input..document"')
    with pytest.raises(RunError, match=r"failed: value: invalid reference '†input\.\.document'"):
        run(program, {"document": "x"}, host=host, path="refs.as")
