"""Prompt formats. Each module is one format; import the one you need (they load lazily).

``from promptwire.renderers.agens import render`` for the Agens front door,
``from promptwire.renderers.agently import AgentlyPrompt`` for Agently's generator.

The names below load on first use (PEP 562): importing one format's light module (the ``.as``
front end reads ``agentscript.jsjson``) does not pay for the prompt model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

if TYPE_CHECKING:
    from .base import Renderer, unexpressed_fields

__all__ = ["Renderer", "unexpressed_fields"]


__getattr__ = lazy_exports(__name__, dict.fromkeys(__all__, ".base"))
