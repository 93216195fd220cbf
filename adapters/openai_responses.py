"""``openai-responses``: OpenAI's Responses API, the option beside Chat Completions.

The same client, key, base URL and error classes as the ``openai`` adapter; the request takes the
Responses form (``instructions`` for the system text, ``input`` messages with ``input_text`` /
``input_image`` parts, ``text.format`` for the schema, ``reasoning.effort``, ``max_output_tokens``)
and the reply gives ``output_text``, the reasoning summary, usage and tool calls.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.contract import OutputContract
from ..core.generate import ProviderRequest, Reply
from ..core.prompt import GenerateConfig, ToolCall
from ..core.rendered import Message, RenderedPrompt
from .base import part_left_out, returns_left_out, tool_arguments, usage_of
from .openai import SCHEMA_NAME, OpenAIAdapter
from .status import missing_part, refused

__all__ = ["OpenAIResponsesAdapter", "adapter"]


class OpenAIResponsesAdapter(OpenAIAdapter):
    name = "openai-responses"
    description = "OpenAI Responses API through the official SDK (pip install 'promptwire[openai]')"
    path = "responses"

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

    def post(self, client: Any, body: bytes) -> Any:
        from openai.types.responses import Response

        return client.post("/responses", cast_to=Response, content=body)

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
