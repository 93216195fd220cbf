"""Ctrl-C: a real ``asrender`` process, sent SIGINT while a call to the fake provider is open
(its ``hang`` model answers nothing; ``delayNNN`` answers slowly), shows what finished and says it
was interrupted: a run prints the calls that ended before it (stdout redirected too) and the one it
cut short as ``--- interrupted ---``, never ``CancelledError:`` with no message; a batch exits 130
with its summary, the rows done and left, and the command that resumes it. Each test waits for a
marker in the process's output before the signal, within a generous bound."""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptwire.runs.batch import Batch, Summary, run_batch
from promptwire.runs.options import RunOptions
from promptwire.testing.provider_servers import FakeProvider, fake_provider

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")

WAIT = 60.0
"""The most any wait here takes: far above what any machine needs (nothing asserts on time)."""

TWO_CALLS = """import llm Fast from "openai://ok"
import llm Slow from "openai://hang"

agent Waiter {
    model Slow
    role "W"
    description "D"
    main func(input) {
        return generate({ input: "wait" })
    }
}

main agent A {
    model Fast
    role "R"
    description "D"
    main func(input) {
        first = generate({ input: "first" })
        return Waiter({ first: first })
    }
}
"""
"""A call that answers, then one that never does."""


@pytest.fixture(scope="module")
def server() -> Iterator[FakeProvider]:
    with fake_provider() as running:
        yield running


