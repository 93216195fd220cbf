"""A stable JSON form of the syntax tree, for ``asrender parse`` and for tests.

Every node becomes an object whose first key is ``kind`` (the node's class name), then its fields in
declaration order; spans become ``{"start": {"line", "column", "offset"}, "end": ...}`` with UTF-16
columns and code-point offsets. With ``positions=False`` spans are left out, which is how two trees are
compared "modulo positions" (a round trip through the ``source:`` text moves every node). A number
JSON cannot write (``1e999`` reads as infinity) is ``null``, as JavaScript's ``JSON.stringify`` writes it.

:func:`to_json` gives the data; :func:`write_json` writes the same data as indented text, piece by
piece, for a program of megabytes: its output is some fifty times the source, and building it as one
dict tree and one string (``json.dumps`` with ``indent`` is pure Python) took 9 s and 870 MB for a
400 kB program.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from json.encoder import encode_basestring
from typing import Any

from .positions import Position, Span
from .syntax import Budget, Node

__all__ = ["to_json", "write_json"]

# The text of a Program and the file of a merged agent or import travel along but are not part of the tree.
_SKIPPED = frozenset({"source", "path", "file"})
_PIECE = 1 << 16
"""About how many characters :func:`write_json` gathers before each ``write``."""


def to_json(node: Node | Budget, *, positions: bool = True) -> dict[str, Any]:
    """``node`` as plain JSON data (dicts, lists, str, float, bool, None)."""
    return _node(node, positions)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """A node class's fields in declaration order, looked up once per class."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(item.name for item in fields(cls) if item.name not in _SKIPPED)
    return names


def _node(node: object, positions: bool) -> dict[str, Any]:
    data: dict[str, Any] = {} if isinstance(node, Budget) else {"kind": type(node).__name__}
    for name in _field_names(type(node)):
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
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _position(position: Position) -> dict[str, int]:
    return {"line": position.line, "column": position.column, "offset": position.offset}


def write_json(node: Node, write: Callable[[str], object], *, positions: bool = True) -> None:
    """Write ``node`` as indented JSON (the data of :func:`to_json`) to ``write``, in pieces.

    Laid out like ``json.dumps(indent=2)`` except that each position takes one line. Memory stays
    the tree's and time the output's, however large the program.
    """
    out: list[str] = []
    size = 0

    def emit(text: str) -> None:
        nonlocal size
        out.append(text)
        size += len(text)
        if size >= _PIECE:
            flush()

    def flush() -> None:
        nonlocal size
        if out:
            write("".join(out))
            out.clear()
        size = 0

    def node_text(item: object, indent: str) -> None:
        inner = indent + "  "
        emit("{")
        first = isinstance(item, Budget)
        if not first:
            emit(f'\n{inner}"kind": "{type(item).__name__}"')
        for name in _field_names(type(item)):
            value = getattr(item, name)
            if isinstance(value, Span):
                if not positions:
                    continue
                start, end = value.start, value.end
                value_text = (
                    f'{{\n{inner}  "start": {{"line": {start.line}, "column": {start.column}, "offset": {start.offset}}},'
                    f'\n{inner}  "end": {{"line": {end.line}, "column": {end.column}, "offset": {end.offset}}}\n{inner}}}'
                )
                emit(f'{"" if first else ","}\n{inner}"{name}": {value_text}')
            else:
                emit(f'{"" if first else ","}\n{inner}"{name}": ')
                value_of(value, inner)
            first = False
        emit(f"\n{indent}}}" if not first else "}")

    def value_of(value: object, indent: str) -> None:
        if isinstance(value, str):
            emit(encode_basestring(value))
        elif isinstance(value, tuple):
            if not value:
                emit("[]")
                return
            inner = indent + "  "
            separator = "[\n" + inner
            for item in value:
                emit(separator)
                value_of(item, inner)
                separator = ",\n" + inner
            emit(f"\n{indent}]")
        elif value is None or value is True or value is False:
            emit("null" if value is None else "true" if value else "false")
        elif isinstance(value, float):
            emit(repr(value) if math.isfinite(value) else "null")
        elif isinstance(value, int):
            emit(str(value))
        else:
            node_text(value, indent)

    node_text(node, "")
    emit("\n")
    flush()
