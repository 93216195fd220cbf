"""AgentScript programs run offline produce the reference's prompts, values and errors.

Every ported reference program (tc01-tc20 that run) is executed by the interpreter with its input
and canned model replies; every model call's system and user text is compared byte for byte with
the reference's (the same expected texts the renderer tests use), and the program's value or error
with the reference's result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_agentscript_renderer import EXPECTED

from promptwire import PluginHost
from promptwire.frontend.agentscript.diagnostics import CheckError
from promptwire.frontend.agentscript.interpreter import RunError
from promptwire.runs.options import RunOptions
from promptwire.runs.run import run

DATA = Path(__file__).parents[1] / "data" / "as"
RUNS: dict[str, dict[str, Any]] = json.loads((DATA / "runs.json").read_text(encoding="utf-8"))
HOST = PluginHost(entry_points=False)


def _expected_calls(name: str) -> list[tuple[str, str]]:
    keys = sorted((key for key in EXPECTED if key.split("/")[0] == name), key=lambda key: int(key.split("/")[1]))
    return [(json.loads(EXPECTED[key][0]), json.loads(EXPECTED[key][1])) for key in keys]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_reference_program_runs_as_the_reference_does(name: str) -> None:
    case = RUNS[name]
    path = DATA / "valid" / f"{name}.as"
    if "error" in case:
        with pytest.raises(RunError) as caught:
            run(path, case["input"], RunOptions(responses=case.get("responses") or ()), host=HOST)
        assert caught.value.message == case["error"]
        return
    result = run(path, case["input"], RunOptions(responses=case.get("responses") or ()), host=HOST)
    assert result.value == case["value"]
    shown = [(call.rendered.system, call.rendered.user) for call in result.calls]
    assert shown == _expected_calls(name)


def test_the_trace_of_a_generate_names_what_was_shown() -> None:
    result = run(DATA / "valid" / "tc04_clip_string.as", RUNS["tc04_clip_string"]["input"], host=HOST)
    kinds = [event["kind"] for event in result.trace]
    assert set(kinds[:-1]) == {"use"} and kinds[-1] == "generate"
    data = result.trace[-1]["data"]
    assert list(data) == ["instruction", "config", "attempts", "maxOutput", "debug", "context", "validation", "result"]
    assert list(data["context"]) == [
        "agentName",
        "model",
        "identity",
        "system",
        "context",
        "instruction",
        "returnSchema",
        "maxOutput",
        "finalUserMessage",
    ]
    item = data["context"]["context"][0]
    assert list(item) == [
        "index",
        "source",
        "label",
        "value",
        "text",
        "budget",
        "clipped",
        "originalSize",
        "clippedSize",
    ]
    assert item["clipped"] is True


def test_agent_calls_nest_their_trace() -> None:
    result = run(DATA / "valid" / "tc10_scopes.as", RUNS["tc10_scopes"]["input"], host=HOST)
    agent_events = [event for event in result.trace if event["kind"] == "agent"]
    assert len(agent_events) == 1
    assert agent_events[0]["data"]["agent"] == "Worker"
    assert [event["kind"] for event in agent_events[0]["data"]["trace"]] == ["use", "generate"]


def test_a_runtime_error_is_located_with_a_caret(tmp_path: Path) -> None:
    program = tmp_path / "bad.as"
    program.write_text(
        'import llm M from "openai://gpt-4o"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        "    main func(input) {\n        x = input.missing\n    }\n}\n",
        encoding="utf-8",
    )
    with pytest.raises(RunError) as caught:
        run(program, {}, host=HOST)
    assert caught.value.message == "Unknown object property 'missing'"
    assert str(caught.value).startswith(f"{program}:7:13: error[RUNTIME_ERROR]: Unknown object property 'missing'\n")
    assert str(caught.value).endswith("\n            ^")


def test_the_generate_trace_event_is_the_references_byte_for_byte() -> None:
    # The reference's use-context example (its trace event is quoted whole by the reference; the
    # program is written here from what that event shows: agent, model, identity, uses, options).
    folder = DATA / "runs"
    result = run(
        folder / "use_context.as",
        {"question": "What is AgentScript?", "docs": {"summary": "AgentScript makes prompt context explicit."}},
        host=HOST,
    )
    (call,) = result.calls
    system, user = EXPECTED["11.2_use_context/0"]
    assert (call.rendered.system, call.rendered.user) == (json.loads(system), json.loads(user))
    event = result.trace[-1]
    expected = (folder / "use_context.generate_event.json").read_text(encoding="utf-8")
    assert json.dumps(event, indent=2, ensure_ascii=False) == expected.rstrip("\n")
    assert [e["kind"] for e in result.trace] == ["use", "use", "generate"]
    assert result.trace[1] == {
        "kind": "use",
        "data": {"source": "input.docs.summary", "label": "evidence", "budget": {"amount": 2, "unit": "k"}},
    }


HEAD = 'import llm M from "openai://gpt-4o"\n'


def _agent(name: str, body: str, *, main: bool = False, extra: str = "") -> str:
    return (
        f'{"main " if main else ""}agent {name} {{\n    model M\n    role "{name} role"\n    description "D"\n'
        f"    main func(input) {{\n{body}\n    }}\n}}\n{extra}"
    )


def test_an_imported_agent_runs_with_its_own_files(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "notes.md").write_text("helper notes", encoding="utf-8")
    (tmp_path / "lib" / "helper.as").write_text(
        HEAD
        + 'import file Notes from "./notes.md"\n'
        + _agent("Helper", "        use Notes as notes\n        generate({ input: input })"),
        encoding="utf-8",
    )
    main = tmp_path / "main.as"
    main.write_text(
        HEAD + 'import agent Helper from "./lib/helper.as"\n' + _agent("Boss", '        Helper("task")', main=True),
        encoding="utf-8",
    )
    result = run(main, {}, host=HOST)
    (call,) = result.calls
    assert call.rendered.system == "You are Helper role.\nD"
    assert call.rendered.user == "Context:\n[notes]\nsource: Notes\nhelper notes\nInstruction:\ntask"
    assert result.trace[0]["data"]["agent"] == "Helper"


def test_an_agent_file_that_imports_the_entry_file_loads_it_again(tmp_path: Path) -> None:
    # As AgentScript loads it: the entry file is never marked as loading, so b.as reads a.as a
    # second time (b.as, being imported, is skipped then) and A is declared twice.
    (tmp_path / "a.as").write_text(
        HEAD + 'import agent B from "./b.as"\n' + _agent("A", "        B(1)", main=True), encoding="utf-8"
    )
    (tmp_path / "b.as").write_text(
        HEAD + 'import agent A from "./a.as"\n' + _agent("B", "        A(1)"), encoding="utf-8"
    )
    with pytest.raises(CheckError, match=r"a\.as:3:1: error\[DUPLICATE_AGENT\]: Duplicate agent 'A'"):
        run(tmp_path / "a.as", {}, host=HOST)


SHAPED = HEAD + _agent("A", "        generate({ input: input.n })").replace(
    "main func(input)", "main func(input { n number, tags list[string] })"
)


def test_a_shaped_input_is_checked_field_by_field(tmp_path: Path) -> None:
    program = tmp_path / "shaped.as"
    program.write_text(SHAPED, encoding="utf-8")
    assert run(program, {"n": 2, "tags": ["a"]}, host=HOST).calls[0].rendered.user == "Instruction:\n2"
    with pytest.raises(RunError, match=r"Missing input 'input\.tags' and no interactive input provider is available"):
        run(program, {"n": 2}, host=HOST)
    with pytest.raises(RunError, match="Input field must be a number"):
        run(program, {"n": "2", "tags": []}, host=HOST)
    # The reference checks a list item by item, with the item's type in the message.
    with pytest.raises(RunError, match="Input field must be a string"):
        run(program, {"n": 2, "tags": [1]}, host=HOST)
    with pytest.raises(RunError, match="Input field must be a list"):
        run(program, {"n": 2, "tags": "a"}, host=HOST)
