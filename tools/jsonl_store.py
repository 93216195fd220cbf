"""``file://....jsonl`` memory: one JSON envelope per line, appended, newest last.

Safe with several writers: an add takes an exclusive ``flock`` on the file, and writes its line
with one ``write`` call. A writer killed mid-line leaves a last line with no newline: readers
ignore it (it was never a record), and the next add cuts it off before appending, so its own
record is not glued onto the fragment. A broken line anywhere else is damage, not a torn write,
and is reported with its line number, as AgentScript does.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

from ..core.tools import MemoryOutcome, ToolContext, ToolError, ToolRequest
from .memory_records import compact_json, envelope, is_envelope, matches, memory_location, query_of, record_of

__all__ = ["jsonl_memory"]


def jsonl_memory(request: ToolRequest, context: ToolContext) -> MemoryOutcome:
    path, _ = memory_location(request.uri, context)
    if request.method == "add":
        added = _add(path, record_of(request.args))
        return MemoryOutcome(added, count=1, id=added["id"], record=added["record"])
    query, limit = query_of(request.args)
    found = [item for item in reversed(_read(path)) if matches(item["record"], query)][:limit]
    return MemoryOutcome(found, count=len(found))


def _add(path: Path, record: dict[str, Any]) -> dict[str, Any]:
    added = envelope(record)
    line = (compact_json(added) + "\n").encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError as exc:
        raise ToolError(f"Cannot open memory {path}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        _cut_torn_tail(descriptor)
        os.write(descriptor, line)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)  # closing releases the lock
    return added


def _cut_torn_tail(descriptor: int) -> None:
    """Remove a last line that has no newline: what a writer killed mid-write leaves."""
    size = os.fstat(descriptor).st_size
    if size == 0 or os.pread(descriptor, 1, size - 1) == b"\n":
        return
    start = max(0, size - 65536)
    while True:
        chunk = os.pread(descriptor, size - start, start)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            os.ftruncate(descriptor, start + newline + 1)
            return
        if start == 0:
            os.ftruncate(descriptor, 0)
            return
        start = max(0, start - 65536)


def _read(path: Path) -> list[dict[str, Any]]:
    try:
        with open(path, "rb") as handle:
            fcntl.flock(handle, fcntl.LOCK_SH)
            data = handle.read()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ToolError(f"Cannot read memory {path}: {exc.strerror or exc}") from None
    complete, _, _torn = data.rpartition(b"\n")
    items = []
    for number, raw in enumerate(complete.split(b"\n") if complete else [], start=1):
        line = raw.decode("utf-8", errors="replace").strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise ToolError(f"Invalid memory JSONL at {path}:{number}: {exc}") from None
        if not is_envelope(value):
            raise ToolError(f"Invalid memory JSONL envelope at {path}:{number}")
        items.append(value)
    return items
