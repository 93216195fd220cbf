"""JSONL and SQLite memory: AgentScript's envelopes and query rules, one behaviour for both stores,
a torn last line survived, and memory paths that stay beside their program."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptwire.core.tools import MemoryOutcome, ToolContext, ToolError, ToolRequest
from promptwire.runs.run import RunOptions, run
from promptwire.tools import memory_records
from promptwire.tools.jsonl_store import jsonl_memory
from promptwire.tools.sqlite_store import sqlite_memory

from agentscript_source import as_program
from hypothesis_profile import examples

Store = Callable[[str, list[Any]], MemoryOutcome]


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = itertools.count(1)
    ids = itertools.count(1)
    monkeypatch.setattr(memory_records, "now", lambda: f"2026-01-01T00:00:{next(ticks):02d}.000Z")
    monkeypatch.setattr(memory_records, "new_id", lambda: f"id-{next(ids)}")


@pytest.fixture(params=["jsonl", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    uri = f"file://{tmp_path}/m.jsonl" if request.param == "jsonl" else f"sqlite://{tmp_path}/m.db#lessons"
    backend = jsonl_memory if request.param == "jsonl" else sqlite_memory

    def call(operation: str, args: list[Any]) -> MemoryOutcome:
        return backend(ToolRequest("M", uri, operation, args), ToolContext(tmp_path, write=(tmp_path,)))

    return call


def test_add_returns_the_envelope(store: Store) -> None:
    outcome = store("add", [{"kind": "lesson", "text": "Keep it short"}])
    assert outcome.result == {
        "id": "id-1",
        "created_at": "2026-01-01T00:00:01.000Z",
        "updated_at": "2026-01-01T00:00:01.000Z",
        "record": {"kind": "lesson", "text": "Keep it short"},
    }
    assert (outcome.count, outcome.id, outcome.record) == (None, "id-1", {"kind": "lesson", "text": "Keep it short"})


def test_query_filters_newest_first_and_limits(store: Store) -> None:
    store("add", [{"kind": "lesson", "text": "Retries need BACKOFF", "topic": "net"}])
    store("add", [{"kind": "note", "text": "backoff is in the retry helper"}])
    store("add", [{"kind": "lesson", "text": "Cache misses", "topic": "cache", "tags": ["backoff"]}])
    store("add", [{"kind": "lesson", "text": "Name things", "n": 1}])

    def ids(query: dict[str, Any]) -> list[str]:
        outcome = store("query", [query])
        assert outcome.count is None  # the trace counts the list
        return [item["id"] for item in outcome.result]

    assert ids({}) == ["id-4", "id-3", "id-2", "id-1"]
    assert ids({"text": "backoff"}) == ["id-3", "id-2", "id-1"]  # case-insensitive, over the record's JSON too
    assert ids({"text": "backoff", "kind": "lesson"}) == ["id-3", "id-1"]
    assert ids({"where": {"topic": "net"}}) == ["id-1"]
    assert ids({"where": {"n": 1.0}}) == ["id-4"]
    assert ids({"where": {"n": True}}) == []
    assert ids({"where": {"missing": None}}) == []
    assert ids({"limit": 2}) == ["id-4", "id-3"]


def test_a_memory_that_does_not_exist_yet_is_empty(store: Store) -> None:
    assert store("query", [{"text": "x"}]).result == []


@pytest.mark.parametrize(
    ("operation", "args", "message"),
    [
        ("add", ["text"], "memory.add expects an object record"),
        ("add", [], "memory.add expects an object record"),
        ("query", [[]], "memory.query expects an object query"),
        ("query", [{"limit": 0}], "memory.query limit must be a positive integer"),
        ("query", [{"limit": 2.5}], "memory.query limit must be a positive integer"),
        ("query", [{"limit": True}], "memory.query limit must be a positive integer"),
        ("query", [{"where": "kind = 1"}], "memory.query where must be an object"),
    ],
)
def test_bad_calls(store: Store, operation: str, args: list[Any], message: str) -> None:
    with pytest.raises(ToolError) as caught:
        store(operation, args)
    assert str(caught.value) == message


@settings(max_examples=examples(0.4), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.dictionaries(
        st.text(max_size=8),
        st.recursive(
            st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
            max_leaves=8,
        ),
        max_size=5,
    )
)
def test_any_json_record_comes_back_as_it_went_in(store: Store, record: dict[str, Any]) -> None:
    added = store("add", [record]).result
    (found,) = [item for item in store("query", [{"limit": 1000}]).result if item["id"] == added["id"]]
    assert found["record"] == record


def test_sqlite_namespaces_share_a_file_but_not_records(tmp_path: Path) -> None:
    def call(namespace: str, operation: str, args: list[Any]) -> Any:
        uri = f"sqlite://{tmp_path}/shared.db{namespace}"
        return sqlite_memory(ToolRequest("M", uri, operation, args), ToolContext(tmp_path, write=(tmp_path,))).result

    call("#a", "add", [{"text": "in a"}])
    call("", "add", [{"text": "in the default namespace"}])
    assert [item["record"]["text"] for item in call("#a", "query", [{}])] == ["in a"]
    assert [item["record"]["text"] for item in call("#memory", "query", [{}])] == ["in the default namespace"]


# --- JSONL: a torn last line -----------------------------------------------------------------------


def jsonl(tmp_path: Path, operation: str, args: list[Any]) -> Any:
    return jsonl_memory(
        ToolRequest("M", f"file://{tmp_path}/m.jsonl", operation, args), ToolContext(tmp_path, write=(tmp_path,))
    ).result


def test_a_torn_last_line_is_ignored_and_cut_by_the_next_add(tmp_path: Path) -> None:
    jsonl(tmp_path, "add", [{"text": "whole"}])
    path = tmp_path / "m.jsonl"
    with open(path, "ab") as handle:  # what a writer killed in the middle of its write leaves
        handle.write(b'{"id":"torn","created_at":"2026-01-0')
    assert [item["id"] for item in jsonl(tmp_path, "query", [{}])] == ["id-1"]
    jsonl(tmp_path, "add", [{"text": "after"}])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["id-1", "id-2"]


def test_a_file_holding_only_a_torn_line_is_empty(tmp_path: Path) -> None:
    (tmp_path / "m.jsonl").write_bytes(b'{"id":')
    assert jsonl(tmp_path, "query", [{}]) == []
    jsonl(tmp_path, "add", [{"text": "first"}])
    assert len((tmp_path / "m.jsonl").read_text(encoding="utf-8").splitlines()) == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", r"Invalid memory JSONL at .*m\.jsonl:2: "),
        ('{"id": 1}', r"Invalid memory JSONL envelope at .*m\.jsonl:2$"),
    ],
)
def test_a_damaged_line_in_the_middle_is_reported_with_its_number(tmp_path: Path, line: str, message: str) -> None:
    jsonl(tmp_path, "add", [{"text": "one"}])
    with open(tmp_path / "m.jsonl", "a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    with pytest.raises(ToolError, match=message):
        jsonl(tmp_path, "query", [{}])


# --- Paths: beside the program ----------------------------------------------------------------------

PROGRAM = as_program(
    """
    Notes.add({ kind: "lesson", text: input.text })
    Facts.add({ text: input.text })
    { notes: Notes.query({ text: "SHORT" }), facts: Facts.query({ limit: 1 }) }
    """,
    'import memory Notes from "file://notes/lessons.jsonl"',
    'import memory Facts from "sqlite://facts.db#team"',
)


def test_memory_paths_are_relative_to_the_program_not_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program_dir = tmp_path / "agents"
    program_dir.mkdir()
    (program_dir / "notes.as").write_text(PROGRAM, encoding="utf-8")
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    allowed = ToolContext(elsewhere, program_folder=program_dir, write=(program_dir,))
    result = run(program_dir / "notes.as", {"text": "Keep it short"}, RunOptions(tools=allowed))
    assert (program_dir / "notes" / "lessons.jsonl").is_file() and (program_dir / "facts.db").is_file()
    assert list(elsewhere.iterdir()) == []
    assert [item["record"]["text"] for item in result.value["notes"]] == ["Keep it short"]
    assert result.value["facts"][0]["record"] == {"text": "Keep it short"}
    events = [event["data"] for event in result.trace if event["kind"] == "memory"]
    assert [(e["operation"], e["uri"], e["count"]) for e in events] == [
        ("add", f"file://{program_dir}/notes/lessons.jsonl", None),  # an add's result is no list
        ("add", f"sqlite://{program_dir}/facts.db#team", None),
        ("query", f"file://{program_dir}/notes/lessons.jsonl", 1),
        ("query", f"sqlite://{program_dir}/facts.db#team", 1),
    ]
    assert list(events[0]) == ["memory", "operation", "uri", "args", "result", "count", "id", "record"]
    assert (events[0]["id"], events[0]["record"]) == ("id-1", {"kind": "lesson", "text": "Keep it short"})


def test_a_tool_only_scheme_is_no_memory(tmp_path: Path) -> None:
    source = PROGRAM.replace('"sqlite://facts.db#team"', '"sh://grep"')
    with pytest.raises(Exception, match="Unsupported memory URI scheme 'sh'"):
        run(
            source,
            {"text": "x"},
            RunOptions(tools=ToolContext(tmp_path, write=(tmp_path,))),
            path=str(tmp_path / "p.as"),
        )
