"""``--from bedrock``: an Amazon Bedrock Converse request body, or a bare list of its messages.

The inverse of what the ``bedrock`` adapter writes (:mod:`promptwire.adapters.bedrock_turns`). The
body's ``system`` text blocks are the conversation's leading turn of role ``system``; every message
a turn with every block: ``text``, ``image`` (bytes, base64 as on the wire, with the media type its
``format`` names; or an image stored in S3 by its ``s3Location`` URI), ``document`` (bytes, its
``name`` as the file's name), ``audio``, ``toolUse`` as a tool call (its ``input`` the arguments),
``toolResult`` as a tool result (one text block as its text, else its blocks; ``status: "error"``
a failure's), and ``reasoningContent`` as reasoning of provider ``bedrock``: ``reasoningText``
with its ``signature``, or ``redactedContent`` as redacted reasoning with that content. A
``cachePoint`` block marks the block before it (in ``system`` too) as a breakpoint; after the last
tool it is the tools' breakpoint (``Prompt.cache.tools``). ``toolConfig.tools[].toolSpec`` are the
prompt's tools (the schema under ``inputSchema.json``), ``inferenceConfig``'s ``maxTokens`` and
``temperature`` its config, a JSON-schema ``outputConfig.textFormat`` (the schema as JSON text) its
output contract. Everything else (``modelId``, ``toolChoice``, ``additionalModelRequestFields``,
guardrails, a block of a kind no turn holds, a cache point marking nothing...) is kept under
``native["bedrock"]`` by its path (see :mod:`.common`); a ``json`` block of a tool result is also
the result's text, as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.errors import FieldError
from ...core.prompt import (
    AudioPart,
    CacheMark,
    FilePart,
    ImagePart,
    Prompt,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from ..bedrock_turns import DOCUMENT_FORMATS, IMAGE_FORMATS
from .common import Path, Reading, body_and_items, built, json_object, json_text, listed, mapping, text

__all__ = ["BedrockReader", "reader"]

PROVIDER = "bedrock"
"""The adapter that may take back the reasoning read here."""

ROLES = ("user", "assistant")

IMAGE_TYPES = {name: media_type for media_type, name in IMAGE_FORMATS.items() if media_type != "image/jpg"}
DOCUMENT_TYPES = {name: media_type for media_type, name in DOCUMENT_FORMATS.items()}
"""Each ``format`` Converse names an image or document by, and its media type."""


class BedrockReader:
    name = "bedrock"
    description = "an Amazon Bedrock Converse request body, or a list of its messages"
    model_field = "modelId"
    """The body's field naming its model, kept in ``native``: a run asks for that model (see
    ``promptwire.runs.inputs.body_model``)."""

    def read(self, data: Any) -> Prompt:
        body, messages, path = body_and_items(data, "messages", "messages")
        reading = Reading(self.name)
        if "system" in body:
            parts = _blocks(reading, body["system"], ("system",), "system blocks")
            reading.turn(("system",), {"role": "system", "content": _turn_content(parts)})
        for index, message in enumerate(listed(messages, path, "messages")):
            _message(reading, message, (*path, index))
        _body(reading, body)
        return reading.prompt()


def _body(reading: Reading, body: Mapping[str, Any]) -> None:
    for key, value in body.items():
        if key in ("messages", "system"):
            continue
        if key == "toolConfig":
            _tools(reading, mapping(value, (key,), "a tool config object"))
        elif key == "inferenceConfig":
            _inference(reading, mapping(value, (key,), "an inference config object"))
        elif key == "outputConfig" and isinstance(value, Mapping) and _schema_format(value.get("textFormat")):
            _output(reading, value)
        else:
            reading.keep((str(key),), value)


def _inference(reading: Reading, config: Mapping[str, Any]) -> None:
    path: Path = ("inferenceConfig",)
    if "maxTokens" in config:
        reading.max_tokens(config["maxTokens"], (*path, "maxTokens"))
    if "temperature" in config:
        reading.temperature(config["temperature"], (*path, "temperature"))
    reading.rest(config, path, ("maxTokens", "temperature"))


def _schema_format(format: Any) -> bool:
    return isinstance(format, Mapping) and format.get("type") == "json_schema"


def _output(reading: Reading, config: Mapping[str, Any]) -> None:
    """``outputConfig.textFormat``'s JSON schema (JSON text, under ``structure.jsonSchema``) as
    the output contract."""
    path: Path = ("outputConfig", "textFormat")
    format = config["textFormat"]
    structure = mapping(format.get("structure"), (*path, "structure"), "an object holding the jsonSchema")
    where = (*path, "structure", "jsonSchema")
    definition = mapping(structure.get("jsonSchema"), where, "an object holding the schema as JSON text")
    schema = json_object(text(definition.get("schema"), (*where, "schema")))
    if schema is None:
        raise FieldError((*where, "schema"), "must be a JSON Schema object written as JSON text")
    reading.schema_output(schema, where, definition.get("name"))
    reading.rest(definition, where, ("schema", "name"))
    reading.rest(structure, (*path, "structure"), ("jsonSchema",))
    reading.rest(format, path, ("type", "structure"))
    reading.rest(config, ("outputConfig",), ("textFormat",))


def _tools(reading: Reading, config: Mapping[str, Any]) -> None:
    """Each ``toolSpec`` as a tool; a ``cachePoint`` after the last is the tools' breakpoint. Any
    other entry (a cache point elsewhere, a system tool) is kept as it is, and so is ``toolChoice``."""
    path: Path = ("toolConfig", "tools")
    entries = listed(config.get("tools"), path, "tools")
    for index, entry in enumerate(entries):
        where = (*path, index)
        fields = mapping(entry, where, "a tool object")
        if "toolSpec" in fields:
            _tool_spec(reading, fields["toolSpec"], (*where, "toolSpec"))
            reading.rest(fields, where, ("toolSpec",))
        elif "cachePoint" in fields and index == len(entries) - 1 and index > 0 and "toolSpec" in entries[index - 1]:
            reading.cache["tools"] = _cache_point(reading, fields["cachePoint"], (*where, "cachePoint"))
            reading.rest(fields, where, ("cachePoint",))
        else:
            reading.keep(where, entry)
    reading.rest(config, ("toolConfig",), ("tools",))


def _tool_spec(reading: Reading, spec: Any, path: Path) -> None:
    fields = mapping(spec, path, "a tool spec object")
    schema = mapping(fields.get("inputSchema"), (*path, "inputSchema"), "an object holding the JSON schema")
    reading.tool(path, fields.get("name"), fields.get("description"), schema.get("json"))
    reading.rest(schema, (*path, "inputSchema"), ("json",))
    reading.rest(fields, path, ("name", "description", "inputSchema"))


def _cache_point(reading: Reading, point: Any, path: Path) -> CacheMark:
    """A ``cachePoint`` (``{"type": "default", "ttl": "1h"}``) as a breakpoint."""
    fields = mapping(point, path, 'a cache point object ({"type": "default"})')
    if fields.get("type") != "default":
        raise FieldError((*path, "type"), "must be 'default', the one kind of cache point")
    reading.rest(fields, path, ("type", "ttl"))
    return built(CacheMark, path, {"ttl": fields["ttl"]} if "ttl" in fields else {})


def _message(reading: Reading, message: Any, path: Path) -> None:
    fields = mapping(message, path, "a message object")
    role = fields.get("role")
    if role not in ROLES:
        raise FieldError((*path, "role"), "must be 'user' or 'assistant'")
    parts = _blocks(reading, fields.get("content"), (*path, "content"), "content blocks")
    reading.rest(fields, path, ("role", "content"))
    reading.turn(path, {"role": role, "content": _turn_content(parts)})


def _turn_content(parts: list[Any]) -> Any:
    """One plain text part as the turn's text (as the other readers give a lone text), else the parts."""
    if len(parts) == 1 and isinstance(parts[0], TextPart) and parts[0].cache is None:
        return parts[0].text
    return parts


