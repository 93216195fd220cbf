"""Checking a model's JSON against the output contract, with the exact messages AgentScript gives.

The contract is read from its JSON Schema (an object of ``string`` / ``number`` / ``boolean`` /
``array`` properties, or ``{}`` for any JSON), so contracts from any dialect are checked alike.
Lenient mode first coerces what a model commonly gets almost right (a number or a boolean written as
a string, element by element in lists); strict mode coerces nothing and refuses extra fields. A list
is checked item by item, and a wrong item is named by its own type, as AgentScript names it: a
``list[number]`` holding ``"x"`` fails with ``must be a number``, not ``must be a list``. Each
failure is a :class:`ResultError`, which the generate loop may retry with the repair text.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from .errors import ModelOutputError

__all__ = ["ResultError", "check_result", "field_types", "mismatch"]

_NUMBER_TEXT = re.compile(r"^-?(?:0|[1-9]\d*)(?:\.\d+)?$")
_TYPE_NAMES = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean", "array": "list"}
_NUMBERS = (int, float)
_PLAIN: dict[Any, Any] = {"string": str, "number": _NUMBERS, "boolean": bool, "list": list, "json": object}
"""The plain kinds (:func:`field_types`) -> the Python types a value of that kind has (a boolean is
not a number, though ``bool`` is an ``int``): what :func:`check_result` checks inline, the rest
(lists of a kind, nullable kinds) going through :func:`mismatch`."""


class ResultError(ModelOutputError):
    """The model's result does not match the contract (retryable: the repair text says why).

    ``field`` is the field the check failed on, ``""`` when it failed on the whole result (not an
    object, a field the contract does not have): where a front end locates the error."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def field_types(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``{field: type}`` of an object schema, where a type is ``"string"``, ``"number"``,
    ``"boolean"``, ``"json"``, ``"list"``, ``("list", item_type)`` or ``("nullable", type)``."""
    properties = schema.get("properties") or {}
    types: dict[str, Any] = {}
    for name, sub in properties.items():  # a loop: a comprehension is a call of its own (Python 3.11)
        types[name] = _type_of(sub)
    return types


def _type_of(schema: Any) -> Any:
    if type(schema) is dict:  # the usual field, ``{"type": "boolean"}``, told without the ABC check of ``Mapping``
        declared = schema.get("type")
        if type(declared) is str and declared != "array":
            return _TYPE_NAMES.get(declared, "json")
    if not isinstance(schema, Mapping) or "type" not in schema:
        return "json"
    declared = schema["type"]
    if isinstance(declared, list):  # ["string", "null"]: one type, or null (OpenAI's optional field)
        named = [name for name in declared if name != "null"]
        if len(named) != 1:
            return "json"
        inner = _type_of({**schema, "type": named[0]})
        return inner if len(named) == len(declared) or inner == "json" else ("nullable", inner)
    name = _TYPE_NAMES.get(declared, "json")
    if name == "list" and isinstance(schema.get("items"), Mapping):
        return ("list", _type_of(schema["items"]))
    return name


def mismatch(value: Any, kind: Any) -> str | None:
    """The type name a value fails to have (``"number"``, ``"list"``...), or None when it has the
    kind. Lists are checked item by item, so a wrong item gives its own type: ``["1", "x"]`` as a
    ``list[number]`` gives ``"number"``, ``[[1], 2]`` as a ``list[list[number]]`` gives ``"list"``."""
    if isinstance(kind, tuple) and kind[0] == "list":
        if not isinstance(value, list):
            return "list"
        for item in value:
            failed = mismatch(item, kind[1])
            if failed is not None:
                return failed
        return None
    if isinstance(kind, tuple):  # nullable
        return None if value is None or mismatch(value, kind[1]) is None else _name(kind)
    return None if _matches(value, kind) else str(kind)


def check_result(
    value: Any, schema: Mapping[str, Any], *, strict: bool, locations: Mapping[str, str] | None = None
) -> Any:
    """The result, coerced (unless ``strict``) and validated, or :class:`ResultError`.

    ``locations`` maps a field to the ``L:C`` of its declaration, appended to a field's message as
    AgentScript does (`` at 12:13``); the key ``""`` locates messages about the whole result.
    Fields are required as the schema's ``required`` says (an AgentScript shape lists them all); a
    schema of another type than an object (a list, a string) checks the whole result.
    """
    where = locations or {}
    if not _is_object_schema(schema):
        kind = _type_of(schema)
        value = value if strict else _coerce(value, kind)
        failed = mismatch(value, kind)
        if failed is not None:
            raise _failure(f"LLM result must be a {failed}", "", where)
        return value
    types = field_types(schema)
    required = schema.get("required") or ()
    if not isinstance(value, dict):
        raise _failure("LLM result must be an object matching the generate return shape", "", where)
    if strict:
        for key in value:
            if key not in types:
                raise _failure(f"LLM result contains unexpected field '{key}'", "", where)
    else:
        coerced: dict[str, Any] = {}
        for key, item in value.items():  # a loop: a comprehension is a call of its own (Python 3.11)
            kind = types.get(key)
            # text is all that a plain kind coerces: anything else is kept without a call
            coerced[key] = (
                item if kind is None or (kind in _PLAIN and not isinstance(item, str)) else _coerce(item, kind)
            )
        value = coerced
    for field, kind in types.items():
        if field not in value:
            if field in required:
                raise _failure(f"LLM result is missing required field '{field}'", field, where)
            continue
        item = value[field]
        plain = _PLAIN.get(kind)
        if plain is not None and isinstance(item, plain) and not (plain is _NUMBERS and isinstance(item, bool)):
            continue  # the usual field, of its kind, told without a call
        failed = mismatch(item, kind)
        if failed is not None:
            raise _failure(f"LLM result field must be a {failed}", field, where)
    for field in required:
        if field not in value:  # required without a property schema
            raise _failure(f"LLM result is missing required field '{field}'", field, where)
    return value


def _is_object_schema(schema: Mapping[str, Any]) -> bool:
    declared = schema.get("type")
    return declared is None or declared == "object" or (isinstance(declared, list) and "object" in declared)


def _failure(message: str, field: str, where: Mapping[str, str]) -> ResultError:
    return ResultError(message + (f" at {where[field]}" if field in where else ""), field)


def _name(kind: Any) -> str:
    if isinstance(kind, tuple):
        return f"{_name(kind[1])} or null" if kind[0] == "nullable" else "list"
    return str(kind)


def _coerce(value: Any, kind: Any) -> Any:
    if kind == "number" and isinstance(value, str):
        return _number_of(value)
    if kind == "boolean" and isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(kind, tuple):
        if kind[0] == "nullable":
            return value if value is None else _coerce(value, kind[1])
        if isinstance(value, list):
            return [_coerce(item, kind[1]) for item in value]
    return value


def _number_of(text: str) -> Any:
    """Number-like text as the number it writes: integer digits exactly, a decimal as the nearest
    float; text no float holds (``1`` and 400 zeros) stays text, and fails the check. A dialect
    whose numbers are something else converts the accepted value itself."""
    trimmed = text.strip()
    if not _NUMBER_TEXT.match(trimmed):
        return text
    number = float(trimmed)  # first: a finite float has at most 309 digits, far below int()'s limit
    if not math.isfinite(number):
        return text
    return number if "." in trimmed else int(trimmed)


def _matches(value: Any, kind: str) -> bool:
    """Whether ``value`` has the plain kind (a name, not a list or nullable kind)."""
    if kind == "json":
        return True
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "list":
        return isinstance(value, list)
    return True  # a kind field_types never gives
