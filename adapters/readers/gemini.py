"""``--from gemini``: a Gemini ``generateContent`` request body (the REST API's JSON, camelCase,
``v1beta``), or a bare list of its ``contents``.

The inverse of what the ``gemini`` adapter writes (:mod:`promptwire.adapters.gemini_turns`). The
``systemInstruction``'s text parts are the conversation's leading turn of role ``system``; each
content a turn (``user`` as ``user``, ``model`` as ``assistant``) with every part: ``text``,
``inlineData`` (an image, audio or a file, by its MIME type), ``fileData`` (an image or a file by
its URI; an image's MIME type that the URI's name does not tell is kept, the adapter writing the
one the name tells), ``functionCall`` as a tool call (its ``args`` the arguments), ``functionResponse`` as a tool
result (``{"result": TEXT}`` as its text, ``{"error": TEXT}`` as a failure's, its ``parts`` as its
media). A thought part (``"thought": true``) is reasoning of provider ``gemini`` with its
``thoughtSignature``; a signature Gemini put on another part is a reasoning part with that
signature and no text, right before the part (as :func:`~promptwire.adapters.gemini_turns.reply_turn`
reads a reply). Gemini pairs a response with its call by name and order, and its ids are optional:
a call without one gets ``call_<n>`` (its place among its turn's calls, the id the adapter gives a
reply's calls and leaves out again), and a response without one takes the id of the first call of
its name in the model turn before it not answered yet (its name when none is).

``tools[].functionDeclarations`` are the prompt's tools (``parametersJsonSchema``, or the older
``parameters`` schema with its type names in JSON Schema's lower case; ``responseJsonSchema`` or
``response`` as what a tool returns); ``generationConfig``'s ``maxOutputTokens``, ``temperature``
and ``thinkingConfig`` (thoughts included, at a ``thinkingLevel``) its config, and a JSON
``responseJsonSchema`` (or ``responseSchema``) its output contract. Everything else (a ``model``
named in the body, ``safetySettings``, ``toolConfig``, a response that is neither form above, a
part of a kind no turn holds...) is kept under ``native["gemini"]`` by its path (see
:mod:`.common`); a response object of another shape is also the result's text, as JSON.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping
from typing import Any

from ...core.errors import FieldError
from ...core.nesting import check_nesting, with_nesting_room
from ...core.prompt import (
    AudioPart,
    FilePart,
    ImagePart,
    Prompt,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from .common import Path, Reading, body_and_items, built, json_text, listed, mapping, text

__all__ = ["GeminiReader", "reader"]

PROVIDER = "gemini"
"""The adapter that may take back the reasoning read here."""

ROLES = {"user": "user", "model": "assistant"}
"""Gemini's roles and the turn each is (a content without one is the user's, as Gemini takes it)."""

LEVELS = {"LOW": "low", "MEDIUM": "medium", "HIGH": "high"}
"""``thinkingConfig.thinkingLevel`` values and the prompt's think setting each is."""

SCHEMA_TYPES = frozenset({"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"})
"""The type names of Gemini's ``Schema`` (an OpenAPI subset) that JSON Schema spells in lower case."""

_KINDS = ("text", "inlineData", "fileData", "functionCall", "functionResponse")
"""The part fields a turn has a place for, in the order a part holding several is read by."""


class GeminiReader:
    name = "gemini"
    description = "a Gemini generateContent request body (REST JSON), or a list of its contents"
    model_field = "model"
    """The body's field naming its model, kept in ``native``: a run asks for that model (see
    ``promptwire.runs.inputs.body_model``). A REST body names none (its URL does); one that
    carries a ``model`` (a batch's rows, say) names it there."""

    def read(self, data: Any) -> Prompt:
        body, contents, path = body_and_items(data, "contents", "contents")
        reading = Reading(self.name)
        if "systemInstruction" in body:
            _system(reading, body["systemInstruction"])
        calls = _Calls()
        for index, content in enumerate(listed(contents, path, "contents")):
            _content(reading, calls, content, (*path, index))
        _body(reading, body)
        return reading.prompt()


