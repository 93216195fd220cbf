"""``openai-responses``: OpenAI's Responses API, the option beside Chat Completions.

The same client, key, base URL and error classes as the ``openai`` adapter; the request takes the
Responses form (``instructions`` for the system text, ``input`` messages with ``input_text`` /
``input_image`` parts, ``text.format`` for the schema, ``reasoning.effort``, ``max_output_tokens``)
and the reply gives ``output_text``, the reasoning summary, usage and tool calls.

A conversation goes as input items: the adapter's own reasoning back as the ``reasoning`` item it
came as (its id, summary and encrypted content; another provider's left out with a note), an
assistant's text as ``output_text``, its tool calls as ``function_call`` items with the model's own
argument text, their results as ``function_call_output`` items; calls and outputs that do not
pair are refused, naming the turn. The API caches by itself: breakpoints are noted, the prompt's
cache key and retention sent (``prompt_cache_key``, ``prompt_cache_retention``). The reply's
output items are its :attr:`Reply.turn`. A function call's item id (``fc_...``) and a message's
(``msg_...``) have no place in a turn, so they do not go back.

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
from ..core.json_text import json_object
from ..core.prompt import ChatTurn, GenerateConfig, ReasoningPart, TextPart, ToolCall, ToolCallPart, TurnPart
from ..core.rendered import Message, RenderedPrompt
from .base import StreamReader, part_left_out, returns_left_out, tool_arguments, usage_of
from .openai import SCHEMA_NAME, OpenAIAdapter, _text_piece
from .status import missing_part, refused, stream_failure
from .turns import CONVERSATION_KINDS, ToolIds, foreign_reasoning, holds_conversation_parts, turn_error

__all__ = ["OpenAIResponsesAdapter", "adapter"]


class OpenAIResponsesAdapter(OpenAIAdapter):
    name = "openai-responses"
    description = "OpenAI Responses API through the official SDK (pip install 'promptwire[openai]')"
    path = "responses"
    stream_flags: ClassVar[Mapping[str, Any]] = {"stream": True}  # the usage comes with the closing event
    reply_type: ClassVar[str] = "openai.types.responses:Response"
    event_type: ClassVar[str] = "openai.types.responses:ResponseStreamEvent"
    count_endpoint: ClassVar[str | None] = "POST /v1/responses/input_tokens"
    count_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "model",
            "input",
            "instructions",
            "tools",
            "tool_choice",
            "parallel_tool_calls",
            "text",
            "reasoning",
            "truncation",
            "conversation",
            "previous_response_id",
            "personality",
        }
    )
    """The body fields ``POST /v1/responses/input_tokens`` takes (its reference, and the SDK's
    ``responses.input_tokens.count``): what the model reads. ``max_output_tokens``, ``temperature``,
    ``stream``, ``store``, ``prompt_cache_key`` and ``prompt_cache_retention`` are left out."""
    count_path: ClassVar[str] = "responses/input_tokens"

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        notes: list[str] = []
        instructions = []
        leading = True
        for index, message in enumerate(rendered.messages):
            if message.role not in ("system", "developer") or not isinstance(message.content, str):
                leading = False
                continue
            instructions.append(message.content)
            if message.role == "developer":
                notes.append(f"messages[{index}]: developer text is sent as part of instructions")
            elif not leading:
                notes.append(f"messages[{index}]: system text is sent as part of instructions, before the input")
        kwargs: dict[str, Any] = {"model": self.model_name(model)}
        if instructions:
            kwargs["instructions"] = "\n\n".join(instructions)
        writer = _ItemWriter(notes, self.name)
        items: list[dict[str, Any]] = []
        for index, message in enumerate(rendered.messages):
            if message.name is not None and message.role != "tool":  # a tool's name is its call's
                notes.append(
                    f"messages[{index}]: Responses input messages have no speaker name; {message.name!r} left out"
                )
            if message.role in ("system", "developer") and isinstance(message.content, str):
                continue
            items.extend(writer.items(message, index))
        writer.check_answered()
        notes.extend(writer.ids.notes())
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
        marked = _breakpoints(rendered)
        if marked:
            notes.append(
                f"cache breakpoints left out ({', '.join(marked)}): {_API} caches a request's prefix by itself "
                "and takes no breakpoints (prompt_cache_key and prompt_cache_retention steer it)"
            )
        if rendered.cache is not None and rendered.cache.key is not None:
            kwargs["prompt_cache_key"] = rendered.cache.key
        if rendered.cache is not None and rendered.cache.retention is not None:
            kwargs["prompt_cache_retention"] = rendered.cache.retention
        return ProviderRequest(kwargs, tuple(notes))

    def stream_reader(self) -> StreamReader:
        return EventReader()

    def post_count(self, client: Any, body: bytes) -> Any:
        from openai.types.responses import InputTokenCountResponse

        return client.post("/" + self.count_path, cast_to=InputTokenCountResponse, content=body)

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
            turn=ChatTurn(role="assistant", content=[part for item in output for part in _turn_parts(item, self.name)]),
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


class _ItemWriter:
    """Rendered messages as Responses input items: text and media as messages, an assistant's
    text as ``output_text``, its tool calls as ``function_call`` items (the model's own argument
    text when kept), their results as ``function_call_output`` items, and its reasoning as the
    ``reasoning`` item it came back as. A conversation whose calls and outputs do not pair is
    refused here, naming the turn, as the API would refuse it. Reasoning goes back to the
    ``provider`` (the adapter's name) that gave it only: Azure's and OpenAI's are not each other's."""

    def __init__(self, notes: list[str], provider: str) -> None:
        self.notes = notes
        self.provider = provider
        self.calls: dict[str, int] = {}
        """Each tool call of the conversation's parts (its id), and the message it is in."""
        self.answered: set[str] = set()
        self.ids = ToolIds(_API, "!-~", 64)
        """Call ids as the API takes them: at most 64 characters (printable ASCII, to be safe)."""

    def items(self, message: Message, index: int) -> list[dict[str, Any]]:
        if message.tool_calls:  # the one-round calls (``Prompt.tool_calls``)
            return [
                {
                    "type": "function_call",
                    "call_id": self.ids(str(c.id)),
                    "name": c.name,
                    "arguments": json.dumps(c.arguments),
                }
                for c in message.tool_calls
            ]
        if message.role == "tool" and message.tool_call_id is not None:  # a one-round result
            if message.is_error:
                self.notes.append(f"messages[{index}]: {_NO_ERROR_FLAG}")
            output = {
                "type": "function_call_output",
                "call_id": self.ids(message.tool_call_id),
                "output": message.content,
            }
            return [output]
        role = message.role if message.role in ("user", "assistant", "system", "developer") else "user"
        if isinstance(message.content, str):
            return [{"role": role, "content": message.content}]
        items: list[dict[str, Any]] = []
        shown: list[dict[str, Any]] = []  # the message's text and media since the last item of another kind
        shown_item: str | None = None  # the reply's message item they came in, when they came in one
        for position, part in enumerate(message.content):
            kind = part.get("type")
            if kind not in CONVERSATION_KINDS:
                converted = _content_part(part, role)
                if converted is None:
                    self.notes.append(part_left_out(index, position, _API, kind))
                    continue
                item_id = part.get("item_id") if role == "assistant" else None
                if shown and item_id != shown_item:
                    items.append(_message_item(role, shown, shown_item))
                    shown = []
                shown.append(converted)
                shown_item = item_id
                continue
            if shown:
                items.append(_message_item(role, shown, shown_item))
                shown = []
            item = self._item(part, index, position, role)
            if item is not None:
                items.append(item)
        if shown or not (items or holds_conversation_parts(message.content)):
            items.append(_message_item(role, shown, shown_item if shown else None))
        elif not items:  # every part was left out, each with its note
            self.notes.append(f"messages[{index}]: nothing of this turn can go to {_API}; left out")
        return items

    def check_answered(self) -> None:
        """Every tool call of the conversation answered by an output after it (the API refuses a
        call without one)."""
        for call, index in self.calls.items():
            if call not in self.answered:
                raise turn_error(
                    index,
                    f"tool call {call!r} has no output after it ({_API} requires one for every function_call)",
                )

    def _item(self, part: dict[str, Any], index: int, position: int, role: str) -> dict[str, Any] | None:
        kind = part["type"]
        if kind == "reasoning":
            return self._reasoning(part, index, position, role)
        if kind == "tool_call":
            where = f"content[{position}]: tool call {part['name']!r}"
            if role != "assistant":
                raise turn_error(index, f"{where} is in a {role} turn; {_API} takes tool calls from the assistant")
            if part.get("id") is None:
                raise turn_error(index, f"{where} has no id, which {_API} needs (call_id) to pair it with its output")
            if part["id"] in self.calls:
                raise turn_error(
                    index, f"{where}: its id {part['id']!r} is an earlier call's ({_API} pairs calls and outputs by id)"
                )
            self.calls[part["id"]] = index
            text = part.get("arguments_text")
            arguments = text if text is not None else json.dumps(part["arguments"])
            item: dict[str, Any] = {"type": "function_call"}
            if part.get("item_id") is not None:  # the reply's own item: the reasoning before it pairs with it
                item["id"] = part["item_id"]
            item |= {"call_id": self.ids(part["id"]), "name": part["name"], "arguments": arguments}
            if "id" in item:
                item["status"] = "completed"
            return item
        call = part["call_id"]
        if call not in self.calls:
            raise turn_error(index, f"content[{position}]: the tool result for {call!r} answers no tool call before it")
        if call in self.answered:
            raise turn_error(index, f"content[{position}]: the tool call {call!r} is answered twice")
        self.answered.add(call)
        if part.get("is_error"):
            self.notes.append(f"messages[{index}].content[{position}]: {_NO_ERROR_FLAG}")
        if part.get("name") is not None:
            self.notes.append(
                f"messages[{index}].content[{position}]: Responses function outputs are sent without their tool's "
                "name; the tool is known by its call id"
            )
        content = part["content"]
        if not isinstance(content, str):
            output: list[dict[str, Any]] = []
            for inner, shown in enumerate(content):
                converted = _content_part(shown, "user")
                if converted is None:
                    where = f"messages[{index}].content[{position}].content[{inner}]"
                    self.notes.append(f"{where}: {_API} cannot carry this {shown.get('type')} part; left out")
                else:
                    output.append(converted)
            content = output
        return {"type": "function_call_output", "call_id": self.ids(call), "output": content}

    def _reasoning(self, part: dict[str, Any], index: int, position: int, role: str) -> dict[str, Any] | None:
        """The reasoning item as the API returned it (its id, summary, reasoning text and
        encrypted content); reasoning of another provider, or without its id, left out with a note."""
        foreign = foreign_reasoning(part, self.provider, index, position)
        where = f"messages[{index}].content[{position}]"
        if foreign is not None:
            self.notes.append(foreign)
        elif role != "assistant":
            self.notes.append(f"{where}: {_API} takes reasoning from the assistant only; left out")
        elif part.get("id") is None:
            self.notes.append(
                f"{where}: reasoning without its item id cannot be sent back to {self.provider}; left out"
            )
        else:
            item: dict[str, Any] = {
                "type": "reasoning",
                "id": part["id"],
                "summary": [{"type": "summary_text", "text": text} for text in part.get("summary") or []],
            }
            if part.get("text") is not None:
                item["content"] = [{"type": "reasoning_text", "text": part["text"]}]
            if part.get("encrypted") is not None:
                item["encrypted_content"] = part["encrypted"]
            return item
        return None


_API = "the Responses API"
_NO_ERROR_FLAG = "Responses function outputs cannot mark an error; sent as is"


def _content_part(part: dict[str, Any], role: str) -> dict[str, Any] | None:
    """A text or media part as the Responses API takes it in a message of ``role`` (an assistant's
    message holds its text only, as ``output_text``); ``None`` for one it cannot carry."""
    kind = part.get("type")
    if kind == "text":
        return {"type": "output_text" if role == "assistant" else "input_text", "text": part["text"]}
    if role == "assistant":
        return None
    if kind == "image_url":
        image = part["image_url"]
        return {"type": "input_image", "image_url": image["url"], "detail": image.get("detail", "auto")}
    if kind == "file":
        return {"type": "input_file", **part["file"]}
    return None


def _breakpoints(rendered: RenderedPrompt) -> list[str]:
    """Where the render marks a cache breakpoint (a message, a part, a tool result's part, the tools)."""
    marked: list[str] = []
    for index, message in enumerate(rendered.messages):
        if isinstance(message.content, list):
            for position, part in enumerate(message.content):
                if part.get("cache") is not None:
                    marked.append(f"messages[{index}].content[{position}]")
                inner = part.get("content") if part.get("type") == "tool_result" else None
                for number, shown in enumerate(inner if isinstance(inner, list) else []):
                    if shown.get("cache") is not None:
                        marked.append(f"messages[{index}].content[{position}].content[{number}]")
        if message.cache is not None:
            marked.append(f"messages[{index}]")
    if rendered.cache is not None and rendered.cache.tools is not None:
        marked.append("cache.tools")
    return marked


def _message_item(role: str, content: list[dict[str, Any]], item_id: str | None) -> dict[str, Any]:
    """A message's content as an input item: the reply's own output message again (its id and
    status, which the API wants after the reasoning that came before it) when it came as one,
    else a message of the role."""
    if item_id is None:
        return {"role": role, "content": content}
    return {"type": "message", "id": item_id, "role": role, "status": "completed", "content": content}


def _turn_parts(item: Any, provider: str) -> list[TurnPart]:
    """A reply's output item as parts of the assistant turn it goes back as: reasoning with its id,
    summary, text and encrypted content; a message's text; a function call with its call id and
    the model's own argument text. Other items (a built-in tool's) have no part. Reasoning is
    marked as ``provider``'s (the adapter's name), the only one it goes back to."""
    kind = getattr(item, "type", None)
    if kind == "reasoning":
        content = [part.text for part in (getattr(item, "content", None) or []) if part.type == "reasoning_text"]
        return [
            ReasoningPart(
                text="".join(content) if content else None,
                summary=[part.text for part in (item.summary or [])],
                encrypted=getattr(item, "encrypted_content", None),
                provider=provider,
                id=item.id,
            )
        ]
    if kind == "message":
        return [
            TextPart(text=part.text, item_id=item.id) for part in (item.content or []) if part.type == "output_text"
        ]
    if kind == "function_call":
        arguments = item.arguments
        call = ToolCallPart(id=item.call_id, name=item.name, arguments=json_object(arguments), arguments_text=arguments)
        call.item_id = getattr(item, "id", None)
        return [call]
    return []


adapter = OpenAIResponsesAdapter()
