"""Whole-string ``†kind.path`` references: read values out of a data context, write results back.

Acts chapter 007 (Agent/Variables): a tool call's parameter may be the string ``"†input.userName"``
instead of the value, so a model points at data instead of copying it (it cannot miscopy what it
never copies). Chapter 011 adds ``A || B`` (the first that exists) and ``A && B`` (all must exist,
the value is the last one's). Chapter 008 uses the same spelling for output paths, where ``||``
names alternative outcomes and ``&&`` a fan-out. This is the seed (2025) spelling: the 2026
operators (``<|>``, ``*>``) are not read; :data:`OPERATORS` is the one place to add them.

The grammar, applied to the whole string after trimming (the docs fix none of it; this is the
proposal of ``reference/variables.md`` §2)::

    expression := ref ( SP* OP SP* ref )*      one operator kind per expression
    OP         := "||" | "&&"
    ref        := "†" kind ( "." segment )*
    kind       := segment
    segment    := 1*( any character except ".", "†", "|", "&" and whitespace )

Only a whole string is a reference: ``"Hi †input.name"`` is a literal, never interpolated. A string
whose first non-blank character is ``†`` must parse, or it is an :class:`InvalidReference`: a typo
in a reference should fail loudly, not reach a tool as the parameter's value. ``††…`` is the
literal text ``†…``; that escape is ours, not part of Acts.

The context is a plain mapping of kind to JSON value (``{"input": {...}, "state": {...}}``), not the
append-only message log of Acts chapter 008: whoever keeps a log folds it into this view first.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any, Final, NamedTuple, TypeAlias

from .errors import PromptwireError, field_path
from .nesting import check_nesting, nesting_room
from .records import dataclass_record

__all__ = [
    "DAGGER",
    "OPERATORS",
    "OUTPUT_PATH",
    "Context",
    "InvalidReference",
    "OutputPathError",
    "RefPath",
    "Reference",
    "UnresolvedReference",
    "parse_reference",
    "resolve",
    "resolve_arguments",
    "write_output",
]

Context: TypeAlias = Mapping[str, Any]
"""Kind -> JSON value, e.g. ``{"input": {"userName": "Ada"}, "state": {}}``."""

DAGGER: Final = "†"
"""U+2020, the sigil that starts a reference. The protocol has no ASCII spelling of it."""

OPERATORS: Final = ("||", "&&")
"""``||``: the first path that exists (reading) or alternative outcomes (writing).
``&&``: every path must exist, the last one's value (reading) or a fan-out (writing)."""

OUTPUT_PATH: Final = "_outputPath"
"""The call meta-property naming where a call's result is written (Acts chapter 008)."""

_NOT_IN_SEGMENT: Final = frozenset(".†|&")


class InvalidReference(PromptwireError, ValueError):
    """A string starts with ``†`` but is no reference expression; says what was expected where."""

    def __init__(self, text: str, reason: str, field: str | None = None) -> None:
        self.text = text
        self.reason = reason
        self.field = field
        where = f"{field}: " if field else ""
        super().__init__(f"{where}invalid reference {text!r}: {reason}")


class UnresolvedReference(PromptwireError, LookupError):
    """A well-formed reference whose path does not exist in the context.

    A separate class because it is not a mistake in the text: in Acts it is an unmet dependency (the
    call waits until a write makes the path exist), so a scheduler catches this one and no other.
    ``missing`` holds ``(reference, first missing segment)`` for every path that failed: the one of
    a single reference, each alternative of ``||``, each missing operand of ``&&``.
    """

    def __init__(
        self, text: str, missing: Sequence[tuple[str, str]], reasons: Sequence[str], field: str | None = None
    ) -> None:
        self.text = text
        self.missing = tuple(missing)
        self.field = field
        where = f"{field}: " if field else ""
        super().__init__(f"{where}unresolved reference {text!r}: {'; '.join(reasons)}")

    @property
    def reference(self) -> str:
        """The first path that does not exist, e.g. ``†state.user.name``."""
        return self.missing[0][0]

    @property
    def segment(self) -> str:
        """The first segment of :attr:`reference` that does not exist, e.g. ``user``."""
        return self.missing[0][1]


