"""Output declarations before rendering: long-content tags and pydantic models turned into Agently's tuples.

Agently accepts an output as a dict/list of ``(type, description[, ensure])`` tuples, or as a
pydantic model class. A model is projected field by field into 4-tuples
``(schema, description, True|None, contract)`` where ``contract`` carries what the JSON Schema says
(required, nullable, constraints), so the text can list the constraints. ``"long_content"`` tags
become the :data:`LongContent` annotation. The projection of a model class depends only on the
class, so it is computed once per class.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from functools import lru_cache
from typing import Annotated, Any, TypeGuard, Union, get_args, get_origin

from pydantic import BaseModel, Field, TypeAdapter
from pydantic.fields import FieldInfo

from .requirements import CONTRACT_KEY

__all__ = [
    "LongContent",
    "is_model_class",
    "normalize_output",
    "project_model",
    "resolve_auto_format",
]

LongContent = Annotated[str, Field(json_schema_extra={"long_content": True})]
"""A long-form string field (Agently's ``agently.types.data.output.LongContent``)."""

_CONSTRAINT_KEYS = (
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
    "enum",
    "const",
    "format",
)


def is_model_class(value: Any) -> TypeGuard[type[BaseModel]]:
    return isinstance(value, type) and issubclass(value, BaseModel)


def is_long_content_annotation(value: Any) -> bool:
    if get_origin(value) is not Annotated:
        return False
    args = get_args(value)
    return args[0] is str and any(
        isinstance(meta, FieldInfo)
        and isinstance(meta.json_schema_extra, Mapping)
        and meta.json_schema_extra.get("long_content") is True
        for meta in args[1:]
    )


def normalize_output(value: Any) -> Any:
    """Agently's ``normalize_output_declaration``: resolve long-content tags, rebuild containers."""
    if is_long_content_annotation(value):
        return (value, "", None, {"long_content": True})
    if isinstance(value, tuple) and value:
        declared = value[0]
        if is_long_content_annotation(declared) or (isinstance(declared, str) and declared == "long_content"):
            metadata = dict(value[3]) if len(value) > 3 and isinstance(value[3], Mapping) else {}
            if metadata.get("long_content") is False:
                raise ValueError("LongContent conflicts with long_content=False metadata.")
            metadata["long_content"] = True
            return (
                LongContent if isinstance(declared, str) else declared,
                value[1] if len(value) > 1 else "",
                value[2] if len(value) > 2 else None,
                metadata,
                *value[4:],
            )
        normalized = normalize_output(declared) if isinstance(declared, (Mapping, list)) else declared
        return (normalized, *value[1:])
    if isinstance(value, Mapping):
        return {key: normalize_output(child) for key, child in value.items()}
    if isinstance(value, list):
        return [normalize_output(child) for child in value]
    return value


def _is_string_spec(spec: Any) -> bool:
    if isinstance(spec, tuple) and spec:
        return spec[0] is str
    return spec is str


def resolve_auto_format(output: Any) -> str:
    """``output_format="auto"``: xml_field for all-string dicts, hybrid for mixed ones, else json."""
    if not isinstance(output, Mapping) or not output:
        return "json"
    strings = [_is_string_spec(spec) for spec in output.values()]
    if all(strings):
        return "xml_field"
    if any(strings):
        return "hybrid"
    return "json"


# --- pydantic model projection -------------------------------------------------------------------


def _strip_annotated(annotation: Any) -> Any:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def _split_nullable(annotation: Any) -> Any:
    annotation = _strip_annotated(annotation)
    if get_origin(annotation) not in (Union, types.UnionType):
        return annotation
    args = get_args(annotation)
    non_null = tuple(arg for arg in args if arg is not type(None))
    if len(non_null) == 1 and len(non_null) != len(args):
        return _strip_annotated(non_null[0])
    return annotation


def allows_null(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    for union_key in ("anyOf", "oneOf"):
        options = schema.get(union_key)
        if isinstance(options, list) and any(
            isinstance(option, Mapping) and option.get("type") == "null" for option in options
        ):
            return True
    return False


def effective_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Collapse ``anyOf: [X, null]`` to ``X`` (only the first union key found is looked at)."""
    effective = dict(schema)
    for union_key in ("anyOf", "oneOf"):
        options = effective.get(union_key)
        if not isinstance(options, list):
            continue
        non_null = [option for option in options if isinstance(option, Mapping) and option.get("type") != "null"]
        if len(non_null) == 1:
            effective.pop(union_key, None)
            effective.update(dict(non_null[0]))
        break
    return effective


def _contract(annotation: Any, *, required: bool) -> dict[str, Any]:
    try:
        schema = TypeAdapter(annotation).json_schema()
    except Exception:
        schema = {}
    if not isinstance(schema, Mapping):
        schema = {}
    effective = effective_schema(schema)
    metadata: dict[str, Any] = {
        CONTRACT_KEY: {
            "required": required,
            "nullable": allows_null(schema),
            "value_kind": effective.get("type"),
            "constraints": {key: effective[key] for key in _CONSTRAINT_KEYS if key in effective},
        }
    }
    if schema.get("long_content") is True:
        metadata["long_content"] = True
    return metadata


def _annotation_schema(annotation: Any, stack: frozenset[type], *, attach_contract: bool = False) -> Any:
    original = annotation
    annotation = _split_nullable(annotation)
    schema: Any
    if is_model_class(annotation):
        schema = annotation.__name__ if annotation in stack else _project(annotation, stack)
    elif get_origin(annotation) in (list, set, tuple):
        item_args = get_args(annotation)
        schema = [_annotation_schema(item_args[0] if item_args else Any, stack, attach_contract=True)]
    else:
        schema = annotation
    if not attach_contract:
        return schema
    metadata = _contract(original, required=False)
    contract = metadata[CONTRACT_KEY]
    if contract["nullable"] or contract["constraints"] or metadata.get("long_content") is True:
        return (schema, "", None, metadata)
    return schema


def _project(model: type[BaseModel], stack: frozenset[type] = frozenset()) -> Any:
    inner = stack | {model}
    schema: dict[str, Any] = {}
    for field_name, field in model.model_fields.items():
        output_name = field.alias if isinstance(field.alias, str) else field_name
        annotation = field.rebuild_annotation()
        metadata = _contract(annotation, required=field.is_required())
        extra = field.json_schema_extra
        if isinstance(extra, Mapping) and "long_content" in extra:
            metadata["long_content"] = extra["long_content"]
        schema[output_name] = (
            _annotation_schema(annotation, inner),
            field.description or "",
            True if field.is_required() else None,
            metadata,
        )
    if getattr(model, "__pydantic_root_model__", False):
        return schema["root"]
    return schema


@lru_cache(maxsize=256)
def project_model(model: type[BaseModel]) -> Any:
    """Agently's ``pydantic_model_to_output_schema`` (cached per class; callers must not mutate it)."""
    return _project(model)
