"""The Agently reader: Agently prompt data read into a core ``Prompt``.

``read_agently`` lets an Agently prompt render in every other format; ``asrender render --from
agently`` uses :class:`AgentlyReader`, which also takes the JSON/YAML export (output tuples spelled
``{"$type", "$desc", "$ensure"}``). Tools and the output declaration travel as ``native``, so the
``agently`` renderer shows them as they were written. The reader keeps what it is given: a file
part's inline ``file_data`` stays inline data, a remote ``file_url`` stays a URL. The field table
is in ``docs/agently.md``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ...core.contract import OutputContract
from ...core.errors import FieldError
from ...core.prompt import (
    AudioPart,
    ChatTurn,
    ContentPart,
    FilePart,
    GenerateConfig,
    ImagePart,
    Prompt,
    Section,
    TextPart,
    ToolDefinition,
    ToolResult,
)
from ...core.validation import validate_model
from ._agently.declarations import is_model_class, output_json_schema
from ._agently.errors import AgentlyFieldError, Unrenderable, printable
from ._agently.prompt_object import Part, history_part, read_prompt
from ._agently.storage import resolve_settings, store_prompt
from ._agently.yaml_blocks import section_body

__all__ = ["AgentlyReader", "from_serializable", "read_agently", "reader"]

_SERIALIZED_KEYS = frozenset({"$type", "$desc", "$ensure"})
_DATA_URL = re.compile(r"data:([^;,]*)((?:;[^;,]*)*);base64,(.*)", re.DOTALL)


def _file_part(file: Mapping[str, Any]) -> FilePart:
    """An OpenAI file part: ``file_url`` stays a URL; ``file_data`` (a base64 data URL) stays inline."""
    filename = file.get("filename")
    data = file.get("file_data")
    if data is None:
        return FilePart(url=file.get("file_url"), filename=filename)
    if not isinstance(data, str):
        raise ValueError("file_data must be text (a base64 data URL)")
    match = _DATA_URL.fullmatch(data)
    if match is None or match.group(2):
        # Bare base64 (or a data URL with parameters the core part has no place for): keep it as is.
        return FilePart(data=data, filename=filename) if match is None else FilePart(url=data, filename=filename)
    return FilePart(data=match.group(3), media_type=match.group(1) or None, filename=filename)


def _core_part(part: Any, path: str) -> ContentPart:
    """An Agently/OpenAI content part (dict or validated :class:`Part`) as a core content part."""
    try:
        dumped = part.dump() if isinstance(part, Part) else part
    except UnicodeEncodeError:  # pydantic's dump of the validated part refuses half a character
        raise FieldError(path, "the part holds a lone surrogate, which is not valid UTF-8") from None
    kind = dumped.get("type") if isinstance(dumped, Mapping) else None
    try:
        if kind == "text":
            if not isinstance(dumped.get("text"), str):
                raise FieldError(path, "a text part needs a string 'text'")
            return TextPart(text=dumped["text"])
        if kind == "image_url":
            image = dumped.get("image_url")
            if isinstance(image, Mapping):
                return ImagePart(url=image.get("url"), detail=image.get("detail"))
            return ImagePart(url=image)
        if kind == "input_audio" and isinstance(dumped.get("input_audio"), Mapping):
            audio = dumped["input_audio"]
            return AudioPart(data=audio.get("data"), format=audio.get("format"))
        if kind == "file" and isinstance(dumped.get("file"), Mapping):
            return _file_part(dumped["file"])
    except ValueError as error:
        if isinstance(error, FieldError):
            raise
        raise FieldError(path, f"is not a valid {kind} part: {error}") from None
    raise FieldError(
        path, f"a content part of type {kind!r} has no core equivalent (text, image_url, input_audio, file)"
    )


def _text(value: Any, field: str) -> str:
    """A non-text system/developer value as the text Agently shows for it (its YAML section body)."""
    if isinstance(value, str):
        return value
    try:
        return section_body(value, {})
    except Unrenderable as error:
        raise AgentlyFieldError(error.field(field), error.reason) from None


def _finite(number: float) -> bool:
    """Whether ``number`` is a float's finite value (an integer past the largest float is not)."""
    try:
        return math.isfinite(number)
    except OverflowError:
        return False


