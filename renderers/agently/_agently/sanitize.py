"""Agently's ``DataFormatter.sanitize``: every prompt value turned into printable plain data.

The checks run in Agently's order, because the order is visible in the bytes: scalars first (so an
``IntEnum`` member or a ``str``-mixin Enum member survives unchanged), then dates, classes, typing
generics, containers, and ``str()`` for the rest. Tuples and sets stay tuples and sets: later stages
tell a ``(type, description)`` tuple from a list by its type.
"""

from __future__ import annotations

import datetime
import typing
from collections.abc import Mapping
from enum import Enum
from typing import Any, get_args, get_origin

from pydantic import BaseModel

from .errors import Unrenderable
from .native import state_data_view

_SCALARS = (str, int, float, bool)
_EXACT_SCALARS = frozenset({str, int, float, bool, type(None)})


def sanitize(value: Any, remain_type: bool = False, memo: dict[int, Any] | None = None) -> Any:
    """Return ``value`` as Agently's ``DataFormatter.sanitize(value, remain_type=...)`` would.

    With ``memo`` (a dict the caller owns) a container held in several places is sanitized once
    and stays shared in the result (see ``replace_slots``); Agently itself copies it into a tree.
    """
    kind = type(value)
    if kind in _EXACT_SCALARS:
        return value
    if kind is type and not remain_type:
        # A plain class (str, int, a user's class), the usual field type: its name. Model
        # classes and Enums have metaclasses of their own and take the long way.
        return value.__name__
    if memo is None:
        return _sanitize_container(value, remain_type, None)
    known = memo.get(id(value), _MISSING)
    if known is _MISSING:
        known = memo[id(value)] = _sanitize_container(value, remain_type, memo)
    return known


_MISSING = object()


def _sanitize_container(value: Any, remain_type: bool, memo: dict[int, Any] | None) -> Any:
    kind = type(value)
    if kind is dict:
        return {str(k): sanitize(v, remain_type, memo) for k, v in value.items()}
    if kind is list:
        if _only_scalars(value):
            return list(value)
        return [sanitize(v, remain_type, memo) for v in value]
    if kind is tuple:
        if _only_scalars(value):
            return tuple(value)
        return tuple([sanitize(v, remain_type, memo) for v in value])
    return _sanitize_other(value, remain_type, memo)


def _only_scalars(items: list[Any] | tuple[Any, ...]) -> bool:
    """Whether every item is a plain scalar, which sanitize keeps as it is (checked at C speed)."""
    return set(map(type, items)) <= _EXACT_SCALARS


def _sanitize_other(value: Any, remain_type: bool, memo: dict[int, Any] | None = None) -> Any:
    if isinstance(value, _SCALARS) or value is None:
        return value
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    is_state, view = state_data_view(value)
    if is_state:
        return sanitize(view, remain_type, memo)
    if isinstance(value, type):
        if issubclass(value, BaseModel):
            return _sanitize_model_class(value, remain_type)
        if issubclass(value, Enum):
            if remain_type:
                return value
            return "Literal[" + ", ".join(str(sanitize(member.value, remain_type)) for member in value) + "]"
        if remain_type:
            return value
        return value.__name__ if hasattr(value, "__name__") else str(value)
    if get_origin(value) is not None:
        if remain_type:
            return value
        return _sanitize_generic(value)
    if isinstance(value, Mapping):
        return {str(k): sanitize(v, remain_type, memo) for k, v in value.items()}
    if isinstance(value, list):
        return [sanitize(v, remain_type, memo) for v in value]
    if isinstance(value, set):
        return {sanitize(v, remain_type, memo) for v in value}
    if isinstance(value, tuple):
        return tuple([sanitize(v, remain_type, memo) for v in value])
    return str(value)


def _sanitize_model_class(model: type[BaseModel], remain_type: bool) -> dict[str, Any]:
    extracted: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        annotation = field.annotation
        try:
            annotation = field.rebuild_annotation()
        except Exception:
            annotation = field.annotation
        described = sanitize(annotation, remain_type)
        extracted[name] = (described, field.description) if field.description else (described,)
    return extracted


def _joined(args: tuple[Any, ...], separator: str, *, as_str: bool) -> str:
    parts = [sanitize(arg) for arg in args]
    if as_str:
        return separator.join(str(part) for part in parts)
    for index, part in enumerate(parts):
        if not isinstance(part, str):
            # Agently joins these without str(): a model class inside tuple[...] sanitizes to a dict.
            raise Unrenderable(
                f"the type argument {args[index]!r} cannot be written as text "
                f"(Agently 4.1.4.10 fails with: sequence item {index}: expected str instance, "
                f"{type(part).__name__} found)"
            )
    return separator.join(parts)


def _sanitize_generic(value: Any) -> str:
    origin = get_origin(value)
    args = get_args(value)
    if origin is list or origin is dict:
        needed = 1 if origin is list else 2
        if len(args) < needed:
            raise Unrenderable(
                f"the bare generic {value!r} has no type arguments "
                "(Agently 4.1.4.10 fails with: tuple index out of range)"
            )
        if origin is list:
            return f"list[{sanitize(args[0])}]"
        return f"dict[{sanitize(args[0])}, {sanitize(args[1])}]"
    if origin is tuple:
        return f"tuple[{_joined(args, ', ', as_str=False)}]"
    if origin is typing.Union:
        return _joined(args, " | ", as_str=True)
    if origin is typing.Literal:
        return f"Literal[{_joined(args, ', ', as_str=True)}]"
    if isinstance(value, type) and hasattr(value, "__name__"):
        return value.__name__
    return str(value)
