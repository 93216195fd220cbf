"""A fake Amazon Bedrock Runtime on 127.0.0.1 that speaks its wire protocol, for tests of the real
AWS SDK (boto3/botocore) over real HTTP: point the client's ``endpoint_url`` (promptwire's
``--base-url``) here, with any credentials and region.

Routes (the model id is the URL's, percent-decoded as botocore encodes it):

* ``POST /model/{modelId}/converse``: the reply as JSON;
* ``POST /model/{modelId}/converse-stream``: the reply as AWS's binary event stream
  (``application/vnd.amazon.eventstream``, chunked): each message a prelude (total length, headers
  length, CRC32 of those eight bytes), headers (``:event-type``, ``:content-type``,
  ``:message-type``, each a string), the JSON payload and the CRC32 of all before it
  (:func:`event_message`); a failure mid-stream is an ``exception`` message
  (``:exception-type``);
* ``POST /model/{modelId}/count-tokens``: ``{"inputTokens": N}`` (:func:`counted_tokens`).

A failure is its HTTP status with ``x-amzn-ErrorType`` naming the error and ``{"message": ...}``,
which botocore reads into its exceptions. A body with a field the operation does not take
(:data:`CONVERSE_FIELDS`, :data:`COUNT_FIELDS`, per the API reference's request syntax) is a 400
``ValidationException``.

The behaviour is chosen by the model id, as :mod:`.provider_servers` chooses it: ``ok`` answers
``{"ok": true}`` (or the text ``text`` makes, see :data:`~.provider_servers.Text`), with reasoning
Bedrock signs; ``eNNN`` fails with that status and its error code (:data:`ERROR_CODES`); ``busyN``
is throttled for its first N requests; ``delayNNN`` answers after NNN ms; ``slow`` after a second;
``hang`` never (until the client hangs up); ``garbage`` sends a body that is not JSON; ``hugeNNN``
a text of NNN KiB (streamed: an event per KiB); ``refusal`` a guardrail's stop; and ``tools``
(:data:`~.provider_servers.TOOLS_MODEL`) calls every tool of the request's ``toolConfig`` at once
with the simplest arguments their schemas accept, after signed and redacted reasoning, and answers
with the results' text once the last turn holds them. Streamed, ``truncated`` cuts the connection
in the middle of a message, ``short`` ends after the first text without ``messageStop``, and
``streamerror``/``streamrate`` send a ``modelStreamErrorException``/``throttlingException`` event
after it. As Bedrock does, a request is refused when its turns do not alternate between user and
assistant, a text block is blank, its reasoning carries a signature this server did not issue, or a
tool result answers no call of the turn before it.

Run as a command, it serves until stopped (Ctrl-C, SIGTERM) on one port, answering with
:func:`shaped_text` (``--replies FILE``: canned replies first), so that any program runs against
it::

    python -m promptwire.testing.bedrock_server --port 8901
    AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_DEFAULT_REGION=us-east-1 \
        asrender examples/evidence-qa.as --provider bedrock --base-url http://127.0.0.1:8901
"""

from __future__ import annotations

import argparse
import base64
import binascii
import itertools
import json
import struct
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from .provider_servers import TOOLS_MODEL, FakeProvider, Text, _issued, _replies, serve_until_stopped
from .schema_values import FAKE_TEXT, conforming_value

__all__ = [
    "CONVERSE_FIELDS",
    "COUNT_FIELDS",
    "ERROR_CODES",
    "answering",
    "converse_reply",
    "counted_tokens",
    "event_message",
    "fake_bedrock",
    "main",
    "request_schema",
    "shaped_text",
]

CONVERSE_FIELDS = frozenset(
    {
        "messages",
        "system",
        "inferenceConfig",
        "toolConfig",
        "guardrailConfig",
        "additionalModelRequestFields",
        "promptVariables",
        "additionalModelResponseFieldPaths",
        "requestMetadata",
        "performanceConfig",
        "serviceTier",
        "outputConfig",
    }
)
"""The body fields of Converse and ConverseStream (``modelId`` is in the URL)."""

