"""``--from anthropic``: an Anthropic Messages request body, or a bare list of its messages.

The body's ``system`` (text, or text blocks that may carry a breakpoint) is the conversation's
leading turn of role ``system``; every message a turn with every block: ``text``, ``image`` and
``document`` (base64 or URL sources), ``tool_use`` as a tool call (its ``input`` the arguments),
``tool_result`` as a tool result (text or blocks, ``is_error``), ``thinking`` as reasoning with
its signature and ``redacted_thinking`` as redacted reasoning with its encrypted data, both of
provider ``anthropic``. A block's ``cache_control`` is its breakpoint (with its ``ttl``); on the
last tool it is the tools' breakpoint (``Prompt.cache.tools``). ``max_tokens``, ``temperature`` and
a JSON-schema ``output_config.format`` are the prompt's config and output contract. Everything
else (the model, ``thinking``, ``tool_choice``, a server tool's blocks, a document's title...) is
kept under ``native["anthropic"]`` by its path (see :mod:`.common`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.errors import FieldError
from ...core.prompt import FilePart, ImagePart, Prompt, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from .common import Path, Reading, body_and_items, built, listed, mapping, text

__all__ = ["AnthropicReader", "reader"]

PROVIDER = "anthropic"
"""The adapter that may take back the reasoning read here."""


class AnthropicReader:
    name = "anthropic"
    description = "an Anthropic Messages request body, or a list of its messages"
    model_field = "model"
    """The body's field naming its model, kept in ``native``: a run asks for that model (see
    ``promptwire.runs.inputs.body_model``)."""

    def read(self, data: Any) -> Prompt:
        body, messages, path = body_and_items(data, "messages", "messages")
        reading = Reading(self.name)
        if "system" in body:
            _system(reading, body["system"])
        for index, message in enumerate(listed(messages, path, "messages")):
            _message(reading, message, (*path, index))
        _body(reading, body)
        return reading.prompt()


def _system(reading: Reading, system: Any) -> None:
    """The system text, or its blocks with their breakpoints, as the leading ``system`` turn."""
    if isinstance(system, str):
        reading.turn(("system",), {"role": "system", "content": system})
        return
    blocks = [
        _block(reading, block, ("system", index))
        for index, block in enumerate(listed(system, ("system",), "text blocks"))
    ]
    reading.turn(("system",), {"role": "system", "content": [block for block in blocks if block is not None]})


def _body(reading: Reading, body: Mapping[str, Any]) -> None:
    for key, value in body.items():
        if key in ("messages", "system"):
            continue
        if key == "tools":
            _tools(reading, value)
        elif key == "max_tokens":
            reading.max_tokens(value, (key,))
        elif key == "temperature":
            reading.temperature(value, (key,))
        elif key == "output_config" and isinstance(value, Mapping) and _schema_format(value.get("format")):
            format = value["format"]
            reading.schema_output(format.get("schema"), (key, "format"))
            reading.rest(format, (key, "format"), ("type", "schema"))
            reading.rest(value, (key,), ("format",))
        else:
            reading.keep((str(key),), value)


def _schema_format(format: Any) -> bool:
    return isinstance(format, Mapping) and format.get("type") == "json_schema"


def _tools(reading: Reading, tools: Any) -> None:
    """Custom tools (name, description, ``input_schema``); a server tool (``web_search_...``) has no
    place in the prompt's tools and is kept as it is. ``cache_control`` on the last tool is the
    tools' breakpoint; on another it has no place either."""
    entries = listed(tools, ("tools",), "tools")
    for index, tool in enumerate(entries):
        path: Path = ("tools", index)
        entry = mapping(tool, path, "a tool object")
        if entry.get("type", "custom") != "custom":
            reading.keep(path, tool)
            continue
        reading.tool(path, entry.get("name"), entry.get("description"), entry.get("input_schema"))
        known = ["name", "description", "input_schema"]
        if "cache_control" in entry and index == len(entries) - 1:
            reading.cache["tools"] = reading.cache_mark(entry["cache_control"], (*path, "cache_control"))
            known.append("cache_control")
        reading.rest(entry, path, known)


def _message(reading: Reading, message: Any, path: Path) -> None:
    fields = mapping(message, path, "a message object")
    role = text(fields.get("role"), (*path, "role"))
    content = fields.get("content")
    if isinstance(content, str):
        turn: dict[str, Any] = {"role": role, "content": content}
    else:
        blocks = listed(content, (*path, "content"), "content blocks")
        parts = [_block(reading, block, (*path, "content", number)) for number, block in enumerate(blocks)]
        turn = {"role": role, "content": [part for part in parts if part is not None]}
    reading.rest(fields, path, ("role", "content"))
    reading.turn(path, turn)


