"""asrender batch --provider P --jobs N: live rows in N worker processes, each with its event loop
and its share of --concurrency, into one results file that only the batch's own process writes:
every row once, whole lines, the same lines as one process writes, resumable, Ctrl-C and a failed
worker handled. Waits are bounded by generous limits; nothing asserts on time."""

from __future__ import annotations

import json
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.asrender.cli import main
from promptwire.runs.batch_workers import shares
from promptwire.testing.provider_servers import FakeProvider, fake_provider

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads the worker processes from /proc")

WAIT = 60.0
"""The most any wait here takes: far above what any machine needs (nothing asserts on time)."""

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


@pytest.fixture(scope="module")
def server() -> Iterator[FakeProvider]:
    with fake_provider() as running:
        yield running


def _program(tmp_path: Path, model: str = "ok") -> Path:
    path = tmp_path / "classify.as"
    path.write_text(PROGRAM.replace("openai://ok", f"openai://{model}"), encoding="utf-8")
    return path


def _rows(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _live(capsys: pytest.CaptureFixture[str], server: FakeProvider, *argv: str) -> tuple[int, str]:
    code = main(["batch", *argv, "--provider", "openai", "--base-url", server.base_url])
    out, err = capsys.readouterr()
    assert out == ""
    return code, err


def test_the_concurrency_is_split_between_the_workers() -> None:
    assert shares(128, 2) == [64, 64]
    assert shares(5, 2) == [3, 2]
    assert shares(8, 3) == [3, 3, 2]
    assert shares(1, 2) == [1]  # no worker with nothing to run
    assert shares(3, 8) == [1, 1, 1]


def test_live_jobs_write_every_row_once_as_one_process_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, server: FakeProvider, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    program = _program(tmp_path)
    rows = _rows(tmp_path / "rows.jsonl", [{"text": f"row {n} \u2028"} for n in range(150)] + [[1], {"other": 1}])
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    code, err = _live(capsys, server, str(program), "--inputs", str(rows), "--out", str(one), "--concurrency", "8")
    assert code == 1
    code, jobs_err = _live(
        capsys, server, str(program), "--inputs", str(rows), "--out", str(two), "--concurrency", "8", "--jobs", "2"
    )
    assert code == 1
    assert f"asrender: {rows}:151: bad row: a row must be a JSON object, got an array\n" in jobs_err
    assert f"asrender: {rows}:152: row 152 failed: {program}:7:13: error[RUNTIME_ERROR]" in jobs_err
    assert "asrender: batch: 150 ok, 1 failed, 1 bad; 150 calls, tokens 1800 in / 450 out;" in jobs_err
    assert sorted(err.splitlines()[:-1]) == sorted(jobs_err.splitlines()[:-1])  # the same reports
    lines = two.read_bytes().split(b"\n")
    assert lines[-1] == b""  # whole lines only
    assert sorted(lines[:-1]) == sorted(one.read_bytes().split(b"\n")[:-1])  # byte for byte, in another order
    assert sorted(json.loads(line)["id"] for line in lines[:-1]) == list(range(1, 153))


def test_a_live_jobs_batch_resumes_as_one_process_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, server: FakeProvider, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    program = _program(tmp_path)
    rows = _rows(tmp_path / "rows.jsonl", [{"id": n, "text": str(n)} for n in range(20)])
    out = tmp_path / "out.jsonl"
    asked = server.asked.get("ok", 0)
    args = [str(program), "--inputs", str(rows), "--out", str(out), "--concurrency", "4", "--jobs", "2"]
    assert _live(capsys, server, *args)[0] == 0
    _rows(tmp_path / "rows.jsonl", [{"id": n, "text": str(n)} for n in range(30)])  # ten rows added
    code, err = _live(capsys, server, *args)
    assert code == 0 and "batch: 10 ok, 0 failed, 0 bad, 20 done before;" in err
    assert server.asked["ok"] - asked == 30  # no row asked twice
    assert sorted(json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()) == list(range(30))


# --- a real asrender process, interrupted or losing a worker -----------------------------------------


def _started(args: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "promptwire", *args], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def _until(condition: Callable[[], bool], process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"not within {WAIT}s"
        assert process.poll() is None, process.communicate()
        select.select([], [], [], 0.05)


def _workers(pid: int) -> list[int]:
    """The worker processes of the batch process ``pid`` (its children running multiprocessing's spawn)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid and b"multiprocessing.spawn" in command and b"resource_tracker" not in command:
            found.append(int(entry))
    return found


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _ended(process: subprocess.Popen[bytes]) -> tuple[int, str]:
    try:
        _, err = process.communicate(timeout=WAIT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, err.decode()


def test_each_worker_runs_its_share_and_ctrl_c_stops_the_batch(server: FakeProvider, tmp_path: Path) -> None:
    """``hang`` never answers: the calls in flight are the rows running at once, 3 in all over two
    workers (2 and 1), not 3 each."""
    _program(tmp_path, "hang")
    _rows(tmp_path / "rows.jsonl", [{"text": str(n)} for n in range(12)])
    before = server.asked.get("hang", 0)
    args = ["batch", "classify.as", "--inputs", "rows.jsonl", "--out", "out.jsonl", "--provider", "openai"]
    args += ["--base-url", server.base_url, "--concurrency", "3", "--jobs", "2"]
    process = _started(args, tmp_path)
    _until(lambda: server.asked.get("hang", 0) - before >= 3, process)
    workers = _workers(process.pid)
    assert len(workers) == 2
    time.sleep(0.5)  # room for a fourth call, were the split wrong (it would only make this test pass falsely)
    assert server.asked["hang"] - before == 3
    process.send_signal(signal.SIGINT)
    code, err = _ended(process)
    assert code == 130, err
    lines = err.splitlines()
    assert lines[-3].startswith("asrender: batch: 0 ok, 0 failed, 0 bad; 0 calls, ")
    assert lines[-2] == "asrender: batch interrupted: 0 rows done, 12 left; the results so far are in out.jsonl"
    assert lines[-1] == "asrender: resume with: asrender " + shlex.join(args)
    assert "Traceback" not in err
    assert not any(_running(worker) for worker in workers)


def test_an_interrupted_live_jobs_batch_resumes_with_the_command_it_gives(server: FakeProvider, tmp_path: Path) -> None:
    _program(tmp_path, "delay100")
    _rows(tmp_path / "rows.jsonl", [{"text": str(n)} for n in range(40)])
    out = tmp_path / "out.jsonl"
    args = ["batch", "classify.as", "--inputs", "rows.jsonl", "--out", "out.jsonl", "--provider", "openai"]
    args += ["--base-url", server.base_url, "--concurrency", "2", "--jobs", "2"]
    process = _started(args, tmp_path)
    _until(lambda: out.exists() and out.read_bytes().count(b"\n") >= 4, process)
    process.send_signal(signal.SIGINT)
    code, err = _ended(process)
    assert code == 130, err
    done = out.read_bytes().count(b"\n")
    assert out.read_bytes().endswith(b"\n")
    assert f"asrender: batch interrupted: {done} rows done, {40 - done} left;" in err
    command = shlex.split(err.splitlines()[-1].removeprefix("asrender: resume with: "))
    resumed = _started(command[1:], tmp_path)
    code, err = _ended(resumed)
    assert code == 0, err
    assert f"batch: {40 - done} ok, 0 failed, 0 bad, {done} done before;" in err
    assert sorted(json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()) == list(range(1, 41))


def test_a_worker_that_dies_ends_the_batch_with_an_error_and_the_results_so_far(
    server: FakeProvider, tmp_path: Path
) -> None:
    _program(tmp_path, "hang")
    _rows(tmp_path / "rows.jsonl", [{"text": str(n)} for n in range(12)])
    before = server.asked.get("hang", 0)
    args = ["batch", "classify.as", "--inputs", "rows.jsonl", "--out", "out.jsonl", "--provider", "openai"]
    args += ["--base-url", server.base_url, "--concurrency", "4", "--jobs", "2"]
    process = _started(args, tmp_path)
    _until(lambda: server.asked.get("hang", 0) - before >= 4, process)
    workers = _workers(process.pid)
    assert len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)
    code, err = _ended(process)
    assert code == 1, err
    assert re.fullmatch(
        r"asrender: batch: worker process [12] ended \(exit code -9\) before its rows were done: \d+ rows were not"
        r" written; the same command resumes the batch\n",
        err,
    ), err
    assert (tmp_path / "out.jsonl").read_bytes() == b""
    assert not _running(workers[1])  # the other worker ended with the batch
