"""The renderer-neutral core: the prompt model, output contracts, budgets and errors.

Imports nothing else of the package: the model knows no format, no provider and no syntax.
"""

from .budget import Budget
from .contract import OutputContract
from .errors import (
    FieldError,
    PromptwireError,
    PromptwireWarning,
    RegistrationError,
    SourceError,
    UnknownNameError,
    UnsupportedFieldsError,
    UnsupportedFieldsWarning,
)
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
from .rendered import Message, RenderedPrompt, RenderedSection, RenderWarning

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
    "Message",
    "OutputContract",
    "Prompt",
    "PromptwireError",
    "PromptwireWarning",
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
    "ToolDefinition",
    "ToolResult",
    "UnknownNameError",
    "UnsupportedFieldsError",
    "UnsupportedFieldsWarning",
]
