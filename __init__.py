"""promptwire: turns an agent's intent into the exact bytes a language model receives.

Front ends build a :class:`Prompt`; a renderer (chosen by name, pluggable) turns it into a
:class:`RenderedPrompt`; adapters turn that into a provider request.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from .core import (
    Budget,
    ChatTurn,
    ContextItem,
    FieldError,
    GenerateConfig,
    Identity,
    Message,
    OutputContract,
    Prompt,
    PromptwireError,
    RenderedPrompt,
    Section,
)
from .core.errors import UnsupportedFieldsWarning
from .core.rendered import RenderWarning, warning_lines
from .core.validation import validate_model
from .plugins import PluginHost, default_host, hookimpl

__all__ = [
    "Budget",
    "ChatTurn",
    "ContextItem",
    "FieldError",
    "GenerateConfig",
    "Identity",
    "Message",
    "OutputContract",
    "PluginHost",
    "Prompt",
    "PromptwireError",
    "RenderWarning",
    "RenderedPrompt",
    "Section",
    "hookimpl",
    "render",
    "renderers_available",
]


def render(
    prompt: Prompt | Mapping[str, Any],
    format: str = "agentscript",
    *,
    host: PluginHost | None = None,
    **options: Any,
) -> RenderedPrompt:
    """Render ``prompt`` in the named format.

    ``prompt`` may be a :class:`Prompt` or plain data in its shape (validated; a bad field raises
    :class:`FieldError` naming it). ``options`` go to the renderer (e.g. ``strict=True`` turns the
    "fields this format cannot express" warning into an error).
    """
    model = validate_model(Prompt, prompt, root="prompt")
    host = host or default_host()
    renderer = host.renderer(format)
    if isinstance(options.get("layout"), str):  # a format name, as on the command line
        options["layout"] = host.renderer(options["layout"])
    result: RenderedPrompt = renderer.render(model, **options)
    for line in warning_lines(result.warnings):
        warnings.warn(line, UnsupportedFieldsWarning, stacklevel=2)
    return result


def renderers_available(host: PluginHost | None = None) -> tuple[str, ...]:
    """Names of every registered format, built-in and plugin, in registration order."""
    return (host or default_host()).renderers.names()
