"""The simplest value that conforms to a JSON Schema, for a fake model that answers what was asked.

The fake provider (:mod:`.provider_servers`) answers a request that carries an output schema with
this value, so a program's ``generate(...) -> { shape }`` passes its check against it as it would
against a real model. The values follow AgentScript's mock values (what the offline adapter
answers), which programs are written to run with: every property of an object, one item of a typed
list, ``true`` for a boolean (a loop ``until done`` ends), ``0`` for a number; and ``"fake"`` for a
string, so a reader sees where the text came from. The subset of JSON Schema promptwire's output
contracts use is covered: ``type`` (one, or a list of them), ``properties``, ``items``,
``minItems``, ``enum``, ``const``, ``anyOf``/``oneOf`` (the first choice) and ``allOf`` (merged).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["FAKE_TEXT", "conforming_value"]

FAKE_TEXT = "fake"
"""Every string a schema asks for."""

_SCALARS: dict[str, Any] = {"string": FAKE_TEXT, "number": 0, "integer": 0, "boolean": True, "null": None}


def conforming_value(schema: Any) -> Any:
    """The simplest value ``schema`` accepts (see the module docstring); ``{}`` for a schema that
    says nothing (``{}``, ``true``), as AgentScript's mock value of "any JSON" is."""
    if not isinstance(schema, Mapping):
        return {}
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for choice in ("anyOf", "oneOf"):
        if isinstance(schema.get(choice), list) and schema[choice]:
            return conforming_value(schema[choice][0])
    if isinstance(schema.get("allOf"), list):
        merged: dict[str, Any] = {key: value for key, value in schema.items() if key != "allOf"}
        for part in schema["allOf"]:
            if isinstance(part, Mapping):
                properties = {**merged.get("properties", {}), **part.get("properties", {})}
                merged = {**merged, **part, "properties": properties}
        return conforming_value(merged)
    kind: Any = schema.get("type")
    if isinstance(kind, list):
        kind = next((each for each in kind if each != "null"), "null")
    if kind == "object" or (kind is None and "properties" in schema):
        return {name: conforming_value(sub) for name, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        items = schema.get("items")
        count = max(int(schema.get("minItems", 0)), 1 if isinstance(items, Mapping) else 0)
        return [conforming_value(items) for _ in range(count)]
    return _SCALARS.get(kind, {}) if isinstance(kind, str) else {}
