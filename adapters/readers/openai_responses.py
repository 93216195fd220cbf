"""``--from openai-responses``: an OpenAI Responses request body, or a bare list of its input items.

The body's ``instructions`` are the conversation's leading turn of role ``system``; a text
``input`` is one user turn. Input items become turns as a reply's output items make one: the
assistant's items in a row (``reasoning``, its ``message``, ``function_call``) are one assistant
turn with their parts in order, the ``function_call_output`` items in a row one tool turn, each
user, system or developer message a turn of its own. A reasoning item keeps its ``id``, summary,
text and ``encrypted_content`` (provider ``openai-responses``); a function call its ``call_id``,
name and the arguments' JSON text as sent. The body's function ``tools`` are the prompt's tools,
``temperature``, ``max_output_tokens`` and ``reasoning.effort`` its config, a JSON-schema
``text.format`` its output contract, ``prompt_cache_key`` / ``prompt_cache_retention`` its cache
settings. Everything else (the model, ``store``, ``include``, an item's ``id`` and ``status``, an
item of a kind no turn holds...) is kept under ``native["openai-responses"]`` by its path (see
:mod:`.common`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.errors import FieldError
from ...core.prompt import AudioPart, FilePart, ImagePart, Prompt, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from .common import Path, Reading, built, data_url_part, json_object, listed, mapping, text

__all__ = ["OpenAIResponsesReader", "reader"]

PROVIDER = "openai-responses"
"""The adapter that may take back the reasoning read here."""

EFFORTS = ("low", "medium", "high")
"""The ``reasoning.effort`` values a prompt's ``think`` setting holds."""


class OpenAIResponsesReader:
    name = "openai-responses"
    description = "an OpenAI Responses request body, or a list of its input items"
    model_field = "model"
    """The body's field naming its model, kept in ``native``: a run asks for that model (see
    ``promptwire.runs.inputs.body_model``)."""

    def read(self, data: Any) -> Prompt:
        reading = Reading(self.name)
        turns = _Turns(reading)
        if isinstance(data, list):
            _items(turns, data, ())
        elif isinstance(data, Mapping):
            _body(reading, turns, data)
        else:
            kind = "the document is empty" if data is None else f"not {type(data).__name__}"
            raise FieldError(
                "<root>", f"must be a request body (an object with 'input') or a list of input items; {kind}"
            )
        turns.close()
        return reading.prompt()


class _Turns:
    """The turns being made: items in a row that make one turn gather into it."""

    def __init__(self, reading: Reading) -> None:
        self.reading = reading
        self.role: str | None = None
        self.parts: list[Any] = []
        self.path: Path = ()
        self.plain: str | None = None
        """The text of a turn that is one message given as a string, so far: it stays a string."""

    def add(self, role: str, parts: list[Any], path: Path, *, joins: bool, plain: str | None = None) -> None:
        """``parts`` for a turn of ``role``: joined to the turn being made when it is of that role
        and ``joins`` (an assistant's or a tool's items in a row), else a turn of their own.
        ``plain`` is the text of a message given as a string (its one part)."""
        if not (joins and role == self.role):
            self.close()
            self.role, self.path = role, path
            self.plain = plain
        else:
            self.plain = None
        self.parts.extend(parts)

    def close(self) -> None:
        if self.role is not None:
            content = self.plain if self.plain is not None else self.parts
            self.reading.turn(self.path, {"role": self.role, "content": content})
        self.role, self.parts, self.plain = None, [], None


