"""``--from ollama``: an Ollama ``/api/chat`` request body, or a bare list of its messages.

Every message becomes a turn: an assistant's ``thinking`` as reasoning of provider ``ollama``,
then its text, its ``images`` (base64, each an inline image part), its ``tool_calls`` (arguments
as the object Ollama sends); a ``tool`` message as a tool turn holding one result, named by
``tool_name``. Ollama ties a result to its call by the tool's name, not by an id: the result
takes the id of the call it answers (the first call of that name, in the assistant turn before
it, not answered yet), and a call without an id gets ``call_<index>``, its place among its
message's calls: the id the Ollama adapter gives the calls of Ollama's replies, which it leaves out
again without a note when it writes them back. So the pair stays a pair for any provider; a result
that answers no call is named by its tool. The body's ``tools`` are the prompt's tools, ``options.temperature`` and
``options.num_predict`` its config, ``think`` its think setting, a JSON-schema ``format`` its
output contract. Everything else (the model, ``stream``, ``keep_alive``, the other options...) is
kept under ``native["ollama"]`` by its path (see :mod:`.common`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from ...core.errors import FieldError
from ...core.prompt import ImagePart, Prompt, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from .common import Path, Reading, body_and_items, built, json_object, listed, mapping, text

__all__ = ["OllamaReader", "reader"]

PROVIDER = "ollama"
"""The adapter that may take back the reasoning read here."""

EFFORTS = ("low", "medium", "high")
"""The ``think`` levels a prompt's think setting holds (besides true and false)."""

_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"))
"""Image kinds told by their first bytes (WebP below): Ollama sends no media type, another
provider needs one."""


class OllamaReader:
    name = "ollama"
    description = "an Ollama chat request body, or a list of its messages"
    model_field = "model"
    """The body's field naming its model, kept in ``native``: a run asks for that model (see
    ``promptwire.runs.inputs.body_model``)."""

    def read(self, data: Any) -> Prompt:
        body, messages, path = body_and_items(data, "messages", "chat messages")
        reading = Reading(self.name)
        calls = _Calls()
        for index, message in enumerate(listed(messages, path, "chat messages")):
            _message(reading, calls, message, (*path, index))
        _body(reading, body)
        return reading.prompt()


def _body(reading: Reading, body: Mapping[str, Any]) -> None:
    for key, value in body.items():
        if key == "messages":
            continue
        if key == "tools":
            _tools(reading, value)
        elif key == "think" and (isinstance(value, bool) or (isinstance(value, str) and value in EFFORTS)):
            reading.think(value)
        elif key == "format" and isinstance(value, Mapping):
            reading.schema_output(value, ())
        elif key == "options" and isinstance(value, Mapping):
            _options(reading, value)
        else:
            reading.keep((str(key),), value)


def _options(reading: Reading, options: Mapping[str, Any]) -> None:
    for key, value in options.items():
        if key == "num_predict" and type(value) is int and value > 0:  # -1 and -2 mean "no limit", "fill the context"
            reading.max_tokens(value, ("options", key))
        elif key == "temperature":
            reading.temperature(value, ("options", key))
        else:
            reading.keep(("options", str(key)), value)


def _tools(reading: Reading, tools: Any) -> None:
    for index, tool in enumerate(listed(tools, ("tools",), "tools")):
        path: Path = ("tools", index)
        entry = mapping(tool, path, "a tool object")
        if entry.get("type", "function") != "function":
            reading.keep(path, tool)
            continue
        function = mapping(entry.get("function"), (*path, "function"), "an object with the function's name")
        reading.tool(path, function.get("name"), function.get("description"), function.get("parameters"))
        reading.rest(entry, path, ("type", "function"))
        reading.rest(function, (*path, "function"), ("name", "description", "parameters"))


class _Calls:
    """The calls of the last assistant turn not answered yet, by name, for the results after it."""

    def __init__(self) -> None:
        self.open: list[ToolCallPart] = []

    def answer(self, name: str | None) -> str | None:
        """The id of the first open call of ``name`` (of any name when the result names none)."""
        for call in self.open:
            if name is None or call.name == name:
                self.open.remove(call)
                return call.id
        return None


