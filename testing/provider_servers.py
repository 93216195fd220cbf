"""A fake provider on 127.0.0.1 that speaks the providers' wire protocols (OpenAI Chat Completions
and Responses, Anthropic Messages, Ollama chat), whole and streamed, for tests of the real SDK
clients over real HTTP: the SDKs' HTTP clients cannot be intercepted by mocking libraries, so a
test points the SDK's base URL here. promptwire's adapter tests use it; so can a plugin author's.

Its behaviour is chosen by the request's ``model`` name: ``ok`` answers, ``eNNN`` answers with that
HTTP status in the protocol's own error body (``e429q``: a spent quota, OpenAI's
``insufficient_quota`` code or Anthropic's spend-limit ``error_code``; ``e401echo``: the body
quotes the API key the request carried, as some proxies do), ``slow`` sleeps past the client's
timeout, ``delayNNN`` answers after NNN milliseconds, ``togetherNNN`` only once NNN requests for
it are in the server at once (a test that they were sent at once, with no clock; after 60 s alone,
a 504), ``wordsNNN`` with a text of NNN words (no
JSON), ``hang`` never answers and waits for the client to hang up (recorded in ``hung_up``),
``busyN`` is rate limited for its first N requests (429 with ``Retry-After: 1`` and OpenAI's
``retry-after-ms: 50``), then answers as ``ok`` does, ``garbage`` sends a body that is not JSON,
``html200`` a captive portal's page, ``emptyjson`` ``{}``, ``html502`` a proxy's HTML error page,
``bigpage`` a 100 kB one, ``hugeNNN`` a text of NNN KiB in words of 1 KiB (streamed: an event
a word), ``hugelineNNN`` a text of NNN KiB without a space (streamed: one event, one line),
``gzipped`` its answer compressed (``Content-Encoding: gzip``) whatever the request accepts,
``truncated`` half a body before closing the connection, ``refusal`` the model declining
(OpenAI's ``refusal``, Anthropic's ``stop_reason``; Ollama has none and answers),
and ``tools`` a model that calls each tool of the request once, in one reply (parallel calls), with
the simplest arguments its schema accepts, and once the last message or turn holds the tools'
results answers. On OpenAI Chat Completions and Ollama it answers with the results' text (a line
each), or the text it is given; on Anthropic and Responses it reasons first (reasoning the server
signs) and then answers (:data:`TOOLS_MODEL`); there, as the real APIs do, a request is refused
(400, the protocol's error body) when its reasoning carries a signature or encrypted content the
server did not issue, or a tool result answers no call before it (:data:`REFUSALS`).

Azure OpenAI's paths (``/openai/deployments/DEPLOYMENT/chat/completions`` and
``/openai/responses``, each requiring ``?api-version=`` and an ``api-key`` header) are answered as
OpenAI's routes, the deployment's name choosing the behaviour as a model's does, failures in Azure's
error shape (:mod:`.azure_wire`). The token-count endpoints (``/v1/responses/input_tokens``,
``/v1/messages/count_tokens``) refuse any field the real ones refuse and count a body by its
length (:mod:`.provider_counts`).

A request that asks for a stream (``"stream": true``) gets the reply as its provider streams it
(see :mod:`.provider_streams`), in chunked transfer encoding; then ``truncated`` cuts the
connection in the middle of an event, ``short`` ends the stream cleanly after its first piece of
text but before the provider's closing events, ``streamerror`` and ``streamrate`` send the
protocol's error event (the provider failed; a rate limit) after the first piece of text, and
``hang`` sends the first piece of text, then waits for the client to hang up.
Every request body is recorded. The batch endpoints of both providers (files, batches, results)
are :mod:`.provider_batches`'s, in ``FakeProvider.batches``.

Any other model answers ``{"ok": true}``, or the text that ``text`` (a :data:`Text`) makes of the
request: :func:`shaped_text` answers the simplest value that conforms to the output schema the
request carries, in each protocol's own place for it, so a program's ``generate(...) -> { shape }``
passes its check; :func:`answering` gives canned replies first.

Run as a command, it serves until stopped (Ctrl-C, SIGTERM) on one port, answering with
:func:`shaped_text` (``--replies FILE``: canned replies first), so that any program runs against
it through ``--base-url``::

    python -m promptwire.testing.provider_servers --port 8900
    OPENAI_API_KEY=x asrender examples/evidence-qa.as --provider openai --base-url http://127.0.0.1:8900/v1
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import select
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from .azure_wire import azure_call, azure_error
from .provider_batches import BatchEndpoints
from .provider_counts import COUNT_ROUTES, count_answer
from .provider_streams import STREAMS
from .schema_values import FAKE_TEXT, conforming_value

__all__ = [
    "REFUSAL",
    "REFUSALS",
    "REPLIES",
    "TOOLS_MODEL",
    "FakeProvider",
    "Text",
    "answering",
    "fake_provider",
    "main",
    "request_schema",
    "serve_until_stopped",
    "shaped_text",
]

Reply = Callable[[dict[str, Any]], dict[str, Any]]
"""Builds a JSON reply from a request body; set ``FakeProvider.reply`` to answer every route with it."""

Text = Callable[[str, dict[str, Any]], str]
"""The model's text for a request (its route and body): each route's reply is built around it, whole
or streamed, as that provider sends one."""


class _Builder(Protocol):
    def __call__(self, body: dict[str, Any], text: str | None = None) -> dict[str, Any]: ...


@dataclass
class FakeProvider:
    """The running server: where to point an SDK, and every request it received, in order."""

    base_url: str  # OpenAI-style, ending in /v1
    root: str = ""  # the server itself (Ollama's host)
    requests: list[dict[str, Any]] = field(default_factory=list)
    raw_bodies: list[bytes] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    """The path (and query) of each request, in order."""
    reply: Reply | None = None
    text: Text | None = None
    """The model's text for each request (``None``: ``{"ok": true}``); ``reply`` wins over it."""
    hung_up: list[str] = field(default_factory=list)
    """The model of each request whose client hung up while the server was still answering it."""
    asked: dict[str, int] = field(default_factory=dict)
    """How many requests asked for each model so far."""
    batches: BatchEndpoints = field(default_factory=lambda: BatchEndpoints(_route_reply))
    """The files and batches of the batch endpoints."""


