"""Reading an Agently prompt dict into the fields the generator uses, without building pydantic models.

This is Agently's ``to_prompt_object()`` (defaults, pydantic projection, long-content tags, the
``PromptModel`` validators) done with plain checks for the shapes prompts usually have, falling back
to the mirrored pydantic models field by field for anything unusual, so both give the same values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .content import ChatMsg, Part, attachment_parts, chat_messages
from .declarations import is_model_class, normalize_output, project_model, settle_output_format
from .errors import EMPTY_PROMPT_MESSAGE, AgentlyEmptyPromptError, AgentlyFieldError, validation_field_error
from .settings import AgentlySettings

__all__ = ["DECLARED_FIELDS", "PromptObject", "check_not_empty", "prepare_data", "read_prompt"]

DECLARED_FIELDS = frozenset(
    {
        "system",
        "developer",
        "chat_history",
        "info",
        "tools",
        "action_results",
        "instruct",
        "examples",
        "input",
        "attachment",
        "output",
        "ensure_all_keys",
        "output_format",
        "output_format_resolved_from_auto",
        "options",
    }
)


@dataclass(frozen=True, slots=True)
class PromptObject:
    """The validated prompt, field for field what Agently's ``PromptModel`` holds."""

    system: Any
    developer: Any
    chat_history: list[ChatMsg]
    info: Any
    tools: list[dict[str, Any]] | None
    action_results: Any
    instruct: Any
    examples: Any
    input: Any
    attachment: list[Part]
    output: Any
    ensure_all_keys: bool
    output_format: Any
    extras: dict[str, Any]


def prepare_data(data: Mapping[str, Any], settings: AgentlySettings) -> dict[str, Any]:
    """The part of ``to_prompt_object()`` before validation: format default, projection, tags."""
    prepared = dict(data)
    if "output" in prepared:
        if "output_format" not in prepared:
            prepared["output_format"] = settings.default_output_format
        output = prepared["output"]
        if is_model_class(output):
            output = project_model(output)
        try:
            prepared["output"] = normalize_output(output)
        except ValueError as error:
            raise AgentlyFieldError("output", str(error)) from None
    for key in prepared:
        if type(key) is not str and not isinstance(key, str):
            raise AgentlyFieldError(
                repr(key), "prompt keys must be strings (Agently 4.1.4.10 fails with: keywords must be strings)"
            )
    return prepared


def _lax_bool(value: Any, field: str) -> bool:
    if type(value) is bool:
        return value
    from pydantic import ValidationError

    from .model import bool_adapter

    try:
        return bool(bool_adapter.validate_python(value))
    except ValidationError as error:
        raise validation_field_error([field], error) from None


def _plain_tool(tool: Any) -> dict[str, Any] | None:
    if (
        type(tool) is not dict
        or type(tool.get("name")) is not str
        or type(tool.get("desc")) is not str
        or type(tool.get("kwargs")) is not dict
        or not all(type(key) is str for key in tool)
        or not all(type(key) is str for key in tool["kwargs"])
    ):
        return None
    ordered = {"name": tool["name"], "desc": tool["desc"], "kwargs": dict(tool["kwargs"])}
    if "returns" in tool:
        ordered["returns"] = tool["returns"]
    for key, value in tool.items():
        if key not in ordered:
            ordered[key] = value
    return ordered


def _tools(tools: Any) -> list[dict[str, Any]] | None:
    if tools is None:
        return None
    if type(tools) is list:
        plain = [_plain_tool(tool) for tool in tools]
        if all(tool is not None for tool in plain):
            return plain  # type: ignore[return-value]
    from pydantic import ValidationError

    from .model import tools_adapter

    try:
        validated: list[dict[str, Any]] | None = tools_adapter.validate_python(tools)
    except ValidationError as error:
        raise validation_field_error(["tools"], error) from None
    return validated


def _check_options(data: Mapping[str, Any]) -> None:
    if "options" in data:
        options = data["options"]
        if type(options) is dict and all(type(key) is str for key in options):
            return
        from pydantic import ValidationError

        from .model import options_adapter

        try:
            options_adapter.validate_python(options)
        except ValidationError as error:
            raise validation_field_error(["options"], error) from None


def _output_format(value: Any) -> Any:
    if value is None or type(value) is str or not isinstance(value, str):
        return value
    from .model import format_adapter

    # A str subclass (e.g. a StrEnum member) meets pydantic's Literal check: let pydantic decide.
    return format_adapter.validate_python(value)


def read_prompt(data: Mapping[str, Any], settings: AgentlySettings, *, warn: bool = True) -> PromptObject:
    """``to_prompt_object()`` for rendering (raises :class:`AgentlyFieldError` where Agently raises)."""
    prepared = prepare_data(data, settings)
    get = prepared.get
    chat_history = chat_messages(get("chat_history"))
    tools = _tools(get("tools"))
    attachment = attachment_parts(get("attachment"))
    ensure_all_keys = _lax_bool(get("ensure_all_keys", False), "ensure_all_keys")
    if "output_format_resolved_from_auto" in prepared:
        _lax_bool(prepared["output_format_resolved_from_auto"], "output_format_resolved_from_auto")
    _check_options(prepared)
    output, output_format, _ = settle_output_format(
        get("output"), _output_format(get("output_format")), warn_fallback=warn
    )
    extras = {key: value for key, value in prepared.items() if key not in DECLARED_FIELDS}
    return PromptObject(
        system=get("system"),
        developer=get("developer"),
        chat_history=chat_history,
        info=get("info"),
        tools=tools,
        action_results=get("action_results"),
        instruct=get("instruct"),
        examples=get("examples"),
        input=get("input"),
        attachment=attachment,
        output=output,
        ensure_all_keys=ensure_all_keys,
        output_format=output_format,
        extras=extras,
    )


_EMPTY: tuple[Any, ...] = (None, "", [], {})


def check_not_empty(prompt: PromptObject) -> None:
    """Agently's deliberate refusal: no custom key and none of the five content fields set."""
    if prompt.extras:
        return
    if all(value in _EMPTY for value in (prompt.input, prompt.info, prompt.instruct, prompt.output, prompt.attachment)):
        raise AgentlyEmptyPromptError(EMPTY_PROMPT_MESSAGE)
