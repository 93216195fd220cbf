"""The two files of ``asrender batch``: the rows read in, and the results written out, both one
JSON object a line and both streamed, so a batch holds one row (or one chunk of rows) at a time.

The results file is what makes a batch resumable and safe to kill. It is opened as every file
``asrender`` writes by name is (:func:`promptwire.core.written_files.open_written`: no symbolic
link, FIFO, device or file with other hard links). It is only ever appended to,
each write a whole number of complete lines (one ``os.write`` of bytes ending in a newline), so a
process killed at any moment leaves every line it finished intact and at most one unfinished line
at the end, which has no newline and starts as every result line does. Reopening the file
(:meth:`ResultsFile.open`) cuts that unfinished line off (any other line is refused: the file is
not results) and returns the ids of the rows already done, which the batch then skips. An exclusive lock keeps a second batch from appending to
the same file at the same time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import PromptwireError
from ..core.json_text import dumps
from ..core.text_files import DEFAULT_MAX_BYTES

__all__ = ["BadRow", "ResultsFile", "Row", "id_key", "read_rows", "result_line", "source_of"]


class BatchFileError(PromptwireError):
    """The rows or the results file cannot be used at all (as opposed to one bad row)."""


@dataclass(frozen=True, slots=True)
class Row:
    """One input row: where it is (``line``), its id (its ``id`` field, else its line number) and
    its data without the ``id``."""

    line: int
    id: str | int
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class BadRow:
    """A line that is no row: not JSON, not an object, or an ``id`` that is neither text nor an integer."""

    line: int
    reason: str

    @property
    def id(self) -> int:
        """A bad row's id is its line number: its own, if it has one, could not be read."""
        return self.line


class OversizedRow(str):
    """A line longer than the batch reads (``--max-input-size``), read past, never kept: its
    text is empty and ``size`` says how many bytes it held. :func:`parse_row` makes it a bad row."""

    size: int
    limit: int


def read_rows(path: str, limit: int = DEFAULT_MAX_BYTES) -> Iterator[tuple[int, str]]:
    """Each non-blank line of ``path`` with its line number (from 1), read as it is needed; a
    line of more than ``limit`` bytes is read past in pieces and given as an :class:`OversizedRow`."""
    try:
        stream = open(path, "rb")  # noqa: SIM115 - closed by the generator's end or its close()
    except OSError as exc:
        raise BatchFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    with stream:
        number = 0
        while raw := stream.readline(limit + 1):
            number += 1
            if len(raw) > limit and not raw.endswith(b"\n"):
                yield number, _read_past(stream, raw, limit)
                continue
            text = raw.decode("utf-8", "surrogateescape").rstrip("\r\n")
            if text.strip():
                yield number, text


def _read_past(stream: Any, start: bytes, limit: int) -> OversizedRow:
    """The rest of a line too long to keep, read in pieces up to its newline."""
    size = len(start)
    while piece := stream.readline(1 << 20):
        size += len(piece)
        if piece.endswith(b"\n"):
            break
    row = OversizedRow()
    row.size, row.limit = size, limit
    return row


def parse_row(label: str, number: int, text: str) -> Row | BadRow:
    """The row on line ``number`` of ``label``, read as a prompt file's JSON is (duplicate keys
    and too deep nesting refused), or why it is not one."""
    from .inputs import PromptFileError, parse_data

    if isinstance(text, OversizedRow):
        return BadRow(number, f"the row is {text.size:,} bytes, more than --max-input-size ({text.limit:,} bytes)")
    where = f"{label}:{number}"
    try:
        data = parse_data(text, where, json_by_name=True)
    except PromptFileError as exc:
        return BadRow(number, _reason(str(exc), where))
    if not isinstance(data, dict):
        return BadRow(number, f"a row must be a JSON object, got {_kind(data)}")
    row_id = data.pop("id", number)
    if isinstance(row_id, bool) or not isinstance(row_id, str | int):
        return BadRow(number, f"a row's id must be text or an integer, got {_kind(row_id)}")
    return Row(number, row_id, data)


def _reason(message: str, where: str) -> str:
    """A reader's message without its location (the report names the line): one line is one row,
    so the parser's "line 1" is the row's line, and its column is said in words."""
    rest = message.removeprefix(f"{where}:1:").removeprefix(f"{where}:").lstrip()
    column, separator, reason = rest.partition(": ")
    return f"{reason} (column {column})" if separator and column.isdigit() else rest