def _blocks(reading: Reading, blocks: Any, path: Path, what: str) -> list[Any]:
    """The blocks as parts, a ``cachePoint`` as the breakpoint of the part before it; a block with
    no place (a cache point after a block kept as it is, after reasoning, or after another) is kept
    as it is."""
    parts: list[Any] = []
    last: Any = None  # the part the block before made, if any
    for number, block in enumerate(listed(blocks, path, what)):
        where = (*path, number)
        fields = mapping(block, where, "a content block object")
        if "cachePoint" in fields and last is not None and not isinstance(last, ReasoningPart) and last.cache is None:
            mark = _cache_point(reading, fields["cachePoint"], (*where, "cachePoint"))
            reading.rest(fields, where, ("cachePoint",))
            parts[-1] = last = last.model_copy(update={"cache": mark})
            continue
        last = _block(reading, fields, where)
        if last is not None:
            parts.append(last)
    return parts


def _block(reading: Reading, fields: Mapping[str, Any], path: Path, kinds: tuple[str, ...] = ()) -> Any:
    """One block as a part, or ``None`` when it has no place in a turn (kept as it is); ``kinds``
    limits the blocks read (a tool result holds media only)."""
    kind = next((key for key in kinds or _BLOCKS if key in fields), None)
    if kind is None:
        reading.keep(path, dict(fields))  # guardContent, video, citationsContent, a cache point marking nothing...
        return None
    part = _BLOCKS[kind](reading, fields[kind], (*path, kind))
    if part is None:
        reading.keep(path, dict(fields))
        return None
    reading.rest(fields, path, (kind,))
    return part


