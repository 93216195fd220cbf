"""Positions in AgentScript source, counted the way the reference counts them.

The reference reads a program as a JavaScript string, so its columns count UTF-16 code units: a
character outside the Basic Multilingual Plane (an emoji) advances the column by two. Diagnostics must
show the reference's ``LINE:COL`` verbatim, so every position here keeps that column. Lines are split on
``\\n`` only (a ``\\r`` is an ordinary character that takes a column), again as the reference does.

``offset`` is the index into the Python string (code points), so callers can slice the source.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from typing import NamedTuple

from ...core.records import dataclass_record

__all__ = ["SHOWN_WIDTH", "LineMap", "Position", "SourceFile", "Span", "caret_padding", "line_text", "shown_line"]


@functools.cache
def _astral() -> re.Pattern[str]:
    """A character outside the Basic Multilingual Plane (two UTF-16 units). Compiled when first
    asked for: only a source that is not ASCII is searched, and a run of an ASCII program never
    pays its compilation (as :func:`~promptwire.core.printable.half_characters`)."""
    return re.compile("[\U00010000-\U0010ffff]")


_NEWLINE = re.compile("\n")

SHOWN_WIDTH = 160
"""How many characters of a source line an error shows at most: a minified or generated program
may hold a line of megabytes, and a hundred errors on it must not print it a hundred times."""


class Position(NamedTuple):
    """A point in the source: 1-based line, 1-based UTF-16 column, 0-based code-point offset."""

    line: int
    column: int
    offset: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


class Span(NamedTuple):
    """A range of source text; ``end`` is just past the last character, as in the reference.

    A span holds the offsets of its two ends and the :class:`LineMap` of its source, and works out
    the :class:`Position` of an end only when asked: a 2 MB program has 190,000 spans and its checks
    read the positions of a handful (the errors'), so building two positions for every span took a
    fifth of a parse. Two spans are equal when their positions are, whichever parse made them.
    """

    start_offset: int
    end_offset: int
    lines: LineMap

    @property
    def start(self) -> Position:
        return self.lines.at(self.start_offset)

    @property
    def end(self) -> Position:
        return self.lines.at(self.end_offset)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Span):
            return NotImplemented
        return self.start == other.start and self.end == other.end

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Span):
            return NotImplemented
        return not self == other

    def __hash__(self) -> int:
        return hash((self.start, self.end))

    def __repr__(self) -> str:
        return f"Span(start={self.start!r}, end={self.end!r})"


_new = tuple.__new__  # a NamedTuple's own constructor is a Python function; this is the C one


@dataclass_record(frozen=True, slots=True)
class SourceFile:
    """One ``.as`` file of a program: ``name`` as errors and call sites spell it, ``text`` for the
    source line shown under them.

    A program spans files once it imports agents; a node knows only its span, so the declarations
    merged in from another file (an imported agent, its imports) carry their ``SourceFile`` and
    everything inside them is located in it.
    """

    name: str
    text: str

    def __init__(self, name: str, text: str) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "text", text)


class LineMap:
    """Turns code-point offsets into positions for one source text.

    The lexer keeps only the offsets where tokens start, and a :class:`Span` the offsets of its
    ends; a position is worked out here, only when one is read. The line is found by a bisect of the
    line starts, skipped when the offset lies on the line found last (readers such as the tree's
    JSON ask for positions near each other); the column costs one subtraction, and only sources that
    hold astral characters pay for a bisect to add their extra units.
    """

    __slots__ = ("_astral", "_last_line", "line_starts")

    def __init__(self, source: str) -> None:
        self.line_starts = [0, 0, *[match.end() for match in _NEWLINE.finditer(source)], len(source) + 1]
        """Index ``n`` holds the offset where 1-based line ``n`` starts (index 0 is unused); the last
        index holds one past the end, so every line has a next start to compare an offset with."""
        self._astral: list[int] | None = None
        self._last_line = 1
        if not source.isascii() and _astral().search(source):  # isascii() reads a flag: no scan
            self._astral = [match.start() for match in _astral().finditer(source)]

    def column(self, offset: int, line_start: int) -> int:
        """The UTF-16 column of ``offset`` on the line that starts at ``line_start``."""
        astral = self._astral
        if astral is None:
            return offset - line_start + 1
        extra = bisect_left(astral, offset) - bisect_left(astral, line_start)
        return offset - line_start + 1 + extra

    def at(self, offset: int) -> Position:
        """The position of ``offset``, on whichever line it lies."""
        line_starts = self.line_starts
        line = self._last_line
        if not line_starts[line] <= offset < line_starts[line + 1]:
            line = self._last_line = bisect_right(line_starts, offset, 1) - 1
        line_start = line_starts[line]
        if self._astral is None:
            return _new(Position, (line, offset - line_start + 1, offset))
        return _new(Position, (line, self.column(offset, line_start), offset))


def line_text(source: str, line: int) -> str:
    """The text of 1-based ``line`` without its newline (empty past the end)."""
    lines = source.split("\n")
    return lines[line - 1] if 0 < line <= len(lines) else ""


def caret_padding(line: str, column: int) -> str:
    """Blank characters that put a caret under UTF-16 ``column`` of ``line`` (tabs kept as tabs)."""
    return _blanks(line[: _code_point_index(line, column)])


def shown_line(line: str, column: int) -> tuple[str, str]:
    """What an error shows of ``line`` and the blanks that put its caret under UTF-16 ``column``.

    A line longer than :data:`SHOWN_WIDTH` is cut to that many characters around the column, each
    cut end marked ``...``, so an error costs the same on a long line as on a short one.
    """
    if len(line) <= SHOWN_WIDTH:
        return line, caret_padding(line, column)
    index = _code_point_index(line, column)
    start = max(0, min(index - SHOWN_WIDTH // 2, len(line) - SHOWN_WIDTH))
    end = start + SHOWN_WIDTH
    head = "..." if start else ""
    tail = "..." if end < len(line) else ""
    return head + line[start:end] + tail, " " * len(head) + _blanks(line[start:index])


def _code_point_index(line: str, column: int) -> int:
    """The index into ``line`` of UTF-16 ``column`` (the end of the line when it lies past it)."""
    units = max(column - 1, 0)
    if _astral().search(line) is not None:  # each astral character takes two units and one index
        units = len(line.encode("utf-16-le", "surrogatepass")[: 2 * units].decode("utf-16-le", "surrogatepass"))
    return min(units, len(line))


def _blanks(text: str) -> str:
    """As wide as ``text`` on a terminal that shows each character in one cell: tabs stay tabs."""
    return "".join("\t" if char == "\t" else " " for char in text)
