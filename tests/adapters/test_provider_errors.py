"""Every provider failure, through every built-in adapter's real SDK over real HTTP, is the error
class that says what went wrong, after exactly one request, with the provider, the status and a
short excerpt of the body, and never the API key; the same whether the call is made whole or
streamed, from synchronous code or on an event loop with the SDK's async client."""

from __future__ import annotations

import asyncio
import socket
import string
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire import Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.adapters.status import status_error
from promptwire.calls.generate import NotJsonError, agenerate, generate
from promptwire.core.call import GenerateResult
from promptwire.core.errors import (
    AuthenticationError,
    BadRequestError,
    MalformedResponseError,
    ModelNotFoundError,
    ModelOutputError,
    PermissionDeniedError,
    PromptwireError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    QuotaExhaustedError,
    RateLimitedError,
    RefusalError,
    ServerError,
    body_excerpt,
)
from promptwire.core.secrets import MIN_MASKED_CHARS, WITHHELD
from promptwire.renderers.agentscript import renderer, shape_contract
from promptwire.testing.provider_servers import REFUSAL, REPLIES, FakeProvider, fake_provider

from hypothesis_profile import examples

KEY = "sk-test-0123456789abcdef"

ADAPTERS: dict[str, Callable[[str], Any]] = {
    "openai": lambda root: OpenAIAdapter(api_key=KEY, base_url=f"{root}/v1"),
    "openai-responses": lambda root: OpenAIResponsesAdapter(api_key=KEY, base_url=f"{root}/v1"),
    "anthropic": lambda root: AnthropicAdapter(api_key=KEY, base_url=root),
    "ollama": lambda root: OllamaAdapter(host=root),
}
KEYED = ["openai", "openai-responses", "anthropic"]

FAULTS: list[tuple[str, type[ProviderError], int]] = [
    ("e400", BadRequestError, 400),
    ("e401", AuthenticationError, 401),
    ("e402", QuotaExhaustedError, 402),
    ("e403", PermissionDeniedError, 403),
    ("e404", ModelNotFoundError, 404),
    ("e408", ProviderTimeoutError, 408),
    ("e409", ServerError, 409),
    ("e413", BadRequestError, 413),
    ("e422", BadRequestError, 422),
    ("e429", RateLimitedError, 429),
    ("e500", ServerError, 500),
    ("e503", ServerError, 503),
    ("e529", ServerError, 529),
    ("html502", ServerError, 502),
    ("garbage", MalformedResponseError, 200),
    ("html200", MalformedResponseError, 200),
    ("emptyjson", MalformedResponseError, 200),
]


def _prompt(attempts: int = 3) -> Prompt:
    """Three attempts allowed by default: a provider failure must still be one request."""
    return Prompt(
        identity={"role": "Checker", "description": "Check."},
        instruction="Check.",
        output=shape_contract({"ok": "boolean"}),
        config={"attempts": attempts},
    )


@pytest.fixture
def server() -> Iterator[FakeProvider]:
    with fake_provider() as running:
        yield running


PATHS = ["sync", "stream", "async", "astream"]
"""How a call is made: whole or streamed (``on_text``), with the sync client or the async one."""


def _generate(path: str, adapter: Any, model: str, **options: Any) -> GenerateResult:
    """One ``generate`` of :func:`_prompt` made the ``path`` way."""
    if path.endswith("stream"):
        options["on_text"] = lambda text: None
    if path.startswith("a"):
        return asyncio.run(agenerate(_prompt(), render=renderer.render, adapter=adapter, model=model, **options))
    return generate(_prompt(), render=renderer.render, adapter=adapter, model=model, **options)


def _failure(adapter: Any, model: str, path: str = "sync", **options: Any) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        _generate(path, adapter, model, **options)
    return caught.value


def _assert_told_plainly(error: ProviderError) -> None:
    """What every provider error carries, and what it never does."""
    for text in (str(error), repr(error), error.body or ""):
        assert KEY not in text
    assert "\n" not in str(error)
    assert error.body is None or len(error.body) <= 300


@pytest.mark.parametrize(("model", "expected", "status"), FAULTS, ids=[fault[0] for fault in FAULTS])
@pytest.mark.parametrize("name", ADAPTERS)
@pytest.mark.parametrize("path", PATHS)
def test_each_http_fault_is_its_class_after_one_request(
    server: FakeProvider, path: str, name: str, model: str, expected: type[ProviderError], status: int
) -> None:
    error = _failure(ADAPTERS[name](server.root), model, path)
    assert len(server.requests) == 1  # no SDK retry, and a provider failure is not a generate attempt
    assert type(error) is expected
    assert (error.provider, error.status, error.retryable) == (name, status, expected.retryable)
    assert error.body  # the provider's own words, excerpted
    _assert_told_plainly(error)


