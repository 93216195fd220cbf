"""Small programs written here, each pinning one fact of how AgentScript 0.1.5 runs a program at an edge.

``tests/data/as/runs/NAME.as`` with ``NAME.expected.json``: the fact (``fact``) and one or more runs
of the program, each with its ``input`` (and canned ``responses``; ``files`` written beside the
program as UTF-8, ``raw_files`` as hex bytes) and what the reference gives: ``users`` (the final
user message of every call), ``uses`` (the budget of each ``use`` event, as written), ``generate``
(per generate event, the values at dotted paths of its data), ``value``, or ``error`` (message,
line, column). The expected values were worked out from the reference's rules, not printed by
promptwire.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from promptwire import PluginHost
from promptwire.frontend import run
from promptwire.frontend.interpreter import RunError

RUNS = Path(__file__).parent / "data" / "as" / "runs"
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
            run(program, case["input"], responses=case.get("responses"), host=HOST)
        error = caught.value
        assert {"message": error.message, "line": error.line, "column": error.column} == case["error"]
        return
    result = run(program, case["input"], responses=case.get("responses"), host=HOST)
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
