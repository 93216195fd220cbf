"""Keeping file tools inside the workspace, with AgentScript's messages.

A program's (or a model's) path is untrusted. Every path is walked beneath the workspace by
:mod:`promptwire.core.confined`: opened relative to an open folder, one name at a time, without
following a symlink out, whatever another process swaps in between two system calls. ``..`` above
the workspace, an absolute path elsewhere, a symlink that points out (to a file or a folder, a
dangling one included) are refused with AgentScript's message, ``Path escapes workspace: <path>``,
followed by why no flag widens it (``--allow-read`` covers imports and memories, never file tools);
symlinks that stay inside are followed. Walks never follow symlinks, as AgentScript's do not. FIFOs,
sockets and devices are never opened, and nothing under /proc, /sys or /dev, whatever the workspace.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final

from ..core.confined import NotRegularFile, PathEscapes, Root
from ..core.permissions import NotAllowed
from ..core.text_files import decode_text
from ..core.tools import ToolContext, ToolError

__all__ = ["glob_matcher", "line_range", "lines_of", "names", "tool_errors", "workspace"]

_CHUNK: Final = 1 << 16

ONLY_THE_WORKSPACE: Final = (
    " (file tools reach only the folder of the program run; --allow-read widens imports and memories, not them)"
)
"""Said after AgentScript's words on an escape: which flag the reader would try, and that it does not help."""


@contextmanager
def workspace(context: ToolContext) -> Iterator[Root]:
    """The run's workspace, open for one call."""
    try:
        root = Root(context.workspace)
    except NotRegularFile as exc:
        raise ToolError(str(exc)) from None
    except OSError as exc:
        raise ToolError(f"Cannot open the workspace {context.workspace}: {exc.strerror or exc}") from None
    with root:
        yield root


def names(root: Root, path: str) -> list[str]:
    """``path`` (relative to the workspace, or absolute inside it) as names below the workspace."""
    with tool_errors(path):
        return root.names(path)


@contextmanager
def tool_errors(path: str, doing: str = "read", *, raw: bool = False) -> Iterator[None]:
    """File-system failures as the tools word them; ``path`` is the argument the program gave.
    With ``raw``, a missing file and a file or folder of the wrong kind go on as they are, for the
    caller to word (``File.read`` and ``File.list`` use Node's words)."""
    try:
        yield
    except NotAllowed:
        raise  # the permission's own words
    except PathEscapes:
        shown = repr(path) if "\x00" in path else path
        raise ToolError(f"Path escapes workspace: {shown}{ONLY_THE_WORKSPACE}") from None
    except NotRegularFile as exc:
        raise ToolError(str(exc)) from None
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
        if raw:
            raise
        raise _worded(exc, path, doing) from None
    except OSError as exc:
        raise ToolError(f"Cannot {doing} {exc.filename or path}: {exc.strerror or exc}") from None


def _worded(exc: OSError, path: str, doing: str) -> ToolError:
    if isinstance(exc, FileNotFoundError):
        return ToolError(f"No such file: {exc.filename or path}")
    if isinstance(exc, IsADirectoryError) and doing == "read":
        return ToolError(f"Is a directory: {exc.filename or path}")
    if isinstance(exc, IsADirectoryError):
        return ToolError(f"Cannot {doing} {exc.filename or path}: Is a directory")
    return ToolError(f"Cannot {doing} {exc.filename or path}: {exc.strerror or exc}")


def too_large(shown: str, limit: int) -> ToolError:
    return ToolError(
        f"{shown} is larger than {limit} bytes, the most a file tool reads whole "
        "(read a range of lines with sh://sed, or raise the limit: asrender ... --max-input-size)"
    )


def lines_of(text: str) -> list[str]:
    """Lines split as AgentScript splits them (``\\r?\\n``; a final newline leaves an empty last line)."""
    return text.replace("\r\n", "\n").split("\n")


def line_range(fd: int, start: int, count: int, limit: int, shown: str) -> list[str]:
    """Lines ``start`` (1-based) to ``start + count - 1`` of an open file, split as :func:`lines_of`
    splits the whole text, read in chunks: memory holds the lines returned, never the whole file.
    More than ``limit`` bytes of returned lines is :class:`ToolError`."""
    found: list[str] = []
    current = bytearray()
    number = 1
    kept = 0
    while True:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            break
        pieces = chunk.split(b"\n")
        for index, piece in enumerate(pieces):
            wanted = start <= number < start + count
            if wanted:
                current += piece
                kept += len(piece)
                if kept > limit:
                    raise too_large(f"Lines {start} to {start + count - 1} of {shown}", limit)
            if index < len(pieces) - 1:  # a newline ends this line
                if wanted:
                    found.append(decode_text(current[:-1] if current.endswith(b"\r") else current))
                current.clear()
                number += 1
                if number >= start + count:
                    return found
    if start <= number < start + count:
        found.append(decode_text(current))
    return found


def glob_matcher(pattern: str) -> Callable[[str], bool]:
    """AgentScript's glob: ``*`` is any run of characters (``/`` included), ``?`` one character,
    matched against the end of a workspace-relative path at a ``/`` boundary (``*.py`` matches
    ``src/a.py``).

    AgentScript compiles the glob to a regular expression; a backtracking engine then takes
    exponential time on a pattern such as ``*a*a*a*a*b`` (which a model's reply can supply). Here
    the glob is matched by the greedy two-pointer wildcard algorithm, in at most (path length ×
    pattern length) steps. "Ends the path at a ``/`` boundary" is the pattern itself or ``*/``
    followed by it, as ``*`` crosses folders.
    """
    anywhere_below = "*/" + pattern
    return lambda value: _wildcard(pattern, value) or _wildcard(anywhere_below, value)


def _wildcard(pattern: str, value: str) -> bool:
    """Whether ``value`` matches ``pattern`` whole (``*`` any run, ``?`` any one character)."""
    p = v = 0
    star = -1  # the pattern position after the last ``*`` met
    resume = 0  # where in ``value`` that ``*`` stopped consuming
    while v < len(value):
        if p < len(pattern) and pattern[p] != "*" and (pattern[p] == "?" or pattern[p] == value[v]):
            p += 1
            v += 1
        elif p < len(pattern) and pattern[p] == "*":
            star = p + 1
            resume = v
            p += 1
        elif star >= 0:  # let the last ``*`` take one more character, and try again from there
            resume += 1
            v = resume
            p = star
        else:
            return False
    return all(char == "*" for char in pattern[p:])