REFUSAL = "I can't help with that."

_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def _error_body(path: str, status: int, model: str, key: str) -> dict[str, Any]:
    """What each provider sends with a failure status: Ollama a bare message, Anthropic a typed
    error with ``details.error_code``, OpenAI an error object with ``code``."""
    message = f"failure {model}" + (f": incorrect API key provided: {key}" if model.endswith("echo") else "")
    quota = model.endswith("q")
    if path == "/api/chat":
        return {"error": message}
    if path.startswith("/openai/"):
        return azure_error(status, message, code="insufficient_quota" if quota else None)
    if path.startswith("/v1/messages"):
        error: dict[str, Any] = {"type": _ANTHROPIC_ERROR_TYPES.get(status, "api_error"), "message": message}
        if quota:
            error["details"] = {"error_code": "enforced_spend_limit_reached"}
        return {"type": "error", "error": error}
    code = "insufficient_quota" if quota else "some_error"
    return {"error": {"message": message, "type": "error", "param": None, "code": code}}


def _text(body: dict[str, Any]) -> str:
    """The model's text: ``{"ok": true}``, or for ``wordsNNN`` NNN words (a stream sends a word a piece)."""
    model = str(body.get("model", ""))
    if model.startswith("words") and model[5:].isdigit():
        return " ".join(f"word{index}" for index in range(int(model[5:])))
    return _huge_text(model) or '{"ok": true}'


_GZIPPED = {"content-encoding": "gzip"}


def _huge_text(model: str) -> str | None:
    """For ``hugeNNN``, NNN KiB of text in words of 1 KiB (each with its space); for
    ``hugelineNNN``, NNN KiB without a space (a stream sends it as one piece); else ``None``."""
    if model.startswith("hugeline") and model[8:].isdigit():
        return "x" * (int(model[8:]) * 1024)
    if model.startswith("huge") and model[4:].isdigit():
        return ("x" * 1023 + " ") * int(model[4:])
    return None


