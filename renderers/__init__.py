"""Prompt formats. Each module is one format; import the one you need (they load lazily).

``from promptwire.renderers.agens import render`` for the Agens front door,
``from promptwire.renderers.agently import AgentlyPrompt`` for Agently's generator.

The names below load on first use (PEP 562): importing one format's light module (the ``.as``
front end reads ``agentscript.jsjson``) does not pay for the prompt model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Renderer, unexpressed_fields

__all__ = ["Renderer", "unexpressed_fields"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(".base", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value
