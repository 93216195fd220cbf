"""Agently's ``to_prompt_object()``: a prompt dict read into the fields the generator uses, without pydantic.

It applies the defaults, the pydantic projection, the long-content tags and the ``PromptModel``
validators with plain checks for the shapes prompts usually have: string content,
``{"type": "text", "text": "..."}`` parts, plain-string attachments, tools of plain dicts. Anything
else goes, field by field, through the mirrored pydantic models in ``model``, because their union
rules decide what a value becomes: ``{"type": "text"}`` without text is an *attachment* part,
``{"type": "text", "text": 123}`` too, and attachment parts gain a ``"<type>": None`` key. Both
paths give the same values; validation failures become :class:`AgentlyFieldError` naming the field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ....core.errors import field_path
from .declarations import is_model_class, normalize_output, project_model, settle_output_format
from .errors import EMPTY_PROMPT_MESSAGE, AgentlyEmptyPromptError, AgentlyFieldError, validation_field_error
from .native_messages import mirror_native_objects
from .storage import AgentlySettings

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


# --- chat history and attachments ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Part:
    """One validated content part: Agently's ``TextMessageContent`` or ``AttachmentMessageContent``."""

    type: Any
    text: Any
    is_text: bool
    """``isinstance(part, TextMessageContent)`` in Agently: only these are sent as plain text."""
    model: Any = None

    def dump(self) -> dict[str, Any]:
        """A fresh ``model_dump()`` (callers may mutate it)."""
        if self.model is None:
            return {"type": "text", "text": self.text}
        dumped: dict[str, Any] = self.model.model_dump()
        return dumped


@dataclass(slots=True)
class ChatMsg:
    """A chat-history message as the generator reads it. Not frozen: a frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__``, and a history makes one per turn."""

    role: Any
    content: Any
    """A ``str``, or a list of raw parts (dicts) validated later, as Agently does."""
    extras: Mapping[str, Any] | None = None
    """The message's other fields (``ChatMessage`` allows any: ``tool_calls``, ``tool_call_id``...).
    Agently's own layout reads role and content only; the reader reads these too."""


def is_text_dict(value: Any) -> bool:
    """Whether ``value`` is a text part the plain way (``{"type": "text", "text": "..."}``), which
    reads as a text part without pydantic."""
    return (
        type(value) is dict
        and len(value) == 2
        and value.get("type", None) == "text"
        and type(value["type"]) is str
        and type(value.get("text")) is str
    )


def _from_model(model: Any) -> Part:
    from .model import TextMessageContent

    return Part(model.type, getattr(model, "text", None), isinstance(model, TextMessageContent), model)


def history_part(item: Any, path: list[str | int]) -> Part:
    """A chat-history part as the generator's smart-mode ``TypeAdapter(ChatMessageContent)`` reads it."""
    if is_text_dict(item):
        return Part("text", item["text"], True)
    from pydantic import ValidationError

    from .model import content_adapter

    try:
        return _from_model(content_adapter.validate_python(item))
    except ValidationError as error:
        raise validation_field_error(path, error) from None


def _attachment_parts(attachment: Any) -> list[Part]:
    """``PromptModel.attachment``: None -> no parts, a scalar -> one text part, a list -> its parts."""
    if attachment is None:
        return []
    if type(attachment) is list:
        parts: list[Part] = []
        for item in attachment:
            kind = type(item)
            if kind is str or kind is int or kind is float or kind is bool or item is None:
                parts.append(Part("text", str(item), True))
            elif is_text_dict(item):
                parts.append(Part("text", item["text"], True))
            else:
                return _slow_attachment(attachment)
        return parts
    if type(attachment) is str:
        return [Part("text", attachment, True)]
    return _slow_attachment(attachment)


def _slow_attachment(attachment: Any) -> list[Part]:
    from pydantic import ValidationError

    from .model import attachment_adapter

    try:
        return [_from_model(model) for model in attachment_adapter.validate_python(attachment)]
    except ValidationError as error:
        raise validation_field_error(["attachment"], error) from None


def _plain_message(message: Any) -> ChatMsg | None:
    """The message when it needs no pydantic to read (``None`` when it does)."""
    if type(message) is not dict:
        return None
    role = message.get("role", "user")
    content = message.get("content", _ABSENT)
    if type(role) is not str:
        return None
    # Keys must be text (ChatMessage(**message)); {"role", "content"} alone, the usual message, are.
    if (len(message) != 2 or content is _ABSENT or "role" not in message) and not all(
        type(key) is str for key in message
    ):
        return None
    extras = (
        {key: value for key, value in message.items() if key != "role" and key != "content"}
        if len(message) > 2
        else None
    )
    if type(content) is str:
        return ChatMsg(role, content, extras)
    if type(content) is list and all(type(item) is dict and all(type(key) is str for key in item) for item in content):
        return ChatMsg(role, content, extras)
    return None


