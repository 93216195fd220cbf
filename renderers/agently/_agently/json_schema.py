"""An Agently output declaration as JSON Schema (Agently's ``output_schema_to_json_schema``).

This is how an Agently prompt's ``output`` becomes the core ``OutputContract``: the same projection
Agently uses for providers' structured output, so nested lists and the pydantic constraints carried
in 4-tuples survive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter

from .declaration import allows_null, effective_schema, normalize_output
from .requirements import contract_of, ensure_policy

__all__ = ["output_json_schema"]


def _inline_refs(schema: Mapping[str, Any]) -> dict[str, Any]:
    definitions = schema.get("$defs")
    declared_defs = dict(definitions) if isinstance(definitions, Mapping) else {}

    def resolve(value: Any, stack: frozenset[str] = frozenset()) -> Any:
        if isinstance(value, list):
            return [resolve(item, stack) for item in value]
        if not isinstance(value, Mapping):
            return value
        ref = value.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            declared = declared_defs.get(name)
            if isinstance(declared, Mapping) and name not in stack:
                merged = {**dict(declared), **{key: item for key, item in value.items() if key != "$ref"}}
                return resolve(merged, stack | {name})
        return {key: resolve(item, stack) for key, item in value.items() if key != "$defs"}

    resolved = resolve(schema)
    return dict(resolved) if isinstance(resolved, Mapping) else {}


def _annotation_schema(annotation: Any) -> dict[str, Any]:
    try:
        schema = TypeAdapter(annotation).json_schema()
    except Exception:
        return {}
    if not isinstance(schema, Mapping):
        return {}
    return _inline_refs(effective_schema(schema))


# A type written as its name (as ``to_serializable_prompt_data`` writes types, or a user types them).
_TYPE_NAMES: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "dict": {"type": "object"},
    "list": {"type": "array"},
}


def _type_name_schema(name: str) -> dict[str, Any]:
    """The schema of a type given by name in a field tuple; an unknown name constrains nothing."""
    return dict(_TYPE_NAMES.get(name.strip(), {}))


def output_json_schema(output: Any, *, strict_output: bool = False) -> dict[str, Any]:
    """JSON Schema for an Agently output declaration (a pydantic model class gives its own schema)."""

    def required(spec: Any) -> bool:
        if strict_output:
            return True
        if not isinstance(spec, tuple):
            return False
        contract = contract_of(spec)
        if contract is not None:
            return bool(contract.get("required", False))
        return ensure_policy(spec[2] if len(spec) >= 3 else None) is not None

    def project(value: Any) -> dict[str, Any]:
        if isinstance(value, tuple):
            head = value[0] if value else Any
            projected = _type_name_schema(head) if isinstance(head, str) else project(head)
            contract = contract_of(value)
            if contract is not None:
                constraints = contract.get("constraints")
                if isinstance(constraints, Mapping):
                    projected = {**projected, **constraints}
                if contract.get("nullable") and not allows_null(projected):
                    projected = {"anyOf": [projected, {"type": "null"}]}
            if len(value) >= 2 and value[1]:
                projected = {**projected, "description": str(value[1])}
            return projected
        if isinstance(value, Mapping):
            result: dict[str, Any] = {
                "type": "object",
                "properties": {str(key): project(child) for key, child in value.items()},
                "additionalProperties": not strict_output,
            }
            names = [str(key) for key, child in value.items() if required(child)]
            if names:
                result["required"] = names
            return result
        if isinstance(value, list):
            return {"type": "array", "items": project(value[0]) if value else {}}
        if isinstance(value, str):
            return {"description": value} if value else {}
        return _annotation_schema(value)

    return project(normalize_output(output))
