"""asrender batch: a program over every row of a JSONL file (or a prompt per row), offline and live
over real HTTP, resumable, safe to kill, bad rows reported per line."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire.frontend.asrender.cli import main
from promptwire.runs.batch_io import BadRow, Row, parse_row
from promptwire.testing.provider_servers import fake_provider

from hypothesis_profile import examples

PROGRAM = """import llm M from "openai://ok"
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


def _batch(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["batch", *argv])
    out, err = capsys.readouterr()
    assert out == ""  # the results go to --out only
    return code, err


def _results(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _rows(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "classify.as"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def test_every_row_gives_one_line_with_its_value_and_calls(
    capsys: pytest.CaptureFixture[str], program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", [{"text": "a"}, {"id": "second", "text": "b"}])
    out = tmp_path / "out.jsonl"
    code, err = _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out))
    assert code == 0
    assert err.startswith("asrender: batch: 2 ok, 0 failed, 0 bad; 2 calls, tokens 0 in / 0 out; ")
    first, second = _results(out)
    assert [first["id"], second["id"]] == [1, "second"]
    assert first["status"] == "ok" and first["value"] == {"ok": True}  # the offline mock value
    (call,) = first["calls"]
    assert list(call) == ["site", "agent", "attempt", "prompt", "request", "reply", "usage", "error", "cache_prefix"]
    assert (call["site"], call["agent"], call["attempt"]) == (f"{program}:8:9", "A", 1)
    assert "source: input.text\na\n" in call["prompt"]["messages"][1]["content"]
    assert "source: input.text\nb\n" in second["calls"][0]["prompt"]["messages"][1]["content"]
    assert call["request"]["provider"] == "offline"


def test_the_result_equals_a_single_run_of_the_row(
    capsys: pytest.CaptureFixture[str], program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", [{"text": "ünï \u2028 code"}])
    out = tmp_path / "out.jsonl"
    _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out), "-f", "messages")
    assert main([str(program), "--input", json.dumps({"text": "ünï \u2028 code"}), "-f", "messages", "-O", "json"]) == 0
    single = json.loads(capsys.readouterr().out)
    (result,) = _results(out)
    assert result["calls"][0]["prompt"] == {key: single[0][key] for key in result["calls"][0]["prompt"]}


def test_bad_and_failing_rows_are_reported_by_line_and_the_batch_goes_on(
    capsys: pytest.CaptureFixture[str], program: Path, tmp_path: Path
) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        '{"text": "a"}\nnot json\n\n[1, 2]\n{"id": 1.5, "text": "c"}\n{"other": 1}\n{"text": "b", "text": "c"}\n'
        '{"text": "last"}\n',
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    code, err = _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out))
    assert code == 1
    lines = err.splitlines()
    assert lines[:5] == [
        f"asrender: {rows}:2: bad row: invalid JSON: Expecting value (column 1)",
        f"asrender: {rows}:4: bad row: a row must be a JSON object, got an array",
        f"asrender: {rows}:5: bad row: a row's id must be text or an integer, got a number",
        f"asrender: {rows}:6: row 6 failed: {program}:7:13: error[RUNTIME_ERROR]: Unknown object property 'text'",
        f"asrender: {rows}:7: bad row: duplicate key 'text'",
    ]
    assert lines[5].startswith("asrender: batch: 2 ok, 1 failed, 4 bad; 2 calls,")
    results = _results(out)
    assert [(r["id"], r["line"], r["status"]) for r in results] == [
        (1, 1, "ok"),
        (2, 2, "bad"),
        (4, 4, "bad"),
        (5, 5, "bad"),
        (6, 6, "failed"),
        (7, 7, "bad"),
        (8, 8, "ok"),
    ]
    assert "^" in results[4]["error"]  # the located error whole, with its caret line


