"""What every provider reader shares: taking a body or a bare list apart, checking a value's kind
at its path, and keeping what the prompt model has no place for.

A request body holds fields the prompt model has no place for: the model's name, ``stream``,
``tool_choice``, a part of a kind no turn holds. None is dropped: each is kept, with its value,
under ``Prompt.native[<reader name>]``, keyed by its path in the body (``model``,
``messages[2].refusal``), so every render reports it (``native.openai-chat``) and a user sees what
did not come across. Bad data raises :class:`~promptwire.core.errors.FieldError` naming the path
in the body (``messages[2].tool_calls[0].function.arguments``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from ...core.budget import MAX_BUDGET, Budget
from ...core.contract import OutputContract
from ...core.errors import FieldError, field_path
from ...core.json_text import check_json_data, dumps, json_object
from ...core.nesting import check_nesting, with_nesting_room
from ...core.prompt import (
    CacheMark,
    ChatTurn,
    FilePart,
    GenerateConfig,
    ImagePart,
    Prompt,
    PromptCache,
    ToolDefinition,
)
from ...core.validation import validate_model

__all__ = [
    "Path",
    "Reading",
    "body_and_items",
    "built",
    "data_url_part",
    "json_object",
    "json_text",
    "listed",
    "mapping",
    "text",
    "whole_number",
]

Path = tuple[str | int, ...]
M = TypeVar("M", bound=BaseModel)

_DATA_URL = re.compile(r"data:([^;,]+);base64,(.*)", re.DOTALL)
"""A ``data:`` URL the model can hold as inline data and give back as the same text: a media type
without parameters, then base64 (``ImagePart.data_url`` writes it the same way again)."""


def mapping(value: Any, path: Path, what: str) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else the error naming ``path``."""
    if not isinstance(value, Mapping):
        raise FieldError(path, f"must be {what}, not {_kind(value)}")
    return value


def listed(value: Any, path: Path, what: str) -> list[Any]:
    """``value`` when it is a list, else the error naming ``path``."""
    if not isinstance(value, list):
        raise FieldError(path, f"must be a list of {what}, not {_kind(value)}")
    return value


def text(value: Any, path: Path) -> str:
    """``value`` when it is text, else the error naming ``path``."""
    if not isinstance(value, str):
        raise FieldError(path, f"must be text, not {_kind(value)}")
    return value


