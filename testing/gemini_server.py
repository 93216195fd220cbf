"""A fake Gemini API on 127.0.0.1 speaking its wire protocol, for tests of the real ``google-genai``
SDK over real HTTP (point the SDK's base URL, or ``asrender --base-url gemini=URL``, at its root).

It serves ``POST /v1beta/models/MODEL:generateContent``, ``:streamGenerateContent?alt=sse`` (the
reply as server-sent events, each a ``GenerateContentResponse`` holding a piece: a word of text a
chunk, a part a chunk otherwise, the last with ``finishReason`` and ``usageMetadata``) and
``:countTokens``. Failures come in Google's error body, ``{"error": {"code", "message", "status",
"details"}}``. As the real API does, it refuses (400, ``INVALID_ARGUMENT``) a body field it does not
know (``Unknown name "x": Cannot find field.``), a ``thoughtSignature`` it did not issue, a
``functionResponse`` that answers no ``functionCall`` of the model turn right before it, and a
``countTokens`` body with a field outside ``contents`` and ``generateContentRequest``, with both,
or with a ``generateContentRequest`` that names no ``model``.

Its behaviour is chosen by the model in the URL, as :mod:`.provider_servers`' is by the body's:
``ok`` (and any other name) answers ``{"ok": true}`` (the simplest value of a ``responseJsonSchema``
when the request has one; :class:`~.provider_servers.FakeProvider`'s ``text`` when given), ``eNNN``
that HTTP status, ``busyN`` a 429 with a ``RetryInfo`` of 0.05 s for its first N requests,
``slow`` sleeps a second, ``delayNNN`` NNN milliseconds, ``hang`` never answers, ``garbage`` a body
that is not JSON, ``html502`` a proxy's page, ``truncated`` half a body (streamed: half an event),
``wordsNNN`` and ``hugeNNN`` long texts, ``refusal`` a ``SAFETY`` finish with no text, ``blocked``
a prompt blocked (``promptFeedback.blockReason``, no candidates); streamed, ``unstreamed`` answers
with the whole JSON reply, not an event stream, ``short`` ends after the
first piece without a finish reason, ``streamerror`` and ``streamrate`` send an ``error`` chunk
after it. ``tools`` is :data:`~.provider_servers.TOOLS_MODEL`: it thinks (a thought part), then
calls every declared function once, in one turn, without call ids as Gemini often sends them, its
signature on the first call; once the last content holds their responses it answers with their
``result`` texts, a line each, the signature on the answer. Every answer has a thought part first.

Run as a command, it serves until stopped (Ctrl-C, SIGTERM) on one port::

    python -m promptwire.testing.gemini_server --port 8901
    GEMINI_API_KEY=x asrender examples/evidence-qa.as --provider gemini --base-url http://127.0.0.1:8901
"""

from __future__ import annotations

import argparse
import json
import re
import select
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .provider_servers import TOOLS_MODEL, FakeProvider, Text, _huge_text, _issued, _text, serve_until_stopped
from .provider_streams import pieces
from .schema_values import conforming_value

__all__ = ["COUNT_FIELDS", "REQUEST_FIELDS", "gemini_server", "main", "tokens_of"]

REQUEST_FIELDS = frozenset(
    {
        "contents",
        "tools",
        "toolConfig",
        "safetySettings",
        "systemInstruction",
        "generationConfig",
        "cachedContent",
    }
)
"""The fields of a ``generateContent`` body (``GenerateContentRequest``, without ``model``, which the
URL names); anything else is refused as the API refuses an unknown name."""
COUNT_FIELDS = frozenset({"contents", "generateContentRequest"})
"""The fields of a ``countTokens`` body."""

_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_ROUTE = re.compile(r"/v1beta/(?P<model>(?:models|tunedModels)/[^:/]+):(?P<method>[A-Za-z]+)(?P<query>\?.*)?")


def error_body(status: int, message: str, details: list[Any] | None = None) -> dict[str, Any]:
    """A failure as Google's APIs send it."""
    error: dict[str, Any] = {"code": status, "message": message, "status": _STATUSES.get(status, "UNKNOWN")}
    if details:
        error["details"] = details
    return {"error": error}


