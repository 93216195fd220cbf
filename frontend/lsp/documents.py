"""An open ``.as`` file as the server sees it: its path, its text, and its tree, parsed once per version."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..agentscript.syntax import Program
from .outline import Outline

__all__ = ["Document"]


@dataclass
class Document:
    """``path`` names the file as the loader and ``asrender`` name it (absolute: the editor's URI)."""

    uri: str
    path: str | None
    text: str
    version: int | None
    _outline: Outline | None = field(default=None, repr=False)
    _parsed: bool = field(default=False, repr=False)

    def outline(self) -> Outline | None:
        """The file's structure; ``None`` while it does not parse (the diagnostics say why)."""
        if not self._parsed:
            from ...core.errors import PromptwireError
            from ..agentscript import parse

            self._parsed = True
            try:
                self._outline = Outline(parse(self.text, self.path))
            except (PromptwireError, RecursionError):
                self._outline = None
        return self._outline

    @property
    def program(self) -> Program | None:
        outline = self.outline()
        return None if outline is None else outline.program

    @property
    def file(self) -> Path | None:
        return None if self.path is None else Path(self.path)