COUNT_FIELDS = frozenset({"messages", "system", "toolConfig", "additionalModelRequestFields"})
"""What CountTokens takes in ``input.converse`` (its ``ConverseTokensRequest``)."""

ERROR_CODES = {
    400: "ValidationException",
    401: "UnrecognizedClientException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
}
"""The error code each ``eNNN`` model fails with (``e401`` is sent as 403, as AWS sends it)."""

_CRC = binascii.crc32


def event_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One message of AWS's event stream: prelude (total length, headers length, their CRC32),
    headers (name length, name, type 7 = string, value length, value), payload, CRC32 of it all."""
    encoded = b"".join(
        bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(value.encode())) + value.encode()
        for name, value in headers.items()
    )
    prelude = struct.pack(">II", 12 + len(encoded) + len(payload) + 4, len(encoded))
    message = prelude + struct.pack(">I", _CRC(prelude)) + encoded + payload
    return message + struct.pack(">I", _CRC(message))


def _event(kind: str, payload: dict[str, Any]) -> bytes:
    headers = {":event-type": kind, ":content-type": "application/json", ":message-type": "event"}
    return event_message(headers, json.dumps(payload).encode())


def _exception(kind: str, message: str) -> bytes:
    headers = {":exception-type": kind, ":content-type": "application/json", ":message-type": "exception"}
    return event_message(headers, json.dumps({"message": message}).encode())


def request_schema(body: dict[str, Any]) -> Any:
    """The output schema a Converse body carries (``outputConfig.textFormat``, as JSON text), or ``None``."""
    try:
        text = body["outputConfig"]["textFormat"]["structure"]["jsonSchema"]["schema"]
        return json.loads(text)
    except (KeyError, TypeError, ValueError):
        return None


def shaped_text(route: str, body: dict[str, Any]) -> str:
    """The JSON text of the simplest value the body's output schema accepts; ``"fake"`` without one."""
    schema = request_schema(body)
    return FAKE_TEXT if schema is None else json.dumps(conforming_value(schema))


def answering(replies: Sequence[Any] = ()) -> Text:
    """A :data:`~.provider_servers.Text` that answers ``replies`` in order, one a request (a string is
    the model's text, any other value its JSON text), then :func:`shaped_text`."""
    waiting = list(replies)
    lock = threading.Lock()

    def text(route: str, body: dict[str, Any]) -> str:
        with lock:
            if not waiting:
                return shaped_text(route, body)
            reply = waiting.pop(0)
        return reply if isinstance(reply, str) else json.dumps(reply)

    return text


def counted_tokens(converse: dict[str, Any]) -> int:
    """The fake's token count of a CountTokens input: a token per four bytes of its JSON, at least one."""
    return max(1, len(json.dumps(converse, separators=(",", ":"))) // 4)


def _huge(model: str) -> str | None:
    if model.startswith("huge") and model[4:].isdigit():
        return ("x" * 1023 + " ") * int(model[4:])
    return None


def converse_reply(model: str, body: dict[str, Any], text: str | None) -> dict[str, Any]:
    """The Converse reply to ``body``: signed reasoning and the text, or the ``tools`` model's turn."""
    answer = text if text is not None else _huge(model) or '{"ok": true}'
    content: list[dict[str, Any]] = [
        {"reasoningContent": {"reasoningText": {"text": "Easy.", "signature": _issued("Easy.")}}},
        {"text": answer},
    ]
    stop = "end_turn"
    if model == "refusal":
        content, stop = [{"text": "Sorry, the guardrail stopped this."}], "guardrail_intervened"
    elif model == TOOLS_MODEL:
        content, stop = _tool_turn(body, text)
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {
            "inputTokens": 12,
            "outputTokens": 3,
            "totalTokens": 15,
            "cacheReadInputTokens": 5,
            "cacheWriteInputTokens": 2,
        },
        "metrics": {"latencyMs": 7},
    }


