"""``--from openai-chat``: an OpenAI Chat Completions request body, or a bare list of its messages.

Every message becomes a turn with every part: text, images (by URL, or a base64 ``data:`` URL as
inline data), audio, files; an assistant's ``reasoning_content`` (what compatible servers return
as the model's reasoning) as a reasoning part of provider ``openai``, then its content, then its
``tool_calls`` with the arguments' JSON text kept as sent; a ``tool`` message as a tool turn
holding one result. The body's ``tools`` are the prompt's tools, ``temperature``, ``max_tokens`` /
``max_completion_tokens`` and ``reasoning_effort`` its config, a ``json_schema`` response format
its output contract, ``prompt_cache_key`` / ``prompt_cache_retention`` its cache settings.
Everything else (the model, ``stream``, ``tool_choice``, a ``refusal``...) is kept under
``native["openai-chat"]`` by its path (see :mod:`.common`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.errors import FieldError
from ...core.prompt import AudioPart, FilePart, ImagePart, Prompt, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from .common import Path, Reading, body_and_items, built, data_url_part, json_object, listed, mapping, text

__all__ = ["OpenAIChatReader", "reader"]

PROVIDER = "openai"
"""The adapter that may take back the reasoning read here."""

EFFORTS = ("low", "medium", "high")
"""The ``reasoning_effort`` values a prompt's ``think`` setting holds."""


class OpenAIChatReader:
    name = "openai-chat"
    description = "an OpenAI Chat Completions request body, or a list of its messages"
    model_field = "model"
    """The body's field naming its model, kept in ``native``: a run asks for that model (see
    ``promptwire.runs.inputs.body_model``)."""

    def read(self, data: Any) -> Prompt:
        body, messages, path = body_and_items(data, "messages", "chat messages")
        reading = Reading(self.name)
        for index, message in enumerate(listed(messages, path, "chat messages")):
            _message(reading, message, (*path, index))
        _body(reading, body)
        return reading.prompt()


def _body(reading: Reading, body: Mapping[str, Any]) -> None:
    """The body's fields besides its messages."""
    for key, value in body.items():
        if key == "messages":
            continue
        if key == "tools":
            _tools(reading, value)
        elif key == "temperature":
            reading.temperature(value, (key,))
        elif key in ("max_tokens", "max_completion_tokens"):
            reading.max_tokens(value, (key,))
        elif key == "reasoning_effort" and value in EFFORTS:
            reading.think(value)
        elif key == "response_format" and isinstance(value, Mapping) and value.get("type") == "json_schema":
            _response_format(reading, value)
        elif key == "prompt_cache_key":
            reading.cache["key"] = text(value, (key,))
        elif key == "prompt_cache_retention":
            reading.cache_retention(value, (key,))
        else:
            reading.keep((str(key),), value)


def _response_format(reading: Reading, value: Mapping[str, Any]) -> None:
    path: Path = ("response_format", "json_schema")
    schema = mapping(value.get("json_schema"), path, "an object with the schema's name and schema")
    reading.schema_output(schema.get("schema"), path, schema.get("name"), schema.get("strict"))
    reading.rest(value, ("response_format",), ("type", "json_schema"))
    reading.rest(schema, path, ("name", "schema", "strict"))


def _tools(reading: Reading, tools: Any) -> None:
    for index, tool in enumerate(listed(tools, ("tools",), "tools")):
        path: Path = ("tools", index)
        entry = mapping(tool, path, "a tool object")
        if entry.get("type") != "function":
            reading.keep(path, tool)  # a custom tool has no place in the prompt's tools
            continue
        function = mapping(entry.get("function"), (*path, "function"), "an object with the function's name")
        reading.tool(path, function.get("name"), function.get("description"), function.get("parameters"))
        reading.rest(entry, path, ("type", "function"))
        reading.rest(function, (*path, "function"), ("name", "description", "parameters"))


def _message(reading: Reading, message: Any, path: Path) -> None:
    fields = mapping(message, path, "a chat message object")
    role = text(fields.get("role"), (*path, "role"))
    known = ["role", "content", "name"]
    turn: dict[str, Any] = {"role": role}
    if fields.get("name") is not None:
        turn["name"] = text(fields["name"], (*path, "name"))
    content = fields.get("content")
    if role == "tool":
        known.append("tool_call_id")
        call_id = text(fields.get("tool_call_id"), (*path, "tool_call_id"))
        result = _content(reading, content, (*path, "content"), allow_none=False)
        turn["content"] = [built(ToolResultPart, path, {"call_id": call_id, "content": result})]
    elif role == "assistant" and ("tool_calls" in fields or "reasoning_content" in fields):
        known += ["tool_calls", "reasoning_content"]
        turn["content"] = _assistant_parts(reading, fields, path)
    else:
        turn["content"] = _content(reading, content, (*path, "content"), allow_none=role == "assistant")
    reading.rest(fields, path, known)
    reading.turn(path, turn)


