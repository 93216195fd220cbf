"""Offsets in a text to an editor's positions and back, in the encoding the editor chose.

AgentScript counts lines on ``\\n`` alone and columns in UTF-16 code units, 1-based (the
reference's, as ``asrender check`` prints them); the Language Server Protocol counts lines on
``\\n``, ``\\r\\n`` and ``\\r``, 0-based, and characters in the code units the client and server
agreed on (UTF-16 unless both chose another). Everything here goes through code-point offsets into
the text, so a position is the same character whichever way it is counted.
"""

from __future__ import annotations

import re
from bisect import bisect_right

__all__ = ["Placement"]

_LSP_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_CODECS = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}
"""Each encoding's codec and the bytes of its code unit."""


class Placement:
    """Positions in one text. ``encoding`` is ``utf-8``, ``utf-16`` or ``utf-32``."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.text = text
        self.encoding = encoding
        self._starts = [0, *(match.end() for match in _LSP_LINE_BREAK.finditer(text))]
        self._reference_starts: list[int] | None = None

    def position(self, offset: int) -> tuple[int, int]:
        """The 0-based line and character of code-point ``offset``."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self._starts, offset) - 1
        return line, self._units(self.text[self._starts[line] : offset])

    def offset(self, line: int, character: int) -> int:
        """The code-point offset of a 0-based line and character (clamped to the line's end)."""
        if line >= len(self._starts):
            return len(self.text)
        start = self._starts[line]
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        text = self.text[start:end].rstrip("\r\n")
        if self.encoding == "utf-32" or text.isascii():
            return start + min(character, len(text))
        units = 0
        for index, char in enumerate(text):
            if units >= character:
                return start + index
            units += self._units(char)
        return start + len(text)

    def offset_of(self, line: int, column: int) -> int:
        """The code-point offset of AgentScript's 1-based ``line`` (on ``\\n``) and UTF-16 ``column``."""
        if self._reference_starts is None:
            self._reference_starts = [0, *(match.end() for match in re.finditer("\n", self.text))]
        starts = self._reference_starts
        if line > len(starts):
            return len(self.text)
        start = starts[max(line, 1) - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        units = 0
        for index in range(start, end):
            if units >= column - 1:
                return index
            units += 2 if ord(self.text[index]) > 0xFFFF else 1
        return end

    def _units(self, text: str) -> int:
        if self.encoding == "utf-32" or text.isascii():
            return len(text)
        codec, width = _CODECS[self.encoding]
        return len(text.encode(codec, "surrogatepass")) // width
