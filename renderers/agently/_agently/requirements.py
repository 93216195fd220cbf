"""The "Field requirements:" lines under an output structure (new in Agently 4.1).

They spell out what the structure cannot show: ensure markers (``(type, desc, True)`` /
``"not_null"``) and the constraints carried over from a pydantic output model (length, range,
enum, pattern...). The walk, the wording and the order follow Agently's ``output_contract`` module.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from .declarations import contract_of, ensure_policy
from .slots import replace_slots

__all__ = ["requirement_lines"]

InlineDescriptions = Literal["all", "top_level", "none"]


def _compact_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)


def _span(low: Any, high: Any) -> str:
    if low is not None and high is not None:
        return f"{low}..{high}"
    return f">= {low}" if low is not None else f"<= {high}"


def contract_notes(contract: Mapping[str, Any]) -> list[str]:
    notes: list[str] = []
    if contract.get("required", False):
        notes.append("required")
        notes.append("null is allowed" if contract.get("nullable", False) else "must not be null")
    constraints = contract.get("constraints")
    if not isinstance(constraints, Mapping):
        return notes
    get = constraints.get
    exclusive_minimum, minimum = get("exclusiveMinimum"), get("minimum")
    exclusive_maximum, maximum = get("exclusiveMaximum"), get("maximum")
    lower = (
        f"> {exclusive_minimum}"
        if exclusive_minimum is not None
        else (f">= {minimum}" if minimum is not None else None)
    )
    upper = (
        f"< {exclusive_maximum}"
        if exclusive_maximum is not None
        else (f"<= {maximum}" if maximum is not None else None)
    )
    if get("minLength") is not None or get("maxLength") is not None:
        notes.append(f"length: {_span(get('minLength'), get('maxLength'))} characters")
    if get("minItems") is not None or get("maxItems") is not None:
        notes.append(f"item count: {_span(get('minItems'), get('maxItems'))}")
    if get("minProperties") is not None or get("maxProperties") is not None:
        notes.append(f"property count: {_span(get('minProperties'), get('maxProperties'))}")
    if lower or upper:
        notes.append("value: " + " and ".join(bound for bound in (lower, upper) if bound))
    if "multipleOf" in constraints:
        notes.append(f"multiple of {constraints['multipleOf']}")
    if "enum" in constraints:
        notes.append(f"allowed values: {_compact_json(constraints['enum'])}")
    if "const" in constraints:
        notes.append(f"constant value: {_compact_json(constraints['const'])}")
    if "pattern" in constraints:
        notes.append(f"pattern: {constraints['pattern']}")
    if "format" in constraints and contract.get("value_kind") == "string":
        notes.append(f"format: {constraints['format']}")
    return notes


def _parts(spec: tuple[Any, ...], titles: Any, include_description_only: bool) -> list[str]:
    description = ""
    if len(spec) >= 2 and spec[1]:
        description = str(replace_slots(spec[1], titles))
    contract = contract_of(spec)
    if contract is not None:
        notes = contract_notes(contract)
        return [description, *notes] if description and (notes or include_description_only) else notes
    policy = ensure_policy(spec[2] if len(spec) >= 3 else None)
    if policy == "presence":
        notes = ["required key", "null or empty values are allowed"]
    elif policy == "not_null":
        notes = ["required key", "value must not be null, blank, or empty"]
    else:
        return [description] if description and include_description_only else []
    return [description, *notes] if description else notes


def requirement_lines(output: Any, titles: Any, inline_descriptions: InlineDescriptions = "all") -> list[str]:
    """``["", "Field requirements:", "- path: part; part", ...]``, or ``[]`` when nothing is required."""
    found: list[str] = []

    def walk(value: Any, path: str, depth: int) -> None:
        if isinstance(value, tuple):
            parts = _parts(
                value,
                titles,
                inline_descriptions == "none" or (inline_descriptions == "top_level" and depth > 1),
            )
            if path and parts:
                found.append(f"- {path}: {'; '.join(parts)}")
            if value:
                walk(value[0], path, depth)
        elif isinstance(value, Mapping):
            for key, child in value.items():
                walk(child, f"{path}.{key}" if path else str(key), depth + 1)
        elif isinstance(value, (list, set)):
            for child in value:
                walk(child, f"{path}[*]" if path else "[*]", depth + 1)

    walk(output, "", 0)
    if not found:
        return []
    return ["", "Field requirements:", *found]
