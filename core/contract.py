"""Output contracts: what the model must return, as one JSON Schema every renderer and adapter reads.

Each dialect declares outputs its own way (AgentScript shapes, Agently output dicts, Python types);
its front end or renderer package converts them to JSON Schema once (AgentScript's in
``renderers/agentscript/shape.py``) and keeps the native declaration next to it so the
dialect's own renderer can still print it byte for byte.
"""

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .errors import FieldError

__all__ = ["OutputContract", "check_schema_shape"]


class OutputContract(BaseModel):
    """The JSON Schema of the expected output, plus the declaration it came from.

    ``native`` holds the dialect's own declaration (an AgentScript shape, an Agently output value)
    and ``dialect`` says whose it is; ``format`` carries a dialect's layout hint (Agently's
    ``output_format``). Renderers of other dialects read only ``json_schema``.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True, hide_input_in_errors=True)

    json_schema: dict[str, Any] = Field(alias="schema")
    name: str | None = None
    dialect: str | None = None
    native: Any = None
    format: str | None = None

    @field_validator("json_schema")
    @classmethod
    def _readable(cls, schema: dict[str, Any]) -> dict[str, Any]:
        check_schema_shape(schema)
        return schema


def check_schema_shape(schema: Mapping[str, Any]) -> None:
    """Refuse, naming the place, a schema whose ``type``, ``properties``, ``items`` or ``required``
    is not of the kind JSON Schema says: the contract check, the offline mock and the renderers read
    those keywords, and a provider would refuse the request anyway. Everything else is left to the
    provider. A walk with a stack, not recursion: a schema may nest as deep as any prompt value."""
    if _well_formed(schema):  # the usual case, told without building a path per node
        return
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), schema)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, bool):  # true / false: any value, no value
            continue
        if not isinstance(node, Mapping):
            raise FieldError(path or "<root>", "must be an object (a JSON Schema) or a boolean")
        kind = node.get("type")
        if kind is not None and not _type_names(kind):
            raise FieldError((*path, "type"), "must be a type name or a list of type names")
        required = node.get("required")
        if required is not None and not (isinstance(required, list) and all(isinstance(n, str) for n in required)):
            raise FieldError((*path, "required"), "must be a list of property names")
        properties = node.get("properties")
        if properties is not None:
            if not isinstance(properties, Mapping):
                raise FieldError((*path, "properties"), "must be an object of property schemas")
            stack.extend(((*path, "properties", name), sub) for name, sub in properties.items())
        items = node.get("items")
        if isinstance(items, list):  # the tuple form of drafts up to 2019-09
            stack.extend(((*path, "items", index), sub) for index, sub in enumerate(items))
        elif items is not None:
            stack.append(((*path, "items"), items))


def _well_formed(schema: Mapping[str, Any]) -> bool:
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if node is True or node is False:
            continue
        if not isinstance(node, Mapping):
            return False
        kind = node.get("type")
        if not (kind is None or type(kind) is str or _type_names(kind)):
            return False
        required = node.get("required")
        if required is not None and not (type(required) is list and all(type(n) is str for n in required)):
            return False
        properties = node.get("properties")
        if properties is not None:
            if not isinstance(properties, Mapping):
                return False
            stack.extend(properties.values())
        items = node.get("items")
        if type(items) is list:
            stack.extend(items)
        elif items is not None:
            stack.append(items)
    return True


def _type_names(kind: object) -> bool:
    return isinstance(kind, str) or (isinstance(kind, list) and all(isinstance(name, str) for name in kind))
