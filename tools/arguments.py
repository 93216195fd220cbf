"""Reading a tool call's arguments, with AgentScript's own error texts.

The texts name the call and field the way AgentScript does (``File.read.path is required``), so a
program's error reads the same here as under the reference implementation.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from ..core.json_text import escape_surrogates
from ..core.tools import ToolError

__all__ = [
    "DEFAULT_MAX_RESULTS",
    "expect_object",
    "js_json",
    "js_number_text",
    "optional_string",
    "positive_integer",
    "required_string",
    "whole_number",
]

_EXACT_INT: Final = 2**53  # every int within it is a double JavaScript prints digit for digit
_ARRAY_INDEX_END: Final = 2**32 - 1

DEFAULT_MAX_RESULTS: Final = 100
"""How many files, matches or lines a find, grep or sed returns unless ``max`` says otherwise."""


def expect_object(args: list[Any], call: str) -> dict[str, Any]:
    """The call's first argument, which must be an object (``Find.run expects one json object argument``)."""
    value = args[0] if args else None
    if not isinstance(value, dict):
        raise ToolError(f"{call} expects one json object argument")
    return value


def required_string(value: Any, name: str) -> str:
    """A non-empty string, else ``<name> is required``."""
    if not isinstance(value, str) or not value:
        raise ToolError(f"{name} is required")
    return value


def optional_string(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ToolError(f"Expected a string, got {_json(value)}")
    return value


def positive_integer(value: Any, fallback: int) -> int:
    if value is None:
        return fallback
    whole = whole_number(value)
    if whole is not None and whole > 0:
        return whole
    raise ToolError(f"Expected a positive integer, got {_json(value)}")


def whole_number(value: Any) -> int | None:
    """A JSON number with no fraction as an int (``3.0`` is 3); ``None`` for anything else, infinities
    and NaN included (``int()`` of those raises)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None
    return int(value)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def js_json(value: Any, separators: tuple[str, str] = (",", ":")) -> str:
    """JSON as JavaScript's ``JSON.stringify`` writes it (compact unless ``separators`` say
    otherwise): characters as they are (half a character as its escape), numbers as JavaScript
    prints them (:func:`js_number_text`; an int as the double JavaScript would hold), a number JSON
    cannot hold (a program's ``1e999``) as ``null``, and an object's array-index keys first, in
    ascending order, as a JavaScript object holds them."""
    out: list[str] = []
    _write(value, out, separators)
    return "".join(out)


def _write(value: Any, out: list[str], separators: tuple[str, str]) -> None:
    if isinstance(value, str):
        out.append(escape_surrogates(json.dumps(value, ensure_ascii=False)))
    elif value is None or isinstance(value, bool):
        out.append(json.dumps(value))
    elif isinstance(value, int):
        out.append(_int_text(value))
    elif isinstance(value, float):
        out.append(js_number_text(value) if math.isfinite(value) else "null")
    elif isinstance(value, list):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(separators[0])
            _write(item, out, separators)
        out.append("]")
    elif isinstance(value, dict):
        out.append("{")
        for index, key in enumerate(_javascript_order(value)):
            if index:
                out.append(separators[0])
            out.append(escape_surrogates(json.dumps(str(key), ensure_ascii=False)) + separators[1])
            _write(value[key], out, separators)
        out.append("}")
    else:
        raise TypeError(f"{type(value).__name__} is not JSON data")


def _int_text(number: int) -> str:
    if -_EXACT_INT <= number <= _EXACT_INT:
        return str(number)
    try:
        return js_number_text(float(number))  # the double JavaScript holds for it
    except OverflowError:
        return "null"  # Infinity


def _javascript_order(obj: dict[Any, Any]) -> list[Any]:
    """An object's keys in the order JavaScript keeps them: array indexes ascending, then the rest."""
    indexes = sorted((key for key in obj if _is_array_index(key)), key=int)
    return [*indexes, *(key for key in obj if not _is_array_index(key))]


def _is_array_index(key: Any) -> bool:
    """A key JavaScript orders as an array index: a canonical whole number below 2**32 - 1."""
    text = str(key)
    return (
        0 < len(text) <= 10
        and text.isascii()
        and text.isdigit()
        and (text == "0" or text[0] != "0")
        and int(text) < _ARRAY_INDEX_END
    )


def js_number_text(number: float) -> str:
    """A finite double as JavaScript's ``Number::toString`` writes it: Python's ``repr`` gives the
    same shortest digits, only the layout differs (no exponent from 1e-6 to 1e21, an unpadded
    ``e+``/``e-`` one outside; ``-0`` is ``0``, ``2.0`` is ``2``)."""
    if number == 0:
        return "0"
    if number < 0:
        return "-" + js_number_text(-number)
    if number <= _EXACT_INT and number.is_integer():
        return str(int(number))
    mantissa, _, exponent = repr(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    raw = whole + fraction
    stripped = raw.lstrip("0")
    point = len(whole) - (len(raw) - len(stripped)) + int(exponent or "0")
    digits = stripped.rstrip("0")
    if len(digits) <= point <= 21:
        return digits + "0" * (point - len(digits))
    if 0 < point <= 21:
        return digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return "0." + "0" * -point + digits
    head = digits if len(digits) == 1 else digits[0] + "." + digits[1:]
    return f"{head}e{'+' if point > 0 else '-'}{abs(point - 1)}"
