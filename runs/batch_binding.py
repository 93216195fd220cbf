"""What ties a results file to the batch that wrote it, so resuming never loses a row silently.

A batch resumes by skipping the rows whose ids the results file holds. That is only right when
each id names one row, and when the results were made by this batch: the same program, the same
row and the options that shape its requests. So, before any row runs:

* every id of the rows file is read once; an id two rows share (``"id": 5`` twice, or a row
  without an id on line 5 beside a row with ``"id": 5``) is refused, naming the lines;
* each result line carries ``source``: the digest of the run (program, reader, provider, model,
  format, renderer options, canned replies, dry run: :func:`run_digest`) and of its row's line
  (:func:`row_digest`); a done row whose digests differ from this batch's is refused (the
  results were made by another program, from another row, or for other requests), unless the
  user says to keep them anyway (``asrender batch --resume-anyway``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..core.json_text import dumps
from ..core.text_files import DEFAULT_MAX_BYTES
from .batch_io import BatchFileError, id_key, parse_row, read_rows

if TYPE_CHECKING:
    from .options import RunOptions

__all__ = ["check_rows", "row_digest", "run_digest"]

SHOWN_LINES = 5
"""Lines named in a refusal (then how many more there are)."""


def run_digest(program: str | None, reader: str | None, options: RunOptions) -> str:
    """``sha256:HEX`` of what shapes every row's requests and replies in a batch of ``program``
    (or of prompts read by ``reader``) run with ``options``."""
    shaping = {
        "program": program,
        "reader": None if program is not None else reader,
        "agent": options.agent,
        "function": options.function,
        "provider": options.adapter,
        "model": options.model,
        "dry_run": options.dry_run,
        "format": options.format,
        "options": dict(options.options),
        "responses": list(options.responses),
    }
    if options.count is not None:  # a counted batch's lines hold counts: not resumed from an uncounted one's
        shaping["count_tokens"] = True
    return _sha256(dumps(shaping, separators=(",", ":"), default=repr))


def row_digest(text: str) -> str:
    """``sha256:HEX`` of a row's line as read (without its line break)."""
    return _sha256(text)


def _sha256(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_rows(
    path: str, done: Mapping[str, Any], run: str, out: str, *, anyway: bool = False, limit: int = DEFAULT_MAX_BYTES
) -> None:
    """Refuse the rows of ``path`` when two share an id, or when a row ``done`` (by id, to the
    run and row digests its result line holds: :func:`.batch_io.source_of`) was not made by this batch (``run``) from this row, unless
    ``anyway``. Reads every line of ``path`` once; keeps one id per row."""
    seen: set[str] = set()
    repeated: set[str] = set()
    differ: list[int] = []
    for number, text in read_rows(path, limit):
        row = parse_row(path, number, text)
        key = id_key(row.id)
        if key in seen:
            repeated.add(key)
        seen.add(key)
        if key in done and not anyway and done[key] != (run, row_digest(text)):
            differ.append(number)
    if repeated:
        raise BatchFileError(_repeated(path, repeated, limit))
    if differ:
        raise BatchFileError(
            f"{out} holds results made by another program, from other rows or with other options "
            f"(rows on lines {_lines(differ)} of {path}): give --out a new file, or --resume-anyway "
            "to keep those results and run only the rows it does not hold"
        )


def _repeated(path: str, repeated: set[str], limit: int) -> str:
    """The refusal of ids two rows share, each with its lines (a second reading: this is rare)."""
    lines: dict[str, list[int]] = {}
    for number, text in read_rows(path, limit):
        key = id_key(parse_row(path, number, text).id)
        if key in repeated:
            lines.setdefault(key, []).append(number)
    shown = "; ".join(f"id {key} on lines {_lines(numbers)}" for key, numbers in list(lines.items())[:SHOWN_LINES])
    more = f" (and {len(lines) - SHOWN_LINES} more ids)" if len(lines) > SHOWN_LINES else ""
    return (
        f"{path}: rows share an id: {shown}{more}. A row is named by its id (its line number when it has "
        "none), and a batch resumes by id: give each row its own"
    )


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(str(number) for number in numbers[:SHOWN_LINES])
    return shown + (f" and {len(numbers) - SHOWN_LINES} more" if len(numbers) > SHOWN_LINES else "")