def _tool_turn(body: dict[str, Any], text: str | None) -> tuple[list[dict[str, Any]], str]:
    messages = body.get("messages") or []
    last = messages[-1].get("content") if messages and isinstance(messages[-1], dict) else None
    results = [b["toolResult"] for b in last or () if isinstance(b, dict) and "toolResult" in b]
    if results:
        said = text if text is not None else "\n".join(_result_text(result) for result in results)
        return [{"text": said}], "end_turn"
    turn = len(messages)
    thinking = f"I will call the tools ({turn})."
    redacted = base64.b64encode(_issued(f"redacted {turn}").encode()).decode()
    calls = [
        {"toolUse": {"toolUseId": f"tooluse_{turn}_{index}", "name": spec.get("name"), "input": value}}
        for index, tool in enumerate((body.get("toolConfig") or {}).get("tools") or [])
        if isinstance(spec := tool.get("toolSpec"), dict)
        and isinstance(value := conforming_value((spec.get("inputSchema") or {}).get("json")), dict)
    ]
    return [
        {"reasoningContent": {"reasoningText": {"text": thinking, "signature": _issued(thinking)}}},
        {"reasoningContent": {"redactedContent": redacted}},
        {"text": "Let me look that up."},
        *calls,
    ], "tool_use"


def _result_text(result: dict[str, Any]) -> str:
    return "".join(str(block.get("text", "")) for block in result.get("content") or () if isinstance(block, dict))


def _refusal(body: dict[str, Any]) -> str | None:
    """What Bedrock refuses in a conversation: reasoning it did not sign (or redacted content it did
    not issue), and a tool result that answers no call of the turn before it."""
    previous: list[Any] = []
    roles = [message.get("role") if isinstance(message, dict) else None for message in body.get("messages") or []]
    if any(one == other for one, other in itertools.pairwise(roles)):
        return (
            "A conversation must alternate between user and assistant roles. Make sure the conversation "
            "alternates between user and assistant roles and try again."
        )
    for index, message in enumerate(body.get("messages") or []):
        blocks = message.get("content") if isinstance(message, dict) else None
        blocks = blocks if isinstance(blocks, list) else []
        called = {b["toolUse"].get("toolUseId") for b in previous if isinstance(b, dict) and "toolUse" in b}
        for position, block in enumerate(blocks):
            where = f"messages.{index}.content.{position}"
            reasoning = block.get("reasoningContent") if isinstance(block, dict) else None
            if isinstance(block, dict) and "text" in block and not str(block["text"]).strip():
                return (
                    f"The text field in the ContentBlock object at {where} is blank. "
                    "Add text to the text field, and try again."
                )
            if isinstance(reasoning, dict) and "reasoningText" in reasoning:
                signed = reasoning["reasoningText"]
                if signed.get("signature") != _issued(signed.get("text")):
                    return f"The model returned the following errors: {where}: Invalid signature in thinking block"
            elif isinstance(reasoning, dict) and "redactedContent" in reasoning:
                if not base64.b64decode(str(reasoning["redactedContent"])).startswith(b"issued:"):
                    return f"The model returned the following errors: {where}: Invalid redacted thinking data"
            elif (
                isinstance(block, dict) and "toolResult" in block and block["toolResult"].get("toolUseId") not in called
            ):
                return (
                    f"The model returned the following errors: {where}: unexpected `tool_use_id` found in "
                    "`tool_result` blocks. Each `tool_result` block must have a corresponding `tool_use` block "
                    "in the previous message."
                )
        previous = blocks
    return None