def tokens_of(value: Any) -> int:
    """The fake count of a body: the words of every string in it (a test can count them too)."""
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, dict):
        return sum(tokens_of(item) for item in value.values())
    if isinstance(value, list):
        return sum(tokens_of(item) for item in value)
    return 0


def _refusal(body: dict[str, Any]) -> str | None:
    """What the API refuses in a ``generateContent`` body, in its words; ``None`` when it takes it."""
    unknown = [name for name in body if name not in REQUEST_FIELDS]
    if unknown:
        return f'Invalid JSON payload received. Unknown name "{unknown[0]}": Cannot find field.'
    previous: list[Any] = []
    for index, content in enumerate(body.get("contents") or []):
        parts = content.get("parts") if isinstance(content, dict) else None
        parts = parts if isinstance(parts, list) else []
        called = [p["functionCall"] for p in previous if isinstance(p, dict) and "functionCall" in p]
        for position, part in enumerate(parts):
            if not isinstance(part, dict):
                continue
            signature = part.get("thoughtSignature")
            if signature is not None and not _signed(signature):
                return f"contents[{index}].parts[{position}]: Corrupted thought signature."
            answer = part.get("functionResponse")
            if answer is not None and not any(
                call.get("name") == answer.get("name") and call.get("id") == answer.get("id") for call in called
            ):
                return (
                    "Please ensure that the number of function response parts is equal to the number of function "
                    f"call parts of the function call turn (contents[{index}].parts[{position}])."
                )
        previous = parts
    return None


_SIGNED = "c2lnbmVk"  # base64 of "signed": every signature this server issues starts with it


def _signature(text: str) -> str:
    """The thought signature this server gives ``text`` (base64, as the wire has it)."""
    import base64

    return base64.b64encode(b"signed" + _issued(text).encode()).decode()


def _signed(signature: Any) -> bool:
    return isinstance(signature, str) and signature.startswith(_SIGNED)


def _count_refusal(body: dict[str, Any]) -> str | None:
    unknown = [name for name in body if name not in COUNT_FIELDS]
    if unknown:
        return f'Invalid JSON payload received. Unknown name "{unknown[0]}": Cannot find field.'
    if "contents" in body and "generateContentRequest" in body:
        return "contents and generateContentRequest are mutually exclusive: send one or the other."
    inner = body.get("generateContentRequest")
    if inner is None:
        return None
    if not isinstance(inner, dict) or not isinstance(inner.get("model"), str):
        return "generateContentRequest.model: a model name is required."
    unknown = [name for name in inner if name not in REQUEST_FIELDS | {"model"}]
    if unknown:
        return f"Invalid JSON payload received. Unknown name \"{unknown[0]}\" at 'generate_content_request': Cannot find field."
    return None


def _answer(model: str, body: dict[str, Any], text: str | None) -> dict[str, Any]:
    """The whole ``GenerateContentResponse`` for ``body``."""
    contents = body.get("contents") or []
    turn = len(contents)
    thinking = f"I think about it ({turn})."
    parts: list[dict[str, Any]] = [{"text": thinking, "thought": True}]
    finish = "STOP"
    if model == TOOLS_MODEL and not _answers_calls(contents):
        for number, declaration in enumerate(_declarations(body)):
            call = {"name": declaration.get("name"), "args": conforming_value(declaration.get("parametersJsonSchema"))}
            part: dict[str, Any] = {"functionCall": call}
            if number == 0:
                part["thoughtSignature"] = _signature(f"call {turn}")
            parts.append(part)
    elif model == "refusal":
        finish = "SAFETY"
    else:
        if text is None:
            text = _results_text(contents) if model == TOOLS_MODEL else _model_text(model, body)
        parts.append({"text": text, "thoughtSignature": _signature(f"answer {turn}")})
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}
    return {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": 12,
            "candidatesTokenCount": 3,
            "thoughtsTokenCount": 5,
            "cachedContentTokenCount": 2,
            "totalTokenCount": 20,
        },
        "modelVersion": model,
        "responseId": f"resp_{turn}",
    }