def whole_number(value: Any, path: Path) -> int:
    """``value`` when it is a whole number (not a boolean), else the error naming ``path``."""
    if type(value) is not int:
        raise FieldError(path, f"must be a whole number, not {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    """How a value is named in an error: JSON's names for JSON's kinds."""
    names = {dict: "an object", list: "a list", str: "text", bool: "a boolean", type(None): "null"}
    for kind, name in names.items():
        if isinstance(value, kind):
            return name
    return "a number" if isinstance(value, int | float) else type(value).__name__


def built(model: type[M], path: Path, fields: Mapping[str, Any]) -> M:
    """``model`` made of ``fields``; a value it refuses is a :class:`FieldError` under ``path``."""
    return validate_model(model, dict(fields), root=field_path(path) if path else None)


def json_text(value: Any, path: Path) -> str:
    """A JSON value found where the prompt model holds text (a tool's response object) as its JSON
    text; a value that is not JSON data (NaN, an integer longer than Python prints) or nests deeper
    than any prompt value may is refused, naming the place under ``path``."""
    check_json_data(value, path)
    check_nesting(value, path)
    return with_nesting_room(dumps, value)


def body_and_items(data: Any, key: str, what: str) -> tuple[Mapping[str, Any], Any, Path]:
    """A whole request body (a mapping holding its turns under ``key``) or a bare list of turns, as
    ``(body, turns, path of the turns)``: a bare list's turns are named ``[2]``, a body's
    ``messages[2]``. Anything else is refused, naming what was expected."""
    if isinstance(data, list):
        return {}, data, ()
    if data is None:
        raise FieldError("<root>", f"the document is empty; expected a request body or a list of {what}")
    if not isinstance(data, Mapping):
        raise FieldError(
            "<root>", f"must be a request body (an object with {key!r}) or a list of {what}, not {_kind(data)}"
        )
    if key not in data:
        raise FieldError(key, f"missing: a request body holds its {what} here")
    return data, data[key], (key,)


def data_url_part(url: str, path: Path, kind: type[ImagePart] | type[FilePart], fields: Mapping[str, Any]) -> Any:
    """An image or file given by URL: a base64 ``data:`` URL as inline data with its media type
    (so another provider can take the bytes), any other URL as the URL, as it is."""
    match = _DATA_URL.fullmatch(url)
    if match is None:
        return built(kind, path, {"url": url, **fields})
    return built(kind, path, {"data": match.group(2), "media_type": match.group(1), **fields})


class Reading:
    """One body being read by the reader ``name``: the parts of the prompt as they are found, and
    what has no place in the prompt model, kept by path (see the module docstring)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.left: dict[str, Any] = {}
        self.history: list[ChatTurn] = []
        self.tools: list[ToolDefinition] = []
        self.config: dict[str, Any] = {}
        self.cache: dict[str, Any] = {}
        self.output: OutputContract | None = None

    def keep(self, path: Path, value: Any) -> None:
        """Keep ``value``, found at ``path``, under the reader's name in ``Prompt.native``."""
        self.left[field_path(path)] = value

    def rest(self, data: Mapping[Any, Any], path: Path, known: Iterable[str]) -> None:
        """Keep every field of ``data`` not in ``known`` (the ones the reader has read)."""
        read = set(known)
        for key, value in data.items():
            if key not in read:
                self.keep((*path, str(key)), value)

    def cache_mark(self, value: Any, path: Path) -> CacheMark:
        """Anthropic's ``cache_control`` (``{"type": "ephemeral", "ttl": "1h"}``) as a breakpoint."""
        control = mapping(value, path, 'a cache_control object ({"type": "ephemeral"})')
        if control.get("type") != "ephemeral":
            raise FieldError((*path, "type"), "must be 'ephemeral', the one kind of cache breakpoint")
        self.rest(control, path, ("type", "ttl"))
        return built(CacheMark, path, {"ttl": control["ttl"]} if "ttl" in control else {})

    def cache_retention(self, value: Any, path: Path) -> None:
        """OpenAI's ``prompt_cache_retention``: ``in_memory`` or ``24h``."""
        if value not in ("in_memory", "24h"):
            raise FieldError(path, "must be 'in_memory' or '24h'")
        self.cache["retention"] = value

    def temperature(self, value: Any, path: Path) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise FieldError(path, f"must be a number, not {_kind(value)}")
        self.config["temperature"] = value
        built(GenerateConfig, path[:-1], {"temperature": value})  # refuses NaN and the infinities at the path

    def max_tokens(self, value: Any, path: Path) -> None:
        """A limit of output tokens, whichever field names it; a second one is kept as it is."""
        if "max_output" in self.config:
            self.keep(path, value)
            return
        count = whole_number(value, path)
        if not 1 <= count <= MAX_BUDGET:
            raise FieldError(path, f"must be a number of tokens from 1 to {MAX_BUDGET}")
        self.config["max_output"] = Budget(amount=count)

    def think(self, value: Any) -> None:
        """A think setting given as it is in the prompt model (``true``, ``"high"``...)."""
        self.config["think"] = value

    def schema_output(self, schema: Any, path: Path, name: Any = None, strict: Any = None) -> None:
        """A JSON-schema response format as the prompt's output contract (``strict`` as
        ``config.strict``)."""
        fields: dict[str, Any] = {"schema": mapping(schema, (*path, "schema"), "a JSON Schema object")}
        if name is not None:
            fields["name"] = text(name, (*path, "name"))
        if strict is not None:
            if not isinstance(strict, bool):
                raise FieldError((*path, "strict"), f"must be true or false, not {_kind(strict)}")
            self.config["strict"] = strict
        self.output = built(OutputContract, (*path, "schema"), fields)

    def tool(self, path: Path, name: Any, description: Any, parameters: Any, returns: Any = None) -> None:
        """A function tool: its name, description, parameter schema and (where the provider says it)
        the schema of what it returns."""
        fields: dict[str, Any] = {"name": text(name, (*path, "name"))}
        if description is not None:
            fields["description"] = text(description, (*path, "description"))
        if parameters is not None:
            fields["parameters"] = mapping(parameters, (*path, "parameters"), "a JSON Schema object")
        if returns is not None:
            fields["returns"] = returns
        self.tools.append(built(ToolDefinition, path, fields))

    def turn(self, path: Path, fields: Mapping[str, Any]) -> None:
        self.history.append(built(ChatTurn, path, fields))

    def prompt(self) -> Prompt:
        """The prompt read, everything without a place kept under ``native[<reader name>]``."""
        fields: dict[str, Any] = {"history": self.history, "tools": self.tools}
        if self.config:
            fields["config"] = built(GenerateConfig, (), self.config)
        if self.cache:
            fields["cache"] = built(PromptCache, (), self.cache)
        if self.output is not None:
            fields["output"] = self.output
        if self.left:
            fields["native"] = {self.name: self.left}
        return validate_model(Prompt, fields)