def _stream_events(reply: dict[str, Any]) -> tuple[list[bytes], int]:
    """The reply as ConverseStream sends it, and how many events reach the first text."""
    events = [_event("messageStart", {"role": "assistant"})]
    opening = 0
    for index, block in enumerate(reply["output"]["message"]["content"]):
        if "toolUse" in block:
            call = block["toolUse"]
            start = {"toolUse": {"toolUseId": call["toolUseId"], "name": call["name"]}}
            events.append(_event("contentBlockStart", {"start": start, "contentBlockIndex": index}))
            delta = {"toolUse": {"input": json.dumps(call["input"])}}
            events.append(_event("contentBlockDelta", {"delta": delta, "contentBlockIndex": index}))
        elif "text" in block:
            words = block["text"].split(" ")
            pieces = [word + (" " if n < len(words) - 1 else "") for n, word in enumerate(words)]
            for piece in pieces:
                events.append(_event("contentBlockDelta", {"delta": {"text": piece}, "contentBlockIndex": index}))
                opening = opening or len(events)
        else:
            reasoning = block["reasoningContent"]
            if "redactedContent" in reasoning:
                deltas = [{"redactedContent": reasoning["redactedContent"]}]
            else:
                signed = reasoning["reasoningText"]
                deltas = [{"text": signed["text"]}, {"signature": signed["signature"]}]
            for delta in deltas:
                events.append(
                    _event("contentBlockDelta", {"delta": {"reasoningContent": delta}, "contentBlockIndex": index})
                )
        events.append(_event("contentBlockStop", {"contentBlockIndex": index}))
    events.append(_event("messageStop", {"stopReason": reply["stopReason"]}))
    events.append(_event("metadata", {"usage": reply["usage"], "metrics": reply["metrics"]}))
    return events, opening or len(events)


