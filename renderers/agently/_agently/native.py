"""Agently's own objects in a prompt's data, recognised without importing Agently.

An Agently program puts Agently's runtime objects into its prompts: ``Session`` stores its
``ChatMessage`` models in ``chat_history``, ``attachment`` may hold its content-part models, an
``output`` may hold its judgment templates (``Probability``, ``Choice``, ``Score``, any
``OutputTemplate``), and any value may be a ``StateData`` (a prompt or settings object). The clone
reads each as Agently 4.1.4.10 reads it. Such an object exists only if its module was imported, so
its class is looked up in ``sys.modules``: nothing here imports Agently.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

_PROMPT_TYPES = "agently.types.data.prompt"
_JUDGMENT = "agently.types.data.judgment"
_STATE_DATA = "agently.utils.StateData"


def _loaded(module: str, name: str) -> Any:
    """The class ``module.name`` if that module is imported, else ``None``."""
    loaded = sys.modules.get(module)
    return getattr(loaded, name, None) if loaded is not None else None


def _instance_of(value: Any, module: str, name: str) -> bool:
    cls = _loaded(module, name)
    return cls is not None and isinstance(value, cls)


def output_template_schema(value: Any) -> tuple[Any, ...] | None:
    """A judgment's field tuple (``to_schema()``, as Agently normalizes it), or ``None`` for other values.

    ``(annotation, question text, True, {"judgment": True})`` for Agently's three judgments; a
    user's ``OutputTemplate`` subclass gives whatever its ``to_schema()`` gives, as in Agently.
    """
    if type(value).__module__ == "builtins" or not _instance_of(value, _JUDGMENT, "OutputTemplate"):
        return None
    try:
        schema: tuple[Any, ...] = value.to_schema()
    except Exception as error:  # a user's template: Agently lets this escape from deep inside
        raise ValueError(
            f"the judgment {type(value).__name__} (question {getattr(value, 'question', '')!r}) gives no "
            f"schema: its to_schema() raised {type(error).__name__}: {error}"
        ) from None
    return schema


def is_output_template(value: Any) -> bool:
    return type(value).__module__ != "builtins" and _instance_of(value, _JUDGMENT, "OutputTemplate")


def state_data_view(value: Any) -> tuple[bool, Any]:
    """``(True, value.data)`` for Agently's ``StateData`` / ``StateDataNamespace``, else ``(False, None)``.

    Agently's ``DataFormatter.sanitize`` writes such an object as its (inherited) data.
    """
    if type(value).__module__ == "builtins":
        return False, None
    if _instance_of(value, _STATE_DATA, "StateData") or _instance_of(value, _STATE_DATA, "StateDataNamespace"):
        return True, value.data
    return False, None


def _mirror_part(part: Any) -> Any:
    """Agently's content-part model as the mirrored one of the same class (others unchanged)."""
    from .model import AttachmentMessageContent, TextMessageContent

    if _instance_of(part, _PROMPT_TYPES, "TextMessageContent"):
        return TextMessageContent.model_validate(part.model_dump())
    if _instance_of(part, _PROMPT_TYPES, "AttachmentMessageContent"):
        return AttachmentMessageContent.model_validate(part.model_dump())
    return part


def _mirror_message(message: Any) -> Any:
    """Agently's ``ChatMessage`` as the mirrored one: same role, content (parts mirrored) and extras.

    A message without extras (what a ``Session`` stores) becomes the plain ``{"role", "content"}``
    dict it was validated from, which reads the same and takes the clone's fast path.
    """
    from .model import ChatMessage

    if not _instance_of(message, _PROMPT_TYPES, "ChatMessage"):
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
    loaded = sys.modules.get(_PROMPT_TYPES)
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
    if _loaded(_PROMPT_TYPES, "ChatMessage") is None:
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
