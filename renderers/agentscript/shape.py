"""AgentScript output shapes (``{title: string, scores: list[number]}``) as output contracts.

A shape names AgentScript's own types; the core contract holds only the JSON Schema they mean, with
the shape kept beside it as the dialect's native declaration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...core.contract import OutputContract

__all__ = ["SHAPE_TYPES", "shape_contract", "shape_type_schema"]

SHAPE_TYPES = frozenset({"string", "number", "boolean", "json", "list"})

_SCALAR_SCHEMAS: dict[str, dict[str, Any]] = {
    "string": {"type": "string"},
    "number": {"type": "number"},
    "boolean": {"type": "boolean"},
    "json": {},
    "list": {"type": "array"},
}


def shape_type_schema(type_text: str) -> dict[str, Any]:
    """JSON Schema of one AgentScript shape type: ``string``, ``list[list[number]]``, ...

    Raises ``ValueError`` naming the type when it is not one AgentScript 0.1.5 knows.
    """
    text = type_text.strip()
    if text.startswith("list[") and text.endswith("]"):
        return {"type": "array", "items": shape_type_schema(text[5:-1])}
    schema = _SCALAR_SCHEMAS.get(text)
    if schema is None:
        raise ValueError(
            f"unsupported shape type {type_text!r} (expected one of {', '.join(sorted(SHAPE_TYPES))} or list[T])"
        )
    return dict(schema)


def shape_contract(fields: Mapping[str, str]) -> OutputContract:
    """An AgentScript shape (field name -> type text, in order) as a closed object schema."""
    from ...core.contract import OutputContract  # the model, for runs: ``check`` reads shape types only

    properties: dict[str, Any] = {}
    for field, type_text in fields.items():
        try:
            properties[field] = shape_type_schema(type_text)
        except ValueError as exc:
            raise ValueError(f"shape field {field!r}: {exc}") from None
    schema = {
        "type": "object",
        "properties": properties,
        "required": list(fields),
        "additionalProperties": False,
    }
    return OutputContract(json_schema=schema, dialect="agentscript", native=dict(fields))
