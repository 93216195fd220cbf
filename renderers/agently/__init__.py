"""Agently 4.1.4.10's prompt generator, reproduced byte for byte: ``AgentlyPrompt``.

``AgentlyPrompt(prompt, settings=None, *, clock=None)`` takes an Agently prompt dict and answers
``to_text``, ``to_messages``, ``to_prompt_object``, ``to_output_model``,
``to_serializable_prompt_data``, ``to_json_prompt`` and ``to_yaml_prompt`` exactly as Agently does.
Inputs that make Agently crash raise :class:`AgentlyFieldError` (a ``FieldError`` naming the field);
the empty prompt raises :class:`AgentlyEmptyPromptError`, a ``KeyError`` with Agently's message.

``activate()`` makes promptwire the prompt generator of an installed Agently (its plugin manager
registers and activates it), ``deactivate()`` restores Agently's own; see ``plugin``.

The clone of Agently is the private package ``_agently``; beside it, the bridge to the core
``Prompt``: ``renderer`` (the registered ``agently`` format) and ``reader`` (Agently data read into a
``Prompt``).
"""

from ._agently.errors import AgentlyEmptyPromptError, AgentlyFieldError, AgentlyWarning
from ._agently.prompt import AgentlyPrompt
from .plugin import activate, deactivate

__all__ = ["AgentlyEmptyPromptError", "AgentlyFieldError", "AgentlyPrompt", "AgentlyWarning", "activate", "deactivate"]
