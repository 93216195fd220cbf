"""Reply bodies that crashed a call (``asrender: internal error``), through every built-in adapter's
real SDK over real HTTP: each is now the :class:`MalformedResponseError` that says what came.

| payload (a 200's body) | defence |
|---|---|
| ``null``, ``7``, ``[1]``, ``[42, false]``, ``"text"`` to Ollama | ``LLM provider response is not a JSON object`` (the SDK spread it as keyword arguments: a TypeError) |
| an integer of 5000 digits in a 200 | ``LLM provider response holds an integer of more than 4300 digits`` (the SDKs' JSON parsing raised a bare ValueError) |
| an Ollama error body of ``null``, ``[1]``, ``{"error": 7}`` or holding 5000 digits | the status's error quoting the body (the SDK's ResponseError failed to read it: AttributeError, ValueError) |
| bytes that are not UTF-8 (``\x80``) | ``LLM provider response is not UTF-8 text`` (a UnicodeDecodeError) |
| an integer of 5000 digits, or 100,000 ``[``, in a tool call's arguments | kept as text under ``_raw`` |
| half a character (``"\\ud800"``) in a reply of the wrong shape, to OpenAI or Anthropic | the reply quoted with the escape (pydantic's JSON writer failed on it, in the error describing the reply) |
| a body whose content type says ``charset=utf-16`` but that has no BOM, whole or streamed | ``LLM provider response cannot be read as the text it says it is`` (a bare UnicodeError; found by the provider fuzz) |
| half a character in a key of a reply of the wrong shape (``{"content": [null, {"\\ud800": 1}]}``), to Anthropic | the reply quoted as Python shows it (pydantic's dump raised UnicodeEncodeError describing the reply; found by the provider fuzz's volume run) |
| a line of an Ollama stream that is ``null``, ``7`` or ``[42, false]`` | ``LLM provider stream holds a line that is not a JSON object`` (the SDK's AttributeError escaped; found by the provider fuzz) |
| a 301 without ``Location`` to a streamed request, its body chunked | the status's error (the HTTP library's HTTPStatusError escaped; found by ``test_provider_fuzz.py``, which finds it again) |
"""

from __future__ import annotations

import re
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from promptwire import Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.base import tool_arguments
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.calls.generate import generate
from promptwire.core.errors import BadRequestError, MalformedResponseError, PromptwireError, ProviderError
from promptwire.renderers.agentscript import renderer

ADAPTERS: dict[str, Any] = {
    "openai": lambda root: OpenAIAdapter(api_key="sk-test-0123456789", base_url=f"{root}/v1"),
    "openai-responses": lambda root: OpenAIResponsesAdapter(api_key="sk-test-0123456789", base_url=f"{root}/v1"),
    "anthropic": lambda root: AnthropicAdapter(api_key="sk-test-0123456789", base_url=root),
    "ollama": lambda root: OllamaAdapter(host=root),
}


class RawServer:
    """Answers every POST with ``status`` (200) and ``body``, byte for byte, as ``content_type``
    (``application/json``)."""

    def __init__(self) -> None:
        self.body = b""
        self.status = 200
        self.content_type = "application/json"
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                self.send_response(server.status)
                self.send_header("content-type", server.content_type)
                self.send_header("content-length", str(len(server.body)))
                self.end_headers()
                self.wfile.write(server.body)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.root = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()


@pytest.fixture(scope="module")
def raw_server() -> Iterator[RawServer]:
    running = RawServer()
    yield running
    running.http.shutdown()
    running.http.server_close()


def reply_error(raw_server: RawServer, name: str, body: bytes, *, streamed: bool = False) -> PromptwireError:
    raw_server.body = body
    with pytest.raises(PromptwireError) as caught:
        generate(
            Prompt(instruction="x"),
            render=renderer.render,
            adapter=ADAPTERS[name](raw_server.root),
            model="m",
            timeout=5,
            on_text=(lambda text: None) if streamed else None,
        )
    return caught.value


@pytest.mark.parametrize(
    ("body", "quoted"),
    [(b"null", "None"), (b"7", "7"), (b"[1]", "[1]"), (b"[42, false]", "[42, False]"), (b'"text"', "text")],
)
def test_an_ollama_body_that_is_no_object_is_a_malformed_reply(raw_server: RawServer, body: bytes, quoted: str) -> None:
    error = reply_error(raw_server, "ollama", body)
    assert type(error) is MalformedResponseError
    assert (str(error), error.body) == ("LLM provider response is not a JSON object", quoted)


@pytest.mark.parametrize("name", ["openai", "openai-responses", "anthropic"])
def test_a_reply_holding_half_a_character_is_described_with_its_escape(raw_server: RawServer, name: str) -> None:
    error = reply_error(raw_server, name, b'{"choices": "\\ud800", "output": "\\udc00", "content": "\\ud800"}')
    assert type(error) is MalformedResponseError
    assert '"choices":"\\ud800"' in (error.body or "")