def _config(options: Any, strict: bool) -> GenerateConfig:
    temperature = options.get("temperature") if isinstance(options, Mapping) else None
    if not isinstance(temperature, int | float) or isinstance(temperature, bool) or not _finite(temperature):
        temperature = None
    return GenerateConfig(temperature=temperature, strict=strict)


def _history(read: Any) -> list[ChatTurn]:
    history = []
    for index, message in enumerate(read.chat_history):
        content: str | list[ContentPart]
        if isinstance(message.content, str):
            content = message.content
        else:
            content = [
                _core_part(
                    history_part(item, ["chat_history", index, "content", number]),
                    f"chat_history[{index}].content[{number}]",
                )
                for number, item in enumerate(message.content)
            ]
        turn: dict[str, Any] = {"role": str(message.role), "content": content}
        if message.extras:
            turn.update(_turn_extras(message.extras, f"chat_history[{index}]"))
        history.append(validate_model(ChatTurn, turn, root=f"chat_history[{index}]"))
    return history


_TURN_EXTRAS = ("tool_calls", "tool_call_id", "is_error", "name")
"""The fields of a chat message besides role and content that a turn holds (OpenAI's chat shape,
which Agently's ``ChatMessage`` keeps as extra fields)."""


def _turn_extras(extras: Mapping[str, Any], path: str) -> dict[str, Any]:
    """A chat message's extra fields as a turn takes them: its tool calls (OpenAI's
    ``{"id", "type": "function", "function": {"name", "arguments"}}``, or flat
    ``{"id", "name", "arguments"}``), the call a tool message answers, its error flag, the speaker's
    name. Any other field is refused by name: a turn has no place for it, and Agently's own layout
    leaves it out without a word."""
    for key in extras:
        if key not in _TURN_EXTRAS:
            raise FieldError(
                f"{path}.{key}",
                "a chat message's field that a conversation turn has no place for "
                f"(a turn reads {', '.join(_TURN_EXTRAS)} besides role and content)",
            )
    fields = dict(extras)
    for key in ("tool_call_id", "name"):
        if fields.get(key) is not None and not isinstance(fields[key], str):
            raise FieldError(f"{path}.{key}", "must be text")
    calls = fields.get("tool_calls")
    if isinstance(calls, list):
        fields["tool_calls"] = [_flat_call(call, f"{path}.tool_calls[{number}]") for number, call in enumerate(calls)]
    return fields


def _flat_call(call: Any, path: str) -> Any:
    """An OpenAI tool call (``function`` holding name and arguments) as the flat call a turn reads."""
    if not (isinstance(call, Mapping) and "function" in call):
        return call  # flat already, or refused at its path by the turn's validation
    function = call["function"]
    if not isinstance(function, Mapping):
        raise FieldError(f"{path}.function", "must be an object with the function's name and arguments")
    unread = [f"{path}.{key}" for key in call if key not in ("id", "type", "function")]
    unread += [f"{path}.function.{key}" for key in function if key not in ("name", "arguments")]
    if call.get("type", "function") != "function":
        unread.append(f"{path}.type")
    if unread:
        raise FieldError(unread[0], "a tool call holds id, type 'function' and function (name, arguments) only")
    flat = {"name": function.get("name"), "arguments": function.get("arguments", {})}
    if call.get("id") is not None:
        flat["id"] = call["id"]
    return flat


