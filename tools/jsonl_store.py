"""``file://....jsonl`` memory: one JSON envelope per line, appended, newest last.

Safe with several writers: an add takes an exclusive ``flock`` on the file, and writes its line
with one ``write`` call. A writer killed mid-line leaves a last line with no newline: readers
ignore it (it was never a record), and the next add cuts it off before appending, so its own record
is not glued onto the fragment. Only such a fragment is cut: a last line without a newline that is
not the start of an envelope (a file that was not a memory) is kept, and ended with a newline
before the record. A broken line anywhere else is damage, not a torn write, and is reported with
its line number, as AgentScript does.

The file is opened through the run's permissions: reading needs the file in a folder the run may
read (the program's own folder, say), adding needs ``--allow-write``. A query streams the file, so
it holds the records it returns, not the memory.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections import deque
from typing import Any, Final

from ..core.tools import MemoryOutcome, MemoryProviderError, ToolContext, ToolError, ToolRequest
from .memory_records import compact_json, envelope, is_envelope, matches, memory_location, query_of, record_of

__all__ = ["jsonl_memory"]

_ENVELOPE_START: Final = b'{"id":"'  # how every line an add writes begins
_MAX_TORN_CHECK: Final = 64 * 1024 * 1024
_CHUNK: Final = 65536


def jsonl_memory(request: ToolRequest, context: ToolContext) -> MemoryOutcome:
    path, _ = memory_location(request.uri)
    try:
        if request.method == "add":
            added = _add(context, path, record_of(request.args))
            return MemoryOutcome(added, id=added["id"], record=added["record"])
        query, limit = query_of(request.args)
        found = _query(context, path, query, limit)
    except OSError as exc:
        raise ToolError(f"Cannot open memory {path}: {exc.strerror or exc}") from None
    return MemoryOutcome(found)


def _add(context: ToolContext, path: str, record: dict[str, Any]) -> dict[str, Any]:
    with context.open_appending(path) as handle:  # closing releases the lock
        descriptor = handle.fileno()
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        added = envelope(record)  # stamped once it is sure to be stored
        line = (compact_json(added) + "\n").encode()
        os.write(descriptor, _end_last_line(descriptor) + line)
        os.fsync(descriptor)
    return added


def _end_last_line(descriptor: int) -> bytes:
    """What goes before a new record: nothing when the file ends with a newline (or is empty); after
    a torn envelope, nothing either, once the fragment is cut off; after any other last line, a
    newline, so that line is kept whole."""
    size = os.fstat(descriptor).st_size
    if size == 0 or os.pread(descriptor, 1, size - 1) == b"\n":
        return b""
    start = _last_line_start(descriptor, size)
    head = os.pread(descriptor, len(_ENVELOPE_START), start)
    if not _ENVELOPE_START.startswith(head) and not head.startswith(_ENVELOPE_START):
        return b"\n"  # not a fragment of ours
    if size - start <= _MAX_TORN_CHECK and _parses(os.pread(descriptor, size - start, start)):
        return b"\n"  # a whole envelope that only lacks its newline
    os.ftruncate(descriptor, start)
    return b""


def _last_line_start(descriptor: int, size: int) -> int:
    end = size
    while end > 0:
        start = max(0, end - _CHUNK)
        newline = os.pread(descriptor, end - start, start).rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        end = start
    return 0


def _parses(data: bytes) -> bool:
    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return False
    return True


def _query(context: ToolContext, path: str, query: dict[str, Any], limit: int) -> list[dict[str, Any]]:
    try:
        handle = context.open_reading(path)
    except FileNotFoundError:
        return []
    found: deque[dict[str, Any]] = deque(maxlen=limit)  # the newest matches, oldest first
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_SH)
        for number, raw in enumerate(handle, start=1):
            if not raw.endswith(b"\n"):
                break  # a torn last line: never a record
            line = raw.decode("utf-8", errors="replace").strip()
            if not line:
                continue
            try:
                value = json.loads(line)
            except ValueError as exc:
                raise MemoryProviderError(f"Invalid memory JSONL at {path}:{number}: {exc}") from None
            except RecursionError:
                raise MemoryProviderError(f"Invalid memory JSONL at {path}:{number}: nested too deeply") from None
            if not is_envelope(value):
                raise MemoryProviderError(f"Invalid memory JSONL envelope at {path}:{number}")
            if matches(value["record"], query):
                found.append(value)
    return list(reversed(found))