def _body(reading: Reading, turns: _Turns, body: Mapping[str, Any]) -> None:
    if "instructions" in body and body["instructions"] is not None:
        reading.turn(("instructions",), {"role": "system", "content": text(body["instructions"], ("instructions",))})
    given = body.get("input")
    if isinstance(given, str):
        reading.turn(("input",), {"role": "user", "content": given})
    elif given is not None:
        _items(turns, listed(given, ("input",), "input items"), ("input",))
    for key, value in body.items():
        if key in ("input", "instructions") and value is not None:
            continue
        if key == "tools":
            _tools(reading, value)
        elif key == "temperature":
            reading.temperature(value, (key,))
        elif key == "max_output_tokens":
            reading.max_tokens(value, (key,))
        elif key == "reasoning" and isinstance(value, Mapping) and value.get("effort") in EFFORTS:
            reading.think(value["effort"])
            reading.rest(value, (key,), ("effort",))
        elif key == "text" and isinstance(value, Mapping) and _schema_format(value.get("format")):
            format = value["format"]
            reading.schema_output(format.get("schema"), (key, "format"), format.get("name"), format.get("strict"))
            reading.rest(format, (key, "format"), ("type", "schema", "name", "strict"))
            reading.rest(value, (key,), ("format",))
        elif key == "prompt_cache_key":
            reading.cache["key"] = text(value, (key,))
        elif key == "prompt_cache_retention":
            reading.cache_retention(value, (key,))
        else:
            reading.keep((str(key),), value)


def _schema_format(format: Any) -> bool:
    return isinstance(format, Mapping) and format.get("type") == "json_schema"


def _tools(reading: Reading, tools: Any) -> None:
    for index, tool in enumerate(listed(tools, ("tools",), "tools")):
        path: Path = ("tools", index)
        entry = mapping(tool, path, "a tool object")
        if entry.get("type") != "function":
            reading.keep(path, tool)  # a built-in tool (web search, file search...) or a custom one
            continue
        reading.tool(path, entry.get("name"), entry.get("description"), entry.get("parameters"))
        reading.rest(entry, path, ("type", "name", "description", "parameters"))


def _items(turns: _Turns, items: list[Any], path: Path) -> None:
    for index, item in enumerate(items):
        where = (*path, index)
        fields = mapping(item, where, "an input item object")
        kind = fields.get("type", "message")
        read = _ITEMS.get(kind) if isinstance(kind, str) else None
        if read is None:
            turns.reading.keep(where, item)  # a built-in tool's call, an item reference...
            continue
        read(turns, fields, where)


def _message(turns: _Turns, fields: Mapping[str, Any], path: Path) -> None:
    reading = turns.reading
    role = text(fields.get("role"), (*path, "role"))
    content = fields.get("content")
    item_id = _item_id(fields, path) if role == "assistant" else None
    reading.rest(
        fields, path, ("type", "role", "content") if item_id is None else ("type", "role", "content", "id", "status")
    )
    if isinstance(content, str):
        if role != "assistant":
            turns.close()
            reading.turn(path, {"role": role, "content": content})
            return
        parts: list[Any] = [TextPart(text=content, item_id=item_id)]
        plain = content if item_id is None else None  # an output message item's text is a list
    else:
        parts, plain = _parts(reading, content, (*path, "content")), None
        if item_id is not None:
            for part in parts:
                if isinstance(part, TextPart):
                    part.item_id = item_id
    turns.add(role, parts, path, joins=role == "assistant", plain=plain)


def _item_id(fields: Mapping[str, Any], path: Path) -> str | None:
    """The id of an earlier reply's output item given back (``msg_...``, ``fc_...``), when its
    status is the one the writer sends with it (``completed``); any other is kept in ``native``."""
    if fields.get("id") is None or fields.get("status", "completed") != "completed":
        return None
    return text(fields["id"], (*path, "id"))


def _reasoning(turns: _Turns, fields: Mapping[str, Any], path: Path) -> None:
    reading = turns.reading
    part: dict[str, Any] = {"provider": PROVIDER}
    if fields.get("id") is not None:
        part["id"] = text(fields["id"], (*path, "id"))
    summary = fields.get("summary")
    if summary is not None:
        part["summary"] = [
            _typed_text(entry, (*path, "summary", number), "summary_text")
            for number, entry in enumerate(listed(summary, (*path, "summary"), "summary texts"))
        ]
    content = fields.get("content")
    known = ["type", "id", "summary", "encrypted_content"]
    if isinstance(content, list) and len(content) == 1:
        part["text"] = _typed_text(content[0], (*path, "content", 0), "reasoning_text")
        known.append("content")
    if fields.get("encrypted_content") is not None:
        part["encrypted"] = text(fields["encrypted_content"], (*path, "encrypted_content"))
    reading.rest(fields, path, known)
    turns.add("assistant", [built(ReasoningPart, path, part)], path, joins=True)


