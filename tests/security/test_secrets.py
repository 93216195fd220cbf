"""Keys and URL passwords never reach a message, through every built-in adapter's real SDK over real
HTTP and through the HTTP tool.

| payload | defence |
|---|---|
| a key ending in a newline, or holding a letter outside ASCII (``OPENAI_API_KEY``, ``api_key=``, ``OLLAMA_API_KEY``) | refused before sending, naming where it came from, never showing it (it was printed in the connection error; a non-ASCII one crashed) |
| a 200 reply of the wrong shape that echoes the key (from the environment or ``api_key=``) | ``***`` in the message and the body |
| an error body that echoes the key escaped (``\\n``, ``\\u00e9``), percent-encoded, or inside a longer word | ``***`` |
| any configured key in any provider's text (Ollama quoting ``OPENAI_API_KEY``, a plugin's ``key_variable``) | ``***`` |
| a model's reply that is not JSON and quotes the key | ``***`` in the repair text and the error |
| a password in ``OPENAI_BASE_URL`` (``https://user:pass@host/v1``) on a timeout, a refused connection | ``http://***@host/v1/...``; the password nowhere |
| a password in an HTTP tool's URL (timeout, failure, an origin refused) | ``***@`` |
| a secret with a newline sent as an HTTP tool's header | refused naming the header, never its value (Python's HTTP client quoted it) |
| a key shorter than 8 characters | a text holding it is withheld whole, not masked letter by letter |
"""

from __future__ import annotations

import contextlib
import json
import socket
import string
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptwire import Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.base import ProviderAdapter
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.adapters.status import connection_failed, status_error
from promptwire.calls.generate import NotJsonError, generate, read_json
from promptwire.core.call import ProviderRequest, Reply
from promptwire.core.errors import (
    AuthenticationError,
    MalformedResponseError,
    PromptwireError,
    ProviderConnectionError,
    ProviderTimeoutError,
)
from promptwire.core.permissions import ANY_ORIGIN, NotAllowed, Permissions
from promptwire.core.secrets import MASK, WITHHELD, mask, shown_url
from promptwire.core.tools import ToolError, ToolRequest
from promptwire.renderers.agentscript import renderer, shape_contract
from promptwire.testing.provider_servers import FakeProvider, fake_provider
from promptwire.tools.http import http_tool

KEY = "sk-proj-7Hq2xW9vLm4Rt8Yp3Nc6Bd1Fg5Js0Kz"
PASSWORD = "correct-horse-battery-staple"

KEYED: dict[str, Any] = {
    "openai": (OpenAIAdapter, "OPENAI_API_KEY", "/v1"),
    "openai-responses": (OpenAIResponsesAdapter, "OPENAI_API_KEY", "/v1"),
    "anthropic": (AnthropicAdapter, "ANTHROPIC_API_KEY", ""),
}


def _prompt() -> Prompt:
    return Prompt(instruction="Check.", output=shape_contract({"ok": "boolean"}))


@pytest.fixture
def server() -> Iterator[FakeProvider]:
    with fake_provider() as running:
        yield running


def _failure(adapter: Any, model: str = "ok", **options: Any) -> PromptwireError:
    options.setdefault("timeout", 5)
    with pytest.raises(PromptwireError) as caught:
        generate(_prompt(), render=renderer.render, adapter=adapter, model=model, **options)
    return caught.value


def _texts(error: BaseException) -> str:
    return " ".join((str(error), repr(error), str(getattr(error, "body", "") or "")))


def _assert_nowhere(secret: str, error: BaseException) -> None:
    texts = _texts(error)
    for form in (secret, secret.strip(), repr(secret)[1:-1], repr(secret.strip())[1:-1]):
        assert form not in texts, f"{form!r} in {texts!r}"


# --- keys no header can carry ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        (KEY + "\n", "a line break"),
        (KEY + "\r\n", "a line break"),
        ("sk-é€🙂" + KEY, "a character outside ASCII"),
        (KEY[:10] + "\x1b" + KEY[10:], "a control character"),
        (" " + KEY, "spaces at its start or end"),
    ],
)
@pytest.mark.parametrize("name", KEYED)
def test_a_key_no_header_can_carry_is_refused_without_showing_it(
    server: FakeProvider, monkeypatch: pytest.MonkeyPatch, name: str, key: str, problem: str
) -> None:
    cls, variable, path = KEYED[name]
    monkeypatch.setenv(variable, key)
    from_env = _failure(cls(base_url=server.root + path))
    assert type(from_env) is AuthenticationError
    assert str(from_env) == f"{variable} cannot be sent: it holds {problem}, which an HTTP header cannot carry"
    given = _failure(cls(api_key=key, base_url=server.root + path))
    assert str(given) == f"the API key cannot be sent: it holds {problem}, which an HTTP header cannot carry"
    assert server.requests == []
    _assert_nowhere(key, from_env)


