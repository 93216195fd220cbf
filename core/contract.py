"""Output contracts: what the model must return, as one JSON Schema every renderer and adapter reads.

Each dialect declares outputs its own way (AgentScript shapes, Agently output dicts, Python types);
front ends convert them to JSON Schema once, and keep the native declaration next to it so the
dialect's own renderer can still print it byte for byte.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SHAPE_TYPES", "OutputContract", "shape_type_schema"]

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


class OutputContract(BaseModel):
    """The JSON Schema of the expected output, plus the declaration it came from.

    ``native`` holds the dialect's own declaration (an AgentScript shape, an Agently output value)
    and ``dialect`` says whose it is; ``format`` carries a dialect's layout hint (Agently's
    ``output_format``). Renderers of other dialects read only ``json_schema``.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    json_schema: dict[str, Any] = Field(alias="schema")
    name: str | None = None
    dialect: str | None = None
    native: Any = None
    format: str | None = None

    @classmethod
    def from_shape(cls, fields: Mapping[str, str]) -> OutputContract:
        """An AgentScript shape (field name -> type text, in order) as a closed object schema."""
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
        return cls(json_schema=schema, dialect="agentscript", native=dict(fields))
