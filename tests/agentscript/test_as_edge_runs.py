"""Small programs written here, each pinning one fact of how AgentScript 0.1.5 runs a program at an edge.

``tests/data/as/runs/NAME.as`` with ``NAME.expected.json``: the fact (``fact``) and one or more runs
of the program, each with its ``input`` (and canned ``responses``; ``files`` written beside the
program as UTF-8, ``raw_files`` as hex bytes) and what the reference gives: ``users`` (the final
user message of every call), ``uses`` (the budget of each ``use`` event, as written), ``generate``
(per generate event, the values at dotted paths of its data), ``value``, or ``error`` (message,
line, column; ``{folder}`` in a message stands for the program's folder). ``bodies`` are the exact
bytes each provider receives, sent by the real SDKs over real HTTP to the fake servers of
``promptwire.testing.provider_servers``. The expected values were worked
out from the reference's rules (and §11 of its notes for the body layout), not printed by promptwire.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from promptwire import PluginHost
from promptwire.frontend.agentscript.interpreter import RunError
from promptwire.frontend.asrender.cli import main
from promptwire.runs.options import RunOptions
from promptwire.runs.run import run
from promptwire.testing.provider_servers import fake_provider

RUNS = Path(__file__).parents[1] / "data" / "as" / "runs"
CASES: dict[str, dict[str, Any]] = {
    path.name.removesuffix(".expected.json"): json.loads(path.read_text(encoding="utf-8"))
    for path in sorted(RUNS.glob("*.expected.json"))
}
HOST = PluginHost(entry_points=False)


def _program(name: str, case: dict[str, Any], folder: Path) -> Path:
    """The program copied into ``folder`` with the files it imports."""
    program = folder / f"{name}.as"
    shutil.copyfile(RUNS / program.name, program)
    for file, text in case.get("files", {}).items():
        (folder / file).write_bytes(text.encode("utf-8"))
    for file, hexadecimal in case.get("raw_files", {}).items():
        (folder / file).write_bytes(bytes.fromhex(hexadecimal))
    return program


def _at(data: Any, path: str) -> Any:
    for key in path.split("."):
        data = data[key]
    return data


RUN_CASES = [
    pytest.param(name, index, id=f"{name}-{index}")
    for name, case in CASES.items()
    for index in range(len(case["runs"]))
]


@pytest.mark.parametrize(("name", "index"), RUN_CASES)
def test_a_program_runs_as_the_reference_runs_it(name: str, index: int, tmp_path: Path) -> None:
    case = CASES[name]["runs"][index]
    program = _program(name, case, tmp_path)
    if "error" in case:
        with pytest.raises(RunError) as caught:
            run(program, case["input"], RunOptions(responses=case.get("responses") or ()), host=HOST)
        error = caught.value
        expected = {**case["error"], "message": case["error"]["message"].replace("{folder}", str(tmp_path))}
        assert {"message": error.message, "line": error.line, "column": error.column} == expected
        return
    result = run(program, case["input"], RunOptions(responses=case.get("responses") or ()), host=HOST)
    assert result.value == case["value"]
    if "users" in case:
        assert [call.rendered.user for call in result.calls] == case["users"]
    if "uses" in case:
        assert [event["data"]["budget"] for event in result.trace if event["kind"] == "use"] == case["uses"]
    if "generate" in case:
        events = [event["data"] for event in result.trace if event["kind"] == "generate"]
        assert len(events) == len(case["generate"])
        for data, expected in zip(events, case["generate"], strict=True):
            for path, value in expected.items():
                assert _at(data, path) == value, path


BODY_CASES = [
    pytest.param(name, index, provider, id=f"{name}-{index}-{provider}")
    for name, case in CASES.items()
    for index, each in enumerate(case["runs"])
    for provider in each.get("bodies", {})
]


@pytest.mark.parametrize(("name", "index", "provider"), BODY_CASES)
def test_the_bytes_a_provider_receives_are_the_references(
    name: str, index: int, provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = CASES[name]["runs"][index]
    program = _program(name, case, tmp_path)
    model = CASES[name]["model"]
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
        if provider == "ollama":  # the host is the model URI's
            model = f"ollama://{server.root.removeprefix('http://')}/{model}"
        host = PluginHost(entry_points=False)  # its SDK clients close with it, not at interpreter exit
        run(program, case["input"], RunOptions(provider, model, responses=case.get("responses") or ()), host=host)
    assert server.raw_bodies == [body.encode("utf-8") for body in case["bodies"][provider]]


def _asrender(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(list(args)) == 0
    out: str = capsys.readouterr().out
    return out


def test_every_json_output_of_asrender_carries_half_a_character_as_its_escape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = CASES["astral_clip"]["runs"][0]
    program = str(_program("astral_clip", case, tmp_path))
    given = ["--input", json.dumps(case["input"])]
    (user,) = case["users"]
    outputs = {
        "json": _asrender(capsys, program, *given, "-O", "json"),
        "trace": _asrender(capsys, program, *given, "-O", "trace"),
        "dry-run": _asrender(capsys, program, *given, "--provider", "openai", "--dry-run", "-O", "json"),
    }
    for kind, out in outputs.items():
        assert "\\ud83d" in out and "\ufffd" not in out, kind
        out.encode("utf-8")  # nothing raw that an encoder refuses
    assert json.loads(outputs["json"])[0]["messages"][1]["content"] == user
    (trace_event,) = [e for e in json.loads(outputs["trace"])["trace"] if e["kind"] == "generate"]
    assert trace_event["data"]["context"]["finalUserMessage"] == user
    assert json.loads(outputs["dry-run"])[0]["body"]["messages"][1]["content"] == user
    # The text display, for a person, shows the half as a replacement character.
    assert user.replace("\ud83d", "\ufffd") in _asrender(capsys, program, *given)


def test_the_inspector_and_the_snapshot_command_read_an_imported_file_as_a_run_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from promptwire.frontend.asrender.inspector.state import program_state

    case = CASES["import_file_text"]["runs"][0]
    _program("import_file_text", case, tmp_path)
    expected = case["generate"][0]["context.context"]
    (call,) = program_state(tmp_path, "import_file_text.as", HOST)["calls"]
    assert [(item["shown"], item["original"]) for item in call["context"]] == [
        (item["clippedSize"], item["originalSize"]) for item in expected
    ]
    assert main(["snapshot", str(tmp_path), "--update"]) == 0
    stored = (tmp_path / "__prompts__" / "import_file_text.as.agentscript.txt").read_bytes()
    (user,) = case["users"]
    assert user.encode("utf-8") in stored  # \r\n, \r, the BOM and U+FFFD as a run shows them
