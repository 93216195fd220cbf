"""``openai-responses``: OpenAI's Responses API, the option beside Chat Completions.

The same client, key, base URL and error classes as the ``openai`` adapter; the request takes the
Responses form (``instructions`` for the system text, ``input`` messages with ``input_text`` /
``input_image`` parts, ``text.format`` for the schema, ``reasoning.effort``, ``max_output_tokens``)
and the reply gives ``output_text``, the reasoning summary, usage and tool calls.

Streamed (``"stream": true``), the text comes from the ``response.output_text.delta`` events, and
the whole reply is the ``response`` of the closing ``response.completed`` (or
``response.incomplete``) event, usage included; a ``response.failed`` or ``error`` event is the
provider's failure, a stream without a closing event one cut short.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from ..core.call import ProviderRequest, Reply, cut_short
from ..core.contract import OutputContract
from ..core.prompt import GenerateConfig, ToolCall
from ..core.rendered import Message, RenderedPrompt
from .base import StreamReader, part_left_out, returns_left_out, tool_arguments, usage_of
from .openai import SCHEMA_NAME, OpenAIAdapter, _text_piece
from .status import missing_part, refused, stream_failure

__all__ = ["OpenAIResponsesAdapter", "adapter"]


class OpenAIResponsesAdapter(OpenAIAdapter):
    name = "openai-responses"
    description = "OpenAI Responses API through the official SDK (pip install 'promptwire[openai]')"
    path = "responses"
    stream_flags: ClassVar[Mapping[str, Any]] = {"stream": True}  # the usage comes with the closing event
    reply_type: ClassVar[str] = "openai.types.responses:Response"
    event_type: ClassVar[str] = "openai.types.responses:ResponseStreamEvent"

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        notes: list[str] = []
        instructions = [
            m.content for m in rendered.messages if m.role in ("system", "developer") and isinstance(m.content, str)
        ]
        kwargs: dict[str, Any] = {"model": self.model_name(model)}
        if instructions:
            kwargs["instructions"] = "\n\n".join(instructions)
        items: list[dict[str, Any]] = []
        for index, message in enumerate(rendered.messages):
            if message.role in ("system", "developer") and isinstance(message.content, str):
                continue
            items.extend(_items(message, index, notes))
        kwargs["input"] = items
        if contract is not None:
            kwargs["text"] = {
                "format": {
                    "type": "json_schema",
                    "name": contract.name or SCHEMA_NAME,
                    "schema": contract.json_schema,
                    "strict": config.strict,
                }
            }
        if config.temperature is not None:
            kwargs["temperature"] = config.temperature
        effort = self.effort(config)
        if effort is not None:
            kwargs["reasoning"] = {"effort": effort, "summary": "auto"}
        elif config.think == "auto":
            notes.append("think 'auto' has no Responses setting: reasoning is left to the model")
        if config.max_output is not None:
            kwargs["max_output_tokens"] = config.max_output.output_tokens
        if rendered.tools:
            kwargs["tools"] = [
                {"type": "function", "name": t.name, "description": t.description, "parameters": self.parameters(t)}
                for t in rendered.tools
            ]
            notes.extend(returns_left_out(rendered.tools, "Responses API"))
        return ProviderRequest(kwargs, tuple(notes))

    def stream_reader(self) -> StreamReader:
        return EventReader()

    def reply(self, raw: Any) -> Reply:
        output = getattr(raw, "output", None)
        if not isinstance(output, list):
            raise missing_part("LLM provider response is missing 'output'", raw)
        refusals = [
            part.refusal
            for item in output
            if getattr(item, "type", None) == "message"
            for part in (item.content or [])
            if getattr(part, "type", None) == "refusal"
        ]
        if refusals:
            raise refused("\n".join(refusals))
        summaries = [
            part.text for item in output if getattr(item, "type", None) == "reasoning" for part in (item.summary or [])
        ]
        calls = tuple(
            ToolCall(name=item.name, id=item.call_id, arguments=tool_arguments(item.arguments))
            for item in output
            if getattr(item, "type", None) == "function_call"
        )
        incomplete = getattr(raw, "incomplete_details", None)
        return Reply(
            text=raw.output_text,
            raw=raw,
            reasoning="\n".join(summaries) or None,
            usage=usage_of(raw),
            finish_reason=incomplete.reason if incomplete is not None else raw.status,
            tool_calls=calls,
        )


class EventReader:
    """Responses stream events: the text of each ``response.output_text.delta``, and the response
    of the closing event as the whole reply."""

    def __init__(self) -> None:
        self.response: Any = None

    def feed(self, event: Any) -> str | None:
        kind = event.type
        if kind == "response.output_text.delta":
            return _text_piece(event.delta)
        if kind in ("response.completed", "response.incomplete"):
            self.response = event.response
        elif kind == "response.failed":
            error = event.response.error
            raise stream_failure({"code": getattr(error, "code", None), "message": getattr(error, "message", None)})
        elif kind == "error":
            raise stream_failure({"code": event.code, "message": event.message})
        return None

    def whole(self) -> Any:
        if self.response is None:
            raise cut_short()
        return self.response


def _items(message: Message, index: int, notes: list[str]) -> list[dict[str, Any]]:
    if message.tool_calls:
        return [
            {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": json.dumps(c.arguments)}
            for c in message.tool_calls
        ]
    if message.role == "tool" and message.tool_call_id is not None:
        if message.is_error:
            notes.append(f"messages[{index}]: Responses function outputs cannot mark an error; sent as is")
        return [{"type": "function_call_output", "call_id": message.tool_call_id, "output": message.content}]
    role = message.role if message.role in ("user", "assistant", "system", "developer") else "user"
    if isinstance(message.content, str):
        return [{"role": role, "content": message.content}]
    parts: list[dict[str, Any]] = []
    for position, part in enumerate(message.content):
        kind = part.get("type")
        if kind == "text":
            parts.append({"type": "input_text", "text": part["text"]})
        elif kind == "image_url":
            image = part["image_url"]
            parts.append({"type": "input_image", "image_url": image["url"], "detail": image.get("detail", "auto")})
        elif kind == "file":
            parts.append({"type": "input_file", **part["file"]})
        else:
            notes.append(part_left_out(index, position, "the Responses API", kind))
    return [{"role": role, "content": parts}]


adapter = OpenAIResponsesAdapter()