class OutputPathError(PromptwireError, ValueError):
    """A result cannot be written at an output path: not a path, no branch chosen, or a non-object in the way."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"cannot write to {text!r}: {reason}")


@dataclass_record(frozen=True)
class RefPath:
    """One ``†kind.seg.seg`` path: the kind names the data (``state``), the segments walk into it."""

    kind: str
    segments: tuple[str, ...] = ()

    def __init__(self, kind: str, segments: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "segments", segments)

    def __str__(self) -> str:
        return DAGGER + ".".join((self.kind, *self.segments))


@dataclass_record(frozen=True)
class Reference:
    """A parsed reference expression: one path, or several joined by one operator."""

    text: str
    """The expression as written, trimmed."""
    paths: tuple[RefPath, ...]
    operator: str | None = None
    """``"||"``, ``"&&"``, or ``None`` for a single path."""

    def __init__(self, text: str, paths: tuple[RefPath, ...], operator: str | None = None) -> None:
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "paths", paths)
        object.__setattr__(self, "operator", operator)

    def __str__(self) -> str:
        return f" {self.operator} ".join(map(str, self.paths)) if self.operator else str(self.paths[0])


# --- parsing ---------------------------------------------------------------------------------------


def parse_reference(text: str) -> Reference | None:
    """The reference expression ``text`` spells, or ``None`` when ``text`` is a literal.

    Literals: anything whose first non-blank character is not ``†``, and the ``††`` escape.
    Raises :class:`InvalidReference` for a string that starts with ``†`` but does not parse.
    """
    return _parse(text, None)


def _parse(text: str, field: str | None) -> Reference | None:
    expr = text.strip()
    if not expr.startswith(DAGGER) or expr.startswith(DAGGER * 2):
        return None
    pos, path = _parse_path(expr, 0, field)
    paths = [path]
    operator: str | None = None
    while (pos := _skip_space(expr, pos)) < len(expr):
        op = next((op for op in OPERATORS if expr.startswith(op, pos)), None)
        if op is None:
            raise InvalidReference(expr, _expected(" or ".join(map(repr, OPERATORS)), expr, pos), field)
        if operator is not None and op != operator:
            raise InvalidReference(expr, f"cannot mix {operator!r} and {op!r} in one expression", field)
        operator = op
        pos = _skip_space(expr, pos + len(op))
        if not expr.startswith(DAGGER, pos):
            raise InvalidReference(expr, _expected("a reference", expr, pos), field)
        pos, path = _parse_path(expr, pos, field)
        paths.append(path)
    return Reference(expr, tuple(paths), operator)


def _parse_path(expr: str, pos: int, field: str | None) -> tuple[int, RefPath]:
    """Read ``†kind(.segment)*`` at ``pos`` (which holds the dagger)."""
    pos += len(DAGGER)
    names: list[str] = []
    while True:
        end = _segment_end(expr, pos)
        if end == pos:
            what = "a path segment" if names else "a kind"
            raise InvalidReference(expr, _expected(what, expr, pos), field)
        names.append(expr[pos:end])
        pos = end
        if not expr.startswith(".", pos):
            return pos, RefPath(names[0], tuple(names[1:]))
        pos += 1


def _segment_end(expr: str, pos: int) -> int:
    while pos < len(expr) and expr[pos] not in _NOT_IN_SEGMENT and not expr[pos].isspace():
        pos += 1
    return pos


def _skip_space(expr: str, pos: int) -> int:
    while pos < len(expr) and expr[pos].isspace():
        pos += 1
    return pos


def _expected(what: str, expr: str, pos: int) -> str:
    """``expected X after <what was read>, found <what is there>``: one shape for every parse error."""
    if pos >= len(expr):
        found = "the end"
    elif expr[pos].isspace():
        found = repr(expr[pos])
    else:
        end = pos
        while end < len(expr) and not expr[end].isspace():
            end += 1
        found = repr(expr[pos:end])
    return f"expected {what} after {expr[:pos].rstrip()!r}, found {found}"


def _unescape(text: str) -> str:
    """``††x`` -> ``†x`` (the first dagger after any leading blanks goes); other literals are unchanged."""
    start = len(text) - len(text.lstrip())
    return text[:start] + text[start + 1 :] if text.startswith(DAGGER * 2, start) else text


# --- reading ---------------------------------------------------------------------------------------


def resolve(value: Any, context: Context) -> Any:
    """``value`` with every string that is a whole reference replaced by the value it references.

    Walks dicts, lists and tuples (new containers; the input is left alone). Dict keys are never
    references. The replacement is the raw JSON value (any type, so a tool gets a number as a
    number) and is shared with the context, not copied: :func:`write_output` never mutates, so the
    sharing is safe as long as callers treat both as read-only. A replacement is not resolved again,
    so a context value that looks like a reference stays a string and references cannot loop.

    Raises :class:`InvalidReference` or :class:`UnresolvedReference` naming the field where the
    string sat, and :class:`~promptwire.core.errors.FieldError` for a value nested deeper than
    ``MAX_DEPTH`` or containing itself (checked first, so the walk never meets a ``RecursionError``).
    """
    check_nesting(value, ())
    with nesting_room():
        return _resolve(value, context, ())


def _resolve(value: Any, context: Context, where: tuple[str | int, ...]) -> Any:
    if isinstance(value, str):
        field = field_path(where) if where else None
        reference = _parse(value, field)
        return _unescape(value) if reference is None else _value_of(reference, context, field)
    if isinstance(value, Mapping):
        return {key: _resolve(item, context, (*where, str(key))) for key, item in value.items()}
    if isinstance(value, list | tuple):
        items = [_resolve(item, context, (*where, i)) for i, item in enumerate(value)]
        return items if isinstance(value, list) else tuple(items)
    return value


def resolve_arguments(arguments: Mapping[str, Any], context: Context) -> dict[str, Any]:
    """A tool call's arguments, references resolved, ready for the tool; meta-properties as written.

    Meta-properties (``_outputPath``, ``_instance``, ... : any name starting with ``_``) belong to
    the protocol, not to the tool: ``_outputPath`` is a place to write the result, and resolving it
    as a value would fail on every call whose result does not exist yet. Keys keep their order.
    Raises as :func:`resolve` does, naming the argument (``path``, ``options.items[2]``).
    """
    tool_arguments = {key: value for key, value in arguments.items() if not str(key).startswith("_")}
    resolved = resolve(tool_arguments, context)
    return {key: resolved.get(key, value) for key, value in arguments.items()}


class _Missing(NamedTuple):
    path: RefPath
    segment: str
    reason: str


def _value_of(reference: Reference, context: Context, field: str | None) -> Any:
    """Apply the operator: ``||`` takes the first path that exists, ``&&`` needs them all and takes the last."""
    missing: list[_Missing] = []
    value: Any = None
    for path in reference.paths:
        found, miss = _lookup(path, context)
        if miss is not None:
            missing.append(miss)
        elif reference.operator == "||":
            return found
        else:
            value = found
    if missing:
        raise UnresolvedReference(
            reference.text, [(str(m.path), m.segment) for m in missing], [m.reason for m in missing], field
        )
    return value


def _lookup(path: RefPath, context: Context) -> tuple[Any, _Missing | None]:
    """Walk ``path`` in ``context``: ``(value, None)``, or ``(None, why not)`` at the first missing segment."""
    if path.kind not in context:
        return None, _Missing(path, path.kind, f"the context has no {path.kind!r}")
    current = context[path.kind]
    walked = DAGGER + path.kind
    for segment in path.segments:
        if isinstance(current, Mapping):
            if segment not in current:
                return None, _Missing(path, segment, f"{walked!r} has no {segment!r}")
            current = current[segment]
        elif isinstance(current, list | tuple):
            index = _item(current, segment)
            if index is None:
                return None, _Missing(path, segment, _no_item(walked, current, segment))
            current = current[index]
        else:
            return None, _Missing(path, segment, f"{walked!r} is {_json_kind(current)} and has no {segment!r}")
        walked += "." + segment
    return current, None


def _index(segment: str) -> int | None:
    """A list index when ``segment`` is ASCII digits, else ``None`` (the segment is a key)."""
    if not (segment.isascii() and segment.isdigit()):
        return None
    digits = segment.lstrip("0") or "0"
    # No list is that long, and int() refuses strings over 4300 digits.
    return int(digits) if len(digits) <= 18 else sys.maxsize


def _item(items: Sequence[Any], segment: str) -> int | None:
    """The index of the item of ``items`` that ``segment`` names, or ``None`` when there is none."""
    index = _index(segment)
    return index if index is not None and index < len(items) else None


def _no_item(walked: str, items: Sequence[Any], segment: str) -> str:
    """Why ``segment`` names no item of the list at ``walked``."""
    if _index(segment) is None:
        return f"{walked!r} is a list and {segment!r} is not an index"
    count = f"{len(items)} item" + ("" if len(items) == 1 else "s")
    return f"{walked!r} is a list of {count} and has no item {segment}"


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return f"a {type(value).__name__}"


# --- writing ---------------------------------------------------------------------------------------


def write_output(path_expr: str, result: Any, context: Context, *, branch: int | None = None) -> dict[str, Any]:
    """A new context with ``result`` written at the output path ``path_expr``; ``context`` is not changed.

    Copy-on-write: only the containers along each written path are copied, everything else is
    shared. That keeps earlier contexts (and values :func:`resolve` handed out) valid, like the
    append-only log of Acts, and makes a failed write atomic: a fan-out that fails on its second
    path has written nothing.

    * ``†state.a.b``: sets ``b`` in ``a`` in ``state``, creating missing objects on the way. A
      numeric segment replaces an existing list item; it never grows a list.
    * ``†a && †b``: fan-out, the same result at every path, left to right (a later path wins where
      they overlap). ``branch`` must be ``None``.
    * ``†a || †b``: alternative outcomes, of which exactly one is written, and only the caller
      (the tool or Activity) knows which: ``branch`` is its index and is required. Writing to the
      first path by default would file an error outcome under the success path.

    Raises :class:`InvalidReference` when ``path_expr`` starts with ``†`` but does not parse, and
    :class:`OutputPathError` when it is no reference at all, the branch is missing or out of range,
    or a non-object (a string, a number, null, a list with no such item) is in the way.
    """
    reference = parse_reference(path_expr)
    if reference is None:
        raise OutputPathError(path_expr, f"an output path is a reference such as '{DAGGER}state.result'")
    updated = dict(context)
    for path in _chosen_paths(reference, branch):
        _write(updated, path, result, reference.text)
    return updated


def _chosen_paths(reference: Reference, branch: int | None) -> tuple[RefPath, ...]:
    paths = reference.paths
    if reference.operator == "&&":
        if branch is not None:
            raise OutputPathError(reference.text, f"'&&' writes every path; branch must be None, not {branch}")
        return paths
    if branch is None:
        if reference.operator == "||":
            raise OutputPathError(
                reference.text, f"'||' names {len(paths)} alternative outcomes; pass branch=0..{len(paths) - 1}"
            )
        return paths
    if not 0 <= branch < len(paths):
        raise OutputPathError(reference.text, f"branch {branch} is out of range 0..{len(paths) - 1}")
    return (paths[branch],)


_ABSENT: Final = object()


def _write(root: dict[str, Any], path: RefPath, value: Any, text: str) -> None:
    """Set ``path`` to ``value`` in ``root`` (a private copy), copying each container on the way down.

    A tuple on the way is copied as a list: JSON has only arrays.
    """
    parent: dict[str, Any] | list[Any] = root
    parent_path = ""  # the root (the context) has no path of its own
    *steps, last = (path.kind, *path.segments)
    for key in steps:
        child = (
            parent.get(key, _ABSENT) if isinstance(parent, dict) else parent[_list_slot(parent, key, parent_path, text)]
        )
        here = f"{parent_path}.{key}" if parent_path else DAGGER + key
        copy: dict[str, Any] | list[Any]
        if child is _ABSENT:
            copy = {}
        elif isinstance(child, Mapping):
            copy = dict(child)
        elif isinstance(child, list | tuple):
            copy = list(child)
        else:
            raise OutputPathError(text, f"{here!r} is {_json_kind(child)}, not an object")
        _put(parent, key, copy, parent_path, text)
        parent, parent_path = copy, here
    _put(parent, last, value, parent_path, text)


def _put(parent: dict[str, Any] | list[Any], key: str, value: Any, parent_path: str, text: str) -> None:
    if isinstance(parent, dict):
        parent[key] = value
    else:
        parent[_list_slot(parent, key, parent_path, text)] = value


def _list_slot(items: list[Any], key: str, parent_path: str, text: str) -> int:
    """The existing item ``key`` names: writing replaces items and never grows a list."""
    index = _item(items, key)
    if index is None:
        raise OutputPathError(text, _no_item(parent_path, items, key))
    return index