def _message(reading: Reading, calls: _Calls, message: Any, path: Path) -> None:
    fields = mapping(message, path, "a chat message object")
    role = text(fields.get("role"), (*path, "role"))
    content = fields.get("content", "")
    said = text(content, (*path, "content")) if content is not None else ""
    images = [_image(image, (*path, "images", number)) for number, image in enumerate(_listed_images(fields, path))]
    known = ["role", "content", "images"]
    turn: dict[str, Any] = {"role": role}
    if role == "tool":
        known += ["tool_name", "tool_call_id"]
        name = text(fields["tool_name"], (*path, "tool_name")) if fields.get("tool_name") is not None else None
        given = fields.get("tool_call_id")
        call_id = text(given, (*path, "tool_call_id")) if given is not None else calls.answer(name)
        result: dict[str, Any] = {"call_id": call_id if call_id is not None else name or "", "content": said}
        if images:
            result["content"] = [TextPart(text=said), *images] if said else images
        if name is not None:
            result["name"] = name
        turn["content"] = [built(ToolResultPart, path, result)]
    elif "thinking" in fields or "tool_calls" in fields:
        known += ["thinking", "tool_calls"]
        parts: list[Any] = []
        if fields.get("thinking") is not None:
            parts.append(ReasoningPart(text=text(fields["thinking"], (*path, "thinking")), provider=PROVIDER))
        if said:
            parts.append(TextPart(text=said))
        parts.extend(images)
        made = _tool_calls(reading, fields.get("tool_calls"), path)
        calls.open = list(made)
        parts.extend(made)
        turn["content"] = parts
    else:
        turn["content"] = [TextPart(text=said), *images] if images and said else images or said
    reading.rest(fields, path, known)
    reading.turn(path, turn)


def _listed_images(fields: Mapping[str, Any], path: Path) -> list[Any]:
    images = fields.get("images")
    return [] if images is None else listed(images, (*path, "images"), "base64 images")


def _image(image: Any, path: Path) -> ImagePart:
    data = text(image, path)
    return built(ImagePart, path, {"data": data, "media_type": _media_type(data)})


def _media_type(data: str) -> str | None:
    """The image kind its first bytes tell, or ``None``."""
    try:
        head = base64.b64decode(data[:16] + "=" * (-len(data[:16]) % 4), validate=False)
    except (binascii.Error, ValueError):
        return None
    for magic, media_type in _MAGIC:
        if head.startswith(magic):
            return media_type
    return "image/webp" if head[:4] == b"RIFF" and head[8:12] == b"WEBP" else None


def _tool_calls(reading: Reading, calls: Any, path: Path) -> list[ToolCallPart]:
    if calls is None:
        return []
    made = []
    for number, call in enumerate(listed(calls, (*path, "tool_calls"), "tool calls")):
        where = (*path, "tool_calls", number)
        entry = mapping(call, where, "a tool call object")
        function = mapping(
            entry.get("function"), (*where, "function"), "an object with the function's name and arguments"
        )
        name = text(function.get("name"), (*where, "function", "name"))
        fields: dict[str, Any] = {"name": name}
        given = entry.get("id")
        fields["id"] = text(given, (*where, "id")) if given is not None else f"call_{number}"
        arguments = function.get("arguments", {})
        if isinstance(arguments, str):
            fields["arguments_text"] = arguments
            fields["arguments"] = json_object(arguments)
        elif isinstance(arguments, Mapping):
            fields["arguments"] = dict(arguments)
        else:
            raise FieldError((*where, "function", "arguments"), "must be the arguments' object")
        reading.rest(entry, where, ("id", "type", "function"))
        reading.rest(function, (*where, "function"), ("name", "arguments"))
        made.append(built(ToolCallPart, where, fields))
    return made


reader = OllamaReader()