def _text(reading: Reading, value: Any, path: Path) -> Any:
    return TextPart(text=text(value, path))


def _bytes(reading: Reading, fields: Mapping[str, Any], path: Path) -> str | None:
    """The base64 text of a ``source`` holding ``bytes``; ``None`` for another source (kept)."""
    source = mapping(fields.get("source"), (*path, "source"), "an object with the source")
    if "bytes" not in source:
        return None
    reading.rest(source, (*path, "source"), ("bytes",))
    return text(source["bytes"], (*path, "source", "bytes"))


def _format(fields: Mapping[str, Any], path: Path, known: Mapping[str, str]) -> str:
    format = text(fields.get("format"), (*path, "format"))
    if format not in known:
        raise FieldError((*path, "format"), f"must be one of {', '.join(sorted(known))}")
    return format


def _image(reading: Reading, value: Any, path: Path) -> Any:
    """Bytes with the media type the format names, or an S3 URI (its format as the adapter gives it back)."""
    fields = mapping(value, path, "an image object")
    format = _format(fields, path, IMAGE_TYPES)
    source = mapping(fields.get("source"), (*path, "source"), "an object with the source")
    location = source.get("s3Location")
    if isinstance(location, Mapping) and set(source) == {"s3Location"}:
        uri = text(location.get("uri"), (*path, "source", "s3Location", "uri"))
        extension = uri.rsplit(".", 1)[-1].lower()
        if uri.startswith("s3://") and {"jpg": "jpeg"}.get(extension, extension) == format:
            reading.rest(location, (*path, "source", "s3Location"), ("uri",))
            reading.rest(fields, path, ("format", "source"))
            return built(ImagePart, path, {"url": uri})
        return None
    data = _bytes(reading, fields, path)
    if data is None:
        return None
    reading.rest(fields, path, ("format", "source"))
    return built(ImagePart, path, {"data": data, "media_type": IMAGE_TYPES[format]})