def _chat_completion(body: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": _text(body) if text is None else text}
    finish = "stop"
    if body.get("model") == "refusal":
        message = {"role": "assistant", "content": None, "refusal": REFUSAL}
    elif body.get("model") == TOOLS_MODEL:
        calls = _calls_to_make(body)
        if calls:
            made = sum(1 for sent in body.get("messages") or () if sent.get("role") == "assistant")
            message = {"role": "assistant", "content": None, "tool_calls": []}
            for number, (name, arguments) in enumerate(calls):
                function = {"name": name, "arguments": json.dumps(arguments)}
                message["tool_calls"].append({"id": f"call_{made}_{number}", "type": "function", "function": function})
            finish = "tool_calls"
        elif text is None:
            message["content"] = _results_text(body)
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    }


def _ollama_chat(body: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": _text(body) if text is None else text,
        "thinking": "Easy.",
    }
    if body.get("model") == TOOLS_MODEL:
        calls = _calls_to_make(body)
        if calls:
            message["content"] = ""
            message["tool_calls"] = [{"function": {"name": name, "arguments": arguments}} for name, arguments in calls]
        elif text is None:
            message["content"] = _results_text(body)
    return {
        "model": body.get("model"),
        "created_at": "2026-11-24T00:00:00Z",
        "message": message,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 12,
        "eval_count": 3,
    }


TOOLS_MODEL = "tools"
"""The model that calls tools: each tool of the request once, all in one turn, with the simplest
arguments its schema accepts, then, once the last turn holds the results, the answer. On Anthropic
and Responses it reasons first, in reasoning this server signs; on OpenAI Chat Completions and
Ollama see :func:`_calls_to_make`."""


def _calls_to_make(body: dict[str, Any]) -> list[tuple[str, Any]]:
    """What the ``tools`` model calls: each tool of the request once, all in one reply, with the
    simplest arguments its parameter schema accepts; none once the last message is a tool's
    result (the model then answers with the results' text, or the text it is given)."""
    messages = body.get("messages") or []
    if messages and isinstance(messages[-1], dict) and messages[-1].get("role") == "tool":
        return []
    functions = [tool.get("function") or {} for tool in body.get("tools") or ()]
    return [(function.get("name", ""), conforming_value(function.get("parameters"))) for function in functions]


def _results_text(body: dict[str, Any]) -> str:
    """The text of the tool messages that end the request, a line each (text parts joined)."""
    results: list[str] = []
    for message in reversed(body.get("messages") or []):
        if not isinstance(message, dict) or message.get("role") != "tool":
            break
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        results.insert(0, str(content))
    return "\n".join(results)


def _response(body: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    part = {"type": "output_text", "text": _text(body) if text is None else text, "annotations": []}
    if body.get("model") == "refusal":
        part = {"type": "refusal", "refusal": REFUSAL}
    message = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [part]}
    output: list[dict[str, Any]] = [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Easy."}]},
        message,
    ]
    if body.get("model") == TOOLS_MODEL:
        output = _responses_tool_turn(body, message)
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": body.get("model"),
        "status": "completed",
        "output": output,
        "usage": {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15},
    }