def test_prompt_rows_are_asked_one_by_one_in_the_format_and_digests_are_stable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rows = _rows(
        tmp_path / "prompts.jsonl",
        [{"id": "a", "instruction": "Say hi."}, {"instruction": "Say bye.", "system": "Be brief."}, {"nope": 1}],
    )
    out = tmp_path / "out.jsonl"
    code, err = _batch(capsys, str(rows), "--out", str(out), "-f", "messages", "--prompt", "digest")
    assert code == 1
    assert f"{rows}:3: row 3 failed: " in err
    first, second, third = _results(out)
    assert (first["id"], first["status"], second["id"], third["status"]) == ("a", "ok", 2, "failed")
    assert [first["calls"][0]["site"], second["calls"][0]["site"]] == [f"{rows}:1:1", f"{rows}:2:1"]
    digest = first["calls"][0]["prompt"]
    assert digest.startswith("sha256:") and len(digest) == 71
    again = tmp_path / "again.jsonl"
    _batch(capsys, str(rows), "--out", str(again), "-f", "messages", "--prompt", "digest")
    assert _results(again)[0]["calls"][0]["prompt"] == digest
    assert second["calls"][0]["prompt"] != digest
    body = first["calls"][0]["request"]["body"]  # the request body holds the prompt again: digested too
    assert body.startswith("sha256:") and len(body) == 71 and body != digest
    assert "Say hi." not in out.read_text(encoding="utf-8")


def test_a_rerun_skips_the_rows_done_and_cuts_off_an_unfinished_line(
    capsys: pytest.CaptureFixture[str], program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", [{"text": str(n)} for n in range(10)])
    whole = tmp_path / "whole.jsonl"
    _batch(capsys, str(program), "--inputs", str(rows), "--out", str(whole))
    lines = whole.read_bytes().splitlines(keepends=True)
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"".join(lines[:4]) + lines[4][:50])  # killed while writing the fifth line
    code, err = _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out))
    assert code == 0
    assert "batch: 6 ok, 0 failed, 0 bad, 4 done before;" in err
    assert sorted(out.read_bytes().splitlines()) == sorted(whole.read_bytes().splitlines())
    code, err = _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out))
    assert "batch: 0 ok, 0 failed, 0 bad, 10 done before;" in err
    assert len(out.read_bytes().splitlines()) == 10


def test_an_out_file_that_is_not_results_is_refused_not_appended_to(
    capsys: pytest.CaptureFixture[str], program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", [{"text": "a"}])
    out = tmp_path / "notes.txt"
    out.write_text("my notes\n", encoding="utf-8")
    code, err = _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out))
    assert code == 1
    assert err == f"asrender: {out}:1: not a result line; give --out a new file or the results of this batch\n"
    assert out.read_text(encoding="utf-8") == "my notes\n"


def test_a_batch_killed_mid_run_resumes_to_the_same_results(program: Path, tmp_path: Path) -> None:
    rows = _rows(tmp_path / "rows.jsonl", [{"text": f"row {n}"} for n in range(3000)])
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "promptwire", "batch", str(program), "--inputs", str(rows), "--out", str(out)]
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while (not out.exists() or out.stat().st_size < 200_000) and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    written = out.read_bytes()
    assert 0 < written.count(b"\n") < 3000, "killed mid-run"
    for line in written.splitlines(keepends=True):
        assert not line.endswith(b"\n") or json.loads(line)["status"] == "ok"  # every finished line is whole
    resumed = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    results = _results(out)
    assert sorted(result["id"] for result in results) == list(range(1, 3001))
    assert {result["calls"][0]["prompt"]["messages"][1]["content"].split("\n")[3] for result in results} == {
        f"row {n}" for n in range(3000)
    }