HUGE = b"1" * 5000


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_reply_holding_an_integer_of_5000_digits_is_a_malformed_reply(raw_server: RawServer, name: str) -> None:
    error = reply_error(raw_server, name, b'{"id": "x", "n": ' + HUGE + b"}")
    assert type(error) is MalformedResponseError
    assert str(error) == (
        f"LLM provider response holds an integer of more than {sys.get_int_max_str_digits()} digits, "
        "more than Python reads"
    )


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b'{"error": "bad", "n": ' + HUGE + b"}", '{"error": "bad", "n": ' + HUGE.decode()[:250]),
        (b"null", "null"),
        (b"[1]", "[1]"),
        (b'{"error": 7}', '{"error": 7}'),
        (b'{"error": "model not found"}', "model not found"),
    ],
)
def test_an_ollama_error_body_of_any_shape_is_the_status_error(raw_server: RawServer, body: bytes, said: str) -> None:
    raw_server.status = 400
    try:
        error = reply_error(raw_server, "ollama", body)
    finally:
        raw_server.status = 200
    assert (type(error), error.status) == (BadRequestError, 400)
    assert (error.body or "").startswith(said)


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_reply_that_is_not_utf8_is_a_malformed_reply(raw_server: RawServer, name: str) -> None:
    error = reply_error(raw_server, name, b'{"id": "\x80\xff"}')
    assert type(error) is MalformedResponseError
    assert str(error) == 'LLM provider response is not UTF-8 text: {"id": "\ufffd\ufffd"}'


@pytest.mark.parametrize("text", ['{"a": ' + "1" * 5000 + "}", "[" * 100_000 + "]" * 100_000])
def test_tool_arguments_python_cannot_read_are_kept_as_text(text: str) -> None:
    assert tool_arguments(text) == {"_raw": text}


@pytest.mark.parametrize(("status", "streamed"), [(400, False), (200, True)], ids=["error", "streamed"])
@pytest.mark.parametrize("name", ADAPTERS)
def test_a_body_its_own_charset_cannot_read_is_a_malformed_reply(
    raw_server: RawServer, name: str, status: int, streamed: bool
) -> None:
    raw_server.status, raw_server.content_type = status, "application/json; charset=utf-16"
    try:
        error = reply_error(raw_server, name, b'{"id": "x"}', streamed=streamed)
    finally:
        raw_server.status, raw_server.content_type = 200, "application/json"
    assert type(error) is MalformedResponseError
    assert str(error).startswith("LLM provider response cannot be read as the text it says it is: ")


@pytest.mark.parametrize("line", [b"null", b"7", b"[42, false]", b'"text"'])
def test_an_ollama_stream_line_that_is_no_object_is_a_malformed_reply(raw_server: RawServer, line: bytes) -> None:
    raw_server.content_type = "application/x-ndjson"
    try:
        error = reply_error(raw_server, "ollama", line + b"\n", streamed=True)
    finally:
        raw_server.content_type = "application/json"
    assert type(error) is MalformedResponseError
    assert str(error) == "LLM provider stream holds a line that is not a JSON object"


def test_a_reply_with_half_a_character_in_a_key_is_described(raw_server: RawServer) -> None:
    error = reply_error(raw_server, "anthropic", b'{"id": "x", "content": [null, {"\\ud800": 1}]}')
    assert type(error) is MalformedResponseError
    assert "\ud800=1" in (error.body or "")


def test_a_stream_whose_usage_is_no_object_is_a_provider_error(raw_server: RawServer) -> None:
    """An OpenAI stream chunk with ``"usage": "x"``: putting the stream together called
    ``model_dump`` on the text, an AttributeError (found by the provider fuzz's volume run)."""
    chunk = b'data: {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "usage": "x", '
    chunk += b'"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n'
    raw_server.content_type = "text/event-stream"
    try:
        raw_server.body = chunk
        generate(
            Prompt(instruction="x"),
            render=renderer.render,
            adapter=ADAPTERS["openai"](raw_server.root),
            model="m",
            timeout=5,
            on_text=lambda text: None,
        )
    except PromptwireError as refused:
        assert isinstance(refused, ProviderError), refused
    finally:
        raw_server.content_type = "application/json"


@pytest.mark.parametrize("name", ["openai", "openai-responses", "anthropic"])
def test_a_long_integer_in_a_described_reply_is_told_not_a_crash(name: str) -> None:
    """An SDK object holding an integer longer than Python writes as digits (as an SDK that reads
    its JSON with a parser of its own may give), in a reply missing a part: the malformed reply is
    described with the integer's length, not a ValueError from writing it."""
    import anthropic
    from openai.types.chat import ChatCompletion
    from openai.types.responses import Response

    huge = 10**4999  # 5,000 digits
    raw = {
        "openai": lambda: ChatCompletion.construct(id="x", choices=[], created=huge),
        "openai-responses": lambda: Response.construct(id="x", output=None, usage=huge),
        "anthropic": lambda: anthropic.types.Message.construct(id="x", content=None, usage=huge),
    }[name]()
    with pytest.raises(MalformedResponseError) as caught:
        ADAPTERS[name]("http://127.0.0.1:9").parse_reply(raw)
    assert re.search(r"\(an integer of about 4,99[0-9] digits\)", caught.value.body or "")
