"""What both memory stores share: records, queries and where a memory lives.

As AgentScript 0.1.5 defines them. ``add(record)`` stores the object in an envelope
``{"id", "created_at", "updated_at", "record"}`` and returns the envelope. ``query({text?, kind?,
where?, limit?})`` returns envelopes, newest first: ``kind`` must equal the record's ``kind``;
``text`` must occur, ignoring case, in the record's ``text`` or in its compact JSON; each ``where``
field must be present and write the same JSON text (``JSON.stringify``: key order counts);
``limit`` defaults to 10.
"""

from __future__ import annotations

import os
import sys
import uuid
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from ..core.tools import MemoryProviderError, ToolError
from .arguments import js_json, whole_number

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_NAMESPACE",
    "compact_json",
    "envelope",
    "is_envelope",
    "matches",
    "memory_location",
    "new_id",
    "now",
    "query_of",
    "record_of",
]

DEFAULT_LIMIT: Final = 10
DEFAULT_NAMESPACE: Final = "memory"


def new_id() -> str:
    """A record's id (a random UUID; tests replace this function to pin ids)."""
    return str(uuid.uuid4())


def now() -> str:
    """The time of an add, as JavaScript's ``toISOString`` writes it (tests replace this function)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def record_of(args: list[Any]) -> dict[str, Any]:
    record = args[0] if args else None
    if not isinstance(record, dict):
        raise MemoryProviderError("memory.add expects an object record")
    return record


def query_of(args: list[Any]) -> tuple[dict[str, Any], int]:
    """The query object and its limit."""
    query = args[0] if args else None
    if not isinstance(query, dict):
        raise MemoryProviderError("memory.query expects an object query")
    if query.get("where") is not None and not isinstance(query["where"], dict):
        raise MemoryProviderError("memory.query where must be an object")
    if query.get("limit") is None:
        return query, DEFAULT_LIMIT
    limit = whole_number(query["limit"])
    if limit is None or limit <= 0:
        raise MemoryProviderError("memory.query limit must be a positive integer")
    return query, min(limit, sys.maxsize)  # a limit past any count is no limit (deque needs a C size)


def envelope(record: dict[str, Any]) -> dict[str, Any]:
    stamp = now()
    return {"id": new_id(), "created_at": stamp, "updated_at": stamp, "record": record}


def is_envelope(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and all(isinstance(value.get(key), str) for key in ("id", "created_at", "updated_at"))
        and isinstance(value.get("record"), dict)
    )


def compact_json(value: Any) -> str:
    """JSON as JavaScript's ``JSON.stringify`` writes it (see :func:`.arguments.js_json`): no
    spaces, numbers and key order as JavaScript writes them, an infinity as ``null`` (a stored
    ``Infinity`` would make the memory file unreadable to others)."""
    try:
        return js_json(value)
    except RecursionError:
        raise ToolError("the memory record is nested too deeply to store") from None


def matches(record: dict[str, Any], query: dict[str, Any]) -> bool:
    kind = query.get("kind")
    if isinstance(kind, str) and record.get("kind") != kind:
        return False
    text = query.get("text")
    if isinstance(text, str):
        needle = text.lower()
        own_text = record.get("text")
        if not isinstance(own_text, str):
            own_text = ""
        if needle not in own_text.lower() and needle not in compact_json(record).lower():
            return False
    where = query.get("where")
    if where is not None:
        if not isinstance(where, dict):
            raise MemoryProviderError("memory.query where must be an object")
        for key, expected in where.items():
            if key not in record or not _same(record[key], expected):
                return False
    return True


def _same(left: Any, right: Any) -> bool:
    """Equal as AgentScript compares a ``where`` field: the same ``JSON.stringify`` text, so an
    object with the same entries in another key order is another value (``true`` is not ``1``,
    but ``1.0`` read from a memory file is ``1``, as JavaScript reads it)."""
    return compact_json(left) == compact_json(right)


def memory_location(uri: str) -> tuple[str, str]:
    """The file a memory URI names, percent-decoded, and its ``#namespace``.

    A relative path is from the workspace (the loader has already made a program's own memory paths
    absolute, from the file that imports them). Where a memory may be read or written is the run's
    permissions' decision: the path is walked from a folder the run may use, so an absolute path,
    ``..`` or ``%2e%2e`` reaches nothing the run was not allowed. ``..`` is taken by name, as an
    ``import file`` path's is (``os.path.normpath``): ``/work/prog/../notes/m.jsonl`` is
    ``/work/notes/m.jsonl``, which ``--allow-write /work/notes`` allows, and a refusal names the
    flag that would."""
    parts = urlsplit(uri)
    raw = uri[len(parts.scheme) + 3 :].partition("#")[0]
    if not raw:
        raise MemoryProviderError(f"Memory URI '{uri}' names no file")
    path = unquote(raw)
    if "\x00" not in path:
        path = os.path.normpath(path)
    return path, unquote(parts.fragment) or DEFAULT_NAMESPACE
