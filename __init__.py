"""promptwire: turns an agent's intent into the exact bytes a language model receives.

Front ends build a :class:`Prompt`; a renderer (chosen by name, pluggable) turns it into a
:class:`RenderedPrompt`; adapters turn that into a provider request.

The names below load on first use (PEP 562), so importing a submodule (``promptwire.testing``'s
pytest plugin, which every pytest run of a project with promptwire installed imports) does not pay
for pydantic and the core model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .adapters.function import FunctionAdapter
    from .api import (
        agenerate,
        arun,
        astream,
        build_request,
        generate,
        read,
        render,
        renderers_available,
        run,
        stream,
    )
    from .calls.output_check import check_output
    from .calls.recording import Recorder, Recording
    from .core import (
        Budget,
        ChatTurn,
        ContextItem,
        FieldError,
        GenerateConfig,
        Identity,
        Message,
        ModelOutputError,
        OutputContract,
        Prompt,
        PromptwireError,
        ProviderError,
        RenderedPrompt,
        Section,
    )
    from .core.rendered import RenderWarning
    from .plugins import PluginHost, hookimpl

_HOMES: dict[str, str] = {
    **dict.fromkeys(
        (
            "agenerate",
            "arun",
            "astream",
            "build_request",
            "generate",
            "read",
            "render",
            "renderers_available",
            "run",
            "stream",
        ),
        ".api",
    ),
    **dict.fromkeys(
        (
            "Budget",
            "ChatTurn",
            "ContextItem",
            "FieldError",
            "GenerateConfig",
            "Identity",
            "Message",
            "ModelOutputError",
            "OutputContract",
            "Prompt",
            "PromptwireError",
            "ProviderError",
            "RenderedPrompt",
            "Section",
        ),
        ".core",
    ),
    "RenderWarning": ".core.rendered",
    "check_output": ".calls.output_check",
    "FunctionAdapter": ".adapters.function",
    "Recorder": ".core.recording",
    "Recording": ".core.recording",
    "PluginHost": ".plugins",
    "hookimpl": ".plugins",
}

__all__ = [
    "Budget",
    "ChatTurn",
    "ContextItem",
    "FieldError",
    "FunctionAdapter",
    "GenerateConfig",
    "Identity",
    "Message",
    "ModelOutputError",
    "OutputContract",
    "PluginHost",
    "Prompt",
    "PromptwireError",
    "ProviderError",
    "Recorder",
    "Recording",
    "RenderWarning",
    "RenderedPrompt",
    "Section",
    "agenerate",
    "arun",
    "astream",
    "build_request",
    "check_output",
    "generate",
    "hookimpl",
    "read",
    "render",
    "renderers_available",
    "run",
    "stream",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'promptwire' has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