def _typed_text(entry: Any, path: Path, kind: str) -> str:
    """The text of a ``{"type": kind, "text": ...}`` entry (a summary's, a reasoning text's)."""
    fields = mapping(entry, path, f"a {kind} object")
    if fields.get("type") != kind or set(fields) != {"type", "text"}:
        raise FieldError(path, f'must be {{"type": "{kind}", "text": ...}}')
    return text(fields["text"], (*path, "text"))


def _function_call(turns: _Turns, fields: Mapping[str, Any], path: Path) -> None:
    arguments = text(fields.get("arguments"), (*path, "arguments"))
    call = {
        "id": text(fields.get("call_id"), (*path, "call_id")),
        "name": text(fields.get("name"), (*path, "name")),
        "arguments": json_object(arguments),
        "arguments_text": arguments,
    }
    item_id = _item_id(fields, path)
    if item_id is not None:
        call["item_id"] = item_id
    known = ("type", "call_id", "name", "arguments")
    turns.reading.rest(fields, path, known if item_id is None else (*known, "id", "status"))
    turns.add("assistant", [built(ToolCallPart, path, call)], path, joins=True)


def _function_call_output(turns: _Turns, fields: Mapping[str, Any], path: Path) -> None:
    output = fields.get("output")
    content = output if isinstance(output, str) else _parts(turns.reading, output, (*path, "output"))
    result = {"call_id": text(fields.get("call_id"), (*path, "call_id")), "content": content}
    turns.reading.rest(fields, path, ("type", "call_id", "output"))
    turns.add("tool", [built(ToolResultPart, path, result)], path, joins=True)


_ITEMS = {
    "message": _message,
    "reasoning": _reasoning,
    "function_call": _function_call,
    "function_call_output": _function_call_output,
}


def _parts(reading: Reading, content: Any, path: Path) -> list[Any]:
    """A message's (or a function's output's) content parts; a part of a kind no turn holds (a
    refusal, a file named by its upload id) is kept as it is."""
    parts = []
    for number, part in enumerate(listed(content, path, "content parts")):
        read = _part(reading, part, (*path, number))
        if read is not None:
            parts.append(read)
    return parts


def _part(reading: Reading, part: Any, path: Path) -> Any:
    fields = mapping(part, path, "a content part object")
    kind = fields.get("type")
    if kind in ("input_text", "output_text"):
        reading.rest(fields, path, ("type", "text"))
        return TextPart(text=text(fields.get("text"), (*path, "text")))
    if kind == "input_image" and fields.get("image_url") is not None:
        detail = {"detail": fields["detail"]} if fields.get("detail") is not None else {}
        reading.rest(fields, path, ("type", "image_url", "detail"))
        return data_url_part(text(fields["image_url"], (*path, "image_url")), path, ImagePart, detail)
    if kind == "input_file" and (fields.get("file_data") is not None or fields.get("file_url") is not None):
        return _file(reading, fields, path)
    if kind == "input_audio":
        audio = mapping(fields.get("input_audio"), (*path, "input_audio"), "an object with the audio's data and format")
        reading.rest(fields, path, ("type", "input_audio"))
        reading.rest(audio, (*path, "input_audio"), ("data", "format"))
        where = (*path, "input_audio")
        data, format = text(audio.get("data"), (*where, "data")), text(audio.get("format"), (*where, "format"))
        return built(AudioPart, where, {"data": data, "format": format})
    reading.keep(path, part)
    return None


def _file(reading: Reading, fields: Mapping[str, Any], path: Path) -> Any:
    extra = {"filename": text(fields["filename"], (*path, "filename"))} if fields.get("filename") is not None else {}
    reading.rest(fields, path, ("type", "file_data", "file_url", "filename"))
    if fields.get("file_data") is None:
        return built(FilePart, path, {"url": text(fields["file_url"], (*path, "file_url")), **extra})
    if fields.get("file_url") is not None:
        raise FieldError(path, "give one of 'file_data' or 'file_url'")
    data = text(fields["file_data"], (*path, "file_data"))
    if not data.startswith("data:"):  # bare base64
        return built(FilePart, path, {"data": data, **extra})
    return data_url_part(data, path, FilePart, extra)


reader = OpenAIResponsesReader()
