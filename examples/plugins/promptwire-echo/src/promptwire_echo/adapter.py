"""``echo``: a provider adapter that speaks a tiny HTTP protocol, the shape of a real one.

``POST {ECHO_URL}/echo`` with ``{"model", "messages", "schema"?}`` answers
``{"text": ..., "usage": {...}}``. Written on promptwire's adapter skeleton, it says only what is
this provider's own: the request (``build_request``, pure: a dry run prints it), how one is sent
(``client`` and ``post``, here the standard library's HTTP), what its failures mean (``failure``) and how the
answer reads (``reply``). The skeleton does the rest: model URIs (``echo://NAME``), the base URL
from ``ECHO_URL``, the timeout, the body's bytes, and malformed answers.

Every ``asrender`` start loads the plugins installed, this one too: the HTTP client (``urllib``,
which brings ``ssl`` and ``email``, about 10 ms) is imported when a request is sent, not here.
"""

from __future__ import annotations

import json
from typing import Any

from promptwire.plugin import (
    Endpoint,
    GenerateConfig,
    Message,
    OutputContract,
    ProviderAdapter,
    ProviderError,
    ProviderRequest,
    RenderedPrompt,
    Reply,
    connection_failed,
    foreign_reasoning,
    missing_part,
    status_error,
    turn_error,
)


class EchoAdapter(ProviderAdapter):
    name = "echo"
    description = "Echo server over HTTP (ECHO_URL, default http://127.0.0.1:8765)"
    protocol = "echo"
    path = "echo"
    default_url = "http://127.0.0.1:8765"
    url_variable = "ECHO_URL"

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        notes: list[str] = []
        body: dict[str, Any] = {
            "model": self.model_name(model or "echo"),
            "messages": _messages(rendered.messages, notes),
        }
        if rendered.cache is not None:  # the system breakpoint is on its message, sent with it
            cache = rendered.cache
            given = {"tools": cache.tools, "key": cache.key, "retention": cache.retention}
            notes += [f"cache.{name}: the echo server caches nothing; left out" for name, v in given.items() if v]
        if contract is not None:
            body["schema"] = contract.json_schema
        if config.temperature is not None:
            notes.append(f"temperature {config.temperature} dropped: the echo server does not sample")
        return ProviderRequest(body, tuple(notes), endpoint=self.url())

    def client(self, endpoint: Endpoint, seconds: float) -> tuple[str, float]:
        return endpoint.url, seconds  # urllib keeps no connection: where to send, and for how long

    def post(self, client: tuple[str, float], body: bytes) -> Any:
        import urllib.request

        url, seconds = client
        request = urllib.request.Request(f"{url}/{self.path}", body, {"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=seconds) as answer:
            return json.loads(answer.read())

    def failure(self, exc: Exception, endpoint: Endpoint, seconds: float) -> ProviderError | None:
        import urllib.error

        if isinstance(exc, urllib.error.HTTPError):
            return status_error(exc.code, exc.read(300).decode("utf-8", "replace"))
        if isinstance(exc, TimeoutError):
            return self.timed_out(endpoint, seconds)
        if isinstance(exc, OSError):  # refused, reset, unknown host (urllib's URLError is one)
            return connection_failed(exc)
        return super().failure(exc, endpoint, seconds)  # a body that is not JSON

    def reply(self, raw: Any) -> Reply:
        if not isinstance(raw.get("text"), str):
            raise missing_part("the echo server's answer has no text", raw)
        return Reply(text=raw["text"], raw=raw, usage=raw.get("usage"), finish_reason="stop")


def _messages(messages: tuple[Message, ...], notes: list[str]) -> list[dict[str, Any]]:
    """The messages in promptwire's own form, which the echo server takes as they are, with two
    exceptions every adapter makes (the conversation corpus checks both): reasoning is sent back
    only to the provider that produced it, and the echo server produces none, so each reasoning
    part is left out with a note; and a tool result that answers no earlier call is refused,
    naming its turn, before anything is sent."""
    called: set[str | None] = set()
    sent = []
    for index, message in enumerate(messages):
        data = message.to_dict()
        if isinstance(data["content"], list):
            parts = []
            for position, part in enumerate(data["content"]):
                note = foreign_reasoning(part, "echo", index, position) if part["type"] == "reasoning" else None
                if note is not None:
                    notes.append(note)
                    continue
                if part["type"] == "tool_call":
                    called.add(part["id"])
                elif part["type"] == "tool_result" and part["call_id"] not in called:
                    raise turn_error(index, f"the tool result for {part['call_id']!r} answers no earlier call")
                parts.append(part)
            data["content"] = parts
        sent.append(data)
    return sent
