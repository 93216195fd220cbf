"""``sh://find``, ``sh://grep`` and ``sh://sed``: AgentScript's shell tools, done in Python.

No shell or process is ever started, so no argument can become a command: each tool is a small
walk over the workspace with AgentScript's arguments and results. ``sh://sh``, ``bash``, ``zsh``
and ``fish`` are refused outright (``Forbidden shell tool 'bash'``).

* ``Find.run({path, name?, type?, max?})`` -> ``{"ok": true, "files": [...]}``: workspace-relative
  paths of files and folders (the start folder itself included, as ``.`` for the workspace) whose
  path ends with the glob ``name``; ``type`` ``"file"`` or ``"dir"`` keeps one kind.
* ``Grep.run({path, pattern, include?, max?})`` -> ``{"ok": true, "matches": [{path, line, text}]}``:
  lines containing ``pattern`` as plain, case-sensitive text; files over 1 MiB, and anything that
  is not a regular file (a FIFO, a socket, a device), are skipped.
* ``Sed.run({path, start?, max?})`` -> ``{"ok": true, "text", "start", "end"}``: ``max`` lines of
  one file from line ``start`` (1-based), read in chunks: a line range of a huge file costs the
  lines returned, not the file.

Globs are matched in time linear in the path for a given pattern (no backtracking regular
expression: see :func:`~promptwire.tools.sandbox.glob_matcher`).
"""

from __future__ import annotations

import os
from contextlib import closing
from typing import Any, Final
from urllib.parse import urlsplit

from ..core.confined import open_regular, walk
from ..core.text_files import decode_text
from ..core.tools import ToolContext, ToolError, ToolOutcome, ToolRequest
from .arguments import DEFAULT_MAX_RESULTS, expect_object, optional_string, positive_integer, required_string
from .sandbox import glob_matcher, line_range, lines_of, names, tool_errors, workspace

__all__ = ["shell_tool"]

FORBIDDEN: Final = frozenset({"sh", "bash", "zsh", "fish"})
MAX_GREP_FILE_BYTES: Final = 1024 * 1024


def shell_tool(request: ToolRequest, context: ToolContext) -> ToolOutcome:
    command = _command(request.uri)
    if command in FORBIDDEN:
        raise ToolError(f"Forbidden shell tool '{command}'")
    if command == "find":
        return ToolOutcome(_find(request.args, context))
    if command == "grep":
        return ToolOutcome(_grep(request.args, context))
    if command == "sed":
        return ToolOutcome(_sed(request.args, context))
    raise ToolError(f"Unsupported shell tool '{command}'. Supported: find, grep, sed")


def _command(uri: str) -> str:
    parts = urlsplit(uri)
    return parts.hostname or parts.path.lstrip("/")


def _find(args_list: list[Any], context: ToolContext) -> dict[str, Any]:
    args = expect_object(args_list, "Find.run")
    path = required_string(args.get("path"), "Find.run.path")
    name = optional_string(args.get("name"))
    kind = optional_string(args.get("type"))
    limit = positive_integer(args.get("max"), DEFAULT_MAX_RESULTS)
    matches = glob_matcher(name) if name else None
    files: list[str] = []
    with workspace(context) as root, tool_errors(path), closing(walk(root, names(root, path))) as entries:
        for entry in entries:
            if len(files) >= limit:
                break
            shown = "/".join(entry.parts) or "."
            entry_kind = "dir" if entry.is_folder else "file"
            if (kind is None or kind == entry_kind) and (matches is None or matches(shown)):
                files.append(shown)
    return {"ok": True, "files": files}


def _grep(args_list: list[Any], context: ToolContext) -> dict[str, Any]:
    args = expect_object(args_list, "Grep.run")
    path = required_string(args.get("path"), "Grep.run.path")
    pattern = required_string(args.get("pattern"), "Grep.run.pattern")
    include = optional_string(args.get("include"))
    limit = positive_integer(args.get("max"), DEFAULT_MAX_RESULTS)
    included = glob_matcher(include) if include else None
    matches: list[dict[str, Any]] = []
    with workspace(context) as root, tool_errors(path), closing(walk(root, names(root, path))) as entries:
        for entry in entries:
            shown = "/".join(entry.parts) or "."
            if not entry.is_file or entry.info.st_size > MAX_GREP_FILE_BYTES:
                continue
            if included is not None and not included(shown):
                continue
            with tool_errors(shown):
                fd = entry.open()
                try:
                    data = os.read(fd, MAX_GREP_FILE_BYTES + 1)
                finally:
                    os.close(fd)
            if len(data) > MAX_GREP_FILE_BYTES:
                continue  # grew past the limit since the walk saw it
            for number, line in enumerate(lines_of(decode_text(data)), start=1):
                if pattern in line:
                    matches.append({"path": shown, "line": number, "text": line})
                    if len(matches) >= limit:
                        return {"ok": True, "matches": matches}
    return {"ok": True, "matches": matches}


def _sed(args_list: list[Any], context: ToolContext) -> dict[str, Any]:
    args = expect_object(args_list, "Sed.run")
    path = required_string(args.get("path"), "Sed.run.path")
    start = positive_integer(args.get("start"), 1)
    limit = positive_integer(args.get("max"), DEFAULT_MAX_RESULTS)
    with workspace(context) as root, tool_errors(path):
        fd, found = open_regular(root, names(root, path))
        try:
            lines = line_range(fd, start, limit, context.max_read_bytes, found.shown)
        finally:
            os.close(fd)
            found.close()
    return {"ok": True, "text": "\n".join(lines), "start": start, "end": start + len(lines) - 1}
