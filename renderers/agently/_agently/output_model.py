"""Agently's ``to_output_model``: a pydantic model class that validates the model's answer.

Built from the output declaration: ``(type, description[, ensure])`` tuples become typed fields,
nested dicts nested models (``<Parent>_<Name>``), lists ``ensure_list_and_cast`` fields (a single
value is wrapped, items are cast: ``1`` -> ``"1"`` for ``[(str,)]``), Enum fields accept members,
names or values. ``strict_output`` (default: the prompt's ``ensure_all_keys``) forbids extra keys and
makes tuple fields required. A root list becomes a model with one ``list`` field that also accepts
the bare list. The behaviour is Agently's, with two differences where Agently crashes: an item that
cannot be cast at all (``None`` into ``[(int,)]``) is reported by pydantic as a normal
``ValidationError`` naming the field instead of escaping as a raw ``TypeError``, and a declaration
pydantic cannot build a model from (a ``_private`` key, a type without a schema) raises
:class:`AgentlyFieldError` naming the key.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from enum import Enum
from typing import Annotated, Any, cast, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    PydanticUserError,
    RootModel,
    create_model,
    model_validator,
)

from .declarations import contract_of, ensure_policy, is_long_content
from .errors import AgentlyFieldError
from .sanitize import sanitize

NOT_STRUCTURED = "Unable to generator output model because the output is not a structure data."

_CONSTRAINT_KWARGS = {
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_length",
    "maxItems": "max_length",
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "multipleOf": "multiple_of",
    "pattern": "pattern",
}


class RootListOutput(BaseModel):
    """Base of root-list output models: accepts the bare list and behaves like it."""

    model_config = ConfigDict(extra="allow")

    @model_validator(mode="before")
    @classmethod
    def _wrap_root_list(cls, value: Any) -> Any:
        if not isinstance(value, Mapping) and isinstance(value, Sequence) and not isinstance(value, str):
            return {"list": value}
        return value

    @property
    def root(self) -> Any:
        return self.list  # type: ignore[attr-defined]

    def __iter__(self) -> Generator[Any, None, None]:
        value = getattr(self, "list", None)
        if value is None:
            return
        yield from value

    def __len__(self) -> int:
        value = getattr(self, "list", None)
        return len(value) if isinstance(value, list) else 0

    def __getitem__(self, index: Any) -> Any:
        return self.list[index]  # type: ignore[attr-defined]


def enum_type_of(value: Any) -> type[Enum] | None:
    if isinstance(value, type) and issubclass(value, Enum):
        return value
    for arg in get_args(value):
        if isinstance(arg, type) and issubclass(arg, Enum):
            return arg
    return None


def _cast_enum(value: Any, enum_type: type[Enum]) -> Any:
    if value is None or isinstance(value, enum_type):
        return value
    if isinstance(value, str):
        member = enum_type.__members__.get(value)
        if member is not None:
            return member
    return enum_type(value)


def _enum_validator(enum_type: type[Enum]) -> Any:
    def validate(value: Any) -> Any:
        return _cast_enum(value, enum_type)

    return validate


def ensure_list_and_cast(value: Any, target: Any) -> list[Any]:
    """Agently's list coercion: wrap a single value, cast every item to ``target``."""
    if not isinstance(value, list):
        value = [value]
    enum_type = enum_type_of(target)
    cast_items: list[Any] = []
    for item in value:
        if enum_type is not None:
            cast_items.append(_cast_enum(item, enum_type))
            continue
        if target is Any or not isinstance(target, type):
            cast_items.append(item)
            continue
        if isinstance(item, target):
            cast_items.append(item)
            continue
        if isinstance(item, Mapping):
            model_validate = getattr(target, "model_validate", None)
            if callable(model_validate):
                cast_items.append(model_validate(item))
                continue
            parse_obj = getattr(target, "parse_obj", None)
            if callable(parse_obj):
                cast_items.append(parse_obj(item))
                continue
        try:
            cast_items.append(target(item))
        except TypeError as error:
            # Agently lets this TypeError escape pydantic raw (e.g. int(None)); a ValueError is
            # reported by pydantic as a normal validation error.
            raise ValueError(f"cannot convert {item!r} to {target.__name__}: {error}") from None
    return cast_items


def _list_validator(target: Any) -> Any:
    def validate(value: Any) -> list[Any]:
        return ensure_list_and_cast(value, target)

    return validate


def _identity(value: Any) -> Any:
    return value


def _constraints(spec: Any) -> dict[str, Any]:
    contract = contract_of(spec)
    constraints = contract.get("constraints") if contract is not None else None
    if not isinstance(constraints, Mapping):
        return {}
    return {_CONSTRAINT_KWARGS[key]: value for key, value in constraints.items() if key in _CONSTRAINT_KWARGS}