def _system(reading: Reading, system: Any) -> None:
    """The system instruction's text parts as the leading ``system`` turn (one part as its text)."""
    path: Path = ("systemInstruction",)
    fields = mapping(system, path, "a content object with the instruction's parts")
    parts = [
        _part(reading, part, (*path, "parts", number), _Calls(), _Calls())
        for number, part in enumerate(listed(fields.get("parts"), (*path, "parts"), "parts"))
    ]
    reading.rest(fields, path, ("parts",))
    reading.turn(path, {"role": "system", "content": _turn_content(parts)})


def _body(reading: Reading, body: Mapping[str, Any]) -> None:
    for key, value in body.items():
        if key in ("contents", "systemInstruction"):
            continue
        if key == "tools":
            _tools(reading, value)
        elif key == "generationConfig":
            _generation(reading, mapping(value, (key,), "a generation config object"))
        else:
            reading.keep((str(key),), value)


def _generation(reading: Reading, config: Mapping[str, Any]) -> None:
    path: Path = ("generationConfig",)
    known = ["maxOutputTokens", "temperature"]
    if "maxOutputTokens" in config:
        reading.max_tokens(config["maxOutputTokens"], (*path, "maxOutputTokens"))
    if "temperature" in config:
        reading.temperature(config["temperature"], (*path, "temperature"))
    schema_key = "responseJsonSchema" if "responseJsonSchema" in config else "responseSchema"
    if config.get("responseMimeType") == "application/json" and schema_key in config:
        schema = config[schema_key]
        if schema_key == "responseSchema":
            schema = _json_schema(schema, (*path, schema_key))
        reading.schema_output(schema, path)
        known += ["responseMimeType", schema_key]
    thinking = config.get("thinkingConfig")
    if isinstance(thinking, Mapping) and thinking.get("includeThoughts") is True:
        level = thinking.get("thinkingLevel")
        if level is None or (isinstance(level, str) and level in LEVELS):
            reading.think(True if level is None else LEVELS[level])
            reading.rest(thinking, (*path, "thinkingConfig"), ("includeThoughts", "thinkingLevel"))
            known.append("thinkingConfig")
    reading.rest(config, path, known)


def _tools(reading: Reading, tools: Any) -> None:
    """Every ``functionDeclarations`` entry as a tool; Gemini's own tools (``googleSearch``,
    ``codeExecution``...) have no place in the prompt's tools and are kept as they are."""
    for index, tool in enumerate(listed(tools, ("tools",), "tools")):
        path: Path = ("tools", index)
        entry = mapping(tool, path, "a tool object")
        if "functionDeclarations" in entry:
            where = (*path, "functionDeclarations")
            for number, declaration in enumerate(listed(entry["functionDeclarations"], where, "function declarations")):
                _declaration(reading, declaration, (*where, number))
        reading.rest(entry, path, ("functionDeclarations",))


def _declaration(reading: Reading, declaration: Any, path: Path) -> None:
    """A function declaration as a tool: its JSON Schemas as they are, Gemini's ``Schema`` ones
    (``parameters``, ``response``, read where no JSON Schema is given) as JSON Schema."""
    fields = mapping(declaration, path, "a function declaration object")
    known = ["name", "description"]
    parameters = _schema(fields, path, "parametersJsonSchema", "parameters", known)
    returns = _schema(fields, path, "responseJsonSchema", "response", known)
    reading.tool(path, fields.get("name"), fields.get("description"), parameters, returns)
    reading.rest(fields, path, known)


def _schema(fields: Mapping[str, Any], path: Path, json_key: str, schema_key: str, known: list[str]) -> Any:
    """The JSON Schema under ``json_key``, else Gemini's ``Schema`` under ``schema_key`` as JSON
    Schema, else ``None``; the key read is added to ``known``."""
    if fields.get(json_key) is not None:
        known.append(json_key)
        return fields[json_key]
    if fields.get(schema_key) is not None:
        known.append(schema_key)
        return _json_schema(fields[schema_key], (*path, schema_key))
    return None