def _kind(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "text", bool: "true or false", type(None): "null"}
    return names.get(type(value), "a number")


def id_key(row_id: object) -> str:
    """A row id as the results file spells it (``1`` and ``"1"`` are two ids)."""
    return json.dumps(row_id, ensure_ascii=False)


def result_line(result: dict[str, Any]) -> bytes:
    """One result as its line of the results file: compact JSON, with the line separators that
    some line readers split at (U+2028, U+2029) and what a terminal acts on written as escapes."""
    from ..core.json_text import safe_json

    return (safe_json(dumps(result, separators=(",", ":"))) + "\n").encode("utf-8")


class ResultsFile:
    """The results file, open for appending: see the module docstring."""

    def __init__(self, path: str, fd: int) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def open(cls, path: str) -> tuple[ResultsFile, dict[str, tuple[str, str] | None]]:
        """``path`` opened (created if need be) and locked, its unfinished last line cut off (a
        complete one that lacks only its newline is kept and given it); with the ids
        (:func:`id_key`) of the rows it already holds, each to the digests its line was made from
        (:func:`source_of`)."""
        import fcntl

        from ..core.written_files import open_written

        fd = open_written(path, "a results file", BatchFileError, truncate=False, readable=True)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise BatchFileError(f"{path}: another batch is writing to it") from None
        try:
            done, end, complete = _done_rows(path, fd)
            if end != os.fstat(fd).st_size:
                os.ftruncate(fd, end)  # the line a killed batch did not finish
            if not complete:
                os.write(fd, b"\n")  # a last result whole but for its newline: kept, not paid for again
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd), done

    def write(self, lines: Iterable[bytes]) -> None:
        """Append complete lines, in one write when the system allows."""
        data = memoryview(b"".join(lines))
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError as exc:
            raise BatchFileError(f"{self.path}: cannot write: {exc.strerror or exc}") from None

    def close(self) -> None:
        """Flush to the disk and let go of the file (and its lock)."""
        try:
            os.fsync(self._fd)
        except OSError:
            pass  # a pipe or a device: nothing to flush
        finally:
            os.close(self._fd)

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _done_rows(path: str, fd: int) -> tuple[dict[str, tuple[str, str] | None], int, bool]:
    """The ids of the results in the file (each to its :func:`source_of`), where its last result
    ends, and whether that result ends with its newline."""
    done: dict[str, tuple[str, str] | None] = {}
    end = 0
    complete = True
    with os.fdopen(os.dup(fd), "rb") as stream:
        stream.seek(0)
        for number, raw in enumerate(stream, 1):
            result = _result(raw)
            if not raw.endswith(b"\n"):
                if result is None and not _unfinished_result(raw):
                    raise _not_results(path, number)
                if result is None:
                    break  # unfinished: cut off
                complete = False
            elif result is None:
                raise _not_results(path, number)
            done[id_key(result["id"])] = source_of(result)
            end += len(raw)
    return done, end, complete


def _result(raw: bytes) -> dict[str, Any] | None:
    """A result line's data, or None when the line is none."""
    try:
        result = json.loads(raw)
    except ValueError:
        return None
    return result if isinstance(result, dict) and "id" in result else None


def source_of(result: Mapping[str, Any]) -> tuple[str, str] | None:
    """The digests of the run and the row a result was made from (its ``source``), if it says."""
    source = result.get("source")
    if isinstance(source, dict) and isinstance(source.get("run"), str) and isinstance(source.get("row"), str):
        return source["run"], source["row"]
    return None


_RESULT_START = b'{"id":'
"""How every result line starts (:func:`result_line` writes the id first)."""


def _unfinished_result(raw: bytes) -> bool:
    """Whether a last line without its newline is what a killed batch leaves (the start of a
    result line), not the end of a note or a settings file, which must not be cut."""
    return raw.startswith(_RESULT_START) or _RESULT_START.startswith(raw)


def _not_results(path: str, number: int) -> BatchFileError:
    return BatchFileError(f"{path}:{number}: not a result line; give --out a new file or the results of this batch")