_ABSENT: Any = object()


def _slow_message(message: Any, index: int | None) -> ChatMsg:
    from pydantic import ValidationError

    from .model import ChatMessage

    path: list[str | int] = ["chat_history"] if index is None else ["chat_history", index]
    try:
        if isinstance(message, ChatMessage):
            model = message
        elif isinstance(message, dict):
            model = ChatMessage(**message)
        else:
            model = ChatMessage(content=str(message))
    except ValidationError as error:
        raise validation_field_error(path, error) from None
    except TypeError as error:  # ChatMessage(**message) with a non-string key
        raise AgentlyFieldError(field_path(path), f"message keys must be strings ({error})") from None
    content = model.content
    if isinstance(content, list):
        content = list(content)
    return ChatMsg(model.role, content, model.model_extra or None)


def _chat_messages(chat_history: Any) -> list[ChatMsg]:
    """``PromptModel.chat_history`` (Agently's ``validate_chat_history``)."""
    if chat_history is None:
        return []
    if isinstance(chat_history, dict):
        return [_plain_message(chat_history) or _slow_message(chat_history, None)]
    if isinstance(chat_history, list):
        return _listed_messages(chat_history)
    return [_slow_message(chat_history, None)]


def _listed_messages(messages: Iterable[Any]) -> list[ChatMsg]:
    """The messages of a chat-history list, read one after the other."""
    return [read_message(message, index) for index, message in enumerate(messages)]


def read_message(message: Any, index: int) -> ChatMsg:
    """The message at ``index`` of a chat-history list, read as ``PromptModel.chat_history`` reads it."""
    return _plain_message(message) or _slow_message(message, index)


# --- the prompt object -----------------------------------------------------------------------------


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
    """The part of ``to_prompt_object()`` before validation: format default, projection, tags.

    Agently's own chat messages and content parts in lists become the mirrored models (``native``).
    """
    prepared = dict(mirror_native_objects(data))
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


_TOOL_ORDER = ("name", "desc", "kwargs")
_ONLY_TEXT = frozenset({str})


def _in_tool_order(tool: dict[str, Any]) -> bool:
    """Whether the tool's keys start as ``ToolMeta.model_dump()`` orders them: the fields, then extras."""
    keys = tuple(tool)
    return keys[:3] == _TOOL_ORDER and ("returns" not in tool or keys[3] == "returns")


def _plain_tool(tool: Any) -> dict[str, Any] | None:
    # Keys told as text in C (a generator per tool cost more than the rest of the test).
    if (
        type(tool) is not dict
        or type(tool.get("name")) is not str
        or type(tool.get("desc")) is not str
        or type(tool.get("kwargs")) is not dict
        or not _ONLY_TEXT.issuperset(map(type, tool))
        or not _ONLY_TEXT.issuperset(map(type, tool["kwargs"]))
    ):
        return None
    if _in_tool_order(tool):
        # Nothing renders a tool by changing it: one already in ToolMeta's order is the dump itself
        # (50,000 tools copied cost 3.2 times the text they print).
        return tool
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


def read_prompt(
    data: Mapping[str, Any],
    settings: AgentlySettings,
    *,
    warn: bool = True,
    chat_history: Iterable[ChatMsg] | None = None,
) -> PromptObject:
    """``to_prompt_object()`` for rendering (raises :class:`AgentlyFieldError` where Agently raises).

    ``chat_history``, when given, is the list ``data["chat_history"]`` would be, read one message at
    a time (:func:`read_message`) by the caller as this reads it: a caller that makes each message
    only to have it read need not hold them all, nor make a dict of a message it can read itself.
    """
    prepared = prepare_data(data, settings)
    get = prepared.get
    messages = _chat_messages(get("chat_history")) if chat_history is None else list(chat_history)
    tools = _tools(get("tools"))
    attachment = _attachment_parts(get("attachment"))
    ensure_all_keys = _lax_bool(get("ensure_all_keys", False), "ensure_all_keys")
    if "output_format_resolved_from_auto" in prepared:
        _lax_bool(prepared["output_format_resolved_from_auto"], "output_format_resolved_from_auto")
    _check_options(prepared)
    # A fallback warning points at the user's call: AgentlyPrompt.to_text -> _prompt -> here.
    output, output_format, _ = settle_output_format(
        get("output"), _output_format(get("output_format")), warn_fallback=warn, stacklevel=5
    )
    extras = {key: value for key, value in prepared.items() if key not in DECLARED_FIELDS}
    return PromptObject(
        system=get("system"),
        developer=get("developer"),
        chat_history=messages,
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