def _responses_tool_turn(body: dict[str, Any], message: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``tools`` model's output: reasoning with encrypted content the server issued, then a
    call of every tool of the request (parallel), or, once the input ends with their outputs, the
    message."""
    given = body.get("input")
    items: list[Any] = given if isinstance(given, list) else []
    turn = len(items)
    reasoning = {
        "type": "reasoning",
        "id": f"rs_{turn}",
        "summary": [{"type": "summary_text", "text": "Calling the tools."}],
        "encrypted_content": _issued(f"rs_{turn}"),
    }
    if items and isinstance(items[-1], dict) and items[-1].get("type") == "function_call_output":
        return [{**reasoning, "summary": [{"type": "summary_text", "text": "Answering."}]}, message]
    calls = [
        {
            "type": "function_call",
            "id": f"fc_{turn}_{index}",
            "call_id": f"call_{turn}_{index}",
            "name": tool.get("name"),
            "arguments": json.dumps(conforming_value(tool.get("parameters"))),
            "status": "completed",
        }
        for index, tool in enumerate(body.get("tools") or [])
        if isinstance(tool, dict)
    ]
    return [reasoning, *calls]


def _responses_refusal(body: dict[str, Any]) -> dict[str, Any] | None:
    """What the Responses API refuses in an input, as it refuses it: reasoning whose encrypted
    content this server did not issue, and a function call output that answers no call before it."""
    called: set[Any] = set()
    for position, item in enumerate(body.get("input") or []):
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind == "reasoning" and "encrypted_content" in item and item["encrypted_content"] != _issued(item.get("id")):
            problem = f"The encrypted content for item {item.get('id')} could not be verified."
        elif kind == "function_call_output" and item.get("call_id") not in called:
            problem = f"No tool call found for function call output with call_id {item.get('call_id')}."
        else:
            if kind == "function_call":
                called.add(item.get("call_id"))
            continue
        error = {"message": problem, "type": "invalid_request_error", "param": f"input[{position}]", "code": None}
        return {"error": error}
    return None


def _anthropic_message(body: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    if body.get("model") == "refusal":
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "refusal",
            "content": [{"type": "text", "text": REFUSAL}],
            "stop_reason": "refusal",
            "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 6},
        }
    content = [
        {"type": "thinking", "thinking": "Easy.", "signature": _issued("Easy.")},
        {"type": "text", "text": _text(body) if text is None else text},
    ]
    stop = "end_turn"
    if body.get("model") == TOOLS_MODEL:
        content, stop = _anthropic_tool_turn(body, content)
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 3},
    }


def _anthropic_tool_turn(body: dict[str, Any], answer: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str]:
    """The ``tools`` model's content and stop reason: signed thinking, redacted thinking, a line of
    text and a call of every tool of the request (parallel), or, once the last turn holds their
    results, the answer."""
    given = body.get("messages")
    messages: list[Any] = given if isinstance(given, list) else []
    last = messages[-1].get("content") if messages and isinstance(messages[-1], dict) else None
    if isinstance(last, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in last):
        return answer, "end_turn"
    turn = len(messages)
    thinking = f"I will call the tools ({turn})."
    calls = [
        {"type": "tool_use", "id": f"toolu_{turn}_{index}", "name": tool.get("name"), "input": value}
        for index, tool in enumerate(body.get("tools") or [])
        if isinstance(tool, dict) and isinstance(value := conforming_value(tool.get("input_schema")), dict)
    ]
    return [
        {"type": "thinking", "thinking": thinking, "signature": _issued(thinking)},
        {"type": "redacted_thinking", "data": _issued(f"redacted {turn}")},
        {"type": "text", "text": "Let me look that up."},
        *calls,
    ], "tool_use"


def _anthropic_refusal(body: dict[str, Any]) -> dict[str, Any] | None:
    """What the Messages API refuses in a request's turns, as it refuses it: thinking whose
    signature (or redacted thinking whose data) this server did not issue, and a tool_result that
    answers no tool_use of the turn before it."""
    previous: list[Any] = []
    for index, message in enumerate(body.get("messages") or []):
        blocks = message.get("content") if isinstance(message, dict) else None
        blocks = blocks if isinstance(blocks, list) else []
        called = {block.get("id") for block in previous if isinstance(block, dict) and block.get("type") == "tool_use"}
        for position, block in enumerate(blocks):
            kind = block.get("type") if isinstance(block, dict) else None
            where = f"messages.{index}.content.{position}"
            if kind == "thinking" and block.get("signature") != _issued(block.get("thinking")):
                problem = f"{where}: Invalid `signature` in `thinking` block"
            elif kind == "redacted_thinking" and not str(block.get("data")).startswith(_ISSUED):
                problem = f"{where}: Invalid `data` in `redacted_thinking` block"
            elif kind == "tool_result" and block.get("tool_use_id") not in called:
                problem = (
                    f"{where}: unexpected `tool_use_id` found in `tool_result` blocks: {block.get('tool_use_id')}. "
                    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                )
            else:
                continue
            return {"type": "error", "error": {"type": "invalid_request_error", "message": problem}}
        previous = blocks
    return None


_ISSUED = "issued:"


def _issued(text: Any) -> str:
    """The signature (Anthropic) or encrypted content (Responses) this server gives ``text``, and
    so the only one it takes back for it."""
    return _ISSUED + hashlib.sha256(str(text).encode()).hexdigest()[:16]


REPLIES: dict[str, _Builder] = {
    "/v1/chat/completions": _chat_completion,
    "/v1/responses": _response,
    "/v1/messages": _anthropic_message,
    "/api/chat": _ollama_chat,
}
"""Each route's successful reply, built from the request body (and the model's text, when given)."""

REFUSALS: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {
    "/v1/responses": _responses_refusal,
    "/v1/messages": _anthropic_refusal,
}
"""What a route refuses in a request's conversation (the 400 error body the provider sends), or ``None``."""


