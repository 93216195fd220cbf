"""An open ``.as`` file as the server sees it: its path, its text, and its tree, parsed once per version."""

from __future__ import annotations

import threading
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
    _program: Program | None = field(default=None, repr=False)
    _loaded: bool = field(default=False, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    def outline(self) -> Outline | None:
        """The file's structure; ``None`` while it does not parse (the diagnostics say why). Worked
        out once, by whichever thread asks first (the others wait for it)."""
        with self._lock:
            if not self._parsed:
                from ...core.errors import PromptwireError
                from ..agentscript import parse

                try:
                    self._outline = Outline(parse(self.text, self.path))
                except (PromptwireError, RecursionError):
                    self._outline = None
                self._parsed = True
        return self._outline

    def loaded(self) -> Program | None:
        """The program as a run loads it (its imported agents merged in); ``None`` when it does not
        load. Loaded once per version: references ask it for every name of the file."""
        with self._lock:
            if not self._loaded:
                from ...core.errors import PromptwireError
                from ..agentscript.loader import load_program

                try:
                    self._program = load_program(self.text, self.path)
                except (PromptwireError, RecursionError):
                    self._program = None
                self._loaded = True
        return self._program

    @property
    def program(self) -> Program | None:
        outline = self.outline()
        return None if outline is None else outline.program

    @property
    def file(self) -> Path | None:
        return None if self.path is None else Path(self.path)
