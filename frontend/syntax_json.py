"""A stable JSON form of the syntax tree, for ``asrender parse`` and for tests.

Every node becomes an object whose first key is ``kind`` (the node's class name), then its fields in
declaration order; spans become ``{"start": {"line", "column", "offset"}, "end": ...}`` with UTF-16
columns and code-point offsets. With ``positions=False`` spans are left out, which is how two trees are
compared "modulo positions" (a round trip through the ``source:`` text moves every node).
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

from .source import Position, Span
from .syntax import Budget, Node

__all__ = ["to_json"]

# The text of a Program and the file of a merged agent or import travel along but are not part of the tree.
_SKIPPED = frozenset({"source", "path", "file"})


def to_json(node: Node | Budget, *, positions: bool = True) -> dict[str, Any]:
    """``node`` as plain JSON data (dicts, lists, str, float, bool, None)."""
    return _node(node, positions)


def _node(node: object, positions: bool) -> dict[str, Any]:
    data: dict[str, Any] = {} if isinstance(node, Budget) else {"kind": type(node).__name__}
    for item in fields(node):  # type: ignore[arg-type]
        name = item.name
        if name in _SKIPPED:
            continue
        value = getattr(node, name)
        if isinstance(value, Span):
            if positions:
                data[name] = {"start": _position(value.start), "end": _position(value.end)}
            continue
        data[name] = _value(value, positions)
    return data


def _value(value: object, positions: bool) -> Any:
    if isinstance(value, tuple):
        return [_value(item, positions) for item in value]
    if is_dataclass(value) and not isinstance(value, type):
        return _node(value, positions)
    return value


def _position(position: Position) -> dict[str, int]:
    return {"line": position.line, "column": position.column, "offset": position.offset}
