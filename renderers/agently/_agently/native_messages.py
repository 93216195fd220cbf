"""Agently's own chat messages and content parts in a prompt's data, read as promptwire's mirrors of
them (:mod:`.model`), which Agently reads the same way: what a ``Session`` puts in
``chat_history``. Recognised through :mod:`.native`, so nothing here imports Agently either.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from .native import PROMPT_TYPES, instance_of, loaded_class

__all__ = ["mirror_native_objects"]


def _mirror_part(part: Any) -> Any:
    """Agently's content-part model as the mirrored one of the same class (others unchanged)."""
    from .model import AttachmentMessageContent, TextMessageContent

    if instance_of(part, PROMPT_TYPES, "TextMessageContent"):
        return TextMessageContent.model_validate(part.model_dump())
    if instance_of(part, PROMPT_TYPES, "AttachmentMessageContent"):
        return AttachmentMessageContent.model_validate(part.model_dump())
    return part


def _mirror_message(message: Any) -> Any:
    """Agently's ``ChatMessage`` as the mirrored one: same role, content (parts mirrored) and extras.

    A message without extras (what a ``Session`` stores) becomes the plain ``{"role", "content"}``
    dict it was validated from, which reads the same and takes the clone's fast path.
    """
    from .model import ChatMessage

    if not instance_of(message, PROMPT_TYPES, "ChatMessage"):
        return message
    content = message.content
    if isinstance(content, list):
        content = [_mirror_part(part) for part in content]
    extras = dict(message.model_extra or {})
    if not extras:
        return {"role": message.role, "content": content}
    return ChatMessage.model_construct(role=message.role, content=content, **extras)


def _has_native(items: list[Any]) -> bool:
    """Whether a list holds one of Agently's prompt models (its classes, subclasses included)."""
    loaded = sys.modules.get(PROMPT_TYPES)
    classes = tuple(
        cls
        for cls in (
            getattr(loaded, name, None) for name in ("ChatMessage", "TextMessageContent", "AttachmentMessageContent")
        )
        if isinstance(cls, type)
    )
    return bool(classes) and any(isinstance(item, classes) for item in items)


def mirror_native_objects(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``data`` with Agently's chat messages and content parts replaced by the mirrored models.

    Only list items are replaced: Agently keeps its own models found in a ``chat_history`` or
    ``attachment`` list and validates them no further, but a lone model (not in a list) is text to
    it (``ChatMessage(content=str(value))``), and stays what it is here, so the clone writes it the
    same way. ``data`` itself is not changed; a new dict is returned when something was replaced.
    """
    if loaded_class(PROMPT_TYPES, "ChatMessage") is None:
        return data
    history = data.get("chat_history")
    attachment = data.get("attachment")
    replaced = dict(data)
    changed = False
    if type(history) is list and _has_native(history):
        replaced["chat_history"] = [_mirror_message(message) for message in history]
        changed = True
    if type(attachment) is list and _has_native(attachment):
        replaced["attachment"] = [_mirror_part(part) for part in attachment]
        changed = True
    return replaced if changed else data
