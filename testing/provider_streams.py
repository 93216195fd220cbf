"""How each provider streams a reply, for the fake provider (:mod:`.provider_servers`): the events
it sends, in its own wire format, for the reply it would otherwise have sent whole.

* OpenAI Chat Completions: server-sent events, each ``data:`` a ``chat.completion.chunk`` (the
  role first, then the text, refusal and tool-call arguments in pieces, then the finish reason),
  with the usage in a last chunk without choices only when the request asks for it
  (``stream_options.include_usage``), then ``data: [DONE]``.
* OpenAI Responses: named events (``response.created``, ``response.output_item.added``,
  ``response.output_text.delta``... ``response.completed``, whose response carries the usage),
  each with its ``sequence_number``.
* Anthropic Messages: named events (``message_start`` with the input tokens, ``ping``,
  ``content_block_start`` / ``_delta`` / ``_stop`` for text, thinking, its signature and tool input
  JSON, redacted thinking whole in its start, ``message_delta`` with the stop reason and the
  output tokens, ``message_stop``).
* Ollama: NDJSON lines, each a chat response with a piece of the message and ``done: false``, the
  last with ``done: true``, the done reason and the token counts.

Text goes in pieces of one word each (with the space after it), as a model's tokens would. Each
protocol also has its error event, sent in the middle of a stream: OpenAI's ``{"error": {...}}``
chunk, the Responses ``error`` event, Anthropic's ``error`` event, an Ollama ``{"error": ...}`` line.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["STREAMS", "ProtocolStream", "pieces"]

_WORDS = re.compile(r"\S+\s*|\s+")


def pieces(text: str) -> list[str]:
    """``text`` in the pieces a stream sends it in: a word each, with the space after it."""
    return _WORDS.findall(text)


def _sse(data: Any, event: str | None = None) -> bytes:
    named = f"event: {event}\n" if event else ""
    return f"{named}data: {json.dumps(data)}\n\n".encode()


@dataclass(frozen=True)
class ProtocolStream:
    """One protocol's stream: its content type, the events of a reply (and how many of them make
    its opening: up to the first piece of text), and its error event."""

    content_type: str
    events: Callable[[dict[str, Any], dict[str, Any]], tuple[list[bytes], int]]
    """``events(reply, request)``: every event of the reply's stream, and the length of its opening."""
    error: Callable[[str], bytes]
    """``error(kind)``: the error event for ``"server"`` (the provider failed) or ``"rate"`` (a rate limit)."""


def _chat_events(reply: dict[str, Any], request: dict[str, Any]) -> tuple[list[bytes], int]:
    usage_asked = (request.get("stream_options") or {}).get("include_usage") is True
    head = {"id": reply.get("id"), "object": "chat.completion.chunk", "created": 0, "model": reply.get("model")}
    if usage_asked:
        head["usage"] = None  # every chunk says it has none, until the last

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return _sse({**head, "choices": [choice]})

    choice = reply["choices"][0]
    message = choice["message"]
    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    events += [chunk({"reasoning_content": piece}) for piece in pieces(message.get("reasoning_content") or "")]
    opening = len(events) + 1
    events += [chunk({"content": piece}) for piece in pieces(message.get("content") or "")]
    events += [chunk({"refusal": piece}) for piece in pieces(message.get("refusal") or "")]
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        opened = {"index": index, "id": call["id"], "type": "function", "function": {"name": function["name"]}}
        events.append(chunk({"tool_calls": [{**opened, "function": {**opened["function"], "arguments": ""}}]}))
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
            for piece in pieces(function["arguments"])
        ]
    events.append(chunk({}, choice["finish_reason"]))
    if usage_asked:
        events.append(_sse({**head, "choices": [], "usage": reply.get("usage")}))
    events.append(b"data: [DONE]\n\n")
    return events, opening


def _chat_error(kind: str) -> bytes:
    if kind == "rate":
        error = {"message": "Rate limit reached", "type": "requests", "param": None, "code": "rate_limit_exceeded"}
    else:
        error = {"message": "The server had an error while processing your request.", "type": "server_error"}
        error |= {"param": None, "code": None}
    return _sse({"error": error})


