"""The renderer-neutral core: the prompt model, output contracts, budgets, ``†`` references, the
tool-scheme interface, what a run may touch (permissions) and errors.

Imports nothing else of the package: the model knows no format, no provider and no syntax. The names
below load on first use (PEP 562), so a module that needs only the errors (a front end's start-up,
``asrender check``) does not pay for pydantic and the prompt model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .exports import lazy_exports

if TYPE_CHECKING:
    from .budget import Budget
    from .contract import OutputContract
    from .errors import (
        FieldError,
        ModelOutputError,
        PromptwireError,
        PromptwireWarning,
        ProviderError,
        RegistrationError,
        SourceError,
        UnknownNameError,
        UnsupportedFieldsError,
        UnsupportedFieldsWarning,
    )
    from .permissions import NotAllowed, Permissions
    from .prompt import (
        AudioPart,
        CacheMark,
        ChatTurn,
        ContentPart,
        ContextItem,
        FilePart,
        GenerateConfig,
        Identity,
        ImagePart,
        Prompt,
        PromptCache,
        ReasoningPart,
        Resource,
        Retry,
        Section,
        TextPart,
        ToolCall,
        ToolCallPart,
        ToolDefinition,
        ToolResult,
        ToolResultPart,
        TurnPart,
    )
    from .references import InvalidReference, OutputPathError, UnresolvedReference, resolve, write_output
    from .rendered import Message, RenderedPrompt, RenderedSection, RenderWarning
    from .tools import MemoryOutcome, ToolContext, ToolError, ToolOutcome, ToolScheme

_HOMES: dict[str, str] = {
    **dict.fromkeys(
        (
            "AudioPart",
            "CacheMark",
            "ChatTurn",
            "ContentPart",
            "ContextItem",
            "FilePart",
            "GenerateConfig",
            "Identity",
            "ImagePart",
            "Prompt",
            "PromptCache",
            "ReasoningPart",
            "Resource",
            "Retry",
            "Section",
            "TextPart",
            "ToolCall",
            "ToolCallPart",
            "ToolDefinition",
            "ToolResult",
            "ToolResultPart",
            "TurnPart",
        ),
        ".prompt",
    ),
    **dict.fromkeys(("Budget",), ".budget"),
    **dict.fromkeys(
        (
            "FieldError",
            "ModelOutputError",
            "PromptwireError",
            "PromptwireWarning",
            "ProviderError",
            "RegistrationError",
            "SourceError",
            "UnknownNameError",
            "UnsupportedFieldsError",
            "UnsupportedFieldsWarning",
        ),
        ".errors",
    ),
    **dict.fromkeys(
        ("InvalidReference", "OutputPathError", "UnresolvedReference", "resolve", "write_output"), ".references"
    ),
    **dict.fromkeys(("MemoryOutcome", "ToolContext", "ToolError", "ToolOutcome", "ToolScheme"), ".tools"),
    **dict.fromkeys(("Message", "RenderWarning", "RenderedPrompt", "RenderedSection"), ".rendered"),
    **dict.fromkeys(("OutputContract",), ".contract"),
    **dict.fromkeys(("NotAllowed", "Permissions"), ".permissions"),
}

__all__ = [
    "AudioPart",
    "Budget",
    "CacheMark",
    "ChatTurn",
    "ContentPart",
    "ContextItem",
    "FieldError",
    "FilePart",
    "GenerateConfig",
    "Identity",
    "ImagePart",
    "InvalidReference",
    "MemoryOutcome",
    "Message",
    "ModelOutputError",
    "NotAllowed",
    "OutputContract",
    "OutputPathError",
    "Permissions",
    "Prompt",
    "PromptCache",
    "PromptwireError",
    "PromptwireWarning",
    "ProviderError",
    "ReasoningPart",
    "RegistrationError",
    "RenderWarning",
    "RenderedPrompt",
    "RenderedSection",
    "Resource",
    "Retry",
    "Section",
    "SourceError",
    "TextPart",
    "ToolCall",
    "ToolCallPart",
    "ToolContext",
    "ToolDefinition",
    "ToolError",
    "ToolOutcome",
    "ToolResult",
    "ToolResultPart",
    "ToolScheme",
    "TurnPart",
    "UnknownNameError",
    "UnresolvedReference",
    "UnsupportedFieldsError",
    "UnsupportedFieldsWarning",
    "resolve",
    "write_output",
]


__getattr__ = lazy_exports(__name__, _HOMES)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
