"""``sqlite://path#namespace`` memory, with Python's sqlite3, in AgentScript's table layout.

One table ``memory_records`` keyed by ``(namespace, id)``, so several memories share a database
file; the namespace defaults to ``memory``. The database runs in WAL mode with a busy timeout, so
concurrent writers wait for each other instead of failing, and each add is one transaction.
Queries return newest first (``created_at``, then insertion order for records of the same
millisecond).

The database is found through the run's permissions: an add needs ``--allow-write`` for it, a
query that it may be read. A run that may not write the database reads it as it is on disk
(SQLite's ``immutable`` mode), so a query writes nothing, not even SQLite's shared-memory file
beside it; records a writer running at that very moment still holds in its write-ahead log are not
seen.
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import closing
from typing import Any, Final
from urllib.parse import quote

from ..core.tools import MemoryOutcome, MemoryProviderError, ToolContext, ToolError, ToolRequest
from .memory_records import compact_json, envelope, matches, memory_location, query_of, record_of

__all__ = ["sqlite_memory"]

BUSY_TIMEOUT_SECONDS: Final = 30.0
_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS memory_records (
    namespace TEXT NOT NULL,
    id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    kind TEXT,
    text TEXT,
    record_json TEXT NOT NULL,
    PRIMARY KEY (namespace, id)
)
"""


def sqlite_memory(request: ToolRequest, context: ToolContext) -> MemoryOutcome:
    path, namespace = memory_location(request.uri)
    try:
        if request.method == "add":
            record = record_of(request.args)
            database = context.database(path, create=True)
            assert database is not None
            added = _add(database, namespace, record)
            return MemoryOutcome(added, id=added["id"], record=added["record"])
        query, limit = query_of(request.args)
        database = context.database(path, create=False)
        found = [] if database is None else _query(database, context.may_write(database), namespace, query, limit)
        return MemoryOutcome(found)
    except sqlite3.Error as exc:
        raise ToolError(f"SQLite memory {path}: {exc}") from None
    except OSError as exc:
        raise ToolError(f"Cannot open memory {path}: {exc.strerror or exc}") from None


def _open(path: str) -> sqlite3.Connection:
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    # Switching a new database to WAL and creating the table can meet "database is locked" at once,
    # without SQLite's busy wait, when several processes open a new database together: retry.
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute(_SCHEMA)
            return connection
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                connection.close()
                raise
            time.sleep(0.005)


def _open_as_on_disk(path: str) -> sqlite3.Connection:
    """A read-only connection that writes nothing beside the database (no shared-memory file)."""
    return sqlite3.connect(f"file:{quote(path)}?mode=ro&immutable=1", uri=True, isolation_level=None)


def _add(path: str, namespace: str, record: dict[str, Any]) -> dict[str, Any]:
    added = envelope(record)
    kind, text = record.get("kind"), record.get("text")
    with closing(_open(path)) as connection:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(
            "INSERT INTO memory_records (namespace, id, created_at, updated_at, kind, text, record_json)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                namespace,
                added["id"],
                added["created_at"],
                added["updated_at"],
                kind if isinstance(kind, str) else None,
                text if isinstance(text, str) else None,
                compact_json(record),
            ),
        )
        connection.execute("COMMIT")
    return added


def _query(path: str, writable: bool, namespace: str, query: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    conditions, params = ["namespace = ?"], [namespace]
    if isinstance(query.get("kind"), str):
        conditions.append("kind = ?")
        params.append(query["kind"])
    connection = _open(path) if writable else _open_as_on_disk(path)
    with closing(connection):
        try:
            rows = connection.execute(
                "SELECT id, created_at, updated_at, record_json FROM memory_records"
                f" WHERE {' AND '.join(conditions)} ORDER BY created_at DESC, rowid DESC",
                params,
            ).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []  # a database no memory has been added to yet
            raise
    found = []
    for row_id, created_at, updated_at, record_json in rows:
        try:
            record = json.loads(record_json)
        except ValueError as exc:
            raise MemoryProviderError(f"Invalid sqlite memory record '{row_id}': {exc}") from None
        except RecursionError:
            raise MemoryProviderError(f"Invalid sqlite memory record '{row_id}': nested too deeply") from None
        if not isinstance(record, dict):
            raise MemoryProviderError(f"Invalid sqlite memory record '{row_id}': record_json must be an object")
        if matches(record, query):
            found.append({"id": row_id, "created_at": created_at, "updated_at": updated_at, "record": record})
            if len(found) >= limit:
                break
    return found