def _block(reading: Reading, block: Any, path: Path) -> Any:
    """One content block as a part, or ``None`` when it has no place in a turn (kept as it is)."""
    fields = mapping(block, path, "a content block object")
    kind = fields.get("type")
    reader = _BLOCKS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        reading.keep(path, block)  # server tools' blocks, search results, container uploads...
        return None
    try:
        part, known = reader(reading, fields, path)
    except _Unplaced:
        reading.keep(path, block)
        return None
    mark = fields.get("cache_control")
    if mark is not None and not isinstance(part, ReasoningPart):
        part = part.model_copy(update={"cache": reading.cache_mark(mark, (*path, "cache_control"))})
        known = (*known, "cache_control")
    reading.rest(fields, path, ("type", *known))
    return part


def _text(reading: Reading, fields: Mapping[str, Any], path: Path) -> tuple[Any, tuple[str, ...]]:
    return TextPart(text=text(fields.get("text"), (*path, "text"))), ("text",)


def _source(reading: Reading, fields: Mapping[str, Any], path: Path, kind: type[ImagePart] | type[FilePart]) -> Any:
    """An image's or document's ``source``: base64 data with its media type, or a URL."""
    where = (*path, "source")
    source = mapping(fields.get("source"), where, "an object with the source's type")
    if source.get("type") == "base64":
        reading.rest(source, where, ("type", "data", "media_type"))
        data = text(source.get("data"), (*where, "data"))
        media_type = text(source.get("media_type"), (*where, "media_type"))
        return built(kind, where, {"data": data, "media_type": media_type})
    if source.get("type") == "url":
        reading.rest(source, where, ("type", "url"))
        return built(kind, where, {"url": text(source.get("url"), (*where, "url"))})
    return None


def _image(reading: Reading, fields: Mapping[str, Any], path: Path) -> tuple[Any, tuple[str, ...]]:
    part = _source(reading, fields, path, ImagePart)
    if part is None:  # an uploaded file's id: the model holds data and URLs only
        raise _Unplaced
    return part, ("source",)


def _document(reading: Reading, fields: Mapping[str, Any], path: Path) -> tuple[Any, tuple[str, ...]]:
    part = _source(reading, fields, path, FilePart)
    if part is None:  # plain text, a content list or a file id as the source
        raise _Unplaced
    return part, ("source",)


def _tool_use(reading: Reading, fields: Mapping[str, Any], path: Path) -> tuple[Any, tuple[str, ...]]:
    arguments = mapping(fields.get("input"), (*path, "input"), "the call's arguments object")
    part = built(
        ToolCallPart,
        path,
        {
            "id": text(fields.get("id"), (*path, "id")),
            "name": text(fields.get("name"), (*path, "name")),
            "arguments": dict(arguments),
        },
    )
    return part, ("id", "name", "input")


def _tool_result(reading: Reading, fields: Mapping[str, Any], path: Path) -> tuple[Any, tuple[str, ...]]:
    result: dict[str, Any] = {"call_id": text(fields.get("tool_use_id"), (*path, "tool_use_id"))}
    content = fields.get("content", "")
    if isinstance(content, str):
        result["content"] = content
    else:
        blocks = listed(content, (*path, "content"), "content blocks")
        parts = [_block(reading, block, (*path, "content", number)) for number, block in enumerate(blocks)]
        result["content"] = [part for part in parts if part is not None]
    if "is_error" in fields:
        if not isinstance(fields["is_error"], bool):
            raise FieldError((*path, "is_error"), "must be true or false")
        result["is_error"] = fields["is_error"]
    return built(ToolResultPart, path, result), ("tool_use_id", "content", "is_error")


def _thinking(reading: Reading, fields: Mapping[str, Any], path: Path) -> tuple[Any, tuple[str, ...]]:
    part: dict[str, Any] = {"text": text(fields.get("thinking"), (*path, "thinking")), "provider": PROVIDER}
    if fields.get("signature") is not None:
        part["signature"] = text(fields["signature"], (*path, "signature"))
    return ReasoningPart(**part), ("thinking", "signature")


def _redacted_thinking(reading: Reading, fields: Mapping[str, Any], path: Path) -> tuple[Any, tuple[str, ...]]:
    data = text(fields.get("data"), (*path, "data"))
    return ReasoningPart(encrypted=data, redacted=True, provider=PROVIDER), ("data",)


class _Unplaced(Exception):
    """A block of a known type whose form the model has no place for: kept as it is."""


_BLOCKS = {
    "text": _text,
    "image": _image,
    "document": _document,
    "tool_use": _tool_use,
    "tool_result": _tool_result,
    "thinking": _thinking,
    "redacted_thinking": _redacted_thinking,
}


reader = AnthropicReader()
