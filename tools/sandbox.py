"""Keeping file access inside the workspace: the one place that decides what a path may reach.

A program's (or a model's) path is untrusted. AgentScript's own check resolves ``..`` and compares
prefixes, and follows symlinks only for paths that already exist; here every component is resolved
(``Path.resolve`` follows each symlink, existing or not), so ``..``, absolute paths elsewhere, a
symlink out of the workspace, a new file written through a symlinked folder and a write onto a
dangling symlink are all refused with AgentScript's message, ``Path escapes workspace: <path>``.
Walks never follow symlinks, as AgentScript's do not.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from ..core.text_files import read_file_text
from ..core.tools import ToolError

__all__ = ["glob_matcher", "inside", "lines_of", "read_text", "relative", "walk"]


def inside(workspace: Path, path: str) -> Path:
    """``path`` (relative to the workspace, or absolute) as a real path inside ``workspace``."""
    if "\x00" in path:
        raise ToolError(f"Path escapes workspace: {path!r}")
    root = workspace.resolve()
    try:
        real = (root / path).resolve()
    except (OSError, RuntimeError):  # a symlink loop
        raise ToolError(f"Path escapes workspace: {path}") from None
    if real != root and root not in real.parents:
        raise ToolError(f"Path escapes workspace: {path}")
    return real


def relative(workspace: Path, path: Path) -> str:
    """``path`` as the tools show it: relative to the workspace, ``.`` for the workspace itself."""
    return os.path.relpath(path, workspace.resolve())


def walk(workspace: Path, start: Path) -> Iterator[tuple[Path, str, os.stat_result]]:
    """Every entry under ``start`` (itself first), depth first, names in byte order, symlinks skipped.

    Yields ``(path, path relative to the workspace, stat)``; a caller stops the walk by breaking.
    """
    root = workspace.resolve()
    pending = [start]
    while pending:
        path = pending.pop()
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISLNK(info.st_mode):
            continue
        yield path, os.path.relpath(path, root), info
        if stat.S_ISDIR(info.st_mode):
            try:
                names = sorted(os.listdir(path), key=os.fsencode)
            except OSError:
                continue
            pending.extend(path / name for name in reversed(names))


def glob_matcher(pattern: str) -> Callable[[str], bool]:
    """AgentScript's glob: ``*`` is any run of characters (``/`` included), ``?`` one character,
    matched against the end of a workspace-relative path at a ``/`` boundary (``*.py`` matches
    ``src/a.py``)."""
    import re

    body = "".join(".*" if char == "*" else "." if char == "?" else re.escape(char) for char in pattern)
    regex = re.compile(f"(^|/){body}$", re.DOTALL)
    return lambda value: regex.search(value) is not None


def read_text(path: Path, shown: str) -> str:
    """A file's text (UTF-8, newlines as stored: as AgentScript reads it), or a ToolError that says why not."""
    try:
        return read_file_text(path)
    except FileNotFoundError:
        raise ToolError(f"No such file: {shown}") from None
    except IsADirectoryError:
        raise ToolError(f"Is a directory: {shown}") from None
    except OSError as exc:
        raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}") from None


def lines_of(text: str) -> list[str]:
    """Lines split as AgentScript splits them (``\\r?\\n``; a final newline leaves an empty last line)."""
    return text.replace("\r\n", "\n").split("\n")