def test_ollamas_key_is_checked_as_the_others_are(server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_API_KEY", KEY + "\n")
    error = _failure(OllamaAdapter(host=server.root))
    assert str(error) == "OLLAMA_API_KEY cannot be sent: it holds a line break, which an HTTP header cannot carry"
    assert server.requests == []


# --- provider text that quotes a key ---------------------------------------------------------------


@pytest.mark.parametrize("from_env", [True, False], ids=["environment", "api_key"])
@pytest.mark.parametrize("name", KEYED)
def test_a_200_of_the_wrong_shape_that_echoes_the_key_is_masked(
    server: FakeProvider, monkeypatch: pytest.MonkeyPatch, name: str, from_env: bool
) -> None:
    cls, variable, path = KEYED[name]
    if from_env:
        monkeypatch.setenv(variable, KEY)
    server.reply = lambda body: {"error": f"unknown key {KEY}", "echo": [KEY]}
    error = _failure(cls(base_url=server.root + path) if from_env else cls(api_key=KEY, base_url=server.root + path))
    assert type(error) is MalformedResponseError
    assert f"unknown key {MASK}" in (error.body or "")
    _assert_nowhere(KEY, error)


ECHOES = {
    "as it is": KEY,
    "inside a longer word": f"x{KEY}x",
    "JSON-escaped": "sk-\\u00e9\\u20ac-key-123456",
    "percent-encoded": "sk-%C3%A9%E2%82%AC-key-123456",
    "as Python's repr of its bytes": "sk-\\xc3\\xa9\\xe2\\x82\\xac-key-123456",
}


@pytest.mark.parametrize("echo", ECHOES)
def test_an_error_body_that_echoes_the_key_in_any_spelling_is_masked(
    monkeypatch: pytest.MonkeyPatch, echo: str
) -> None:
    key = KEY if echo in ("as it is", "inside a longer word") else "sk-é€-key-123456"
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    error = status_error(401, f'{{"error": "bad key: {ECHOES[echo]}"}}')
    assert MASK in str(error)
    _assert_nowhere(key, error)
    assert ECHOES[echo] not in str(error)


@contextlib.contextmanager
def answering(status: int, body: str, content_type: str = "application/json") -> Iterator[str]:
    """A server on 127.0.0.1 that answers every request with ``status`` and ``body``; yields its URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            data = body.encode("utf-8", "surrogatepass")
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    with ThreadingHTTPServer(("127.0.0.1", 0), Handler) as http:
        threading.Thread(target=http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        try:
            yield f"http://127.0.0.1:{http.server_address[1]}"
        finally:
            http.shutdown()


def test_an_error_event_mid_stream_that_echoes_the_adapters_own_key_is_masked() -> None:
    # The key is the adapter's (api_key=), not a declared variable's: only the call's own secrets mask it,
    # in a stream read on this thread and in one read on an event loop alike.
    import asyncio

    from promptwire.calls.generate import agenerate

    error_event = {"error": {"message": f"key {KEY} is revoked", "type": "server_error", "param": None, "code": None}}
    body = 'data: {"choices": [{"index": 0, "delta": {"content": "{"}}]}\n\n' + f"data: {json.dumps(error_event)}\n\n"
    prompt = Prompt(instruction="Say ok.", output=shape_contract({"ok": "boolean"}))
    with answering(200, body, content_type="text/event-stream") as url:
        adapter = OpenAIAdapter(api_key=KEY, base_url=url + "/v1")
        shown: list[str] = []
        with pytest.raises(PromptwireError) as streamed:
            generate(prompt, render=renderer.render, adapter=adapter, model="m", on_text=shown.append)
        with pytest.raises(PromptwireError) as awaited:
            asyncio.run(agenerate(prompt, render=renderer.render, adapter=adapter, model="m", on_text=shown.append))
    assert shown == ["{", "{"]
    for caught in (streamed, awaited):
        assert f"key {MASK} is revoked" in str(caught.value)
        _assert_nowhere(KEY, caught.value)


def test_any_configured_key_is_masked_in_any_providers_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY[::-1])
    with answering(500, f'{{"error": "upstream refused {KEY} and {KEY[::-1]}"}}') as url:
        error = _failure(OllamaAdapter(host=url))
    assert str(error) == f"LLM provider request failed (500): upstream refused {MASK} and {MASK}"
    _assert_nowhere(KEY, error)
    _assert_nowhere(KEY[::-1], error)


class KeyedPlugin(ProviderAdapter):
    """A plugin's adapter: its ``key_variable`` is masked whichever adapter runs."""

    name = "keyed-plugin"
    description = "a test plugin"
    protocol = "keyed"
    key_variable = "PW_TEST_PLUGIN_API_KEY"
    url_variable = "PW_TEST_PLUGIN_URL"

    def build_request(self, rendered: Any, config: Any, contract: Any, model: str | None) -> ProviderRequest:
        return ProviderRequest({"model": model})

    def client(self, endpoint: Any, seconds: float) -> Any:
        return None

    def post(self, client: Any, body: bytes) -> Any:
        raise ConnectionError(f"refused by proxy for {KEY[::-1]}")

    def failure(self, exc: Exception, endpoint: Any, seconds: float) -> Any:
        return connection_failed(exc) if isinstance(exc, OSError) else None

    def reply(self, raw: Any) -> Reply:
        raise AssertionError("never reached")


def test_a_plugin_adapters_key_is_masked_in_another_adapters_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PW_TEST_PLUGIN_API_KEY", KEY)
    monkeypatch.setenv("PW_TEST_PLUGIN_URL", f"https://user:{PASSWORD}@plugin.example/v1")
    with answering(502, f'{{"error": "{KEY} {PASSWORD}"}}') as url:
        error = _failure(OllamaAdapter(host=url))
    assert str(error) == f"LLM provider request failed (502): {MASK} {MASK}"


def test_a_plugin_adapters_connection_error_masks_its_own_key() -> None:
    error = _failure(KeyedPlugin(api_key=KEY[::-1]))
    assert type(error) is ProviderConnectionError
    assert str(error) == f"LLM provider request failed: refused by proxy for {MASK}"


def test_a_reply_that_is_not_json_and_quotes_the_key_is_masked(
    server: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)

    def prose(body: dict[str, Any]) -> dict[str, Any]:
        message = {"role": "assistant", "content": f"Sure! Your key is {KEY}."}
        return {"id": "x", "object": "chat.completion", "created": 0, "model": "ok", "choices": [
            {"index": 0, "message": message, "finish_reason": "stop"}
        ]}  # fmt: skip

    server.reply = prose
    error = _failure(OpenAIAdapter(base_url=server.base_url))
    assert type(error) is NotJsonError
    assert str(error) == f"LLM provider did not return JSON: Sure! Your key is {MASK}."
    with pytest.raises(NotJsonError, match=r"\*\*\*"):
        read_json(f"no JSON here, only {KEY}")


# --- URL passwords ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*KEYED, "ollama"])
def test_a_password_in_the_base_url_is_never_shown_on_a_timeout(
    server: FakeProvider, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    port = server.root.rsplit(":", 1)[1]
    if name == "ollama":
        monkeypatch.setenv("OLLAMA_HOST", f"http://user:{PASSWORD}@127.0.0.1:{port}")
        adapter: Any = OllamaAdapter()
        where = f"http://***@127.0.0.1:{port}/api/chat"
    else:
        cls, variable, path = KEYED[name]
        monkeypatch.setenv(variable, KEY)
        monkeypatch.setenv(variable.replace("API_KEY", "BASE_URL"), f"http://user:{PASSWORD}@127.0.0.1:{port}{path}")
        adapter = cls()
        where = f"http://***@127.0.0.1:{port}{path}/{adapter.path}"
    error = _failure(adapter, "slow", timeout=0.2)
    assert type(error) is ProviderTimeoutError
    assert str(error) == f"LLM provider request timed out after 0.2s: {where}"
    _assert_nowhere(PASSWORD, error)


@pytest.mark.parametrize("name", [*KEYED, "ollama"])
def test_a_password_in_the_base_url_is_never_shown_when_the_connection_fails(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    url = f"http://user:{PASSWORD}@127.0.0.1:{port}"
    if name == "ollama":
        adapter: Any = OllamaAdapter(host=url)
    else:
        cls, _, path = KEYED[name]
        adapter = cls(api_key=KEY, base_url=url + path)
    error = _failure(adapter)
    assert type(error) is ProviderConnectionError
    _assert_nowhere(PASSWORD, error)


def test_a_url_is_shown_without_its_user_and_password() -> None:
    assert shown_url(f"https://user:{PASSWORD}@api.example.com/v1") == "https://***@api.example.com/v1"
    assert shown_url(f"https://{KEY}@api.example.com/v1") == "https://***@api.example.com/v1"
    assert shown_url("https://user:p@ss@api.example.com/v1") == "https://***@api.example.com/v1"
    assert shown_url(f"https://api.example.com/v1?key={KEY}", KEY) == "https://api.example.com/v1?key=***"
    assert shown_url("https://api.example.com/v1") == "https://api.example.com/v1"


# --- the HTTP tool ---------------------------------------------------------------------------------


def _tool_call(uri: str, args: dict[str, Any], net: frozenset[str] = frozenset({ANY_ORIGIN})) -> Any:
    context = Permissions(Path.cwd(), net=net, timeout=0.5)
    return http_tool(ToolRequest("Api", uri, "get", [args]), context).result


@pytest.mark.parametrize(
    ("case", "header"),
    [
        ("a newline at the end", KEY + "\n"),
        ("a header forged after it", KEY + "\r\nX-Forged: 1"),
        ("a NUL", KEY + "\x00"),
        ("a letter outside Latin-1", KEY + "€"),
    ],
)
def test_a_header_value_http_cannot_carry_is_refused_by_name(case: str, header: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        with pytest.raises(ToolError) as caught:
            _tool_call(url + "/v1", {"url": "/x", "headers": {"Authorization": f"Bearer {header}"}})
    assert str(caught.value).startswith("Http.headers: the value of 'Authorization' holds ")
    _assert_nowhere(KEY, caught.value)


def test_a_header_name_http_cannot_carry_is_refused() -> None:
    with pytest.raises(ToolError, match=r"^Http\.headers: 'X\\nForged: 1' is not a header name$"):
        _tool_call("http://127.0.0.1:9/v1", {"url": "/x", "headers": {"X\nForged: 1": "v"}})


def test_a_password_in_the_tools_url_is_never_shown() -> None:
    """Python's HTTP client takes no user in a URL (it looks the whole ``user:pass@host`` up as a
    host name), so a URL with one fails: it is shown without it, as every other refusal shows it."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        uri = f"http://user:{PASSWORD}@127.0.0.1:{port}/v1"
        with pytest.raises(ToolError) as failed:
            _tool_call(uri, {"url": "/x"})
        with pytest.raises(ToolError) as elsewhere:
            _tool_call(uri, {"url": f"http://user:{PASSWORD}@example.com/"})
    with pytest.raises(NotAllowed) as invalid:
        _tool_call(f"http://user:{PASSWORD}@127.0.0.1:99999999/v1", {"url": "/x"}, net=frozenset())
    assert str(failed.value).startswith(f"HTTP GET http://***@127.0.0.1:{port}/x failed: ")
    assert "origin 'http://***@example.com' does not match" in str(elsewhere.value)
    assert str(invalid.value) == "Invalid URL: http://***@127.0.0.1:99999999/v1"
    for error in (failed.value, elsewhere.value, invalid.value):
        _assert_nowhere(PASSWORD, error)


# --- the masking rule ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "secret", "shown"),
    [
        (f"bad key {KEY}.", KEY, "bad key ***."),
        (f"bad key {KEY}\n", KEY + "\n", "bad key ***\n"),  # a key file's newline
        ("bad key sk-a b-1234567 here", "sk-a\nb-1234567", "bad key *** here"),  # whitespace collapsed
        ("bad key 'sk-a\\nb-1234567'", "sk-a\nb-1234567", "bad key '***'"),  # repr's escape
        ("bad key sk-ключ-1234", "sk-ключ-1234", "bad key ***"),
        ("x" + KEY + KEY + "x", KEY, "x******x"),  # inside other text, twice
        ("the same text, no key", KEY, "the same text, no key"),
        ("bad key abc", "abc", WITHHELD),  # too short to mask in place
        ("nothing of it", "xyz", "nothing of it"),
        (f"lone half \ud800 {KEY}", KEY, "lone half \ud800 ***"),
    ],
)
def test_the_masking_rule(text: str, secret: str, shown: str) -> None:
    assert mask(text, secret) == shown


SECRETS = st.text(min_size=8, max_size=30).filter(lambda text: len(text.strip()) >= 8)


@given(
    secret=SECRETS,
    before=st.text(string.printable, max_size=20),
    after=st.text(string.printable, max_size=20),
    spelling=st.sampled_from(["as it is", "repr", "ascii JSON", "bytes repr", "collapsed"]),
)
def test_a_secret_in_any_spelling_is_masked(secret: str, before: str, after: str, spelling: str) -> None:
    core = secret.strip()
    written = {
        "as it is": core,
        "repr": repr(core)[1:-1],
        "ascii JSON": json.dumps(core)[1:-1],
        "bytes repr": repr(core.encode("utf-8", "surrogatepass"))[2:-1],
        "collapsed": " ".join(core.split()),
    }[spelling]
    shown = mask(before + written + after, secret)
    assert core not in shown and written not in shown