def _responses_events(reply: dict[str, Any], request: dict[str, Any]) -> tuple[list[bytes], int]:
    numbers = itertools.count()

    def event(kind: str, **fields: Any) -> bytes:
        return _sse({"type": kind, "sequence_number": next(numbers), **fields}, event=kind)

    pending = {**reply, "status": "in_progress", "output": [], "usage": None}
    events = [event("response.created", response=pending), event("response.in_progress", response=pending)]
    opening = 0
    for index, item in enumerate(reply["output"]):
        where = {"item_id": item.get("id"), "output_index": index}
        kind = item.get("type")
        if kind == "message":
            events.append(event("response.output_item.added", output_index=index, item={**item, "content": []}))
            for position, part in enumerate(item["content"]):
                at = {**where, "content_index": position}
                if part["type"] == "output_text":
                    empty, name, field = {**part, "text": ""}, "output_text", "text"
                else:
                    empty, name, field = {**part, "refusal": ""}, "refusal", "refusal"
                events.append(event("response.content_part.added", **at, part=empty))
                opening = opening or len(events) + 1
                events += [event(f"response.{name}.delta", **at, delta=piece) for piece in pieces(part[field])]
                events.append(event(f"response.{name}.done", **at, **{field: part[field]}))
                events.append(event("response.content_part.done", **at, part=part))
        elif kind == "reasoning":
            events.append(event("response.output_item.added", output_index=index, item={**item, "summary": []}))
            for position, summary in enumerate(item.get("summary") or []):
                at = {**where, "summary_index": position}
                deltas = pieces(summary["text"])
                events += [event("response.reasoning_summary_text.delta", **at, delta=piece) for piece in deltas]
                events.append(event("response.reasoning_summary_text.done", **at, text=summary["text"]))
        elif kind == "function_call":
            events.append(event("response.output_item.added", output_index=index, item={**item, "arguments": ""}))
            deltas = pieces(item["arguments"])
            events += [event("response.function_call_arguments.delta", **where, delta=piece) for piece in deltas]
            events.append(event("response.function_call_arguments.done", **where, arguments=item["arguments"]))
        events.append(event("response.output_item.done", output_index=index, item=item))
    last = "response.incomplete" if reply.get("status") == "incomplete" else "response.completed"
    events.append(event(last, response=reply))
    return events, opening or 2


def _responses_error(kind: str) -> bytes:
    code, message = ("rate_limit_exceeded", "Rate limit reached") if kind == "rate" else ("server_error", "Failed")
    return _sse({"type": "error", "sequence_number": 999, "code": code, "message": message, "param": None}, "error")


def _anthropic_events(reply: dict[str, Any], request: dict[str, Any]) -> tuple[list[bytes], int]:
    def event(kind: str, **fields: Any) -> bytes:
        return _sse({"type": kind, **fields}, event=kind)

    usage = reply.get("usage") or {}
    start = {**reply, "content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {"input_tokens": usage.get("input_tokens", 0), "output_tokens": 1}
    events = [event("message_start", message=start), event("ping")]
    opening = 0
    for index, block in enumerate(reply["content"]):
        kind = block["type"]
        deltas: list[dict[str, Any]]
        if kind == "text":
            empty, deltas = {**block, "text": ""}, [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
        elif kind == "thinking":
            empty = {**block, "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces(block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block.get("signature", "")})
        elif kind == "redacted_thinking":  # whole in its start, as the API sends it
            empty, deltas = block, []
        else:  # tool_use: its input as JSON text, in pieces
            text = json.dumps(block.get("input", {}))
            empty, deltas = (
                {**block, "input": {}},
                [{"type": "input_json_delta", "partial_json": p} for p in pieces(text)],
            )
        events.append(event("content_block_start", index=index, content_block=empty))
        if kind == "text":
            opening = opening or len(events) + 1
        events += [event("content_block_delta", index=index, delta=delta) for delta in deltas]
        events.append(event("content_block_stop", index=index))
    stop = {"stop_reason": reply.get("stop_reason"), "stop_sequence": reply.get("stop_sequence")}
    events.append(event("message_delta", delta=stop, usage={"output_tokens": usage.get("output_tokens", 0)}))
    events.append(event("message_stop"))
    return events, opening or 2


def _anthropic_error(kind: str) -> bytes:
    error = (
        {"type": "rate_limit_error", "message": "Rate limited"}
        if kind == "rate"
        else {"type": "overloaded_error", "message": "Overloaded"}
    )
    return _sse({"type": "error", "error": error}, event="error")


def _ollama_events(reply: dict[str, Any], request: dict[str, Any]) -> tuple[list[bytes], int]:
    head = {"model": reply.get("model"), "created_at": reply.get("created_at")}

    def line(part: dict[str, Any], **fields: Any) -> bytes:
        message = {"role": "assistant", "content": "", **part}
        return (json.dumps({**head, "message": message, "done": False, **fields}) + "\n").encode()

    message = reply["message"]
    lines = [line({"thinking": piece}) for piece in pieces(message.get("thinking") or "")]
    opening = len(lines) + 1
    lines += [line({"content": piece}) for piece in pieces(message.get("content") or "")]
    if message.get("tool_calls"):
        lines.append(line({"tool_calls": message["tool_calls"]}))
    last = {key: value for key, value in reply.items() if key != "message"}
    lines.append((json.dumps({**last, "message": {"role": "assistant", "content": ""}, "done": True}) + "\n").encode())
    return lines, opening


def _ollama_error(kind: str) -> bytes:
    return (
        json.dumps({"error": "rate limited" if kind == "rate" else "model runner has unexpectedly stopped"}) + "\n"
    ).encode()


SSE = "text/event-stream; charset=utf-8"
STREAMS: dict[str, ProtocolStream] = {
    "/v1/chat/completions": ProtocolStream(SSE, _chat_events, _chat_error),
    "/v1/responses": ProtocolStream(SSE, _responses_events, _responses_error),
    "/v1/messages": ProtocolStream(SSE, _anthropic_events, _anthropic_error),
    "/api/chat": ProtocolStream("application/x-ndjson", _ollama_events, _ollama_error),
}
"""Each route's stream."""
