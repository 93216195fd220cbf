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
from typing import Any

PROMPT_TYPES = "agently.types.data.prompt"
_JUDGMENT = "agently.types.data.judgment"
_STATE_DATA = "agently.utils.StateData"


def loaded_class(module: str, name: str) -> Any:
    """The class ``module.name`` if that module is imported, else ``None``."""
    loaded = sys.modules.get(module)
    return getattr(loaded, name, None) if loaded is not None else None


def instance_of(value: Any, module: str, name: str) -> bool:
    cls = loaded_class(module, name)
    return cls is not None and isinstance(value, cls)


def output_template_schema(value: Any) -> tuple[Any, ...] | None:
    """A judgment's field tuple (``to_schema()``, as Agently normalizes it), or ``None`` for other values.

    ``(annotation, question text, True, {"judgment": True})`` for Agently's three judgments; a
    user's ``OutputTemplate`` subclass gives whatever its ``to_schema()`` gives, as in Agently.
    """
    if type(value).__module__ == "builtins" or not instance_of(value, _JUDGMENT, "OutputTemplate"):
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
    return type(value).__module__ != "builtins" and instance_of(value, _JUDGMENT, "OutputTemplate")


def state_data_view(value: Any) -> tuple[bool, Any]:
    """``(True, value.data)`` for Agently's ``StateData`` / ``StateDataNamespace``, else ``(False, None)``.

    Agently's ``DataFormatter.sanitize`` writes such an object as its (inherited) data.
    """
    if type(value).__module__ == "builtins":
        return False, None
    if instance_of(value, _STATE_DATA, "StateData") or instance_of(value, _STATE_DATA, "StateDataNamespace"):
        return True, value.data
    return False, None
