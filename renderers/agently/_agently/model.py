"""Agently's pydantic prompt model, mirrored: what ``to_prompt_object()`` returns.

The renderer itself reads prompts without pydantic (see ``prompt_object``); these classes are the
reference for the inputs its fast path does not recognise, and give ``to_prompt_object()`` the
same ``model_dump()`` / ``model_extra`` as Agently's ``PromptModel``. They are declared exactly as in
agently 4.1.4.10 (``agently/types/data/prompt.py``), because pydantic's union and coercion rules
are part of the behaviour.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, TypeAdapter, model_validator
from typing_extensions import TypedDict

from .declarations import settle_output_format


class AttachmentMessageContent(BaseModel):
    type: str

    model_config = ConfigDict(extra="allow")

    @model_validator(mode="after")
    def suffix(self) -> AttachmentMessageContent:
        if not hasattr(self, self.type):
            setattr(self, self.type, None)
        return self


class TextMessageContent(BaseModel):
    type: Literal["text"]
    text: str


ChatMessageContent = TextMessageContent | AttachmentMessageContent

_LEFT_TO_RIGHT: TypeAdapter[Any] = TypeAdapter(Annotated[ChatMessageContent, Field(union_mode="left_to_right")])


class ChatMessage(BaseModel):
    role: Literal["system", "developer", "tool", "user", "assistant"] | str = "user"
    content: str | list[dict[str, Any] | ChatMessageContent]

    model_config = ConfigDict(extra="allow")


def validate_chat_history(chat_history: Any) -> list[ChatMessage]:
    if chat_history is None:
        return []
    if isinstance(chat_history, dict):
        return [ChatMessage(**chat_history)]
    if isinstance(chat_history, list):
        messages = []
        for message in chat_history:
            if isinstance(message, ChatMessage):
                messages.append(message)
            elif isinstance(message, dict):
                messages.append(ChatMessage(**message))
            else:
                messages.append(ChatMessage(content=str(message)))
        return messages
    return [ChatMessage(content=str(chat_history))]


def validate_attachment(attachment: Any) -> list[Any]:
    if attachment is None:
        return []
    if isinstance(attachment, dict):
        return [_LEFT_TO_RIGHT.validate_python(attachment)]
    if isinstance(attachment, list):
        parts = []
        for content in attachment:
            if isinstance(content, (TextMessageContent, AttachmentMessageContent)):
                parts.append(content)
            elif isinstance(content, dict):
                parts.append(_LEFT_TO_RIGHT.validate_python(content))
            else:
                parts.append(_LEFT_TO_RIGHT.validate_python({"type": "text", "text": str(content)}))
        return parts
    return [_LEFT_TO_RIGHT.validate_python({"type": "text", "text": str(attachment)})]


OutputFormat = Literal["markdown", "text", "json", "flat_markdown", "hybrid", "xml_field", "yaml_literal", "auto"]


class ToolMeta(TypedDict):
    name: str
    desc: str
    kwargs: dict[str, Any]
    returns: NotRequired[Any]


ChatHistory = Annotated[list[ChatMessage], PlainValidator(validate_chat_history)]
Attachment = Annotated[list[ChatMessageContent], PlainValidator(validate_attachment)]


class PromptModel(BaseModel):
    system: Any = None
    developer: Any = None
    chat_history: ChatHistory = []
    info: Any = None
    tools: list[ToolMeta] | None = None
    action_results: Any = None
    instruct: Any = None
    examples: Any = None
    input: Any = None
    attachment: Attachment = []
    output: Any = None
    ensure_all_keys: bool = False
    output_format: OutputFormat | Any = None
    output_format_resolved_from_auto: bool = False
    options: dict[str, Any] = {}

    model_config = ConfigDict(extra="allow")

    @model_validator(mode="after")
    def set_output_format(self) -> PromptModel:
        output, output_format, from_auto = settle_output_format(self.output, self.output_format)
        self.output = output
        self.output_format = output_format
        if from_auto:
            self.output_format_resolved_from_auto = True
        return self


content_adapter: TypeAdapter[Any] = TypeAdapter(ChatMessageContent)
"""The generator's own (smart-mode) validator for chat-history parts."""

attachment_adapter: TypeAdapter[Any] = TypeAdapter(Attachment)
tools_adapter: TypeAdapter[Any] = TypeAdapter(list[ToolMeta] | None)
bool_adapter: TypeAdapter[Any] = TypeAdapter(bool)
options_adapter: TypeAdapter[Any] = TypeAdapter(dict[str, Any])
format_adapter: TypeAdapter[Any] = TypeAdapter(OutputFormat | Any)
