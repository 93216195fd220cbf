"""Real processes on one memory: writers at once lose nothing and corrupt nothing, and a writer
killed mid-loop leaves a memory the next run reads and appends to."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

WRITER = """
import sys
from pathlib import Path
from promptwire.core.tools import ToolContext, ToolRequest
from promptwire.tools.jsonl_store import jsonl_memory
from promptwire.tools.sqlite_store import sqlite_memory

uri, who, count, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
store = sqlite_memory if uri.startswith("sqlite:") else jsonl_memory
go = Path(sys.argv[5])
context = ToolContext(Path.cwd(), write=(go.parent,))
print("ready", flush=True)
while not go.exists():  # start together, so the writes really overlap
    pass
n = 0
while count < 0 or n < count:
    store(ToolRequest("M", uri, "add", [{"who": who, "n": n, "text": "x" * size}]), context)
    n += 1
"""


def writers(uri: str, names: list[str], count: int, size: int, go: Path) -> list[subprocess.Popen[str]]:
    """Writer processes, each ready (imports done) when this returns; they start when ``go`` exists."""
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, uri, name, str(count), str(size), str(go)], stdout=subprocess.PIPE, text=True
        )
        for name in names
    ]
    for process in processes:
        assert process.stdout is not None and process.stdout.readline() == "ready\n"
    return processes


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
def test_concurrent_writers_lose_nothing(tmp_path: Path, kind: str) -> None:
    uri = f"file://{tmp_path}/m.jsonl" if kind == "jsonl" else f"sqlite://{tmp_path}/m.db#ns"
    processes = writers(uri, ["a", "b", "c"], count=60, size=2000, go=tmp_path / "go")
    (tmp_path / "go").touch()
    for process in processes:
        assert process.wait(timeout=60) == 0
    if kind == "jsonl":
        lines = (tmp_path / "m.jsonl").read_text(encoding="utf-8").splitlines()
        records = [json.loads(line)["record"] for line in lines]
    else:
        with sqlite3.connect(tmp_path / "m.db") as db:
            records = [json.loads(row[0]) for row in db.execute("SELECT record_json FROM memory_records")]
    assert len(records) == 180
    for who in "abc":
        assert sorted(r["n"] for r in records if r["who"] == who) == list(range(60))
    assert all(r["text"] == "x" * 2000 for r in records)


@pytest.mark.parametrize("kind", ["jsonl", "sqlite"])
def test_a_writer_killed_mid_loop_leaves_a_readable_memory(tmp_path: Path, kind: str) -> None:
    from promptwire.core.tools import ToolContext, ToolRequest
    from promptwire.tools.jsonl_store import jsonl_memory
    from promptwire.tools.sqlite_store import sqlite_memory

    uri = f"file://{tmp_path}/m.jsonl" if kind == "jsonl" else f"sqlite://{tmp_path}/m.db#ns"
    store = jsonl_memory if kind == "jsonl" else sqlite_memory
    (process,) = writers(uri, ["k"], count=-1, size=200_000, go=tmp_path / "go")
    (tmp_path / "go").touch()
    time.sleep(0.4)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    context = ToolContext(tmp_path, write=(tmp_path,))
    before = store(ToolRequest("M", uri, "query", [{"limit": 100000}]), context).result
    assert before and [item["record"]["n"] for item in reversed(before)] == list(range(len(before)))
    store(ToolRequest("M", uri, "add", [{"who": "next", "n": -1}]), context)
    after = store(ToolRequest("M", uri, "query", [{"limit": 100000}]), context).result
    assert after[0]["record"] == {"who": "next", "n": -1} and len(after) == len(before) + 1
