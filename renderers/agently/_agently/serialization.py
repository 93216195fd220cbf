"""Agently's prompt export: ``to_serializable_prompt_data``, ``to_json_prompt``, ``to_yaml_prompt``.

The export is the raw prompt data (no validation, no empty check) with the output declaration's
tuples spelled as ``{"$type", "$desc", "$ensure"}`` dicts, then sanitized. Sanitizing keeps tuples
and sets, so JSON turns tuples into arrays and cannot take a set, and YAML cannot take an Enum
member; those two refusals become :class:`AgentlyFieldError` naming the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from .declarations import is_long_content, normalize_ensure_marker, normalize_output
from .errors import AgentlyFieldError
from .sanitize import sanitize

__all__ = ["serializable_data", "to_json", "to_yaml"]


def _spelled(declared: Any, part: tuple[Any, ...]) -> dict[str, Any]:
    """A field tuple as ``{"$type", "$desc", "$ensure"}`` (the last two only when set)."""
    result = {"$type": declared}
    if len(part) >= 2 and part[1]:
        result["$desc"] = part[1]
    if len(part) >= 3:
        ensure = normalize_ensure_marker(part[2])
        if ensure is not None:
            result["$ensure"] = ensure
    return result


def _serializable_output(part: Any) -> Any:
    part = normalize_output(part)
    if is_long_content(part):
        return _spelled("long_content", part)
    if not isinstance(part, (Mapping, Sequence)) or isinstance(part, str):
        return part
    if isinstance(part, Mapping):
        return {key: _serializable_output(value) for key, value in part.items()}
    if not isinstance(part, tuple):
        return [_serializable_output(item) for item in part]
    if not part:
        return []
    return _spelled(part[0], part)


def serializable_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """Agently's ``to_serializable_prompt_data()`` for the prompt's own keys."""
    prepared = dict(data)
    if "output" in prepared:
        try:
            prepared["output"] = _serializable_output(prepared["output"])
        except ValueError as error:
            raise AgentlyFieldError("output", str(error)) from None
    result: dict[str, Any] = sanitize(prepared)
    return result


def _first_path(value: Any, bad: Any, path: str) -> str | None:
    """The path (``output.tags``) of the first value ``bad`` accepts, in dump order."""
    if bad(value):
        return path
    if isinstance(value, dict):
        for key, item in value.items():
            found = _first_path(item, bad, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _first_path(item, bad, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def to_json(data: dict[str, Any]) -> str:
    try:
        return json.dumps(data, indent=2, ensure_ascii=False)
    except TypeError as error:
        path = _first_path(data, lambda value: isinstance(value, (set, frozenset)), "") or "<root>"
        raise AgentlyFieldError(
            path, f"a set cannot be written as JSON (Agently 4.1.4.10 fails with: TypeError: {error})"
        ) from None


def _not_yaml_safe(value: Any) -> bool:
    kind = type(value)
    if kind in (str, int, float, bool, type(None), dict, list, tuple, set):
        return False
    return isinstance(value, (str, int, float))


def to_yaml(data: dict[str, Any]) -> str:
    try:
        return yaml.safe_dump(data, indent=2, allow_unicode=True, sort_keys=False)
    except yaml.representer.RepresenterError as error:
        path = _first_path(data, _not_yaml_safe, "") or "<root>"
        raise AgentlyFieldError(
            path,
            f"YAML cannot represent {error.args[1]!r} (an Enum member is not plain text) "
            f"(Agently 4.1.4.10 fails with: RepresenterError{error.args!r})",
        ) from None
