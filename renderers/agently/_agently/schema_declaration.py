"""A JSON Schema as an Agently declaration: tool ``kwargs`` and ``returns``, and output structures.

Agently describes values as ``(type, description, ensure)`` tuples, and shows a pydantic output
model's constraints (length, range, allowed values...) as "Field requirements:" lines through a
fourth tuple element. A core ``Prompt`` carries JSON Schema, so this module says it in those terms:
an ``enum`` becomes a ``Literal[...]`` type (as Agently prints an Enum), a list of types a union,
and, for an output, the constraints ride in the contract element Agently already reads. Whatever
has no place (a constraint on a tool argument, ``allOf``, a ``$ref``...) is returned as a note
naming the schema's path, so the renderer can report it instead of dropping it silently.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .requirements import CONTRACT_KEY

__all__ = ["SchemaNotes", "declaration", "field_tuple"]

_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "object": dict,
    "array": list,
    "null": type(None),
}

_CONSTRAINTS = (
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "pattern",
    "format",
)

# Keywords that are shown one way or another, or that say nothing the model needs.
_SHOWN = frozenset(
    {
        "type",
        "properties",
        "items",
        "required",
        "description",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "additionalProperties",
    }
)
_SILENT = frozenset({"title", "$schema", "$id", "$comment"})


@dataclass
class SchemaNotes:
    """What a conversion could not show: ``(path, keywords)`` in the order met."""

    left_out: list[tuple[str, list[str]]] = field(default_factory=list)

    def add(self, path: str, keywords: list[str]) -> None:
        if keywords:
            self.left_out.append((path, keywords))


def _literal(values: list[Any]) -> Any:
    """``Literal[...]`` of the values, or ``None`` when one is not hashable (a list or an object)."""
    try:
        return Literal.__getitem__(tuple(values))
    except TypeError:
        return None


def _union(members: list[Any]) -> Any:
    unique: list[Any] = []
    for member in members:
        if member not in unique:
            unique.append(member)
    if len(unique) == 1:
        return unique[0]
    return typing.Union.__getitem__(tuple(unique))


def declaration(schema: Any, path: str, notes: SchemaNotes, *, output: bool) -> Any:
    """The Agently declaration of ``schema`` (the value a tuple's first element holds).

    ``output`` says the declaration is an output structure, whose constraints Agently lists as field
    requirements; in tool arguments they have no place and are noted.
    """
    if not isinstance(schema, Mapping):
        return Any
    left_out = [key for key in schema if key not in _SHOWN and key not in _SILENT]
    if output:
        left_out = [key for key in left_out if key not in _CONSTRAINTS]
    additional = schema.get("additionalProperties")
    if isinstance(additional, Mapping):
        left_out.append("additionalProperties")
    declared = _declared(schema, path, notes, output=output, left_out=left_out)
    notes.add(path, left_out)
    return declared


def _declared(schema: Mapping[str, Any], path: str, notes: SchemaNotes, *, output: bool, left_out: list[str]) -> Any:
    if "const" in schema:
        literal = _literal([schema["const"]])
        if literal is not None:
            return literal
        left_out.append("const")
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        literal = _literal(enum)
        if literal is not None:
            return literal
        left_out.append("enum")
    kind = schema.get("type")
    properties = schema.get("properties")
    if kind == "object" and isinstance(properties, Mapping):
        required = schema.get("required")
        names = {name for name in required if isinstance(name, str)} if isinstance(required, list) else set()
        return {
            str(name): field_tuple(child, f"{path}.{name}", notes, output=output, required=name in names)
            for name, child in properties.items()
        }
    if kind == "array":
        items = schema.get("items")
        if isinstance(items, Mapping) and items:
            return [declaration(items, f"{path}[*]", notes, output=output)]
        return [(str,)]
    if isinstance(kind, str) and kind in _TYPES:
        return _TYPES[kind]
    if isinstance(kind, list) and kind and all(isinstance(item, str) and item in _TYPES for item in kind):
        return _union([_TYPES[item] for item in kind])
    for union_key in ("anyOf", "oneOf"):
        options = schema.get(union_key)
        if isinstance(options, list) and options:
            members = [declaration(option, path, SchemaNotes(), output=output) for option in options]
            if all(isinstance(member, type) for member in members):
                return _union(members)
            left_out.append(union_key)
    if kind is not None and "type" not in left_out:
        left_out.append("type")
    return Any


def _contract(schema: Mapping[str, Any], required: bool) -> dict[str, Any] | None:
    """Agently's contract element for a field whose schema has constraints (``None`` when none)."""
    constraints = {key: schema[key] for key in (*_CONSTRAINTS, "enum", "const") if key in schema}
    if not constraints:
        return None
    kind = schema.get("type")
    nullable = kind == "null" or (isinstance(kind, list) and "null" in kind)
    value_kind = kind if isinstance(kind, str) else None
    return {
        CONTRACT_KEY: {"required": required, "nullable": nullable, "value_kind": value_kind, "constraints": constraints}
    }


def field_tuple(schema: Any, path: str, notes: SchemaNotes, *, output: bool, required: bool) -> tuple[Any, ...]:
    """``(type, description[, ensure[, contract]])`` for one property, as Agently writes a field."""
    declared = declaration(schema, path, notes, output=output)
    description = schema.get("description", "") if isinstance(schema, Mapping) else ""
    description = description if isinstance(description, str) else str(description)
    contract = _contract(schema, required) if output and isinstance(schema, Mapping) else None
    if contract is not None:
        return (declared, description, True if required else None, contract)
    if required:
        return (declared, description, True)
    return (declared, description) if description else (declared,)
