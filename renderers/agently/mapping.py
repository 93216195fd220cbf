"""Agently prompt dicts and the core ``Prompt``, both ways.

``to_prompt`` lets an Agently prompt render in every other format; ``from_prompt`` lets any core
``Prompt`` render in Agently's layout. An Agently dict survives the trip to ``Prompt`` and back with
the same bytes from ``AgentlyPrompt`` (tools and the output declaration travel as ``native``), except
that non-text parts come back in the OpenAI shape (``{"image_url": {"url": ...}}``). The field
table is in ``docs/agently.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.clipping import clip
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
from ..parts import openai_content, openai_part
from .content import Part, history_part
from .declaration import is_model_class
from .errors import AgentlyFieldError, Unrenderable
from .json_schema import output_json_schema
from .prompt_object import DECLARED_FIELDS, read_prompt
from .settings import resolve_settings
from .storage import store_prompt
from .yaml_blocks import section_body

__all__ = ["from_prompt", "from_serializable", "to_prompt"]

_SERIALIZED_KEYS = frozenset({"$type", "$desc", "$ensure"})


# --- Agently -> core ---------------------------------------------------------------------------


def _core_part(part: Any, path: str) -> ContentPart:
    """An Agently/OpenAI content part (dict or validated :class:`Part`) as a core content part."""
    dumped = part.dump() if isinstance(part, Part) else part
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
            file = dumped["file"]
            return FilePart(url=file.get("file_url") or file.get("file_data"), filename=file.get("filename"))
    except ValueError as error:
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


def _config(options: Any, strict: bool) -> GenerateConfig:
    temperature = options.get("temperature") if isinstance(options, Mapping) else None
    if not isinstance(temperature, int | float) or isinstance(temperature, bool) or not math.isfinite(temperature):
        temperature = None
    return GenerateConfig(temperature=temperature, strict=strict)


def to_prompt(data: Mapping[str, Any], settings: Mapping[str, Any] | None = None) -> Prompt:
    """The core :class:`Prompt` for an Agently prompt dict (the values Agently's ``Prompt`` holds).

    ``input`` becomes the instruction; ``info``, custom keys, ``instruct`` and ``examples`` become
    sections in Agently's order; ``action_results`` become tool results; ``output`` becomes an
    output contract whose JSON Schema is Agently's own projection, with the declaration kept as
    ``native`` (and ``output_format`` as ``format``); ``ensure_all_keys`` becomes ``config.strict``.
    ``settings`` are Agently's, for ``prompt.default_output_format``.
    """
    stored = store_prompt(data)
    read = read_prompt(stored, resolve_settings(settings), warn=False)
    sections: list[Section] = []
    if read.info is not None:
        sections.append(Section(kind="info", value=read.info))
    sections.extend(Section(kind="custom", key=key, value=value) for key, value in read.extras.items())
    if read.instruct is not None:
        sections.append(Section(kind="instruct", value=read.instruct))
    if read.examples is not None:
        sections.append(Section(kind="examples", value=read.examples))
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
        history.append(ChatTurn(role=str(message.role), content=content))
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
    # round trip keeps its meaning whatever the settings; a model class stays the class.
    declared = stored.get("output") if is_model_class(stored.get("output")) else read.output
    if declared is not None:
        output = OutputContract(
            json_schema=output_json_schema(declared, strict_output=read.ensure_all_keys),
            dialect="agently",
            native=declared,
            format=str(read.output_format),
        )
    return Prompt(
        # Agently leaves out a falsy system/developer value, so the Prompt does too.
        system=_text(read.system, "system") if read.system else None,
        developer=_text(read.developer, "developer") if read.developer else None,
        instruction=read.input,
        sections=sections,
        history=history,
        attachments=[_core_part(part, f"attachment[{number}]") for number, part in enumerate(read.attachment)],
        tools=tools,
        tool_results=tool_results,
        output=output,
        config=_config(stored.get("options"), bool(read.ensure_all_keys) and output is not None),
    )


def from_serializable(data: Mapping[str, Any]) -> dict[str, Any]:
    """Undo ``to_serializable_prompt_data`` for the output: ``{"$type", "$desc", "$ensure"}`` -> tuples.

    Types come back as their names (``"str"``), which Agently renders the same way as the classes.
    """
    result = dict(data)
    if "output" in result:
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


# --- core -> Agently ---------------------------------------------------------------------------

_JSON_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "object": dict,
    "array": list,
}


def _declaration(schema: Any) -> Any:
    """A JSON Schema as an Agently output declaration: objects -> dicts of ``(type, desc, ensure)``."""
    if not isinstance(schema, Mapping):
        return str
    properties = schema.get("properties")
    if schema.get("type") == "object" and isinstance(properties, Mapping):
        required = set(schema.get("required") or ())
        return {str(name): _field(child, name in required) for name, child in properties.items()}
    if schema.get("type") == "array":
        items = schema.get("items")
        return [_declaration(items)] if isinstance(items, Mapping) and items else [(str,)]
    kind = schema.get("type")
    return _JSON_TYPES.get(kind, Any) if isinstance(kind, str) else Any


def _field(schema: Any, required: bool) -> tuple[Any, ...]:
    declared = _declaration(schema)
    description = schema.get("description", "") if isinstance(schema, Mapping) else ""
    if required:
        return (declared, description, True)
    return (declared, description) if description else (declared,)


def _by_kind(sections: Sequence[Section], kind: str) -> list[Section]:
    return [section for section in sections if section.kind == kind]


def _merged(sections: list[Section], *, keyed: bool) -> Any:
    """One Agently value for the sections of one kind: the value itself, a key->value map, or a list.

    ``info`` keeps a lone section's key (Agently lists info as ``- key: value``); ``instruct`` and
    ``examples`` show a lone section's value as it is.
    """
    if len(sections) == 1 and (sections[0].key is None or not keyed):
        return sections[0].value
    if all(section.key is not None for section in sections) and len({s.key for s in sections}) == len(sections):
        return {section.key: section.value for section in sections}
    if len(sections) == 1:
        return sections[0].value
    return [section.value for section in sections]


def _context(prompt: Prompt) -> dict[str, Any]:
    entries: dict[str, Any] = {}
    for index, item in enumerate(prompt.context):
        label = item.label or item.source or f"context_{index}"
        value = item.value
        if item.budget is not None:
            value = clip(value, item.budget.context_limit).value
        entries[label if label not in entries else f"{label}_{index}"] = value
    return entries


def _tool(tool: ToolDefinition) -> Any:
    if isinstance(tool.native, Mapping) and {"name", "desc", "kwargs"} <= set(tool.native):
        return tool.native
    data: dict[str, Any] = {
        "name": tool.name,
        "desc": tool.description,
        "kwargs": _declaration(tool.parameters) if tool.parameters else {},
    }
    if not isinstance(data["kwargs"], dict):
        data["kwargs"] = {}
    if tool.returns is not None:
        data["returns"] = tool.returns
    return data


def _action_results(results: list[ToolResult]) -> Any:
    """Agently's ``action_results``: a map keyed by tool name, or by call id when names repeat.

    A failed call keeps its failure visible as ``{"error": content}`` (Agently has no error flag).
    """
    values = [{"error": result.content} if result.is_error else result.content for result in results]
    for keys in ([result.name for result in results], [result.call_id for result in results]):
        if all(key is not None for key in keys) and len(set(keys)) == len(keys):
            return dict(zip(keys, values, strict=True))
    if len(results) == 1:
        return values[0]
    return values


def from_prompt(prompt: Prompt) -> dict[str, Any]:
    """An Agently prompt dict for a core :class:`Prompt` (what ``AgentlyPrompt`` renders).

    Context items join ``info`` (label -> value, clipped to their budgets); fields Agently has no
    place for (identity, tool calls, resources, previous result, retry) are left out, and the
    ``agently`` renderer reports them.
    """
    data: dict[str, Any] = {}
    if prompt.system is not None:
        data["system"] = prompt.system
    if prompt.developer is not None:
        data["developer"] = prompt.developer
    if prompt.history:
        data["chat_history"] = [{"role": turn.role, "content": openai_content(turn.content)} for turn in prompt.history]
    if prompt.tools:
        data["tools"] = [_tool(tool) for tool in prompt.tools]
    if prompt.tool_results:
        data["action_results"] = _action_results(prompt.tool_results)
    info_sections = _by_kind(prompt.sections, "info")
    context = _context(prompt)
    custom: dict[str, Any] = {}
    if info_sections:
        info = _merged(info_sections, keyed=True)
        if context and isinstance(info, dict) and not info.keys() & context.keys():
            info = {**info, **context}
        elif context:
            custom["context"] = context
        data["info"] = info
    elif context:
        data["info"] = context
    for section in _by_kind(prompt.sections, "custom"):
        key = section.key or "custom"
        if key in DECLARED_FIELDS or key in custom:
            raise FieldError("sections", f"the custom section {key!r} would clash with another Agently prompt key")
        custom[key] = section.value
    data.update(custom)
    for kind in ("instruct", "examples"):
        chosen = _by_kind(prompt.sections, kind)
        if chosen:
            data[kind] = _merged(chosen, keyed=False)
    if prompt.instruction is not None:
        data["input"] = prompt.instruction
    if prompt.attachments:
        data["attachment"] = [openai_part(part) for part in prompt.attachments]
    if prompt.output is not None:
        contract = prompt.output
        if contract.dialect == "agently" and contract.native is not None:
            data["output"] = contract.native
            if contract.format is not None:
                data["output_format"] = contract.format
        else:
            data["output"] = _declaration(contract.json_schema)
        if prompt.config.strict:
            data["ensure_all_keys"] = True
    if prompt.config.temperature is not None:
        data["options"] = {"temperature": prompt.config.temperature}
    return data