@pytest.mark.parametrize("name", KEYED)
@pytest.mark.parametrize("path", PATHS)
def test_a_spent_quota_is_not_a_rate_limit(server: FakeProvider, path: str, name: str) -> None:
    error = _failure(ADAPTERS[name](server.root), "e429q", path)  # OpenAI's code, Anthropic's error_code
    assert (type(error), error.status, error.retryable) == (QuotaExhaustedError, 429, False)
    assert len(server.requests) == 1


def test_ollama_has_no_quota_code_so_its_429_is_a_rate_limit(server: FakeProvider) -> None:
    error = _failure(ADAPTERS["ollama"](server.root), "e429q")
    assert (type(error), error.retryable) == (RateLimitedError, True)
    assert error.body == "failure e429q"


@pytest.mark.parametrize("name", KEYED)
@pytest.mark.parametrize("path", PATHS)
def test_a_body_that_quotes_the_key_is_masked(server: FakeProvider, path: str, name: str) -> None:
    error = _failure(ADAPTERS[name](server.root), "e401echo", path)
    sent = server.headers[0]
    assert KEY in sent.get("authorization", "") + sent.get("x-api-key", "")  # the key did travel
    assert type(error) is AuthenticationError
    assert "incorrect API key provided: ***" in str(error)
    _assert_told_plainly(error)


@pytest.mark.parametrize("name", ADAPTERS)
@pytest.mark.parametrize("path", PATHS)
def test_a_proxy_page_of_100_kb_is_a_short_excerpt(server: FakeProvider, path: str, name: str) -> None:
    error = _failure(ADAPTERS[name](server.root), "bigpage", path)
    assert (type(error), error.status) == (ServerError, 502)
    assert error.body is not None and error.body.startswith("<html><body> <p>The gateway is having a bad day.</p>")
    assert error.body.endswith("...") and len(error.body) == 300
    assert len(str(error)) < 400


@pytest.mark.parametrize("name", ADAPTERS)
@pytest.mark.parametrize("path", PATHS)
def test_a_timeout_and_a_truncated_body_and_a_refused_connection(server: FakeProvider, path: str, name: str) -> None:
    adapter = ADAPTERS[name](server.root)
    slow = _failure(adapter, "slow", path, timeout=0.2)
    assert (type(slow), slow.status, slow.retryable) == (ProviderTimeoutError, None, True)
    assert "timed out after 0.2s" in str(slow)
    truncated = _failure(adapter, "truncated", path, timeout=5)  # streamed: cut in the middle of an event
    assert (type(truncated), truncated.retryable) == (ProviderConnectionError, True)
    assert len(server.requests) == 2
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    refused = _failure(ADAPTERS[name](f"http://127.0.0.1:{port}"), "ok", path, timeout=5)
    assert (type(refused), refused.provider) == (ProviderConnectionError, name)
    for error in (slow, truncated, refused):
        _assert_told_plainly(error)
    route = {"openai": "/v1/chat/completions", "openai-responses": "/v1/responses", "anthropic": "/v1/messages"}
    assert str(refused).endswith(f"; tried http://127.0.0.1:{port}{route.get(name, '/api/chat')}")  # where it tried


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_refused_connection_names_the_url_with_its_password_masked(name: str) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    refused = _failure(ADAPTERS[name](f"http://someone:hunter2@127.0.0.1:{port}"), "ok", timeout=5)
    assert type(refused) is ProviderConnectionError
    assert f"; tried http://***@127.0.0.1:{port}/" in str(refused)
    assert "hunter2" not in str(refused)


@pytest.mark.parametrize("name", KEYED)
@pytest.mark.parametrize("path", PATHS)
def test_a_refusal_is_not_retried(server: FakeProvider, path: str, name: str) -> None:
    error = _failure(ADAPTERS[name](server.root), "refusal", path)
    assert type(error) is RefusalError
    assert str(error) == f"LLM provider refused: {REFUSAL}"
    assert (error.status, error.retryable) == (200, False)
    assert len(server.requests) == 1  # asking again would be refused again


def test_ollama_has_no_refusal_signal_so_its_text_is_an_answer(server: FakeProvider) -> None:
    result = generate(_prompt(), render=renderer.render, adapter=ADAPTERS["ollama"](server.root), model="refusal")
    assert result.value == {"ok": True}


def test_the_two_output_errors_are_the_retryable_ones(server: FakeProvider) -> None:
    def prose(body: dict[str, Any]) -> dict[str, Any]:
        message = {"role": "assistant", "content": "Sure! It is fine."}
        return {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "ok",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }

    server.reply = prose
    with pytest.raises(NotJsonError) as caught:
        generate(_prompt(), render=renderer.render, adapter=ADAPTERS["openai"](server.root), model="ok")
    assert len(server.requests) == 3  # every attempt, each with the repair text
    assert isinstance(caught.value, ModelOutputError) and caught.value.retryable
    assert not issubclass(ModelOutputError, ProviderError) and issubclass(ModelOutputError, PromptwireError)


