"""asrender batch shares what its rows share: the program is loaded (parsed, its imports merged,
checked) once per batch, not once per row, and every row's line is what it was when each row
loaded it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.asrender.cli import main
from promptwire.runs import run as runs_run

PROGRAM = """import llm M from "openai://ok"
import agent Helper from "./helper.as"
main agent A {
    model M
    role "R"
    description "D"
    main func(input) {
        use input.text as text
        generate({ input: "Classify it." }) -> {
            ok boolean
        }
    }
}
"""

HELPER = """import llm M from "openai://ok"
agent Helper {
    model M
    role "H"
    description "Helps."
    func echo(input) {
        return input
    }
}
"""


def _rows(path: Path, count: int) -> Path:
    path.write_text("".join(json.dumps({"text": f"row {n}"}) + "\n" for n in range(count)), encoding="utf-8")
    return path


def test_the_program_and_its_imports_are_loaded_once_per_batch(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    program = tmp_path / "classify.as"
    program.write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "helper.as").write_text(HELPER, encoding="utf-8")
    rows = _rows(tmp_path / "rows.jsonl", 5)
    loads: list[Any] = []
    real = runs_run.load

    def counted(*args: Any, **kwargs: Any) -> Any:
        loads.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(runs_run, "load", counted)
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(program), "--inputs", str(rows), "--out", str(out), "-f", "messages"]) == 0
    assert len(loads) == 1
    results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [result["status"] for result in results] == ["ok"] * 5
    capsys.readouterr()
    for number, result in enumerate(results):  # each row's prompt is the one a single run renders
        code = main([str(program), "--input", json.dumps({"text": f"row {number}"}), "-f", "messages", "-O", "json"])
        single = json.loads(capsys.readouterr().out)
        assert code == 0 and result["calls"][0]["prompt"] == {
            key: single[0][key] for key in result["calls"][0]["prompt"]
        }


def test_a_program_that_fails_its_check_fails_every_row_with_a_single_runs_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    program = tmp_path / "bad.as"
    program.write_text(PROGRAM.replace("use input.text as text", "return nope"), encoding="utf-8")
    (tmp_path / "helper.as").write_text(HELPER, encoding="utf-8")
    rows = _rows(tmp_path / "rows.jsonl", 3)
    assert main([str(program), "--input", '{"text": "row 0"}']) == 1
    single = capsys.readouterr().err
    assert "error[UNKNOWN_IDENTIFIER]: Unknown identifier 'nope'" in single
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(program), "--inputs", str(rows), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(result["status"], result["error"] + "\n") for result in results] == [("failed", single)] * 3
    first = single.splitlines()[0]
    assert err.splitlines()[:3] == [f"asrender: {rows}:{n}: row {n} failed: {first}" for n in (1, 2, 3)]


def test_an_import_that_cannot_be_read_fails_every_row(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    program = tmp_path / "classify.as"
    program.write_text(PROGRAM, encoding="utf-8")  # helper.as is missing
    rows = _rows(tmp_path / "rows.jsonl", 2)
    out = tmp_path / "out.jsonl"
    assert main(["batch", str(program), "--inputs", str(rows), "--out", str(out)]) == 1
    capsys.readouterr()
    results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [result["status"] for result in results] == ["failed", "failed"]
    assert results[0]["error"] == results[1]["error"] and "helper.as" in results[0]["error"]
