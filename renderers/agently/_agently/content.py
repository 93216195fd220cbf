"""Chat-history messages and content parts, read the way Agently's pydantic models read them.

The common shapes (string content, ``{"type": "text", "text": "..."}`` parts, plain-string
attachments) are recognised directly. Anything else goes through the mirrored pydantic models in
``model``, because their union rules decide what a part becomes: ``{"type": "text"}`` without text
is an *attachment* part, ``{"type": "text", "text": 123}`` too, and attachment parts gain a
``"<type>": None`` key. Validation failures become :class:`AgentlyFieldError` naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ....core.errors import field_path
from .errors import AgentlyFieldError, validation_field_error

__all__ = ["ChatMsg", "Part", "attachment_parts", "chat_messages", "history_part"]


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


@dataclass(frozen=True, slots=True)
class ChatMsg:
    role: Any
    content: Any
    """A ``str``, or a list of raw parts (dicts) validated later, as Agently does."""


def _is_text_dict(value: Any) -> bool:
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
    if _is_text_dict(item):
        return Part("text", item["text"], True)
    from pydantic import ValidationError

    from .model import content_adapter

    try:
        return _from_model(content_adapter.validate_python(item))
    except ValidationError as error:
        raise validation_field_error(path, error) from None


def attachment_parts(attachment: Any) -> list[Part]:
    """``PromptModel.attachment``: None -> no parts, a scalar -> one text part, a list -> its parts."""
    if attachment is None:
        return []
    if type(attachment) is list:
        parts: list[Part] = []
        for item in attachment:
            kind = type(item)
            if kind is str or kind is int or kind is float or kind is bool or item is None:
                parts.append(Part("text", str(item), True))
            elif _is_text_dict(item):
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
    if type(role) is not str or not all(type(key) is str for key in message):
        return None
    if type(content) is str:
        return ChatMsg(role, content)
    if type(content) is list and all(type(item) is dict and all(type(key) is str for key in item) for item in content):
        return ChatMsg(role, content)
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
    return ChatMsg(model.role, content)


def chat_messages(chat_history: Any) -> list[ChatMsg]:
    """``PromptModel.chat_history`` (Agently's ``validate_chat_history``)."""
    if chat_history is None:
        return []
    if isinstance(chat_history, dict):
        return [_plain_message(chat_history) or _slow_message(chat_history, None)]
    if isinstance(chat_history, list):
        return [_plain_message(message) or _slow_message(message, index) for index, message in enumerate(chat_history)]
    return [_slow_message(chat_history, None)]