def test_jobs_give_the_same_results_as_one_process(
    capsys: pytest.CaptureFixture[str], program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", [{"text": str(n)} for n in range(300)] + [[1]])
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    _batch(capsys, str(program), "--inputs", str(rows), "--out", str(one))
    code, err = _batch(capsys, str(program), "--inputs", str(rows), "--out", str(two), "--jobs", "2")
    assert code == 1 and "batch: 300 ok, 0 failed, 1 bad;" in err
    assert f"{rows}:301: bad row: a row must be a JSON object, got an array" in err
    assert sorted(one.read_bytes().splitlines()) == sorted(two.read_bytes().splitlines())


def test_rows_run_with_the_permissions_of_a_single_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "write.as").write_text(
        'import llm M from "openai://ok"\nimport tool File from "file://."\nmain agent A {\n    model M\n'
        '    role "R"\n    description "D"\n    main func(input) {\n'
        '        File.write({ path: input.path, content: "x" })\n    }\n}\n',
        encoding="utf-8",
    )
    rows = _rows(tmp_path / "rows.jsonl", [{"path": "a.txt"}, {"path": "../escape.txt"}])
    out = tmp_path / "out.jsonl"
    code, err = _batch(capsys, str(folder / "write.as"), "--inputs", str(rows), "--out", str(out))
    assert code == 1 and f"{rows}:1: row 1 failed: " in err and "needs --allow-write" in err
    assert not (folder / "a.txt").exists()
    allowed = tmp_path / "allowed.jsonl"
    code, err = _batch(capsys, str(folder / "write.as"), "--inputs", str(rows), "--out", str(allowed), "--allow-write")
    first, second = _results(allowed)
    assert first["status"] == "ok" and (folder / "a.txt").read_text(encoding="utf-8") == "x"
    assert second["status"] == "failed" and "Path escapes workspace" in second["error"]
    assert not (tmp_path / "escape.txt").exists()


def test_live_rows_run_concurrently_over_http(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", [{"text": str(n)} for n in range(16)] + [{"other": 1}])
    out = tmp_path / "out.jsonl"
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        # together16 is answered only once sixteen requests for it are in at once: one row after
        # another, the first would wait alone (and fail after a minute).
        code, err = _batch(
            capsys, str(program), "--inputs", str(rows), "--out", str(out), "--provider", "openai",
            "--model", "together16", "--concurrency", "16",
        )  # fmt: skip
    assert code == 1 and f"{rows}:17: row 17 failed:" in err
    assert "batch: 16 ok, 1 failed, 0 bad; 16 calls, tokens 192 in / 48 out;" in err
    results = _results(out)
    assert len(server.requests) == 16
    ok = next(result for result in results if result["status"] == "ok")
    (call,) = ok["calls"]
    assert call["request"]["body"] == server.requests[0] | {"messages": call["request"]["body"]["messages"]}
    assert call["reply"]["text"] == '{"ok": true}'
    assert call["usage"]["prompt_tokens"] == 12


def test_live_rows_use_their_tools_while_the_other_rows_go_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A live batch runs its rows' programs on the event loop's thread (in greenlets); a tool's work
    goes to a worker thread meanwhile. Each row writes a file, then asks together8, which is
    answered only once all eight rows' calls are in at once."""
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "write.as").write_text(
        'import llm M from "openai://ok"\nimport tool File from "file://."\nmain agent A {\n    model M\n'
        '    role "R"\n    description "D"\n    main func(input) {\n'
        "        File.write({ path: input.path, content: input.path })\n"
        '        generate({ input: "Written?" }) -> { ok boolean }\n    }\n}\n',
        encoding="utf-8",
    )
    rows = _rows(tmp_path / "rows.jsonl", [{"path": f"{n}.txt"} for n in range(8)])
    out = tmp_path / "out.jsonl"
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        code, err = _batch(
            capsys, str(folder / "write.as"), "--inputs", str(rows), "--out", str(out), "--provider", "openai",
            "--model", "together8", "--concurrency", "8", "--allow-write",
        )  # fmt: skip
    assert code == 0, err
    assert "batch: 8 ok, 0 failed, 0 bad; 8 calls" in err
    assert sorted(path.name for path in folder.glob("*.txt")) == [f"{n}.txt" for n in range(8)]
    assert all((folder / f"{n}.txt").read_text(encoding="utf-8") == f"{n}.txt" for n in range(8))
    assert [result["value"] for result in _results(out)] == [{"ok": True}] * 8