def _route_reply(route: str, body: dict[str, Any]) -> dict[str, Any]:
    return REPLIES.get(route, _chat_completion)(body)


_NO_SCHEMA = object()


def request_schema(route: str, body: dict[str, Any]) -> Any:
    """The output schema a request carries, where its protocol puts it (OpenAI Chat's
    ``response_format``, Responses' ``text.format``, Anthropic's ``output_config.format``, Ollama's
    ``format``); ``None`` when it carries none."""

    def at(value: Any, *keys: str) -> Any:
        for key in keys:
            value = value.get(key, _NO_SCHEMA) if isinstance(value, dict) else _NO_SCHEMA
        return value

    if route == "/api/chat":
        found = body.get("format")
        return found if isinstance(found, dict) else None
    found = {
        "/v1/responses": lambda: at(body, "text", "format", "schema"),
        "/v1/messages": lambda: at(body, "output_config", "format", "schema"),
    }.get(route, lambda: at(body, "response_format", "json_schema", "schema"))()
    return None if found is _NO_SCHEMA else found


def shaped_text(route: str, body: dict[str, Any]) -> str:
    """The JSON text of the simplest value the request's output schema accepts
    (:func:`~promptwire.testing.schema_values.conforming_value`); ``"fake"`` when it asks for no shape."""
    schema = request_schema(route, body)
    return FAKE_TEXT if schema is None else json.dumps(conforming_value(schema))


def answering(replies: Sequence[Any] = ()) -> Text:
    """A :data:`Text` that answers ``replies`` in order, one a request, whatever the route (a string
    is the model's text, any other value its JSON text), then :func:`shaped_text`."""
    waiting = list(replies)
    lock = threading.Lock()

    def text(route: str, body: dict[str, Any]) -> str:
        with lock:
            reply = waiting.pop(0) if waiting else _NO_SCHEMA
        if reply is _NO_SCHEMA:
            return shaped_text(route, body)
        return reply if isinstance(reply, str) else json.dumps(reply)

    return text