def _model_text(model: str, body: dict[str, Any]) -> str:
    schema = (body.get("generationConfig") or {}).get("responseJsonSchema")
    if isinstance(schema, dict) and not model.startswith(("words", "huge")):
        return json.dumps(conforming_value(schema))
    return _text({"model": model})


def _declarations(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        declaration
        for tool in body.get("tools") or []
        if isinstance(tool, dict)
        for declaration in tool.get("functionDeclarations") or []
        if isinstance(declaration, dict)
    ]


def _answers_calls(contents: list[Any]) -> bool:
    last = contents[-1] if contents and isinstance(contents[-1], dict) else {}
    return any(isinstance(part, dict) and "functionResponse" in part for part in last.get("parts") or [])


def _results_text(contents: list[Any]) -> str:
    """The ``result`` texts of the function responses that end the request, a line each."""
    last = contents[-1] if contents else {}
    return "\n".join(
        str((part["functionResponse"].get("response") or {}).get("result"))
        for part in last.get("parts") or []
        if isinstance(part, dict) and "functionResponse" in part
    )


def _chunks(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The reply as its stream's chunks: a piece of text (a word) or a part each, then the finish."""
    candidate = reply["candidates"][0]
    chunks: list[dict[str, Any]] = []
    for part in candidate["content"]["parts"]:
        if "text" in part:
            words = pieces(part["text"]) or [""]
            for number, word in enumerate(words):
                piece = {**part, "text": word}
                if number < len(words) - 1:
                    piece.pop("thoughtSignature", None)  # the signature comes with the last piece
                chunks.append({"candidates": [{"content": {"role": "model", "parts": [piece]}, "index": 0}]})
        else:
            chunks.append({"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}]})
    last = chunks[-1] if chunks else {"candidates": [{"content": {"role": "model", "parts": []}, "index": 0}]}
    if not chunks:
        chunks.append(last)
    last["candidates"][0]["finishReason"] = candidate["finishReason"]
    for key in ("usageMetadata", "modelVersion", "responseId"):
        last[key] = reply[key]
    return chunks


def _event(data: Any) -> bytes:
    return f"data: {json.dumps(data)}\r\n\r\n".encode()


@contextmanager
def gemini_server(port: int = 0, text: Text | None = None) -> Iterator[FakeProvider]:
    """Start the fake Gemini API on 127.0.0.1 (``port`` 0: a free one); stop it on exit. Its
    ``base_url`` (and ``root``) is the server's root, the SDK's base URL; ``text`` makes the
    model's text (its route is ``generateContent``)."""
    state = FakeProvider(base_url="", text=text)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            state.raw_bodies.append(raw)
            state.paths.append(self.path)
            state.headers.append({key.lower(): value for key, value in self.headers.items()})
            route = _ROUTE.fullmatch(self.path)
            if route is None:
                self._send(404, error_body(404, f"no such method: {self.path}"))
                return
            body = json.loads(raw or b"{}")
            state.requests.append(body)
            model, method = route["model"].split("/", 1)[1], route["method"]
            with lock:
                state.asked[model] = asked = state.asked.get(model, 0) + 1
            streamed = method == "streamGenerateContent" and route["query"] == "?alt=sse"
            if method not in ("generateContent", "streamGenerateContent", "countTokens"):
                self._send(404, error_body(404, f"method {method} not found"))
                return
            if model.startswith("busy") and model[4:].isdigit() and asked <= int(model[4:]):
                retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.05s"}
                self._send(429, error_body(429, "Resource has been exhausted (e.g. check quota).", [retry]))
                return
            if model == "slow":
                time.sleep(1)
            elif model.startswith("delay") and model[5:].isdigit():
                time.sleep(int(model[5:]) / 1000)
            elif model == "hang" and not streamed:
                self._wait_for_hang_up(model)
                return
            if model.startswith("e") and model[1:4].isdigit():
                key = self.headers.get("x-goog-api-key", "")
                message = f"failure {model}" + (f": API key not valid: {key}" if model.endswith("echo") else "")
                self._send(int(model[1:4]), error_body(int(model[1:4]), message))
                return
            if method == "countTokens":
                refusal = _count_refusal(body)
                if refusal is not None:
                    self._send(400, error_body(400, refusal))
                else:
                    self._send(200, {"totalTokens": tokens_of(body)})
                return
            if model == "garbage":
                self._send_bytes(200, b"not json", "application/json")
                return
            if model == "html502":
                self._send_bytes(502, b"<html><body>Bad gateway</body></html>", "text/html")
                return
            if model == "truncated" and not streamed:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", "500")
                self.end_headers()
                self.wfile.write(b'{"candidates": [{"cont')
                self.close_connection = True
                return
            refusal = _refusal(body)
            if refusal is not None:
                self._send(400, error_body(400, refusal))
                return
            if model == "blocked":
                self._send(200, {"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": model})
                return
            given = _huge_text(model) or (None if state.text is None else state.text("generateContent", body))
            reply = state.reply(body) if state.reply is not None else _answer(model, body, given)
            if streamed and model != "unstreamed":
                self._stream(reply, model)
            else:
                self._send(200, reply)

        def _stream(self, reply: dict[str, Any], model: str) -> None:
            events = [_event(chunk) for chunk in _chunks(reply)]
            opening = next((n + 1 for n, chunk in enumerate(_chunks(reply)) if _has_answer_text(chunk)), len(events))
            self.protocol_version = "HTTP/1.1"
            self.close_connection = True
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("transfer-encoding", "chunked")
            self.send_header("connection", "close")
            self.end_headers()
            if model in ("truncated", "short", "streamerror", "streamrate", "hang"):
                events = events[:opening]
            try:
                for event in events:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                if model == "truncated":
                    self.wfile.write(b"40\r\n" + b'data: {"candidates": [{"cont')
                    return
                if model in ("streamerror", "streamrate"):
                    status = 429 if model == "streamrate" else 500
                    error = _event(error_body(status, "failure in the middle of the stream"))
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(error), error))
                if model == "hang":
                    self._wait_for_hang_up(model)
                    return
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                state.hung_up.append(model)

        def _wait_for_hang_up(self, model: str) -> None:
            """Answer nothing more until the client closes the connection (a minute at most)."""
            self.close_connection = True
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                ready, _, _ = select.select([self.connection], [], [], 0.01)
                try:
                    closed = bool(ready) and not self.connection.recv(1, socket.MSG_PEEK)
                except OSError:
                    closed = True
                if closed:
                    state.hung_up.append(model)
                    return

        def _send(self, status: int, data: dict[str, Any]) -> None:
            self._send_bytes(status, json.dumps(data).encode(), "application/json")

        def _send_bytes(self, status: int, data: bytes, content_type: str) -> None:
            try:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    class Server(ThreadingHTTPServer):
        request_queue_size = 256  # a hundred concurrent clients connect at once
        daemon_threads = True

    server = Server(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    state.root = state.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def _has_answer_text(chunk: dict[str, Any]) -> bool:
    parts = chunk["candidates"][0]["content"]["parts"]
    return any("text" in part and not part.get("thought") for part in parts)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m promptwire.testing.gemini_server [--port N]``: serve the fake Gemini API on
    127.0.0.1 until Ctrl-C or SIGTERM (exit status 0)."""
    parser = argparse.ArgumentParser(
        prog="python -m promptwire.testing.gemini_server",
        description="A fake Gemini API on 127.0.0.1, answering each request with the simplest value its "
        "responseJsonSchema accepts.",
    )
    parser.add_argument("--port", type=int, default=0, help="the port (default 0: a free one, printed)")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port takes 0 to 65535, got {args.port}")

    def banner(server: FakeProvider) -> str:
        return (
            f"fake Gemini API on {server.root} (Ctrl-C stops)\n"
            f"  asrender ... --provider gemini --base-url {server.root}    (any key: GEMINI_API_KEY=x)"
        )

    return serve_until_stopped(gemini_server(args.port), banner, args.port)


if __name__ == "__main__":
    raise SystemExit(main())