def _json_schema(schema: Any, path: Path) -> dict[str, Any]:
    """Gemini's ``Schema`` (OpenAPI's subset) as JSON Schema: its upper-case type names
    (``"OBJECT"``) in lower case, everywhere in it; every other word as it is (most are JSON
    Schema's too; OpenAPI's own, ``nullable`` or ``propertyOrdering``, go on as they are). A schema
    nested deeper than any prompt value may is refused, naming ``path``, before the walk."""
    check_nesting(mapping(schema, path, "a schema object"), path)
    converted: dict[str, Any] = with_nesting_room(_lowered, schema)
    return converted


def _lowered(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {
            key: item.lower() if key == "type" and isinstance(item, str) and item in SCHEMA_TYPES else _lowered(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_lowered(item) for item in value]
    return value


class _Calls:
    """The calls of the last model turn not answered yet, for the responses after it that give no id."""

    def __init__(self) -> None:
        self.open: list[ToolCallPart] = []

    def answer(self, name: str, call_id: str | None) -> ToolCallPart | None:
        """The call a response answers: the open call of its id, else the first of its name."""
        for call in self.open:
            if (call.id == call_id) if call_id is not None else (call.name == name):
                self.open.remove(call)
                return call
        return None


def _content(reading: Reading, calls: _Calls, content: Any, path: Path) -> None:
    fields = mapping(content, path, "a content object")
    role = fields.get("role", "user")
    if not isinstance(role, str) or role not in ROLES:
        raise FieldError((*path, "role"), "must be 'user' or 'model'")
    where = (*path, "parts")
    made = _Calls()
    parts = [
        _part(reading, part, (*where, number), calls, made)
        for number, part in enumerate(listed(fields.get("parts"), where, "parts"))
    ]
    if role == "model":
        calls.open = made.open
    reading.rest(fields, path, ("role", "parts"))
    reading.turn(path, {"role": ROLES[role], "content": _turn_content(parts)})


def _turn_content(parts: list[Any]) -> Any:
    """The parts read (a part with the reasoning its signature stands for comes as a list; one
    left out as ``None``) in order; one plain text part as the turn's text, as the other readers
    give a lone text."""
    flat = [part for group in parts if group is not None for part in (group if isinstance(group, list) else [group])]
    if len(flat) == 1 and isinstance(flat[0], TextPart):
        return flat[0].text
    return flat


def _part(reading: Reading, part: Any, path: Path, calls: _Calls, made: _Calls) -> Any:
    """One part as a turn's part (after the reasoning part a signature on it stands for: both as a
    list), or ``None`` when it has no place in a turn (kept as it is)."""
    fields = mapping(part, path, "a part object")
    kind = next((key for key in _KINDS if key in fields), None)
    if kind is None:
        reading.keep(path, part)  # executableCode, codeExecutionResult...
        return None
    thought = fields.get("thought", False)
    if not isinstance(thought, bool):
        raise FieldError((*path, "thought"), "must be true or false")
    signature = fields.get("thoughtSignature")
    if signature is not None:
        signature = text(signature, (*path, "thoughtSignature"))
    if kind == "text" and thought:
        reasoning = {"text": text(fields["text"], (*path, "text")), "provider": PROVIDER}
        if signature is not None:
            reasoning["signature"] = signature
        reading.rest(fields, path, ("text", "thought", "thoughtSignature"))
        return ReasoningPart(**reasoning)
    read: Any
    if kind == "functionCall":
        read = _call(fields[kind], (*path, kind), made)
    elif kind == "functionResponse":
        read = _response(reading, fields[kind], (*path, kind), calls)
    elif kind == "text":
        read = TextPart(text=text(fields["text"], (*path, "text")))
    else:
        read = _media(reading, fields[kind], (*path, kind), kind)
    reading.rest(fields, path, (kind, "thoughtSignature") if thought else (kind, "thought", "thoughtSignature"))
    if signature is None:
        return read
    return [ReasoningPart(signature=signature, provider=PROVIDER), read]


def _call(call: Any, path: Path, made: _Calls) -> ToolCallPart:
    fields = mapping(call, path, "a function call object")
    arguments = mapping(fields.get("args", {}), (*path, "args"), "the call's arguments object")
    given = fields.get("id")
    call_id = text(given, (*path, "id")) if given is not None else f"call_{len(made.open)}"
    part = built(
        ToolCallPart,
        path,
        {"id": call_id, "name": text(fields.get("name"), (*path, "name")), "arguments": dict(arguments)},
    )
    made.open.append(part)
    return part


def _response(reading: Reading, response: Any, path: Path, calls: _Calls) -> ToolResultPart:
    """A ``functionResponse`` as the result of the call it answers: ``{"result": TEXT}`` its text,
    ``{"error": TEXT}`` a failure's; any other response is its JSON text, and kept as it is too
    (going back to Gemini it would be ``{"result": JSON}``)."""
    fields = mapping(response, path, "a function response object")
    name = text(fields.get("name"), (*path, "name"))
    given = fields.get("id")
    call_id = text(given, (*path, "id")) if given is not None else None
    answered = calls.answer(name, call_id)
    result: dict[str, Any] = {"call_id": call_id or (answered.id if answered is not None else name)}
    if answered is None or answered.name != name:
        result["name"] = name
    output = mapping(fields.get("response"), (*path, "response"), "the function's response object")
    said = next(iter(output.values()), None) if len(output) == 1 else None
    if isinstance(said, str) and set(output) <= {"result", "error"}:
        result["is_error"] = "error" in output
    else:
        said = json_text(dict(output), (*path, "response"))
        reading.keep((*path, "response"), output)
    media = [
        _media_part(reading, shown, (*path, "parts", number))
        for number, shown in enumerate(listed(fields.get("parts", []), (*path, "parts"), "parts"))
    ]
    media = [shown for shown in media if shown is not None]
    result["content"] = ([TextPart(text=said)] if said else []) + media if media else said
    reading.rest(fields, path, ("id", "name", "response", "parts"))
    return built(ToolResultPart, path, result)


def _media_part(reading: Reading, part: Any, path: Path) -> Any:
    """A function response's part: inline data or a file, or ``None`` (kept as it is)."""
    fields = mapping(part, path, "a part object")
    kind = next((key for key in ("inlineData", "fileData") if key in fields), None)
    if kind is None:
        reading.keep(path, part)
        return None
    reading.rest(fields, path, (kind,))
    return _media(reading, fields[kind], (*path, kind), kind)


def _media(reading: Reading, media: Any, path: Path, kind: str) -> Any:
    """``inlineData`` or ``fileData`` as the part it holds."""
    fields = mapping(media, path, f"an {kind} object")
    return _inline(reading, fields, path) if kind == "inlineData" else _file(reading, fields, path)


def _inline(reading: Reading, fields: Mapping[str, Any], path: Path) -> Any:
    """Base64 data with its MIME type: audio (its format the type's subtype), an image, or a file."""
    mime = text(fields.get("mimeType"), (*path, "mimeType"))
    data = text(fields.get("data"), (*path, "data"))
    reading.rest(fields, path, ("mimeType", "data"))
    if mime.startswith("audio/"):
        return built(AudioPart, path, {"data": data, "format": mime.removeprefix("audio/")})
    located = ImagePart if mime.startswith("image/") else FilePart
    return built(located, path, {"data": data, "media_type": mime})


def _file(reading: Reading, fields: Mapping[str, Any], path: Path) -> Any:
    """A URI: a file when its MIME type (given, else told by its name) is not an image's, else an
    image. The adapter writes an image's type as its URL's name tells it, so a type given that
    the name does not tell is kept as it is."""
    uri = text(fields.get("fileUri"), (*path, "fileUri"))
    given = fields.get("mimeType")
    mime = text(given, (*path, "mimeType")) if given is not None else None
    reading.rest(fields, path, ("fileUri", "mimeType"))
    guessed = mimetypes.guess_type(uri.split("?", 1)[0])[0]
    named = mime or guessed
    if named is not None and not named.startswith("image/"):
        return built(FilePart, path, {"url": uri, "media_type": named})
    if mime is not None and mime != guessed:
        reading.keep((*path, "mimeType"), mime)
    return built(ImagePart, path, {"url": uri})


reader = GeminiReader()
