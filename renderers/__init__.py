"""Prompt formats. Each module is one format; import the one you need (they load lazily).

``from promptwire.renderers.agens import render`` for the Agens front door,
``from promptwire.renderers.agently import AgentlyPrompt`` for Agently's generator.
"""

from .base import Renderer, unexpressed_fields

__all__ = ["Renderer", "unexpressed_fields"]
