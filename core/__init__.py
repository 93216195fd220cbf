"""The renderer-neutral core: the prompt model, output contracts, budgets, ``†`` references, the
tool-scheme interface, what a run may touch (permissions) and errors.

Imports nothing else of the package: the model knows no format, no provider and no syntax.
"""

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
    ChatTurn,
    ContentPart,
    ContextItem,
    FilePart,
    GenerateConfig,
    Identity,
    ImagePart,
    Prompt,
    Resource,
    Retry,
    Section,
    TextPart,
    ToolCall,
    ToolDefinition,
    ToolResult,
)
from .references import InvalidReference, OutputPathError, UnresolvedReference, resolve, write_output
from .rendered import Message, RenderedPrompt, RenderedSection, RenderWarning
from .tools import MemoryOutcome, ToolContext, ToolError, ToolOutcome, ToolScheme

__all__ = [
    "AudioPart",
    "Budget",
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
    "PromptwireError",
    "PromptwireWarning",
    "ProviderError",
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
    "ToolContext",
    "ToolDefinition",
    "ToolError",
    "ToolOutcome",
    "ToolResult",
    "ToolScheme",
    "UnknownNameError",
    "UnresolvedReference",
    "UnsupportedFieldsError",
    "UnsupportedFieldsWarning",
    "resolve",
    "write_output",
]
