"""Provider reply bodies fuzzed over real HTTP, through each built-in adapter's real SDK, whole and
streamed: whatever status, content type and body a server on 127.0.0.1 answers, a call gives its
text or raises a :class:`ProviderError` subclass; never an SDK's exception, never a bare
ValueError, TypeError or KeyError, never past the alarm, and never the configured key in the
message or the quoted body (the bodies echo it now and then, as some proxies do).

The bodies: random bytes; each protocol's real reply (``promptwire.testing.provider_servers``)
with a part replaced by a value of another kind, a key dropped, or cut short; each protocol's real
stream (``provider_streams``) with events dropped, garbled, repeated or cut, and garbage events
inserted. One server for the module; each example sets what it answers.
``PROMPTWIRE_FUZZ_EXAMPLES`` sets the count for a volume run.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fuzz_data import JSONISH, made, one_in
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from promptwire import Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.calls.generate import generate
from promptwire.core.errors import ProviderError
from promptwire.renderers.agentscript import renderer
from promptwire.testing.provider_servers import REPLIES
from promptwire.testing.provider_streams import STREAMS

from fuzzing import within
from hypothesis_profile import fuzz_examples

KEY = "sk-fuzz-0123456789abcdefSECRET"
"""The key every call is made with; no message may show it."""
ROUTES = {
    "openai": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
    "ollama": "/api/chat",
}
SECONDS = 10.0
"""The alarm for one call (the calls' own timeout is 3 s)."""


@dataclass
class Answer:
    """What the server answers the next request with."""

    status: int = 200
    content_type: str | None = "application/json"
    body: bytes = b""
    chunked: bool = False
    cut: bool = False
    """Promise more bytes than are sent, then close (a connection lost mid-body)."""


class Server:
    """A server on 127.0.0.1 that answers every POST with ``answer``, byte for byte."""

    def __init__(self) -> None:
        self.answer = Answer()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                answer = server.answer
                self.close_connection = True
                try:
                    self.send_response(answer.status)
                    if answer.content_type is not None:
                        self.send_header("content-type", answer.content_type)
                    self.send_header("connection", "close")
                    if answer.chunked:
                        self.send_header("transfer-encoding", "chunked")
                        self.end_headers()
                        for start in range(0, len(answer.body), 7):
                            piece = answer.body[start : start + 7]
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        if not answer.cut:
                            self.wfile.write(b"0\r\n\r\n")
                        return
                    length = len(answer.body) + (100 if answer.cut else 0)
                    self.send_header("content-length", str(length))
                    self.end_headers()
                    self.wfile.write(answer.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        class Threaded(ThreadingHTTPServer):
            daemon_threads = True

        self.http = Threaded(("127.0.0.1", 0), Handler)
        self.root = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    running = Server()
    yield running
    running.http.shutdown()
    running.http.server_close()


# --- bodies ----------------------------------------------------------------------------------------


@st.composite
def damaged(draw: st.DrawFn, value: Any, depth: int = 0) -> Any:
    """``value`` with, here and there, a part replaced by a value of another kind or dropped."""
    if depth and one_in(draw, 6):
        return made(draw(JSONISH | st.sampled_from([KEY, f"bad key {KEY}", None, [], {}])), shared=False)
    if isinstance(value, dict):
        kept = {key: item for key, item in value.items() if not one_in(draw, 12)}
        return {key: draw(damaged(item, depth + 1)) for key, item in kept.items()}
    if isinstance(value, list):
        return [draw(damaged(item, depth + 1)) for item in value]
    return value


def _json(value: Any) -> bytes:
    try:
        return json.dumps(value, default=repr).encode("utf-8", "surrogatepass")
    except (ValueError, RecursionError):
        return b"[1e400, " + b"9" * 5000 + b"]"


GARBAGE_EVENTS = [
    b"data: {\n\n", b"data: 7\n\n", b"data: null\n\n", b"data: []\n\n", b"event: error\ndata: 7\n\n",
    b"event: error\ndata: {}\n\n", b'data: {"type": "error"}\n\n', b"retry: x\n\n", b": comment\n\n", b"\n\n",
    b"event: message_stop\ndata: {}\n\n", b"data: [DONE]\n\n", b'{"done": true}\n', b"null\n", b"{\n", b"\xff\xfe\n",
    b'data: {"error": "' + KEY.encode() + b'"}\n\n', b'{"error": "' + KEY.encode() + b'"}\n',
]  # fmt: skip


@st.composite
def bodies(draw: st.DrawFn, name: str, streamed: bool) -> bytes:
    """A body for adapter ``name``'s route: random bytes, or its real reply or stream, damaged."""
    route = ROUTES[name]
    if one_in(draw, 8):
        return draw(st.binary(max_size=64))
    reply = REPLIES[route]({"model": "m"})
    if draw(st.booleans()):
        reply = draw(damaged(reply))
    if not streamed or one_in(draw, 6):
        body = _json(reply)
    else:
        try:
            events, _ = STREAMS[route].events(reply, {"model": "m", "stream_options": {"include_usage": True}})
        except (KeyError, TypeError, IndexError, AttributeError, ValueError):  # too damaged to stream
            events, _ = STREAMS[route].events(REPLIES[route]({"model": "m"}), {"model": "m"})
        for _ in range(draw(st.integers(0, 3))):
            at = draw(st.integers(0, len(events)))
            change = draw(st.sampled_from(["insert", "drop", "repeat"]))
            if change == "insert" or not events:
                events.insert(at, draw(st.sampled_from(GARBAGE_EVENTS)))
            elif change == "drop":
                events.pop(min(at, len(events) - 1))
            else:
                events.insert(at, events[min(at, len(events) - 1)])
        body = b"".join(events)
    if one_in(draw, 6):
        body = body[: draw(st.integers(0, len(body)))]
    return body


STATUSES = st.one_of(
    st.just(200),
    st.sampled_from([200, 201, 204, 301, 400, 401, 402, 403, 404, 408, 409, 413, 418, 422, 429, 500, 502, 503, 529]),
)
CONTENT_TYPES = st.sampled_from(
    [
        "application/json",
        "text/event-stream",
        "text/event-stream; charset=utf-8",
        "application/x-ndjson",
        "text/html",
        "text/plain; charset=latin-1",
        "application/json; charset=utf-16",
        None,
    ]
)


def _adapter(name: str, root: str) -> Any:
    if name == "openai":
        return OpenAIAdapter(api_key=KEY, base_url=f"{root}/v1")
    if name == "openai-responses":
        return OpenAIResponsesAdapter(api_key=KEY, base_url=f"{root}/v1")
    if name == "anthropic":
        return AnthropicAdapter(api_key=KEY, base_url=root)
    return OllamaAdapter(host=root)


@pytest.fixture(scope="module")
def adapters(server: Server) -> dict[str, Any]:
    """One adapter per provider for the module, each called once first (with a 418), so that the
    SDK's import and its client are made outside the alarm."""
    made = {name: _adapter(name, server.root) for name in ROUTES}
    server.answer = Answer(status=418)
    for adapter in made.values():
        with pytest.raises(ProviderError):
            generate(Prompt(instruction="x"), render=renderer.render, adapter=adapter, model="m", timeout=3)
    return made


PROMPT = Prompt(instruction="Say something.")


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("name", ROUTES)
@settings(
    max_examples=fuzz_examples(),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_any_reply_body_is_text_or_a_provider_error_without_the_key(
    server: Server, adapters: dict[str, Any], name: str, streamed: bool, monkeypatch: pytest.MonkeyPatch, data: Any
) -> None:
    monkeypatch.setenv("OLLAMA_API_KEY", KEY)
    answer = data.draw(
        st.builds(
            Answer,
            status=STATUSES,
            content_type=CONTENT_TYPES,
            body=bodies(name, streamed),
            chunked=st.booleans(),
            cut=st.booleans(),
        ),
        label="answer",
    )
    server.answer = answer
    pieces: list[str] = []
    try:
        with within(SECONDS, answer):
            result = generate(
                PROMPT,
                render=renderer.render,
                adapter=adapters[name],
                model="m",
                timeout=3,
                on_text=pieces.append if streamed else None,
            )
    except ProviderError as failed:
        assert KEY not in str(failed) and KEY not in (failed.body or ""), failed
        event(f"{type(failed).__name__}")
    else:
        assert isinstance(result.value, str) or result.value is None, result.value
        event("a reply")
