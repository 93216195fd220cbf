"""Reading a tool call's arguments, with AgentScript's own error texts.

The texts name the call and field the way AgentScript does (``File.read.path is required``), so a
program's error reads the same here as under the reference implementation.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from ..core.tools import ToolError

__all__ = [
    "DEFAULT_MAX_RESULTS",
    "expect_object",
    "js_json",
    "optional_string",
    "positive_integer",
    "required_string",
    "whole_number",
]

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
    """JSON as JavaScript's ``JSON.stringify`` writes it: characters as they are, and a number JSON
    cannot hold (a program's ``1e999`` is infinity) as ``null``, where Python would write the
    ``Infinity`` no JSON reader takes. Compact unless ``separators`` say otherwise."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=separators, allow_nan=False)
    except ValueError:  # only an infinity or a NaN: the values are plain JSON data otherwise
        return json.dumps(_finite(value), ensure_ascii=False, separators=separators)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value