def _interrupted(args: list[str], cwd: Path, ready: Callable[[bytes, bytes], bool]) -> tuple[int, str, str]:
    """``asrender ARGS`` (in ``cwd``, its stdout and stderr pipes), sent SIGINT once ``ready``
    holds of what it wrote so far; its exit status and everything it wrote."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "promptwire", *args], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    stdout_fd, stderr_fd = process.stdout.fileno(), process.stderr.fileno()
    written = {stdout_fd: b"", stderr_fd: b""}
    deadline = time.monotonic() + WAIT
    try:
        while not ready(written[stdout_fd], written[stderr_fd]):
            assert time.monotonic() < deadline, f"no marker within {WAIT}s: {written}"
            assert process.poll() is None, f"ended before the marker: {written}"
            readable, _, _ = select.select(list(written), [], [], 0.05)
            for fd in readable:
                written[fd] += os.read(fd, 1 << 16)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=WAIT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    stdout = (written[stdout_fd] + out).decode()
    stderr = (written[stderr_fd] + err).decode()
    return process.returncode, stdout, stderr


def _two_calls(tmp_path: Path) -> Path:
    program = tmp_path / "two.as"
    program.write_text(TWO_CALLS, encoding="utf-8")
    return program


def test_a_run_with_stdout_redirected_shows_the_calls_that_finished(server: FakeProvider, tmp_path: Path) -> None:
    program = _two_calls(tmp_path)
    args = [program.name, "--provider", "openai", "--base-url", server.base_url, "--progress", "--no-stream"]
    code, out, err = _interrupted(args, tmp_path, lambda out, err: b"hang attempt 1 sent" in err)
    assert code == 130, err
    assert out.startswith("=== two.as:18:17 agent A attempt 1 ===\n")
    assert 'Instruction:\nfirst\n--- reply ---\n{"ok": true}\n=== two.as:9:16 agent Waiter attempt 1 ===\n' in out
    assert out.endswith("Instruction:\nwait\n--- interrupted ---\n")
    assert "two.as:9:16 agent Waiter: openai hang attempt 1 interrupted" in err
    assert err.endswith("asrender: interrupted\n")
    assert "Traceback" not in err and "CancelledError" not in out + err and "failed" not in out + err


def test_a_run_as_json_says_the_call_cut_short_was_interrupted(server: FakeProvider, tmp_path: Path) -> None:
    program = _two_calls(tmp_path)
    args = [program.name, "--provider", "openai", "--base-url", server.base_url, "--progress", "-O", "json"]
    code, out, err = _interrupted(args, tmp_path, lambda out, err: b"hang attempt 1 sent" in err)
    assert code == 130, err
    calls = json.loads(out)
    assert [(call["reply"] and call["reply"]["text"], call["error"]) for call in calls] == [
        ('{"ok": true}', None),
        (None, "interrupted"),
    ]


def test_a_streamed_run_says_interrupted_not_cancelled(server: FakeProvider, tmp_path: Path) -> None:
    """``hang`` streamed sends its first piece of text (``{"ok": ``), then nothing: the piece is
    shown, then that the call was interrupted."""
    program = _two_calls(tmp_path)
    args = [program.name, "--provider", "openai", "--base-url", server.base_url, "--stream"]
    code, out, err = _interrupted(args, tmp_path, lambda out, err: b'wait\n--- reply ---\n{"ok": ' in out)
    assert code == 130, err
    assert out.endswith('Instruction:\nwait\n--- reply ---\n{"ok": \n--- interrupted ---\n')
    assert err == "asrender: interrupted\n"
    assert "CancelledError" not in out and "failed" not in out


def _rows(path: Path, count: int) -> None:
    path.write_text("".join(json.dumps({"id": n, "q": f"question {n}"}) + "\n" for n in range(1, count + 1)))


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_an_interrupted_batch_says_what_is_done_and_how_to_resume(server: FakeProvider, tmp_path: Path) -> None:
    (tmp_path / "slow.as").write_text(
        'import llm M from "openai://delay200"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        "    main func(input) {\n        return generate({ input: input.q })\n    }\n}\n",
        encoding="utf-8",
    )
    rows, out = tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    _rows(rows, 12)
    args = ["batch", "slow.as", "--inputs", "rows.jsonl", "--out", "out.jsonl", "--provider", "openai"]
    args += ["--base-url", server.base_url, "--concurrency", "1"]
    code, _, err = _interrupted(args, tmp_path, lambda stdout, stderr: _lines(out) >= 2)
    assert code == 130, err
    done = _lines(out)
    assert 2 <= done < 12
    lines = err.splitlines()
    assert lines[-3].startswith(f"asrender: batch: {done} ok, 0 failed, 0 bad; {done} calls, ")
    assert (
        lines[-2]
        == f"asrender: batch interrupted: {done} rows done, {12 - done} left; the results so far are in out.jsonl"
    )
    assert lines[-1] == "asrender: resume with: asrender " + shlex.join(args)
    assert "Traceback" not in err
    # The command it gives resumes the batch: the rows done are not run again.
    command = shlex.split(lines[-1].removeprefix("asrender: resume with: "))
    env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
    resumed = subprocess.run(
        [sys.executable, "-m", "promptwire", *command[1:]], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=WAIT,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert f"{12 - done} ok, 0 failed, 0 bad, {done} done before" in resumed.stderr
    assert sorted(json.loads(line)["id"] for line in out.read_text().splitlines()) == list(range(1, 13))


def test_the_resume_command_masks_a_url_password(server: FakeProvider, tmp_path: Path) -> None:
    from promptwire.frontend.asrender.commands import _without_password

    assert _without_password("http://user:hunter2@gpu:8000/v1") == "http://***@gpu:8000/v1"
    assert _without_password("ollama=http://u:p@h:1/x?a=b") == "ollama=http://***@h:1/x?a=b"
    assert _without_password("--base-url=openai=http://u:p@h") == "--base-url=openai=http://***@h"
    assert _without_password("rows.jsonl") == "rows.jsonl"


@given(st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="@/:?#"), min_size=8))
def test_no_password_is_left_in_the_resume_command(password: str) -> None:
    from promptwire.frontend.asrender.commands import _without_password

    for arg in (
        f"http://user:{password}@host:1/v1",
        f"openai=https://u:{password}@h/x",
        f"--base-url=http://u:{password}@h",
    ):
        assert password not in _without_password(arg)


def test_the_python_api_keeps_the_count_of_an_interrupted_batch(tmp_path: Path) -> None:
    """``run_batch(summary=...)``: the caller still has the count when Ctrl-C stops the batch,
    and every result written by then is in the results file."""
    rows, out = tmp_path / "rows.jsonl", tmp_path / "out.jsonl"
    rows.write_text('{"id": 1}\n{"id": 2}\nnot a row\n{"id": 4}\n', encoding="utf-8")
    batch = Batch(rows=str(rows), options=RunOptions(), program=None)

    def report(line: str) -> None:  # the bad row's report: Ctrl-C comes then
        raise KeyboardInterrupt

    summary = Summary()
    with pytest.raises(KeyboardInterrupt):
        run_batch(batch, str(out), report=report, summary=summary)
    assert (summary.ok, summary.bad) == (3, 1)  # a chunk's results are counted as they are written
    assert _lines(out) == 4


def test_an_interrupted_round_says_what_is_done_and_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A round of a provider's batch (``--batch-file``), interrupted at its first report (the bad
    row's): the summary, the rows done and left, the command that runs the round again."""
    from promptwire.frontend.asrender import commands
    from promptwire.frontend.asrender.cli import main

    (tmp_path / "one.as").write_text(
        'import llm M from "openai://gpt-4o-mini"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        "    main func(input) {\n        return generate({ input: input.text })\n    }\n}\n",
        encoding="utf-8",
    )
    rows, out, asked = tmp_path / "rows.jsonl", tmp_path / "out.jsonl", tmp_path / "round1.jsonl"
    rows.write_text('{"text": "a"}\nnot a row\n{"text": "b"}\n', encoding="utf-8")
    said: list[str] = []

    def error_line(line: str) -> None:
        said.append(line)
        if len(said) == 1:  # the bad row's report: Ctrl-C comes then
            raise KeyboardInterrupt

    monkeypatch.setattr(commands, "error_line", error_line)
    args = ["batch", str(tmp_path / "one.as"), "--inputs", str(rows), "--out", str(out)]
    args += ["--batch-file", "openai", str(asked)]
    assert main(args) == 130
    assert said[0].startswith(f"{rows}:2: ")
    assert said[1].startswith("batch: 0 ok, 0 failed, 1 bad; ")
    assert said[2:] == [
        f"batch interrupted: 1 rows done, 2 left; the results so far are in {out}",
        "resume with: asrender " + shlex.join(args),
    ]
    capsys.readouterr()
