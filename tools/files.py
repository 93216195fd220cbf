"""``file://``: read, list, write, patch and undo files inside the workspace.

Results as AgentScript 0.1.5 returns them: ``read`` the file's text, ``list`` the names in a folder
(byte order), ``write``/``patch`` ``{"ok": true, "effects": [effect]}`` where the effect holds
what ``undo`` needs to put the file back (``previous`` text, or ``existed: false`` to remove it). A
patch whose search text is absent is a result, not an error: ``{"ok": false, "error": "patch
search text not found", "effects": []}``, so a program can try another patch.

Reading the workspace is allowed; ``write``, ``patch`` and ``undo`` need the run's permission to
write the file (``asrender --allow-write``). ``read`` takes a file whole, up to the run's read limit
(``--max-input-size``, 64 MiB by default); ``sh://sed`` reads a range of lines of any size.

One deliberate difference: the replacement text is inserted as written. AgentScript passes it to
JavaScript's ``String.replace``, which expands ``$&``, ``$1``, ``$$``... inside it, so a patch
that adds code containing ``$`` changes what it adds.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..core.confined import Location, Root, TooLarge, list_folder, locate, open_regular, read_limited, remove_file
from ..core.confined import replace_file as replace_confined
from ..core.text_files import decode_text
from ..core.tools import ToolContext, ToolError, ToolOutcome, ToolRequest
from .arguments import expect_object, required_string
from .sandbox import names, too_large, tool_errors, workspace

__all__ = ["file_tool"]

_METHODS = "read, list, write, patch, undo"


def file_tool(request: ToolRequest, context: ToolContext) -> ToolOutcome:
    method = request.method
    if method == "undo":
        return _undo(request.args[0] if request.args else None, context)
    args = expect_object(request.args, f"File.{method}")
    if method == "read":
        path = required_string(args.get("path"), "File.read.path")
        with workspace(context) as root, _as_node(context, path, "open"):
            return ToolOutcome(_read(root, path, context.max_read_bytes)[0])
    if method == "list":
        path = required_string(args.get("path"), "File.list.path")
        with _as_node(context, path, "scandir"):
            return ToolOutcome(_list(path, context))
    if method == "write":
        return _write(request.binding, args, context)
    if method == "patch":
        return _patch(request.binding, args, context)
    raise ToolError(f"Unsupported file method '{method}'. Supported: {_METHODS}")


@contextmanager
def _as_node(context: ToolContext, path: str, syscall: str) -> Iterator[None]:
    """A missing file or folder, a folder read as a file, a file listed as a folder: Node's words,
    as AgentScript's ``File.read`` and ``File.list`` fail (``ENOENT: no such file or directory,
    open '<absolute path>'``), the path resolved from the workspace."""
    try:
        yield
    except FileNotFoundError:
        raise ToolError(f"ENOENT: no such file or directory, {syscall} '{_resolved(context, path)}'") from None
    except NotADirectoryError:
        raise ToolError(f"ENOTDIR: not a directory, {syscall} '{_resolved(context, path)}'") from None
    except IsADirectoryError:
        raise ToolError("EISDIR: illegal operation on a directory, read") from None


def _resolved(context: ToolContext, path: str) -> str:
    """``path`` as Node's ``path.resolve`` makes it absolute from the workspace ('..' by name)."""
    return os.path.normpath(os.path.join(context.workspace, path))


def _read(root: Root, path: str, limit: int) -> tuple[str, str]:
    """A file's text and its workspace-relative path."""
    with tool_errors(path, raw=True):
        fd, found = open_regular(root, names(root, path))
        try:
            return decode_text(read_limited(fd, limit, found.shown)), found.shown
        except TooLarge:
            raise too_large(found.shown, limit) from None
        finally:
            os.close(fd)
            found.close()


def _list(path: str, context: ToolContext) -> list[str]:
    with workspace(context) as root, tool_errors(path, raw=True):
        return list_folder(root, names(root, path))


def _existing(root: Root, path: str, limit: int) -> str | None:
    """A file's text before a write, ``None`` when there is none."""
    with tool_errors(path), locate(root, names(root, path)) as found:
        if found.kind == "missing":
            return None
    return _read(root, path, limit)[0]


def _write(tool: str, args: dict[str, Any], context: ToolContext) -> ToolOutcome:
    path = required_string(args.get("path"), "File.write.path")
    content = required_string(args.get("content"), "File.write.content")
    with workspace(context) as root:
        previous = _existing(root, path, context.max_read_bytes)
        shown = _replace(root, path, content, context)
    effect = {
        "id": f"file-write:{shown}",
        "tool": tool,
        "action": "write",
        "path": shown,
        "undoable": True,
        "existed": previous is not None,
        "previous": previous,
    }
    return ToolOutcome({"ok": True, "effects": [effect]})


def _patch(tool: str, args: dict[str, Any], context: ToolContext) -> ToolOutcome:
    path = required_string(args.get("path"), "File.patch.path")
    search = required_string(args.get("search"), "File.patch.search")
    replace = args.get("replace")
    if not isinstance(replace, str):
        raise ToolError("File.patch.replace is required")
    with workspace(context) as root:
        previous, shown = _read(root, path, context.max_read_bytes)
        if search not in previous:
            return ToolOutcome({"ok": False, "error": "patch search text not found", "effects": []})
        shown = _replace(root, path, previous.replace(search, replace, 1), context)
    effect = {
        "id": f"file-patch:{shown}",
        "tool": tool,
        "action": "patch",
        "path": shown,
        "undoable": True,
        "previous": previous,
    }
    return ToolOutcome({"ok": True, "effects": [effect]})


def _undo(effects: Any, context: ToolContext) -> ToolOutcome:
    """Put files back as the effects recorded them, in list order; effects of other tools are skipped.

    An effect is the program's data, so it may be forged: its path goes through the same walk and
    permission as a write, and one that names a folder is refused, not obeyed."""
    if not isinstance(effects, list):
        raise ToolError("File.undo expects a list of effects")
    with workspace(context) as root:
        for effect in effects:
            if not _is_file_effect(effect):
                continue
            path = effect["path"]
            if isinstance(effect.get("previous"), str):
                _replace(root, path, effect["previous"], context)
            elif effect.get("existed") is False:
                with tool_errors(path, "remove"):
                    remove_file(root, names(root, path), _may_write(context))
    return ToolOutcome({"ok": True})  # traced with effects null, as AgentScript traces an undo


def _is_file_effect(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("action") in ("write", "patch")
        and isinstance(value.get("path"), str)
        and isinstance(value.get("undoable"), bool)
    )


def _replace(root: Root, path: str, text: str, context: ToolContext) -> str:
    """Write ``text`` as the file ``path`` (see :func:`promptwire.core.confined.replace_file`: a
    temporary file created exclusively, then renamed over it); its workspace-relative path."""
    with tool_errors(path, "write"):
        written = replace_confined(root, names(root, path), text.encode("utf-8"), _may_write(context))
    return written.shown


def _may_write(context: ToolContext) -> Callable[[Location], None]:
    def check(found: Location) -> None:
        context.check_write(found.real, found.shown)

    return check
