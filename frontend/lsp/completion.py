"""What may be typed at a point of a ``.as`` file.

Read from the text before the cursor (a file being typed rarely parses) and from the last tree of
the file that did: after ``X.`` the functions of agent ``X`` (an imported one as the loader loads
it), the methods of a memory, or the fields of the sibling ``NAME.input.json`` after ``input.``;
in a ``generate``'s options its option names; in a shape its types; after ``as`` the labels of
the file; elsewhere the keywords and the names the file declares. The words come from the
language's own tables (the lexer's keywords, the checks' option and type names).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types as lsp

from .documents import Document
from .outline import Outline

if TYPE_CHECKING:
    from .outline import Name


class Workspace(Protocol):
    """What completion asks of the server: where a name is declared (across ``import agent``), and
    the outline of each file's last version that parsed. A protocol, so that completion does not
    import the server that imports it."""

    last_outlines: dict[str, Outline]

    def target(self, document: Document, name: Name) -> tuple[Any, Name] | None: ...


__all__ = ["GENERATE_OPTIONS", "completions"]

GENERATE_OPTIONS = ("input", "attempts", "max_output", "temperature", "think", "strict", "debug")
"""The options the checks accept in ``generate({...})`` (any other is UNKNOWN_GENERATE_OPTION)."""

_MEMBER = re.compile(r"([A-Za-z_$][\w$]*)\.[\w$]*$")
_IN_OPTIONS = re.compile(r"generate\s*\(\s*\{[^{}]*$")
_IN_SHAPE = re.compile(r"->\s*\{[^{}]*\b[A-Za-z_$][\w$]*\s+[\w$]*$")
_AFTER_AS = re.compile(r"\buse\b[^\n]*\bas\s+[^\n]*$")


def completions(server: Workspace, document: Document, offset: int) -> list[lsp.CompletionItem]:
    before = document.text[max(0, offset - 2000) : offset]
    outline = document.outline() or _last_outline(server, document)
    member = _MEMBER.search(before)
    if member is not None:
        return _members(server, document, outline, member.group(1))
    if _IN_OPTIONS.search(before):
        return [_item(key, lsp.CompletionItemKind.Property, "generate option") for key in GENERATE_OPTIONS]
    if _IN_SHAPE.search(before):
        from ..agentscript.analyzer import SHAPE_TYPE_NAMES

        return [_item(name, lsp.CompletionItemKind.TypeParameter, "shape type") for name in sorted(SHAPE_TYPE_NAMES)]
    if _AFTER_AS.search(before) and outline is not None:
        return [_item(label, lsp.CompletionItemKind.Field, "label") for label in _labels(outline)]
    return _words(outline)


def _members(server: Workspace, document: Document, outline: Outline | None, owner: str) -> list[lsp.CompletionItem]:
    if owner == "input":
        return [_item(field, lsp.CompletionItemKind.Field, "in the input file") for field in _input_fields(document)]
    if outline is None:
        return []
    declared = next((name for name in outline.declarations() if name.name == owner), None)
    if declared is None:
        return []
    if declared.kind == "import" and declared.node.resource == "memory":
        from ..agentscript.analyzer import MEMORY_METHODS

        return [_item(method, lsp.CompletionItemKind.Method, "memory") for method in sorted(MEMORY_METHODS)]
    if declared.kind == "import" and declared.node.resource == "agent":
        found = server.target(document, declared)
        if found is None:
            return []
        agent = found[1].node
        return [
            _item(function.name, lsp.CompletionItemKind.Method, f"agent {agent.name}") for function in agent.functions
        ]
    if declared.kind == "agent":
        functions = declared.node.functions
        return [_item(function.name, lsp.CompletionItemKind.Method, f"agent {owner}") for function in functions]
    return []


def _input_fields(document: Document) -> list[str]:
    """The top-level fields of the program's sibling ``NAME.input.json``, read as a run may read it."""
    from ...core.errors import PromptwireError
    from ..agentscript.loader import default_permissions

    if document.file is None:
        return []
    path = document.file.with_name(f"{document.file.stem}.input.json")
    try:
        value = json.loads(default_permissions(document.path).read_bytes(path))
    except (PromptwireError, OSError, ValueError, RecursionError):
        return []
    return sorted(value) if isinstance(value, dict) else []


def _labels(outline: Outline) -> list[str]:
    return sorted({name.name for name in outline.declarations() if name.kind == "label"})


def _words(outline: Outline | None) -> list[lsp.CompletionItem]:
    from ..agentscript.lexer import KEYWORDS

    items = [_item(word, lsp.CompletionItemKind.Keyword, "keyword") for word in sorted(KEYWORDS)]
    if outline is not None:
        seen = set()
        for name in outline.declarations():
            if name.kind != "label" and name.name not in seen:
                seen.add(name.name)
                items.append(_item(name.name, _KINDS[name.kind], name.kind))
    return items


_KINDS = {
    "agent": lsp.CompletionItemKind.Class,
    "function": lsp.CompletionItemKind.Function,
    "import": lsp.CompletionItemKind.Module,
}


def _last_outline(server: Workspace, document: Document) -> Outline | None:
    """The outline of the last version of the file that parsed (kept by the server), if any."""
    return server.last_outlines.get(document.uri)


def _item(label: str, kind: lsp.CompletionItemKind, detail: str) -> lsp.CompletionItem:
    return lsp.CompletionItem(label=label, kind=kind, detail=detail)
