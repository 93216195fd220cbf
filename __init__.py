"""promptwire: turns an agent's intent into the exact bytes a language model receives.

Front ends build a :class:`Prompt`; a renderer (chosen by name, pluggable) turns it into a
:class:`RenderedPrompt`; adapters turn that into a provider request.

The names below load on first use (PEP 562), so importing a submodule (``promptwire.testing``'s
pytest plugin, which every pytest run of a project with promptwire installed imports) does not pay
for pydantic and the core model.
"""

from __future__ import annotations

# First, before typing (not loaded at start-up): python -m promptwire takes the current folder off sys.path.
from . import _module_entry  # noqa: F401  # isort: skip
import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .adapters.function import FunctionAdapter
    from .api import (
        acount_tokens,
        agenerate,
        arun,
        astream,
        build_request,
        count_tokens,
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
        CacheMark,
        ChatTurn,
        ContextItem,
        FieldError,
        GenerateConfig,
        Identity,
        Message,
        ModelOutputError,
        OutputContract,
        Prompt,
        PromptCache,
        PromptwireError,
        ProviderError,
        ReasoningPart,
        RenderedPrompt,
        Section,
        TextPart,
        ToolCallPart,
        ToolResultPart,
    )
    from .core.rendered import RenderWarning
    from .plugins import PluginHost, hookimpl

_HOMES: dict[str, str] = {
    **dict.fromkeys(
        (
            "acount_tokens",
            "agenerate",
            "arun",
            "astream",
            "build_request",
            "count_tokens",
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
            "CacheMark",
            "ChatTurn",
            "ContextItem",
            "FieldError",
            "GenerateConfig",
            "Identity",
            "Message",
            "ModelOutputError",
            "OutputContract",
            "Prompt",
            "PromptCache",
            "PromptwireError",
            "ProviderError",
            "ReasoningPart",
            "RenderedPrompt",
            "Section",
            "TextPart",
            "ToolCallPart",
            "ToolResultPart",
        ),
        ".core",
    ),
    "RenderWarning": ".core.rendered",
    "check_output": ".calls.output_check",
    "FunctionAdapter": ".adapters.function",
    "Recorder": ".calls.recording",
    "Recording": ".calls.recording",
    "PluginHost": ".plugins",
    "hookimpl": ".plugins",
}

__all__ = [
    "Budget",
    "CacheMark",
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
    "PromptCache",
    "PromptwireError",
    "ProviderError",
    "ReasoningPart",
    "Recorder",
    "Recording",
    "RenderWarning",
    "RenderedPrompt",
    "Section",
    "TextPart",
    "ToolCallPart",
    "ToolResultPart",
    "acount_tokens",
    "agenerate",
    "arun",
    "astream",
    "build_request",
    "check_output",
    "count_tokens",
    "generate",
    "hookimpl",
    "read",
    "render",
    "renderers_available",
    "run",
    "stream",
]


def __getattr__(name: str) -> Any:
    # Not core.exports.lazy_exports: importing it would import promptwire.core, which every pytest
    # run of a project with promptwire installed would pay for (the snapshot fixture imports this).
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'promptwire' has no attribute {name!r}")
    value = getattr(importlib.import_module(home, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
