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
    OutputContract,
    ProviderAdapter,
    ProviderError,
    ProviderRequest,
    RenderedPrompt,
    Reply,
    connection_failed,
    missing_part,
    status_error,
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
        notes = []
        body: dict[str, Any] = {
            "model": self.model_name(model or "echo"),
            "messages": [message.to_dict() for message in rendered.messages],
        }
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
