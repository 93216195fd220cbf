"""``file://``: read, list, write, patch and undo files inside the workspace.

Results as AgentScript 0.1.5 returns them: ``read`` the file's text, ``list`` the names in a folder
(byte order), ``write``/``patch`` ``{"ok": true, "effects": [effect]}`` where the effect holds
what ``undo`` needs to put the file back (``previous`` text, or ``existed: false`` to remove it). A
patch whose search text is absent is a result, not an error: ``{"ok": false, "error": "patch
search text not found", "effects": []}``, so a program can try another patch.

One deliberate difference: the replacement text is inserted as written. AgentScript passes it to
JavaScript's ``String.replace``, which expands ``$&``, ``$1``, ``$$``... inside it, so a patch
that adds code containing ``$`` changes what it adds.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core.tools import ToolContext, ToolError, ToolOutcome, ToolRequest
from .arguments import expect_object, required_string
from .sandbox import inside, read_text, relative

__all__ = ["file_tool"]

_METHODS = "read, list, write, patch, undo"


def file_tool(request: ToolRequest, context: ToolContext) -> ToolOutcome:
    method = request.method
    if method == "undo":
        return _undo(request.args[0] if request.args else None, context.workspace)
    args = expect_object(request.args, f"File.{method}")
    if method == "read":
        path = inside(context.workspace, required_string(args.get("path"), "File.read.path"))
        return ToolOutcome(read_text(path, relative(context.workspace, path)))
    if method == "list":
        return ToolOutcome(
            _list(inside(context.workspace, required_string(args.get("path"), "File.list.path")), context)
        )
    if method == "write":
        return _write(request.binding, args, context.workspace)
    if method == "patch":
        return _patch(request.binding, args, context.workspace)
    raise ToolError(f"Unsupported file method '{method}'. Supported: {_METHODS}")


def _list(path: Path, context: ToolContext) -> list[str]:
    try:
        return sorted(os.listdir(path), key=os.fsencode)
    except FileNotFoundError:
        raise ToolError(f"No such folder: {relative(context.workspace, path)}") from None
    except NotADirectoryError:
        raise ToolError(f"Not a folder: {relative(context.workspace, path)}") from None


def _write(tool: str, args: dict[str, Any], workspace: Path) -> ToolOutcome:
    path = inside(workspace, required_string(args.get("path"), "File.write.path"))
    content = required_string(args.get("content"), "File.write.content")
    shown = relative(workspace, path)
    existed = path.exists()
    previous = read_text(path, shown) if existed else None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _replace_file(path, content)
    except OSError as exc:
        raise ToolError(f"Cannot write {shown}: {exc.strerror or exc}") from None
    effect = {
        "id": f"file-write:{shown}",
        "tool": tool,
        "action": "write",
        "path": shown,
        "undoable": True,
        "existed": existed,
        "previous": previous,
    }
    return ToolOutcome({"ok": True, "effects": [effect]}, effects=[effect])


def _patch(tool: str, args: dict[str, Any], workspace: Path) -> ToolOutcome:
    path = inside(workspace, required_string(args.get("path"), "File.patch.path"))
    search = required_string(args.get("search"), "File.patch.search")
    replace = args.get("replace")
    if not isinstance(replace, str):
        raise ToolError("File.patch.replace is required")
    shown = relative(workspace, path)
    previous = read_text(path, shown)
    if search not in previous:
        return ToolOutcome({"ok": False, "error": "patch search text not found", "effects": []})
    try:
        _replace_file(path, previous.replace(search, replace, 1))
    except OSError as exc:
        raise ToolError(f"Cannot write {shown}: {exc.strerror or exc}") from None
    effect = {
        "id": f"file-patch:{shown}",
        "tool": tool,
        "action": "patch",
        "path": shown,
        "undoable": True,
        "previous": previous,
    }
    return ToolOutcome({"ok": True, "effects": [effect]}, effects=[effect])


def _undo(effects: Any, workspace: Path) -> ToolOutcome:
    """Put files back as the effects recorded them, in list order; effects of other tools are skipped."""
    if not isinstance(effects, list):
        raise ToolError("File.undo expects a list of effects")
    undone = []
    for effect in effects:
        if not _is_file_effect(effect):
            continue
        path = inside(workspace, effect["path"])
        if isinstance(effect.get("previous"), str):
            _replace_file(path, effect["previous"])
        elif effect.get("existed") is False and path.is_file():
            path.unlink()
        else:
            continue
        undone.append({"action": "undo", "path": effect["path"], "of": effect.get("id")})
    return ToolOutcome({"ok": True}, effects=undone)


def _is_file_effect(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("action") in ("write", "patch")
        and isinstance(value.get("path"), str)
        and isinstance(value.get("undoable"), bool)
    )


def _replace_file(path: Path, text: str) -> None:
    """Write through a temporary file and rename it over the old one: a reader (or a crash) sees the
    old file or the new one, never half of each."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()