def _assistant_parts(reading: Reading, fields: Mapping[str, Any], path: Path) -> list[Any]:
    """An assistant message's reasoning, content and tool calls, in that order, as parts."""
    parts: list[Any] = []
    reasoning = fields.get("reasoning_content")
    if reasoning is not None:
        thought = text(reasoning, (*path, "reasoning_content"))
        parts.append(ReasoningPart(text=thought, provider=PROVIDER))
    content = _content(reading, fields.get("content"), (*path, "content"), allow_none=True)
    if isinstance(content, str):
        if content:
            parts.append(TextPart(text=content))
    else:
        parts.extend(content)
    calls = fields.get("tool_calls")
    for number, call in enumerate(listed(calls, (*path, "tool_calls"), "tool calls") if calls is not None else ()):
        part = _tool_call(reading, call, (*path, "tool_calls", number))
        if part is not None:
            parts.append(part)
    return parts


def _tool_call(reading: Reading, call: Any, path: Path) -> ToolCallPart | None:
    """One ``{"id", "type": "function", "function": {"name", "arguments"}}``; a call of another
    type (a custom tool's) has no place in a turn and is kept as it is."""
    entry = mapping(call, path, "a tool call object")
    if entry.get("type", "function") != "function":
        reading.keep(path, call)
        return None
    function = mapping(entry.get("function"), (*path, "function"), "an object with the function's name and arguments")
    fields: dict[str, Any] = {"name": text(function.get("name"), (*path, "function", "name"))}
    if entry.get("id") is not None:
        fields["id"] = text(entry["id"], (*path, "id"))
    arguments = function.get("arguments")
    where = (*path, "function", "arguments")
    if isinstance(arguments, str):
        fields["arguments_text"] = arguments
        fields["arguments"] = json_object(arguments)
    elif isinstance(arguments, Mapping):  # compatible servers that send the object itself
        fields["arguments"] = dict(arguments)
    else:
        raise FieldError(where, "must be the arguments' JSON text")
    reading.rest(entry, path, ("id", "type", "function"))
    reading.rest(function, (*path, "function"), ("name", "arguments"))
    return built(ToolCallPart, where[:-1], fields)


def _content(reading: Reading, content: Any, path: Path, *, allow_none: bool) -> Any:
    """A message's content: its text, or its parts (text, image_url, input_audio, file); a part of
    another kind (a ``refusal``) is kept as it is, in ``native``."""
    if isinstance(content, str):
        return content
    if content is None and allow_none:
        return ""
    parts = []
    for number, part in enumerate(listed(content, path, "content parts")):
        read = _part(reading, part, (*path, number))
        if read is not None:
            parts.append(read)
    return parts


def _part(reading: Reading, part: Any, path: Path) -> Any:
    fields = mapping(part, path, "a content part object")
    kind = fields.get("type")
    if kind == "text":
        reading.rest(fields, path, ("type", "text"))
        return TextPart(text=text(fields.get("text"), (*path, "text")))
    if kind == "image_url":
        image = fields.get("image_url")
        reading.rest(fields, path, ("type", "image_url"))
        if isinstance(image, str):  # the short form some clients send
            return data_url_part(image, (*path, "image_url"), ImagePart, {})
        image = mapping(image, (*path, "image_url"), "an object with the image's url")
        detail = {"detail": image["detail"]} if image.get("detail") is not None else {}
        reading.rest(image, (*path, "image_url"), ("url", "detail"))
        return data_url_part(
            text(image.get("url"), (*path, "image_url", "url")), (*path, "image_url"), ImagePart, detail
        )
    if kind == "input_audio":
        audio = mapping(fields.get("input_audio"), (*path, "input_audio"), "an object with the audio's data and format")
        reading.rest(fields, path, ("type", "input_audio"))
        reading.rest(audio, (*path, "input_audio"), ("data", "format"))
        where = (*path, "input_audio")
        return built(
            AudioPart,
            where,
            {
                "data": text(audio.get("data"), (*where, "data")),
                "format": text(audio.get("format"), (*where, "format")),
            },
        )
    if kind == "file":
        return _file(reading, fields, path)
    reading.keep(path, part)  # a refusal, or a kind the prompt model has no part for
    return None


def _file(reading: Reading, fields: Mapping[str, Any], path: Path) -> Any:
    """A file part with inline data; one named by ``file_id`` (an upload the model cannot hold) is
    kept as it is."""
    where = (*path, "file")
    file = mapping(fields.get("file"), where, "an object with the file's data")
    if "file_data" not in file:
        reading.keep(path, dict(fields))
        return None
    reading.rest(fields, path, ("type", "file"))
    reading.rest(file, where, ("file_data", "filename"))
    extra = {"filename": text(file["filename"], (*where, "filename"))} if file.get("filename") is not None else {}
    data = text(file["file_data"], (*where, "file_data"))
    if not data.startswith("data:"):  # bare base64, as some clients send it
        return built(FilePart, where, {"data": data, **extra})
    return data_url_part(data, where, FilePart, extra)


reader = OpenAIChatReader()
