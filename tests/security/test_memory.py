"""Memory URIs under attack: a memory is a file the program names, so its path gets the same walk and
the same permissions as any other file, and a malformed query is an error, never a crash.

The run below may read its workspace and write its ``mem`` folder (``--allow-write mem``); the
folder outside must be untouched after every payload, and no call may hang.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptwire.core.errors import PromptwireError
from promptwire.core.permissions import NotAllowed, Permissions
from promptwire.core.tools import ToolError, ToolRequest
from promptwire.tools.jsonl_store import jsonl_memory
from promptwire.tools.sqlite_store import sqlite_memory

from hypothesis_profile import examples

SECRET = "OUTSIDE-SECRET\n"


@pytest.fixture
def work(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "work"
    (root / "mem").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET, encoding="utf-8")
    (outside / "old.jsonl").write_text("", encoding="utf-8")

    def hung(*_: Any) -> None:
        raise TimeoutError("the call hung")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    yield root
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)
    assert sorted(os.listdir(outside)) == ["old.jsonl", "secret.txt"]
    assert (outside / "secret.txt").read_text(encoding="utf-8") == SECRET
    assert (outside / "old.jsonl").read_text(encoding="utf-8") == ""


def memory(work: Path, uri: str, operation: str, args: Any, context: Permissions | None = None) -> Any:
    context = context or Permissions(work, write=(work / "mem",))
    store = sqlite_memory if uri.startswith("sqlite:") else jsonl_memory
    return store(ToolRequest("M", uri.replace("{work}", str(work)), operation, [args]), context).result


def _nothing(work: Path) -> None:
    pass


def _link(name: str, target: str) -> Callable[[Path], None]:
    def plant(work: Path) -> None:
        (work / "mem" / name).symlink_to(target)

    return plant


WRITE_REFUSED = r" needs --allow-write \(asrender \.\.\. --allow-write "
READ_REFUSED = r" needs --allow-read \(asrender \.\.\. --allow-read "
LEADS_OUT = r"^Path escapes the files this run may (write|read): "

# (payload, setup, URI, operation, the defence)
PAYLOADS: list[tuple[str, Callable[[Path], None], str, str, str]] = [
    (
        "an absolute path elsewhere",
        _nothing,
        "file://{work}/../outside/old.jsonl",
        "add",
        "^Writing /.*/outside/old.jsonl" + WRITE_REFUSED,
    ),
    ("an absolute path elsewhere, read", _nothing, "file:///etc/hosts", "query", "^Reading /etc/hosts" + READ_REFUSED),
    (
        "a new file elsewhere",
        _nothing,
        "file:///tmp/promptwire-never.jsonl",
        "add",
        "^Writing /tmp/promptwire-never.jsonl" + WRITE_REFUSED,
    ),
    # '..' is taken by name, as an import file path's is: the refusal names the flag that allows it.
    ("..", _nothing, "file://mem/../../outside/old.jsonl", "add", "^Writing /.*/outside/old.jsonl" + WRITE_REFUSED),
    (
        "%2e%2e",
        _nothing,
        "file://mem/%2e%2e/%2e%2e/outside/old.jsonl",
        "add",
        "^Writing /.*/outside/old.jsonl" + WRITE_REFUSED,
    ),
    (
        "%2e%2e%2f",
        _nothing,
        "file://mem%2f%2e%2e%2f%2e%2e%2foutside%2fold.jsonl",
        "add",
        "^Writing /.*/outside/old.jsonl" + WRITE_REFUSED,
    ),
    (
        "a NUL byte",
        _nothing,
        "file://mem/m.jsonl%00.txt",
        "add",
        "^Path escapes the files this run may write: 'mem/m.jsonl",
    ),
    ("outside the writable folder", _nothing, "file://notes.jsonl", "add", "^Writing notes.jsonl" + WRITE_REFUSED),
    ("sqlite: ..", _nothing, "sqlite://mem/../../outside/m.db#x", "add", "^Writing /.*/outside/m.db" + WRITE_REFUSED),
    (
        "sqlite: an absolute path",
        _nothing,
        "sqlite:///tmp/promptwire-never.db#x",
        "add",
        "^Writing /tmp/promptwire-never.db" + WRITE_REFUSED,
    ),
    ("a symlink out", _link("m.jsonl", "../../outside/secret.txt"), "file://mem/m.jsonl", "add", LEADS_OUT),
    (
        "a symlink out, read",
        _link("m.jsonl", "../../outside/secret.txt"),
        "file://mem/m.jsonl",
        "query",
        "^Path escapes",
    ),
    ("a dangling symlink out", _link("m.jsonl", "../../outside/new.jsonl"), "file://mem/m.jsonl", "add", LEADS_OUT),
    ("sqlite: a symlink out", _link("m.db", "../../outside/secret.txt"), "sqlite://mem/m.db", "add", LEADS_OUT),
    (
        "sqlite: a planted WAL file",
        _link("m.db-wal", "../../outside/secret.txt"),
        "sqlite://mem/m.db",
        "add",
        r"^m\.db-wal beside mem/m\.db is not a plain file",
    ),
    ("a FIFO", lambda work: os.mkfifo(work / "mem" / "m.jsonl"), "file://mem/m.jsonl", "add", r"not a regular file"),
    (
        "a FIFO, read",
        lambda work: os.mkfifo(work / "mem" / "m.jsonl"),
        "file://mem/m.jsonl",
        "query",
        r"not a regular file",
    ),
    (
        "sqlite: a FIFO",
        lambda work: os.mkfifo(work / "mem" / "m.db"),
        "sqlite://mem/m.db",
        "add",
        r"not a regular file",
    ),
    (
        "a hard link to a file outside",
        lambda work: os.link(work.parent / "outside" / "old.jsonl", work / "mem" / "m.jsonl"),
        "file://mem/m.jsonl",
        "add",
        r"^mem/m\.jsonl has other hard links",
    ),
    (
        "/proc",
        _nothing,
        "file:///proc/self/environ",
        "query",
        r"^/proc/self/environ is under /proc, /sys, /dev: never opened$",
    ),
]


@pytest.mark.parametrize(("payload", "setup", "uri", "operation", "defence"), PAYLOADS, ids=[p[0] for p in PAYLOADS])
def test_memory_payloads(
    work: Path, payload: str, setup: Callable[[Path], None], uri: str, operation: str, defence: str
) -> None:
    setup(work)
    with pytest.raises(PromptwireError, match=defence):
        memory(work, uri, operation, {"text": "x"})


def test_a_memory_reached_through_dots_is_the_folder_it_names(work: Path) -> None:
    """``..`` in a memory path is taken by name, as an ``import file`` path's is: a sibling folder
    the user granted is reached (it was refused as leading out, naming a flag that did not help)."""
    notes = work.parent / "notes"
    notes.mkdir()
    granted = Permissions(work, read=(notes,), write=(notes,))
    memory(work, "file://{work}/../notes/m.jsonl", "add", {"text": "kept"}, context=granted)
    assert [item["record"] for item in memory(work, f"file://{notes}/m.jsonl", "query", {}, context=granted)] == [
        {"text": "kept"}
    ]


def test_proc_is_never_opened_even_when_allowed(work: Path) -> None:
    allowed = Permissions(work, read=(Path("/proc"),))
    with pytest.raises(PromptwireError, match="never opened"):
        memory(work, "file:///proc/self/environ", "query", {}, context=allowed)


def test_the_memory_of_a_program_is_read_from_its_folder_and_written_only_when_allowed(work: Path) -> None:
    program = work.parent / "program"
    program.mkdir()
    uri = f"file://{program}/lessons.jsonl"
    (program / "lessons.jsonl").write_text(
        json.dumps({"id": "1", "created_at": "t", "updated_at": "t", "record": {"text": "kept"}}) + "\n",
        encoding="utf-8",
    )
    default = Permissions(work, program_folder=program)
    assert [item["id"] for item in memory(work, uri, "query", {}, context=default)] == ["1"]
    with pytest.raises(NotAllowed, match=f"^Writing {program}/lessons.jsonl needs --allow-write"):
        memory(work, uri, "add", {"text": "new"}, context=default)
    allowed = Permissions(work, program_folder=program, write=(program / "lessons.jsonl",))
    memory(work, uri, "add", {"text": "new"}, context=allowed)
    assert len((program / "lessons.jsonl").read_text(encoding="utf-8").splitlines()) == 2


def test_a_query_of_a_database_the_run_may_not_write_writes_nothing(work: Path) -> None:
    memory(work, "sqlite://mem/m.db", "add", {"text": "kept"})
    before = sorted(os.listdir(work / "mem"))
    read_only = Permissions(work)
    assert [item["record"] for item in memory(work, "sqlite://mem/m.db", "query", {}, context=read_only)] == [
        {"text": "kept"}
    ]
    assert sorted(os.listdir(work / "mem")) == before == ["m.db"]


def test_a_file_without_a_final_newline_keeps_its_last_line(work: Path) -> None:
    notes = work / "mem" / "notes.jsonl"
    notes.write_bytes(b"first line\nlast line, no newline")
    memory(work, "file://mem/notes.jsonl", "add", {"text": "x"})
    lines = notes.read_bytes().split(b"\n")
    assert lines[:2] == [b"first line", b"last line, no newline"]  # kept whole, then ended
    assert json.loads(lines[2])["record"] == {"text": "x"} and lines[3] == b""


def test_a_torn_envelope_is_cut_and_a_whole_one_kept(work: Path) -> None:
    notes = work / "mem" / "m.jsonl"
    memory(work, "file://mem/m.jsonl", "add", {"n": 1})
    whole = notes.read_bytes()
    notes.write_bytes(whole + whole.rstrip(b"\n"))  # a whole envelope that only lacks its newline
    memory(work, "file://mem/m.jsonl", "add", {"n": 2})
    assert [item["record"]["n"] for item in memory(work, "file://mem/m.jsonl", "query", {})] == [2, 1, 1]
    notes.write_bytes(notes.read_bytes() + whole[:20])  # what a writer killed mid-line leaves
    memory(work, "file://mem/m.jsonl", "add", {"n": 3})
    assert [item["record"]["n"] for item in memory(work, "file://mem/m.jsonl", "query", {})] == [3, 2, 1, 1]


ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # NaN and the infinities (1e400 in JSON) included
    st.text(max_size=5),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers() | st.text(max_size=3) | st.none(), max_size=2),
)


@settings(max_examples=examples(1.5), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.dictionaries(st.sampled_from(["text", "kind", "where", "limit", "other"]), ODD, max_size=4) | ODD)
def test_any_query_is_a_result_or_a_clear_error(work: Path, query: Any) -> None:
    for uri in ("file://mem/m.jsonl", "sqlite://mem/m.db"):
        memory(work, uri, "add", {"text": "a record", "kind": "note", "n": 1})
        try:
            found = memory(work, uri, "query", query)
        except ToolError as error:
            assert str(error).startswith("memory.query ")
        else:
            assert isinstance(found, list)


def test_a_record_nested_too_deeply_for_sqlite_is_refused(work: Path) -> None:
    (work / "mem" / "deep.db").unlink(missing_ok=True)
    with sqlite3.connect(work / "mem" / "deep.db") as database:
        database.execute(
            "CREATE TABLE memory_records (namespace TEXT NOT NULL, id TEXT NOT NULL, created_at TEXT NOT NULL,"
            " updated_at TEXT NOT NULL, kind TEXT, text TEXT, record_json TEXT NOT NULL, PRIMARY KEY (namespace, id))"
        )
        database.execute(
            "INSERT INTO memory_records VALUES ('memory', 'deep', 't', 't', NULL, NULL, ?)",
            ('{"a":' + "[" * 100_000 + "]" * 100_000 + "}",),
        )
    with pytest.raises(ToolError, match=r"^Invalid sqlite memory record 'deep': nested too deeply$"):
        memory(work, "sqlite://mem/deep.db", "query", {})


@pytest.mark.parametrize("uri", ["file://mem/m.jsonl", "sqlite://mem/m.db"])
def test_a_record_nested_too_deeply_to_store_is_refused(work: Path, uri: str) -> None:
    record: dict[str, Any] = {}
    inner = record
    for _ in range(5000):
        inner["a"] = {}
        inner = inner["a"]
    with pytest.raises(ToolError, match=r"^the memory record is nested too deeply to store$"):
        memory(work, uri, "add", record)
