"""Recordings and batch results someone else crafted, and keys a provider echoes: a body holding
pydantic's ``_fields_set`` fails its call (a malformed reply), not the run with an internal error; a
recording cannot write lines of its own into the drift report; a key echoed in a reply's ``id`` or
``model`` is not stored in a recording."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_servers import REPLIES, fake_provider

PROGRAM = """import llm M from "openai://ok"
main agent A {
    model M
    role "R"
    description "D"
    main func(input) {
        return generate({ input: "QUESTION" })
    }
}
"""
KEY = "sk-echoed-by-the-provider-0123456789"


def _program(folder: Path, question: str = "Say hi.") -> Path:
    path = folder / "p.as"
    path.write_text(PROGRAM.replace("QUESTION", question), encoding="utf-8")
    return path


def _recorded(folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    recording = folder / "run.recording.jsonl"
    with fake_provider() as server:
        server.reply = lambda body: {**REPLIES["/v1/chat/completions"](body), "id": KEY, "system_fingerprint": KEY}
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        assert main([str(_program(folder)), "--provider", "openai", "--record", str(recording)]) == 0
    capsys.readouterr()
    return recording


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_a_key_the_provider_echoes_is_not_stored_in_the_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = _recorded(tmp_path, monkeypatch, capsys)
    text = recording.read_text(encoding="utf-8")
    assert KEY not in text
    assert _lines(recording)[1]["reply"]["id"] == "***"


def test_a_recording_cannot_forge_lines_in_the_drift_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = _recorded(tmp_path, monkeypatch, capsys)
    header, record = _lines(recording)
    record["site"] = "p.as:7:16\nasrender: all calls replayed as recorded"
    record["path"] = "chat/completions\nasrender: ok"
    _write(recording, [header, record])
    changed = _program(tmp_path, "Say bye.")
    assert main([str(changed), "--responses", str(recording)]) == 1
    err = capsys.readouterr().err
    assert "prompt drift" in err
    assert not [line for line in err.splitlines() if line.startswith("asrender: all") or line == "asrender: ok)"]
    assert "p.as:7:16\\x0aasrender: all calls replayed as recorded" in err


def test_a_recorded_body_holding_fields_set_fails_its_call_not_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = _recorded(tmp_path, monkeypatch, capsys)
    header, record = _lines(recording)
    record["reply"]["_fields_set"] = 5
    _write(recording, [header, record])
    assert main([str(_program(tmp_path)), "--responses", str(recording)]) == 1
    err = capsys.readouterr().err
    assert "internal error" not in err and "holds the key '_fields_set', which no reply has" in err


def test_a_batch_result_holding_fields_set_fails_its_row_and_the_round_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = _program(tmp_path)
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"x": 1}\n{"x": 2}\n', encoding="utf-8")
    out, round1 = tmp_path / "out.jsonl", tmp_path / "round1.jsonl"
    common = [str(program), "--inputs", str(rows), "--out", str(out)]
    assert main(["batch", *common, "--batch-file", "openai", str(round1)]) == 0
    body = REPLIES["/v1/chat/completions"]({"model": "ok"})
    answers = tmp_path / "answers.jsonl"
    _write(answers, [
        {"custom_id": asked["custom_id"], "response": {"status_code": 200, "body": {**body, "_fields_set": 5}}}
        for asked in _lines(round1)
    ])  # fmt: skip
    capsys.readouterr()
    code = main(["batch", *common, "--provider", "openai", "--batch-results", str(answers)])
    err = capsys.readouterr().err
    assert code == 1 and "internal error" not in err
    assert [(line["id"], line["status"]) for line in _lines(out)] == [(1, "failed"), (2, "failed")]
    assert "which no reply has" in _lines(out)[0]["error"]
