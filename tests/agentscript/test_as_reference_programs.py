"""The reference's test programs, beyond the prompt text: who sends each call, what the trace says.

test_as_reference_runs.py compares every call's system and user text with the reference's. Here the
same runs are checked for the rest of what the reference states about them: the agent and model URI
of each call, the generate trace events (the reference's render mode: each event carries the system
text, the final user message and the return schema of the attempt that succeeded), the debug text
tc17 prints, and the rejections of tc15 and tc16 when they are run rather than only checked.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from promptwire import PluginHost
from promptwire.frontend.agentscript.diagnostics import CheckError
from promptwire.runs.options import RunOptions
from promptwire.runs.run import RunResult, run

DATA = Path(__file__).parents[1] / "data" / "as"
RUNS: dict[str, dict[str, Any]] = json.loads((DATA / "runs.json").read_text(encoding="utf-8"))
REFERENCE: dict[str, Any] = json.loads((DATA / "reference_calls.json").read_text(encoding="utf-8"))
CALLS: dict[str, list[list[str]]] = REFERENCE["calls"]
HOST = PluginHost(entry_points=False)
SCHEMA_HEADING = "\nReturn JSON matching this schema:\n"
REPAIR_HEADING = "Previous generation failed."


def _run(name: str) -> RunResult:
    case = RUNS[name]
    return run(
        DATA / "valid" / f"{name}.as", case["input"], RunOptions(responses=case.get("responses") or ()), host=HOST
    )


def _generate_events(trace: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every generate event in execution order, agent calls' nested traces included."""
    found: list[dict[str, Any]] = []
    for event in trace:
        if event["kind"] == "generate":
            found.append(event["data"])
        elif event["kind"] == "agent":
            found.extend(_generate_events(event["data"]["trace"]))
    return found


def test_the_reference_programs_make_26_calls_with_the_use_context_example() -> None:
    assert sum(len(calls) for calls in CALLS.values()) + 1 == 26


@pytest.mark.parametrize("name", sorted(name for name in CALLS if "error" not in RUNS[name]))
def test_each_call_comes_from_the_references_agent_and_model(name: str) -> None:
    result = _run(name)
    assert [call.site.agent for call in result.calls] == [agent for agent, _ in CALLS[name]]
    # Each generate event stands for all of its attempts: expand it to one row per call.
    rows: list[list[str]] = []
    for data in _generate_events(result.trace):
        context = data["context"]
        rows.extend([[context["agentName"], context["model"]["uri"]]] * data["attempts"])
    assert rows == CALLS[name]


@pytest.mark.parametrize("name", sorted(name for name in CALLS if "error" not in RUNS[name]))
def test_a_generate_event_shows_the_attempt_that_succeeded(name: str) -> None:
    result = _run(name)
    events = _generate_events(result.trace)
    last_attempts = [
        call
        for index, call in enumerate(result.calls)
        if index + 1 == len(result.calls) or result.calls[index + 1].attempt == 1
    ]
    assert len(events) == len(last_attempts)
    for data, call in zip(events, last_attempts, strict=True):
        context = data["context"]
        assert data["attempts"] == call.attempt
        assert (context["system"], context["finalUserMessage"]) == (call.rendered.system, call.rendered.user)
        schema = call.prompt.output.json_schema if call.prompt.output is not None else None
        assert context["returnSchema"] == schema
        if schema is None:
            assert SCHEMA_HEADING not in call.rendered.user
            assert data["validation"] is None
        else:
            # The schema the user message prints is the one the call carries.
            assert json.loads(call.rendered.user.rsplit(SCHEMA_HEADING, 1)[1]) == schema
            assert data["validation"] == {"ok": True, "strict": data["config"]["strict"]}
        # The event's own instruction is the program's: repair text only reaches the context's copy.
        assert REPAIR_HEADING not in json.dumps(data["instruction"])
        assert (REPAIR_HEADING in json.dumps(context["instruction"])) == (call.attempt > 1)


def test_a_retried_generate_reports_the_attempt_that_succeeded() -> None:
    (data,) = _generate_events(_run("tc09_retry").trace)
    assert data["config"]["attempts"] == 3 and data["attempts"] == 3
    assert data["instruction"] == "Classify the text."
    assert data["context"]["instruction"] == (
        "Classify the text.\n\nPrevious generation failed.\n\nPrevious output:\n"
        '{\n  "label": "spam",\n  "confidence": "high"\n}\n\n'
        "Error:\nLLM result field must be a number at 12:13\n\n"
        "Return corrected JSON matching the requested schema only."
    )
    assert data["result"] == {"label": "spam", "confidence": 0.9}


def test_tc17_prints_the_references_debug_text() -> None:
    stream = io.StringIO()
    case = RUNS["tc17_debug"]
    result = run(DATA / "valid" / "tc17_debug.as", case["input"], RunOptions(debug=stream), host=HOST)
    assert result.value == case["value"]
    # console.error ends its one message with a newline.
    assert stream.getvalue() == REFERENCE["tc17_debug_stderr"] + "\n"


def test_programs_without_debug_print_nothing() -> None:
    stream = io.StringIO()
    run(
        DATA / "valid" / "tc09_retry.as",
        RUNS["tc09_retry"]["input"],
        RunOptions(responses=RUNS["tc09_retry"]["responses"], debug=stream),
        host=HOST,
    )
    assert stream.getvalue() == ""


@pytest.mark.parametrize(("name", "program_input"), [("tc15_errors_reserved", {"q": "x"}), ("tc16_missing_config", {})])
def test_a_rejected_program_is_refused_before_it_runs(name: str, program_input: dict[str, Any]) -> None:
    path = DATA / "invalid" / f"{name}.as"
    with pytest.raises(CheckError) as caught:
        run(path, program_input, host=HOST)
    expected: list[str] = REFERENCE["rejections"][name]
    assert caught.value.reference_message == "\n".join(expected)
    shown = str(caught.value)
    for line in expected:
        code, _, rest = line.removeprefix("ERROR ").partition(" at ")
        position, _, message = rest.partition(": ")
        assert f"{path}:{position}: error[{code}]: {message}\n" in shown