def _is_type(value: Any) -> bool:
    return isinstance(value, type) or get_origin(value) is not None


def _field(name: str, field_name: str, spec: Any, strict: bool, path: str) -> tuple[Any, Any]:
    field_type: Any = Any
    description: Any = None
    default: Any = None
    required = False
    if isinstance(spec, str):
        description = spec
        required = strict
    elif isinstance(spec, Mapping):
        field_type = build_output_model(f"{name}_{field_name.capitalize()}", spec, strict, path)
        required = strict
    elif isinstance(spec, tuple):
        value_type = spec[0] if len(spec) > 0 else Any
        desc = spec[1] if len(spec) > 1 else ""
        required = strict or ensure_policy(spec[2] if len(spec) > 2 else None) is not None
        if required:
            default = ...
        if isinstance(value_type, Mapping):
            field_type = build_output_model(f"{name}_{field_name.capitalize()}", value_type, strict, path)
            description = desc
        elif isinstance(value_type, Sequence) and not isinstance(value_type, (str, bytes)):
            field_type = build_output_model(f"{name}_{field_name.capitalize()}", list(value_type), strict, path)
            description = desc
        elif _is_type(value_type):
            field_type = value_type
            description = desc
        else:
            description = f"type: {value_type!s}; desc: {desc!s}"
    elif isinstance(spec, Sequence):
        field_type = build_output_model(f"{name}_{field_name.capitalize()}", list(spec), strict, path)
        required = strict
    elif _is_type(spec):
        field_type = spec | None
        required = strict
    else:
        description = str(spec)
        required = strict
    judgment = (
        isinstance(spec, tuple) and len(spec) > 3 and isinstance(spec[3], Mapping) and spec[3].get("judgment") is True
    )
    annotation = cast(Any, field_type) | None if required and field_type is not Any and not judgment else field_type
    info = Field(default, description=description, **_constraints(spec))
    if get_origin(field_type) is list:
        args = get_args(field_type)
        element = args[0] if args else Any
        return (
            Annotated[
                annotation, PlainValidator(_list_validator(element)), PlainSerializer(_identity, return_type=Any)
            ],
            info,
        )
    enum_type = enum_type_of(field_type)
    if enum_type is not None:
        return Annotated[annotation, PlainValidator(_enum_validator(enum_type))], info
    return annotation, info


def build_output_model(name: str, schema: Any, strict: bool, path: str = "output") -> Any:
    """Agently's ``_generate_output_model``: a model class for a mapping, an annotation for a list."""
    if isinstance(schema, Mapping):
        fields: dict[str, Any] = {
            str(key): _field(name, str(key), spec, strict, f"{path}.{key}") for key, spec in schema.items()
        }
        try:
            return create_model(name, __config__=ConfigDict(extra="forbid" if strict else "allow"), **fields)
        except (NameError, TypeError, ValueError, PydanticUserError) as error:
            # pydantic < 2.14 refuses a bad field name with NameError, later versions with PydanticUserError
            raise AgentlyFieldError(path, f"cannot build the output model: {error}") from None
    item_type: Any = Any
    if len(schema) > 0:
        origin = schema[0]
        if isinstance(origin, str):
            item_type = Any
        elif isinstance(origin, Mapping):
            item_type = build_output_model(f"{name}_List", origin, strict, f"{path}[*]")
        elif isinstance(origin, tuple):
            value_type = origin[0] if len(origin) > 0 else Any
            item_type = value_type if _is_type(value_type) else Any
        elif isinstance(origin, Sequence):
            item_type = build_output_model(f"{name}_List", list(origin), strict, f"{path}[*]")
        elif _is_type(origin):
            item_type = origin
    return Annotated[
        list[item_type | None] | None,
        PlainValidator(_list_validator(item_type)),
        PlainSerializer(_identity, return_type=Any),
    ]


def output_model(output: Any, ensure_all_keys: bool, strict_output: bool | None) -> type[BaseModel]:
    """The model for a normalized, non-pydantic output declaration."""
    if is_long_content(output):
        annotation = Annotated[output[0], Field(description=str(output[1] or ""))]
        return RootModel[annotation]
    if not isinstance(output, (Mapping, Sequence)) or isinstance(output, str):
        raise AgentlyFieldError("output", f"{NOT_STRUCTURED} (got {type(output).__name__})")
    strict = bool(ensure_all_keys) if strict_output is None else strict_output
    declared = sanitize(output, remain_type=True)
    if isinstance(output, Mapping):
        model: type[BaseModel] = build_output_model("AgentlyOutput", declared, strict)
        return model
    return create_model(
        "AgentlyOutput",
        __base__=RootListOutput,
        list=(build_output_model("AgentlyOutput_List", declared, strict), ... if strict else None),
        __config__=ConfigDict(extra="forbid" if strict else "allow"),
    )