def _document(reading: Reading, value: Any, path: Path) -> Any:
    fields = mapping(value, path, "a document object")
    format = _format(fields, path, DOCUMENT_TYPES)
    name = text(fields.get("name"), (*path, "name"))
    data = _bytes(reading, fields, path)
    if data is None:  # text, content blocks or S3 as the source
        return None
    reading.rest(fields, path, ("format", "name", "source"))
    return built(FilePart, path, {"data": data, "media_type": DOCUMENT_TYPES[format], "filename": name})


def _audio(reading: Reading, value: Any, path: Path) -> Any:
    fields = mapping(value, path, "an audio object")
    format = text(fields.get("format"), (*path, "format"))
    data = _bytes(reading, fields, path)
    if data is None:
        return None
    reading.rest(fields, path, ("format", "source"))
    return built(AudioPart, path, {"data": data, "format": format})


def _tool_use(reading: Reading, value: Any, path: Path) -> Any:
    fields = mapping(value, path, "a toolUse object")
    arguments = mapping(fields.get("input"), (*path, "input"), "the call's arguments object")
    reading.rest(fields, path, ("toolUseId", "name", "input"))
    return built(
        ToolCallPart,
        path,
        {
            "id": text(fields.get("toolUseId"), (*path, "toolUseId")),
            "name": text(fields.get("name"), (*path, "name")),
            "arguments": dict(arguments),
        },
    )


def _tool_result(reading: Reading, value: Any, path: Path) -> Any:
    """A tool result: one text block as its text, else its blocks (a ``json`` block as its JSON
    text, and kept as it is too); ``status: "error"`` a failure's."""
    fields = mapping(value, path, "a toolResult object")
    result: dict[str, Any] = {"call_id": text(fields.get("toolUseId"), (*path, "toolUseId"))}
    where = (*path, "content")
    parts = []
    for number, block in enumerate(listed(fields.get("content"), where, "tool result blocks")):
        inner = mapping(block, (*where, number), "a tool result block object")
        if "json" in inner and len(inner) == 1:
            reading.keep((*where, number), dict(inner))
            parts.append(TextPart(text=json_text(inner["json"], (*where, number, "json"))))
            continue
        part = _block(reading, inner, (*where, number), ("text", "image", "document"))
        if part is not None:
            parts.append(part)
    result["content"] = parts[0].text if len(parts) == 1 and isinstance(parts[0], TextPart) else parts
    status = fields.get("status", "success")
    if status not in ("success", "error"):
        raise FieldError((*path, "status"), "must be 'success' or 'error'")
    result["is_error"] = status == "error"
    reading.rest(fields, path, ("toolUseId", "content", "status"))
    return built(ToolResultPart, path, result)


def _reasoning(reading: Reading, value: Any, path: Path) -> Any:
    """``reasoningText`` (its text and signature) or ``redactedContent`` (base64), Bedrock's own."""
    fields = mapping(value, path, "a reasoningContent object")
    if "redactedContent" in fields:
        encrypted = text(fields["redactedContent"], (*path, "redactedContent"))
        reading.rest(fields, path, ("redactedContent",))
        return ReasoningPart(encrypted=encrypted, redacted=True, provider=PROVIDER)
    where = (*path, "reasoningText")
    said = mapping(fields.get("reasoningText"), where, "an object with the reasoning's text")
    part: dict[str, Any] = {"text": text(said.get("text"), (*where, "text")), "provider": PROVIDER}
    if said.get("signature") is not None:
        part["signature"] = text(said["signature"], (*where, "signature"))
    reading.rest(said, where, ("text", "signature"))
    reading.rest(fields, path, ("reasoningText",))
    return ReasoningPart(**part)


_BLOCKS = {
    "text": _text,
    "image": _image,
    "document": _document,
    "audio": _audio,
    "toolUse": _tool_use,
    "toolResult": _tool_result,
    "reasoningContent": _reasoning,
}


reader = BedrockReader()
