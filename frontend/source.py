"""Positions in AgentScript source, counted the way the reference counts them.

The reference reads a program as a JavaScript string, so its columns count UTF-16 code units: a
character outside the Basic Multilingual Plane (an emoji) advances the column by two. Diagnostics must
show the reference's ``LINE:COL`` verbatim, so every position here keeps that column. Lines are split on
``\\n`` only (a ``\\r`` is an ordinary character that takes a column), again as the reference does.

``offset`` is the index into the Python string (code points), so callers can slice the source.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass
from typing import NamedTuple

__all__ = ["LineMap", "Position", "SourceFile", "Span", "caret_padding", "line_text"]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class Position(NamedTuple):
    """A point in the source: 1-based line, 1-based UTF-16 column, 0-based code-point offset."""

    line: int
    column: int
    offset: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


class Span(NamedTuple):
    """A range of source text; ``end`` is just past the last character, as in the reference."""

    start: Position
    end: Position


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One ``.as`` file of a program: ``name`` as errors and call sites spell it, ``text`` for the
    source line shown under them.

    A program spans files once it imports agents; a node knows only its span, so the declarations
    merged in from another file (an imported agent, its imports) carry their ``SourceFile`` and
    everything inside them is located in it.
    """

    name: str
    text: str


class LineMap:
    """Turns code-point offsets into positions for one source text.

    A plain tuple-per-token lexer is the hot path, so the common case (no astral characters) costs one
    subtraction; only sources that hold astral characters pay for a bisect to add their extra units.
    """

    __slots__ = ("_astral",)

    def __init__(self, source: str) -> None:
        self._astral: list[int] | None = None
        if _ASTRAL.search(source):
            self._astral = [match.start() for match in _ASTRAL.finditer(source)]

    @property
    def has_astral(self) -> bool:
        return self._astral is not None

    def column(self, offset: int, line_start: int) -> int:
        """The UTF-16 column of ``offset`` on the line that starts at ``line_start``."""
        astral = self._astral
        if astral is None:
            return offset - line_start + 1
        extra = bisect_left(astral, offset) - bisect_left(astral, line_start)
        return offset - line_start + 1 + extra


def line_text(source: str, line: int) -> str:
    """The text of 1-based ``line`` without its newline (empty past the end)."""
    lines = source.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


def caret_padding(line: str, column: int) -> str:
    """Blank characters that put a caret under UTF-16 ``column`` of ``line`` (tabs kept as tabs)."""
    pad: list[str] = []
    units = 0
    for char in line:
        if units >= column - 1:
            break
        pad.append("\t" if char == "\t" else " ")
        units += 2 if char >= "\U00010000" else 1
    return "".join(pad)