@contextmanager
def fake_provider(port: int = 0, text: Text | None = None) -> Iterator[FakeProvider]:
    """Start the fake provider on 127.0.0.1 (``port`` 0: a free one); stop it on exit. ``text``
    makes the model's text of each request (see :data:`Text`; ``None``: ``{"ok": true}``)."""
    state = FakeProvider(base_url="", text=text)
    lock = threading.Lock()
    meetings: dict[str, threading.Barrier] = {}

    def all_together(model: str) -> bool:
        """``togetherNNN``: wait until NNN requests for it are here at once; False after 60 s alone."""
        with lock:
            meeting = meetings.setdefault(model, threading.Barrier(int(model[8:])))
        try:
            meeting.wait(timeout=60)
        except threading.BrokenBarrierError:
            return False
        return True

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            self._send_bytes(*state.batches.get(self.path, state.root))

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            if state.batches.handles(self.path):
                self._send_bytes(*state.batches.post(self.path, self.headers.get("content-type", ""), raw, state.root))
                return
            state.raw_bodies.append(raw)
            state.paths.append(self.path)
            state.headers.append({key.lower(): value for key, value in self.headers.items()})
            body = json.loads(raw or b"{}")
            state.requests.append(body)
            route = self.path
            if self.path.startswith("/openai/"):  # Azure: the deployment in the URL, or in the body
                azure = azure_call(self.path, self.headers)
                if azure.refusal is not None:
                    self._send(*azure.refusal)
                    return
                route = azure.route
                if azure.deployment is not None:
                    body = {"model": azure.deployment, **body}  # answered as the deployment's name says
            model = str(body.get("model", ""))
            streamed = body.get("stream") is True
            with lock:
                state.asked[model] = asked = state.asked.get(model, 0) + 1
            if model.startswith("busy") and model[4:].isdigit() and asked <= int(model[4:]):
                error = _error_body(self.path, 429, model, "")
                self._send(429, error, {"retry-after": "1", "retry-after-ms": "50"})
                return
            if model == "slow":
                time.sleep(1)
            elif model.startswith("delay") and model[5:].isdigit():
                time.sleep(int(model[5:]) / 1000)
            elif model.startswith("together") and model[8:].isdigit() and not all_together(model):
                self._send(504, _error_body(self.path, 504, model, ""))
                return
            elif model == "hang" and not streamed:
                self._wait_for_hang_up(model)
                return
            if model.startswith("e") and model[1:4].isdigit():
                key = (
                    self.headers.get("x-api-key")
                    or self.headers.get("api-key")
                    or self.headers.get("authorization", "").removeprefix("Bearer ")
                )
                self._send(int(model[1:4]), _error_body(self.path, int(model[1:4]), model, key))
                return
            if route in COUNT_ROUTES:
                self._send(*count_answer(route, state.requests[-1], raw))
                return
            if model == "garbage":
                self._send_bytes(200, b"not json", "application/json")
                return
            if model == "html200":  # a captive portal: a page, and the SDKs hand back a string
                self._send_bytes(200, b"<html><body>Sign in to the hotel Wi-Fi</body></html>", "text/html")
                return
            if model == "emptyjson":
                self._send(200, {})
                return
            if model == "html502":
                self._send_bytes(502, b"<html><body>Bad gateway</body></html>", "text/html")
                return
            if model == "bigpage":
                page = b"<html><body>\n" + b"<p>The gateway is having a bad day.</p>\n" * 2500 + b"</body></html>"
                self._send_bytes(502, page, "text/html")
                return
            if model == "truncated" and not streamed:  # the connection closes before the promised body is complete
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", "500")
                self.end_headers()
                self.wfile.write(b'{"id": "chatcmpl-1", "choi')
                self.close_connection = True
                return
            refusal = REFUSALS[route](body) if route in REFUSALS else None
            if refusal is not None:
                self._send(400, refusal)
                return
            if state.reply is not None:
                reply = state.reply(body)
            else:
                text = _huge_text(model) or (None if state.text is None else state.text(route, body))
                reply = REPLIES.get(route, _chat_completion)(body, text)
            if streamed:
                self._stream(route, reply, body, model)
            elif _huge_text(model) is not None:  # without a Content-Length, as a server that does not know it
                self._send_chunked(json.dumps(reply).encode())
            elif model == "gzipped":
                self._send_bytes(200, gzip.compress(json.dumps(reply).encode()), "application/json", _GZIPPED)
            else:
                self._send(200, reply)

        def _stream(self, route: str, reply: dict[str, Any], body: dict[str, Any], model: str) -> None:
            """The reply as the route's provider streams it, one chunk of the chunked encoding per
            event; the stream models cut it, end it early, fail it or hang after its opening."""
            protocol = STREAMS[route]
            events, opening = protocol.events(reply, body)
            self.protocol_version = "HTTP/1.1"  # chunked transfer encoding; the connection still closes after
            self.close_connection = True
            self.send_response(200)
            self.send_header("content-type", protocol.content_type)
            self.send_header("transfer-encoding", "chunked")
            self.send_header("connection", "close")
            self.end_headers()
            if model in ("truncated", "short", "streamerror", "streamrate", "hang"):
                events = events[:opening]
            try:
                for event in events:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                if model == "truncated":  # half of the next event, then the connection drops
                    self.wfile.write(b"40\r\n" + b'data: {"id": "cut')
                    return
                if model in ("streamerror", "streamrate"):
                    error = protocol.error("rate" if model == "streamrate" else "server")
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(error), error))
                if model == "hang":
                    self._wait_for_hang_up(model)
                    return
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):  # the client gave up in the middle
                state.hung_up.append(model)

        def _send_chunked(self, data: bytes) -> None:
            """``data``, a 200's JSON body, in chunks of 64 KiB of the chunked transfer encoding."""
            self.protocol_version = "HTTP/1.1"
            self.close_connection = True
            try:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("transfer-encoding", "chunked")
                self.send_header("connection", "close")
                self.end_headers()
                for start in range(0, len(data), 65536):
                    piece = data[start : start + 65536]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):  # the client stopped reading
                state.hung_up.append(str(state.requests[-1].get("model")))

        def _wait_for_hang_up(self, model: str) -> None:
            """Answer nothing more until the client closes the connection (at most a minute, so a
            test that never does fails instead of hanging the server)."""
            self.close_connection = True
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                ready, _, _ = select.select([self.connection], [], [], 0.01)
                try:
                    closed = bool(ready) and not self.connection.recv(1, socket.MSG_PEEK)
                except OSError:  # reset by the client
                    closed = True
                if closed:
                    state.hung_up.append(model)
                    return

        def _send(self, status: int, data: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self._send_bytes(status, json.dumps(data).encode(), "application/json", headers)

        def _send_bytes(
            self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
        ) -> None:
            try:
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up first (a timeout test)
                self.close_connection = True

    class Server(ThreadingHTTPServer):
        request_queue_size = 256  # a hundred concurrent clients connect at once
        daemon_threads = True

    server = Server(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    state.root = f"http://127.0.0.1:{server.server_address[1]}"
    state.base_url = f"{state.root}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def _banner(server: FakeProvider) -> str:
    """What the command prints once listening: where each provider's requests go."""
    root, v1 = server.root, server.base_url
    return (
        f"fake provider on {root} (OpenAI Chat and Responses, Anthropic, Ollama, Azure OpenAI; Ctrl-C stops)\n"
        f"  asrender ... --provider openai --base-url {v1}    (openai-responses too)\n"
        f"  asrender ... --provider anthropic --base-url {root}\n"
        f"  asrender ... --provider ollama --base-url {root}\n"
        f"  asrender ... --provider azure --base-url {root}    (azure-responses too; OPENAI_API_VERSION=2024-10-21)\n"
        f"  asrender ... --provider auto --base-url openai={v1} --base-url anthropic={root} --base-url ollama={root}\n"
        "  (any API key: OPENAI_API_KEY=x ANTHROPIC_API_KEY=x AZURE_OPENAI_API_KEY=x)"
    )


def _replies(path: str) -> list[Any]:
    """``--replies FILE``: a JSON array."""
    try:
        with open(path, encoding="utf-8") as file:
            replies = json.load(file)
    except (OSError, ValueError) as exc:
        raise ValueError(f"--replies {path}: {exc}") from None
    if not isinstance(replies, list):
        raise ValueError(f"--replies {path}: canned replies are a JSON array")
    return replies


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m promptwire.testing.provider_servers [--port N] [--replies FILE]``: serve every
    built-in wire protocol on one port of 127.0.0.1 until Ctrl-C or SIGTERM (exit status 0)."""
    parser = argparse.ArgumentParser(
        prog="python -m promptwire.testing.provider_servers",
        description="A fake model provider on 127.0.0.1 speaking OpenAI Chat and Responses, Anthropic and "
        "Ollama on one port, answering each request with the simplest value its output schema accepts.",
    )
    parser.add_argument("--port", type=int, default=0, help="the port (default 0: a free one, printed)")
    parser.add_argument(
        "--replies",
        metavar="FILE",
        help="canned replies first, a JSON array used in order (a string is the model's text, any other value "
        "its JSON), then schema-shaped values",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port takes 0 to 65535, got {args.port}")
    try:
        replies = _replies(args.replies) if args.replies else []
    except ValueError as exc:
        parser.error(str(exc))
    return serve_until_stopped(fake_provider(args.port, answering(replies)), _banner, args.port)


def serve_until_stopped(
    serving: AbstractContextManager[FakeProvider], banner: Callable[[FakeProvider], str], port: int
) -> int:
    """A fake server's command: ``serving`` entered, its ``banner`` printed, and kept until Ctrl-C
    or SIGTERM (exit 0); a port it cannot listen on is exit 1, said on stderr."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with serving as server:
            print(banner(server), flush=True)
            while not stop.wait(0.2):  # a short wait: the signal's handler runs between two
                pass
    except KeyboardInterrupt:
        pass
    except OSError as exc:
        print(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