@contextmanager
def fake_bedrock(port: int = 0, text: Text | None = None) -> Iterator[FakeProvider]:
    """Start the fake Bedrock Runtime on 127.0.0.1 (``port`` 0: a free one); stop it on exit. Its
    ``base_url`` and ``root`` are the endpoint URL; ``requests`` holds each body with its model id
    under ``"modelId"`` and its operation under ``"operation"`` (the body as sent is in ``raw_bodies``,
    its path as sent, percent-encoded, in ``paths``)."""
    state = FakeProvider(base_url="", text=text)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length", "0")))
            parts = self.path.split("/")
            if (
                len(parts) != 4
                or parts[1] != "model"
                or parts[3] not in ("converse", "converse-stream", "count-tokens")
            ):
                self._error(404, "UnknownOperationException", f"no such operation: {self.path}")
                return
            model, operation = unquote(parts[2]), parts[3]
            state.raw_bodies.append(raw)
            state.paths.append(self.path)
            state.headers.append({key.lower(): value for key, value in self.headers.items()})
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                self._error(400, "SerializationException", "the body is not JSON")
                return
            state.requests.append({"modelId": model, "operation": operation, **body})
            with lock:
                state.asked[model] = asked = state.asked.get(model, 0) + 1
            if operation == "count-tokens":
                self._count(body)
                return
            unknown = sorted(set(body) - CONVERSE_FIELDS)
            if unknown:
                self._error(
                    400,
                    "ValidationException",
                    f"Malformed input request: extraneous key [{unknown[0]}] is not permitted",
                )
                return
            if model.startswith("busy") and model[4:].isdigit() and asked <= int(model[4:]):
                self._error(429, "ThrottlingException", "Too many requests, please wait before trying again.")
                return
            if model == "slow":
                time.sleep(1)
            elif model.startswith("delay") and model[5:].isdigit():
                time.sleep(int(model[5:]) / 1000)
            elif model == "hang" and operation == "converse":
                self._wait_for_hang_up(model)
                return
            if model.startswith("e") and model[1:4].isdigit():
                status = int(model[1:4])
                code = ERROR_CODES.get(status, "InternalServerException")
                message = f"failure {model}"
                if model.endswith("echo"):  # as some proxies do: the request's credentials quoted
                    message += f": security token {self.headers.get('x-amz-security-token')}"
                self._error(403 if status == 401 else status, code, message)
                return
            if model == "garbage":
                self._send(200, b"not json", "application/json")
                return
            refusal = _refusal(body)
            if refusal is not None:
                self._error(400, "ValidationException", refusal)
                return
            text = None if state.text is None else state.text(f"/model/{operation}", body)
            reply = converse_reply(model, body, text)
            if operation == "converse-stream":
                self._stream(reply, model)
            else:
                self._send(200, json.dumps(reply).encode(), "application/json")

        def _count(self, body: dict[str, Any]) -> None:
            converse = (body.get("input") or {}).get("converse") if isinstance(body.get("input"), dict) else None
            unknown = sorted(set(body) - {"input"}) or sorted(
                set(body.get("input") or {}) - {"converse", "invokeModel"}
            )
            if not unknown and isinstance(converse, dict):
                unknown = sorted(set(converse) - COUNT_FIELDS)
            if unknown or not isinstance(converse, dict):
                problem = f"extraneous key [{unknown[0]}] is not permitted" if unknown else "input.converse is required"
                self._error(400, "ValidationException", f"Malformed input request: {problem}")
                return
            self._send(200, json.dumps({"inputTokens": counted_tokens(converse)}).encode(), "application/json")

        def _stream(self, reply: dict[str, Any], model: str) -> None:
            events, opening = _stream_events(reply)
            if model in ("short", "streamerror", "streamrate", "hang", "truncated"):
                events = events[:opening]
            self.protocol_version = "HTTP/1.1"
            self.close_connection = True
            self.send_response(200)
            # Said, as HTTP/1.1 asks of a server that closes: without it the client pooled the
            # connection, and the next call of a loop could be sent on it as it closed.
            self.send_header("connection", "close")
            self.send_header("content-type", "application/vnd.amazon.eventstream")
            self.send_header("x-amzn-requestid", "fake-request")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            try:
                for event in events:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                if model == "truncated":  # half of the next message, then the connection drops
                    half = _event("contentBlockDelta", {"delta": {"text": "cut"}, "contentBlockIndex": 1})[:20]
                    self.wfile.write(b"%x\r\n%s" % (len(half) * 2, half))
                    return
                if model in ("streamerror", "streamrate"):
                    error = (
                        _exception("throttlingException", "Too many tokens, please wait.")
                        if model == "streamrate"
                        else _exception("modelStreamErrorException", "The model stopped in the middle.")
                    )
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(error), error))
                if model == "hang":
                    self._wait_for_hang_up(model)
                    return
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                state.hung_up.append(model)

        def _wait_for_hang_up(self, model: str) -> None:
            """Answer nothing more until the client closes the connection (at most a minute)."""
            import select
            import socket

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

        def _error(self, status: int, code: str, message: str) -> None:
            headers = {"x-amzn-ErrorType": f"{code}:http://internal.amazon.com/coral/com.amazon.bedrock/"}
            if code == "ThrottlingException":
                headers["Retry-After"] = "1"
            self._send(status, json.dumps({"message": message}).encode(), "application/json", headers)

        def _send(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("x-amzn-requestid", "fake-request")
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

    class Server(ThreadingHTTPServer):
        request_queue_size = 256
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


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m promptwire.testing.bedrock_server [--port N] [--replies FILE]``: serve the Bedrock
    Runtime's Converse, ConverseStream and CountTokens on 127.0.0.1 until Ctrl-C or SIGTERM (exit 0)."""
    parser = argparse.ArgumentParser(
        prog="python -m promptwire.testing.bedrock_server",
        description="A fake Amazon Bedrock Runtime on 127.0.0.1, answering each request with the simplest value "
        "its output schema accepts.",
    )
    parser.add_argument("--port", type=int, default=0, help="the port (default 0: a free one, printed)")
    parser.add_argument("--replies", metavar="FILE", help="canned replies first, a JSON array used in order")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error(f"--port takes 0 to 65535, got {args.port}")
    try:
        replies = _replies(args.replies) if args.replies else []
    except ValueError as exc:
        parser.error(str(exc))

    def banner(server: FakeProvider) -> str:
        return (
            f"fake Bedrock Runtime on {server.root} (Ctrl-C stops)\n"
            f"  asrender ... --provider bedrock --base-url {server.root}\n"
            "  (any credentials and region: AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x AWS_DEFAULT_REGION=us-east-1)"
        )

    return serve_until_stopped(fake_bedrock(args.port, answering(replies)), banner, args.port)


if __name__ == "__main__":
    raise SystemExit(main())