def test_a_rate_limit_waits_as_the_provider_asks_and_is_not_a_failed_attempt(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", [{"text": "a"}, {"text": "b"}])
    out = tmp_path / "out.jsonl"
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        code, err = _batch(
            capsys, str(program), "--inputs", str(rows), "--out", str(out), "--provider", "openai",
            "--model", "busy3", "--concurrency", "1",
        )  # fmt: skip
        assert server.asked["busy3"] == 5
    assert code == 0 and "3 rate-limit waits" in err
    assert [len(result["calls"]) for result in _results(out)] == [1, 1]
    assert [result["calls"][0]["attempt"] for result in _results(out)] == [1, 1]


def test_the_waits_are_bounded_and_other_failures_fail_the_row_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", [{"text": "a"}, {"text": "b"}])
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        for model, kind in (("e429", "RateLimitedError"), ("e500", "ServerError"), ("e429q", "QuotaExhaustedError")):
            out = tmp_path / f"{model}.jsonl"
            code, err = _batch(
                capsys, str(program), "--inputs", str(rows), "--out", str(out), "--provider", "openai",
                "--model", model, "--max-wait", "0.5",
            )  # fmt: skip
            assert code == 1 and "batch: 0 ok, 2 failed, 0 bad;" in err
            assert [result["error"].split(" ")[0] for result in _results(out)] == [kind, kind]
        assert server.asked == {
            "e429": 2,
            "e500": 2,
            "e429q": 2,
        }  # no wait fits in 0.5 s: a 429 without Retry-After waits 1 s first


def test_the_command_line_is_checked_before_any_row(
    capsys: pytest.CaptureFixture[str], program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", [{"text": "a"}])
    for argv, message in (
        ([str(program), "--out", "o.jsonl"], "a program's batch needs --inputs ROWS.jsonl"),
        ([str(rows), "--out", "o.jsonl", "--inputs", str(rows)], "--inputs apply to .as programs only"),
        ([str(rows), "--out", "o.jsonl", "--provider", "openai"], "--provider openai needs --model for prompt rows"),
        ([str(program), "--inputs", str(rows), "--out", "o", "--jobs", "0"], "not a whole number from 1 to 10000"),
    ):
        with pytest.raises(SystemExit) as exit:
            main(["batch", *argv])
        assert exit.value.code == 2
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit:
        main(["batch", str(program), "--inputs", str(rows), "--out", str(rows)])
    assert exit.value.code == 2
    assert f"--out {rows} is the same file as --inputs" in capsys.readouterr().err
    code, err = _batch(capsys, str(program), "--inputs", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "o"))
    assert code == 1 and "none.jsonl: cannot read: No such file or directory" in err


def test_the_progress_bar_shows_on_a_terminal_only(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, program: Path, tmp_path: Path
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    rows = _rows(tmp_path / "rows.jsonl", [{"text": "a"}, [1]])
    _, err = _batch(capsys, str(program), "--inputs", str(rows), "--out", str(tmp_path / "quiet.jsonl"))
    assert "row/s" not in err and "it/s" not in err
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    main(["batch", str(program), "--inputs", str(rows), "--out", str(tmp_path / "shown.jsonl")])
    shown = terminal.getvalue()
    assert "2/2" in shown and "failed=1" in shown and "bad row" in shown


@settings(max_examples=examples(1))
@given(st.text())
def test_any_line_is_a_row_or_a_bad_row_never_an_exception(text: str) -> None:
    row = parse_row("rows.jsonl", 7, text)
    assert isinstance(row, Row | BadRow)
    assert row.line == 7
    if isinstance(row, BadRow):
        assert "\n" not in row.reason or "rows.jsonl" not in row.reason


def test_live_prompt_rows_are_sent_in_the_format_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "prompts.jsonl", [{"instruction": "Say hi."}, {"instruction": "Say bye."}])
    out = tmp_path / "out.jsonl"
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        code, err = _batch(
            capsys, str(rows), "--out", str(out), "-f", "messages", "--provider", "openai", "--model", "ok"
        )
        sent = sorted(request["messages"][-1]["content"] for request in server.requests)
    assert code == 0, err
    assert sent == ["Instruction:\nSay bye.", "Instruction:\nSay hi."]  # as the messages format renders them
    assert sorted(result["value"] for result in _results(out)) == ['{"ok": true}'] * 2
