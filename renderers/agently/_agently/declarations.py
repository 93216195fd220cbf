"""Output declarations: every conversion between Agently's tuples, pydantic models and JSON Schema.

Agently accepts an output as a dict/list of ``(type, description[, ensure[, metadata]])`` tuples,
or as a pydantic model class. Its ``output_contract`` module (mirrored here) normalizes
``"long_content"`` tags into the :data:`LongContent` annotation, projects a model field by field
into 4-tuples ``(schema, description, True|None, metadata)`` whose metadata carries the *contract*
(required, nullable, constraints) so the text can list the constraints, settles the output format
(``PromptModel.set_output_format``), and projects a declaration to JSON Schema for structured
output. The reader uses that projection for the core ``OutputContract``.

The renderer needs the opposite direction, a core ``Prompt``'s JSON Schema said as a declaration
(tool ``kwargs``/``returns``, output structures): :func:`schema_to_declaration`, promptwire's own,
kept here so both directions read the one list of constraint keywords.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated, Any, Literal, TypeGuard, Union, get_args, get_origin

from pydantic import BaseModel, Field, TypeAdapter
from pydantic.fields import FieldInfo

from .errors import notice
from .native import output_template_schema

LongContent = Annotated[str, Field(json_schema_extra={"long_content": True})]
"""A long-form string field (Agently's ``agently.types.data.output.LongContent``)."""

CONTRACT_KEY = "__agently_pydantic_output_contract__"
"""The key, in a field tuple's metadata, of the contract Agently reads its field requirements from."""

CONSTRAINT_KEYS = (
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
"""The JSON Schema keywords a contract carries as constraints, in Agently's order (visible in the
JSON Schema the reader projects). ``enum`` and ``const`` are constraints too, but a JSON Schema said
as a declaration shows them first as the field's ``Literal[...]`` type (see :data:`_LITERAL_KEYS`)."""

DICT_ONLY_FORMATS = ("flat_markdown", "hybrid", "xml_field", "yaml_literal")

KNOWN_FORMATS = frozenset({"json", "markdown", "text", "auto", *DICT_ONLY_FORMATS})
"""The output formats Agently 4.1.4.10 knows; it shows no output requirement for any other name."""


# --- field tuples --------------------------------------------------------------------------------


def is_model_class(value: Any) -> TypeGuard[type[BaseModel]]:
    return isinstance(value, type) and issubclass(value, BaseModel)


def _is_long_content_annotation(value: Any) -> bool:
    if get_origin(value) is not Annotated:
        return False
    args = get_args(value)
    return args[0] is str and any(
        isinstance(meta, FieldInfo)
        and isinstance(meta.json_schema_extra, Mapping)
        and meta.json_schema_extra.get("long_content") is True
        for meta in args[1:]
    )


def is_long_content(spec: Any) -> bool:
    """A normalized long-form field: a tuple whose metadata says ``long_content: True``."""
    return (
        isinstance(spec, tuple)
        and len(spec) > 3
        and isinstance(spec[3], Mapping)
        and spec[3].get("long_content") is True
    )


def normalize_output(value: Any) -> Any:
    """Agently's ``normalize_output_declaration``: resolve judgments and long-content tags, rebuild containers."""
    judgment = output_template_schema(value)
    if judgment is not None:
        return judgment
    if _is_long_content_annotation(value):
        return (value, "", None, {"long_content": True})
    if isinstance(value, tuple) and value:
        declared = value[0]
        if _is_long_content_annotation(declared) or (isinstance(declared, str) and declared == "long_content"):
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


def ensure_policy(marker: Any) -> Literal["presence", "not_null"] | None:
    """Agently's third tuple element: ``True``/``1`` = key required, ``"not_null"`` = value required."""
    if marker is True or marker == 1:
        return "presence"
    if marker == "not_null":
        return "not_null"
    return None


def normalize_ensure_marker(marker: Any) -> bool | str | None:
    policy = ensure_policy(marker)
    if policy == "presence":
        return True
    if policy == "not_null":
        return "not_null"
    return None


def contract_of(spec: Any) -> Mapping[str, Any] | None:
    """The contract a field tuple carries in its metadata (``None`` when it has none)."""
    if not isinstance(spec, tuple) or len(spec) < 4:
        return None
    metadata = spec[3]
    if not isinstance(metadata, Mapping):
        return None
    contract = metadata.get(CONTRACT_KEY)
    return contract if isinstance(contract, Mapping) else None


# --- the output format ---------------------------------------------------------------------------


def _is_string_spec(spec: Any) -> bool:
    if isinstance(spec, tuple) and spec:
        return spec[0] is str
    return spec is str


def _resolve_auto_format(output: Any) -> str:
    """``output_format="auto"``: xml_field for all-string dicts, hybrid for mixed ones, else json."""
    if not isinstance(output, Mapping) or not output:
        return "json"
    strings = [_is_string_spec(spec) for spec in output.values()]
    if all(strings):
        return "xml_field"
    if any(strings):
        return "hybrid"
    return "json"


def settle_output_format(
    output: Any, output_format: Any, *, warn_fallback: bool = True, stacklevel: int = 4
) -> tuple[Any, Any, bool]:
    """Agently's ``PromptModel.set_output_format`` validator, for the fast reader and the mirrored model.

    Returns ``(output, output_format, resolved_from_auto)`` after Agently's defaults and fallbacks.
    ``stacklevel`` (from this function) points the fallback warning at the user's call.
    """
    from_auto = False
    if output_format is None:
        if isinstance(output, Mapping) or (not isinstance(output, str) and isinstance(output, Sequence)):
            output_format = "json"
        elif isinstance(output, type):
            if output == str:  # noqa: E721 - Agently compares with ==
                output = None
                output_format = "markdown"
            else:
                output = {"value": (output,), "reply": (str, "Reply according the result value")}
                output_format = "json"
        else:
            output_format = "markdown"
    if output_format == "auto":
        from_auto = True
        output_format = _resolve_auto_format(output)
    if output_format in DICT_ONLY_FORMATS and not isinstance(output, Mapping):
        if warn_fallback:
            notice(
                f"output_format='{output_format}' requires a dict output schema, "
                f"got {type(output).__name__}. Falling back to json.",
                "output_format",
                stacklevel=stacklevel,
            )
        output_format = "json"
    if not isinstance(output_format, str):
        output_format = str(output_format)
    return output, output_format, from_auto


# --- pydantic model -> declaration -----------------------------------------------------------------


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


def _allows_null(schema: Mapping[str, Any]) -> bool:
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


def _effective_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
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


def _pydantic_contract(annotation: Any, *, required: bool) -> dict[str, Any]:
    try:
        schema = TypeAdapter(annotation).json_schema()
    except Exception:
        schema = {}
    if not isinstance(schema, Mapping):
        schema = {}
    effective = _effective_schema(schema)
    metadata: dict[str, Any] = {
        CONTRACT_KEY: {
            "required": required,
            "nullable": _allows_null(schema),
            "value_kind": effective.get("type"),
            "constraints": {key: effective[key] for key in CONSTRAINT_KEYS if key in effective},
        }
    }
    if schema.get("long_content") is True:
        metadata["long_content"] = True
    return metadata


def _annotation_declaration(annotation: Any, stack: frozenset[type], *, attach_contract: bool = False) -> Any:
    original = annotation
    annotation = _split_nullable(annotation)
    schema: Any
    if is_model_class(annotation):
        schema = annotation.__name__ if annotation in stack else _project(annotation, stack)
    elif get_origin(annotation) in (list, set, tuple):
        item_args = get_args(annotation)
        schema = [_annotation_declaration(item_args[0] if item_args else Any, stack, attach_contract=True)]
    else:
        schema = annotation
    if not attach_contract:
        return schema
    metadata = _pydantic_contract(original, required=False)
    contract = metadata[CONTRACT_KEY]
    if contract["nullable"] or contract["constraints"] or metadata.get("long_content") is True:
        return (schema, "", None, metadata)
    return schema


def _project(model: type[BaseModel], stack: frozenset[type] = frozenset()) -> Any:
    inner = stack | {model}
    schema: dict[str, Any] = {}
    for field_name, model_field in model.model_fields.items():
        output_name = model_field.alias if isinstance(model_field.alias, str) else field_name
        annotation = model_field.rebuild_annotation()
        metadata = _pydantic_contract(annotation, required=model_field.is_required())
        extra = model_field.json_schema_extra
        if isinstance(extra, Mapping) and "long_content" in extra:
            metadata["long_content"] = extra["long_content"]
        schema[output_name] = (
            _annotation_declaration(annotation, inner),
            model_field.description or "",
            True if model_field.is_required() else None,
            metadata,
        )
    if getattr(model, "__pydantic_root_model__", False):
        return schema["root"]
    return schema


@lru_cache(maxsize=256)
def project_model(model: type[BaseModel]) -> Any:
    """Agently's ``pydantic_model_to_output_schema`` (cached per class; callers must not mutate it)."""
    return _project(model)


# --- declaration -> JSON Schema --------------------------------------------------------------------


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


def _annotation_json_schema(annotation: Any) -> dict[str, Any]:
    try:
        schema = TypeAdapter(annotation).json_schema()
    except Exception:
        return {}
    if not isinstance(schema, Mapping):
        return {}
    return _inline_refs(_effective_schema(schema))


# A type written as its name (as ``to_serializable_prompt_data`` writes types, or a user types them).
_TYPE_NAMES: dict[str, dict[str, Any]] = {
    "str": {"type": "string"},
    "int": {"type": "integer"},
    "float": {"type": "number"},
    "bool": {"type": "boolean"},
    "dict": {"type": "object"},
    "list": {"type": "array"},
}


def output_json_schema(output: Any, *, strict_output: bool = False) -> dict[str, Any]:
    """Agently's ``output_schema_to_json_schema`` (a pydantic model class gives its own schema)."""

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
            # A type given by name; an unknown name constrains nothing.
            projected = dict(_TYPE_NAMES.get(head.strip(), {})) if isinstance(head, str) else project(head)
            contract = contract_of(value)
            if contract is not None:
                constraints = contract.get("constraints")
                if isinstance(constraints, Mapping):
                    projected = {**projected, **constraints}
                if contract.get("nullable") and not _allows_null(projected):
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
        return _annotation_json_schema(value)

    return project(normalize_output(output))


# --- JSON Schema -> declaration (promptwire's, for the renderer) -----------------------------------

_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "object": dict,
    "array": list,
    "null": type(None),
}

_LITERAL_KEYS = ("enum", "const")
# A field's constraints as its contract lists them: ``enum``/``const`` last, after the ones the
# declaration's type does not already show.
_SCHEMA_CONSTRAINTS = (*(key for key in CONSTRAINT_KEYS if key not in _LITERAL_KEYS), *_LITERAL_KEYS)

# Keywords that are shown one way or another, or that say nothing the model needs.
_SHOWN = frozenset(
    {"type", "properties", "items", "required", "description", "anyOf", "oneOf", "additionalProperties", *_LITERAL_KEYS}
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


def schema_to_declaration(schema: Any, path: str, notes: SchemaNotes, *, output: bool) -> Any:
    """The Agently declaration of ``schema`` (the value a tuple's first element holds).

    An ``enum`` becomes a ``Literal[...]`` type (as Agently prints an Enum), a list of types a
    union. ``output`` says the declaration is an output structure, whose constraints Agently lists
    as field requirements (they ride in the contract); in tool arguments they have no place. What
    has no place (a constraint on a tool argument, ``allOf``, a ``$ref``...) is noted with its path.
    """
    if not isinstance(schema, Mapping):
        return Any
    left_out = [key for key in schema if key not in _SHOWN and key not in _SILENT]
    if output:
        left_out = [key for key in left_out if key not in CONSTRAINT_KEYS]
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
            str(name): _field_tuple(child, f"{path}.{name}", notes, output=output, required=name in names)
            for name, child in properties.items()
        }
    if kind == "array":
        items = schema.get("items")
        if isinstance(items, Mapping) and items:
            return [schema_to_declaration(items, f"{path}[*]", notes, output=output)]
        return [(str,)]
    if isinstance(kind, str) and kind in _TYPES:
        return _TYPES[kind]
    if isinstance(kind, list) and kind and all(isinstance(item, str) and item in _TYPES for item in kind):
        return _union([_TYPES[item] for item in kind])
    for union_key in ("anyOf", "oneOf"):
        options = schema.get(union_key)
        if isinstance(options, list) and options:
            members = [schema_to_declaration(option, path, SchemaNotes(), output=output) for option in options]
            if all(isinstance(member, type) for member in members):
                return _union(members)
            left_out.append(union_key)
    if kind is not None and "type" not in left_out:
        left_out.append("type")
    return Any


def _schema_contract(schema: Mapping[str, Any], required: bool) -> dict[str, Any] | None:
    """Agently's contract element for a field whose schema has constraints (``None`` when none)."""
    constraints = {key: schema[key] for key in _SCHEMA_CONSTRAINTS if key in schema}
    if not constraints:
        return None
    kind = schema.get("type")
    nullable = kind == "null" or (isinstance(kind, list) and "null" in kind)
    value_kind = kind if isinstance(kind, str) else None
    return {
        CONTRACT_KEY: {"required": required, "nullable": nullable, "value_kind": value_kind, "constraints": constraints}
    }


def _field_tuple(schema: Any, path: str, notes: SchemaNotes, *, output: bool, required: bool) -> tuple[Any, ...]:
    """``(type, description[, ensure[, contract]])`` for one property, as Agently writes a field."""
    declared = schema_to_declaration(schema, path, notes, output=output)
    description = schema.get("description", "") if isinstance(schema, Mapping) else ""
    description = description if isinstance(description, str) else str(description)
    contract = _schema_contract(schema, required) if output and isinstance(schema, Mapping) else None
    if contract is not None:
        return (declared, description, True if required else None, contract)
    if required:
        return (declared, description, True)
    return (declared, description) if description else (declared,)