@pytest.mark.parametrize(
    ("status", "code", "expected"),
    [
        (400, None, BadRequestError),
        (400, "storage_quota_exceeded", QuotaExhaustedError),
        (405, None, BadRequestError),
        (418, None, BadRequestError),
        (429, "insufficient_quota", QuotaExhaustedError),
        (429, "rate_limit_exceeded", RateLimitedError),
        (429, "contract_spend_limit_reached", QuotaExhaustedError),
        (501, None, ServerError),
        (599, None, ServerError),
    ],
)
def test_status_error_reads_the_status_then_the_code(status: int, code: str | None, expected: type) -> None:
    error = status_error(status, "why", code=code, provider="p")
    assert (type(error), error.status, error.provider, error.body) == (expected, status, "p", "why")
    assert str(error) == f"LLM provider request failed ({status}): why"


KEYS = st.text(string.ascii_letters + string.digits + "_-", min_size=MIN_MASKED_CHARS, max_size=40)
SHORT_KEYS = st.text(string.ascii_letters + string.digits + "_-", min_size=1, max_size=MIN_MASKED_CHARS - 1)


@given(text=st.text(max_size=600), secret=KEYS, limit=st.integers(min_value=10, max_value=400))
def test_an_excerpt_is_one_short_line_without_the_secret(text: str, secret: str, limit: int) -> None:
    excerpt = body_excerpt(text + secret + text, secret, limit)
    assert secret not in excerpt
    assert len(excerpt) <= limit
    assert not any(char.isspace() and char != " " for char in excerpt)
    assert excerpt == excerpt.strip()


@given(text=st.text(max_size=600), secret=SHORT_KEYS)
def test_a_text_holding_a_key_too_short_to_mask_is_withheld_whole(text: str, secret: str) -> None:
    """A short key cannot be told from ordinary text: masking each "ab" in place would garble the
    text and point at the key's letters, so nothing of the text is shown."""
    assert body_excerpt(text + secret + text, secret) == WITHHELD


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
ROUTES = {"openai": "/v1/chat/completions", "openai-responses": "/v1/responses", "anthropic": "/v1/messages"}


def _template(name: str) -> dict[str, Any]:
    """The fake's good reply for the adapter, with a tool call in each protocol's form added."""
    reply = REPLIES[ROUTES.get(name, "/api/chat")]({"model": "ok"})
    if name == "openai":
        call = {"id": "c1", "type": "function", "function": {"name": "t", "arguments": '{"a": 1}'}}
        reply["choices"][0]["message"]["tool_calls"] = [call]
    elif name == "openai-responses":
        call = {"type": "function_call", "id": "f1", "call_id": "c1", "name": "t", "arguments": '{"a": 1}'}
        reply["output"].append({**call, "status": "completed"})
    elif name == "anthropic":
        reply["content"].append({"type": "tool_use", "id": "c1", "name": "t", "input": {"a": 1}})
    else:
        reply["message"]["tool_calls"] = [{"function": {"name": "t", "arguments": {"a": 1}}}]
    return reply


def _mutated(draw: Callable[[Any], Any], value: Any) -> Any:
    """The reply with parts dropped or replaced by any JSON, at any depth: the shapes a broken
    provider or proxy could send, close enough to the real one to reach every line of parse_reply."""
    if isinstance(value, dict):
        mutated = {}
        for key, item in value.items():
            fate = draw(st.integers(0, 11))
            if fate == 0:
                continue
            mutated[key] = draw(JSON) if fate == 1 else _mutated(draw, item)
        return mutated
    if isinstance(value, list):
        return [_mutated(draw, item) for item in value]
    return draw(JSON) if draw(st.integers(0, 7)) == 0 else value


@pytest.fixture(scope="module")
def shared_server() -> Iterator[FakeProvider]:
    with fake_provider() as running:
        yield running


@settings(max_examples=examples(0.5))
@given(data=st.data())
@pytest.mark.parametrize("name", ADAPTERS)
def test_any_reply_shape_is_an_answer_or_a_promptwire_error(
    shared_server: FakeProvider, name: str, data: st.DataObject
) -> None:
    reply = _mutated(data.draw, _template(name))
    shared_server.reply = lambda body: reply
    try:
        generate(
            _prompt(attempts=1),
            render=renderer.render,
            adapter=ADAPTERS[name](shared_server.root),
            model="ok",
            timeout=5,
        )
    except PromptwireError as exc:
        assert isinstance(exc, MalformedResponseError | RefusalError | ModelOutputError), repr(exc)


@pytest.mark.parametrize("name", ADAPTERS)
def test_the_fuzzed_template_itself_is_an_answer_with_a_tool_call(shared_server: FakeProvider, name: str) -> None:
    reply = _template(name)
    shared_server.reply = lambda body: reply
    adapter = ADAPTERS[name](shared_server.root)
    result = generate(_prompt(), render=renderer.render, adapter=adapter, model="ok")
    assert result.value == {"ok": True}
    assert result.calls[0].reply is not None
    assert [(call.name, call.arguments) for call in result.calls[0].reply.tool_calls] == [("t", {"a": 1})]