def read_agently(data: Mapping[str, Any], settings: Mapping[str, Any] | None = None) -> Prompt:
    """The core :class:`Prompt` for an Agently prompt dict (the values Agently's ``Prompt`` holds).

    ``input`` becomes the instruction; ``info``, custom keys, ``instruct`` and ``examples`` become
    sections in Agently's order; ``action_results`` become tool results; ``output`` becomes an
    output contract whose JSON Schema is Agently's own projection, with the declaration kept as
    ``native`` (and ``output_format`` as ``format``); ``ensure_all_keys`` becomes ``config.strict``.
    ``settings`` are Agently's, for ``prompt.default_output_format``.
    """
    with printable(data):
        stored = store_prompt(data, share=True)
    with printable(stored):
        return _read(stored, settings)


def _read(stored: dict[str, Any], settings: Mapping[str, Any] | None) -> Prompt:
    read = read_prompt(stored, resolve_settings(settings), warn=False)
    sections: list[Section] = []
    if read.info is not None:
        sections.append(Section(kind="info", value=read.info))
    sections.extend(Section(kind="custom", key=key, value=value) for key, value in read.extras.items())
    if read.instruct is not None:
        sections.append(Section(kind="instruct", value=read.instruct))
    if read.examples is not None:
        sections.append(Section(kind="examples", value=read.examples))
    tools = [
        ToolDefinition(
            name=str(tool["name"]),
            description=str(tool["desc"]),
            parameters=output_json_schema(tool["kwargs"]),
            returns=tool.get("returns"),
            native=stored["tools"][index] if isinstance(stored.get("tools"), list) else tool,
        )
        for index, tool in enumerate(read.tools or ())
    ]
    results = read.action_results
    tool_results = (
        [ToolResult(name=str(key), content=value) for key, value in results.items()]
        if isinstance(results, Mapping)
        else ([] if results is None else [ToolResult(content=results)])
    )
    output = None
    # The declaration as Agently settled it (tags resolved, defaults and fallbacks applied), so the
    # trip keeps its meaning whatever the settings; a model class stays the class.
    declared = stored.get("output") if is_model_class(stored.get("output")) else read.output
    if declared is not None:
        output = OutputContract(
            json_schema=output_json_schema(declared, strict_output=read.ensure_all_keys),
            dialect="agently",
            native=declared,
            format=str(read.output_format),
        )
    fields: dict[str, Any] = {}
    if read.input is not None:
        fields["instruction"] = read.input
    return Prompt(
        # Agently leaves out a falsy system/developer value, so the Prompt does too.
        system=_text(read.system, "system") if read.system else None,
        developer=_text(read.developer, "developer") if read.developer else None,
        sections=sections,
        history=_history(read),
        attachments=[_core_part(part, f"attachment[{number}]") for number, part in enumerate(read.attachment)],
        tools=tools,
        tool_results=tool_results,
        output=output,
        config=_config(stored.get("options"), bool(read.ensure_all_keys) and output is not None),
        **fields,
    )


def from_serializable(data: Mapping[str, Any]) -> dict[str, Any]:
    """Undo ``to_serializable_prompt_data`` for the output: ``{"$type", "$desc", "$ensure"}`` -> tuples.

    Types come back as their names (``"str"``), which Agently renders the same way as the classes.
    """
    result = dict(data)
    if "output" in result:
        with printable({"output": result["output"]}):
            result["output"] = _tuples(result["output"])
    return result


def _tuples(value: Any) -> Any:
    if isinstance(value, Mapping):
        if "$type" in value and set(value) <= _SERIALIZED_KEYS:
            return (_tuples(value["$type"]), value.get("$desc", ""), value.get("$ensure"))
        return {key: _tuples(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_tuples(item) for item in value]
    return value


class AgentlyReader:
    """``asrender render --from agently``: Agently prompt data (as ``to_json_prompt`` writes it)."""

    name = "agently"
    description = "an Agently prompt dict (input, info, instruct, output with $type/$desc/$ensure...)"

    def read(self, data: Any) -> Prompt:
        if not isinstance(data, Mapping):
            raise FieldError("prompt", f"must be a mapping of Agently prompt keys, not {type(data).__name__}")
        return read_agently(from_serializable(data))


reader = AgentlyReader()
