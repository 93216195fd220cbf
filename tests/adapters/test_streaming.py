"""Streamed calls through every built-in adapter's real SDK over real HTTP, against the fake
provider speaking each provider's streaming wire format (SSE for OpenAI Chat Completions and
Responses and for Anthropic, NDJSON for Ollama): the bytes sent are the built request's plus the
provider's stream flags and nothing else, the text arrives in pieces, the whole reply (usage,
reasoning, tool calls, finish reason) is what an unstreamed call reads, and a stream cut short,
ended early or failed mid-way is a clear ProviderError, never a partial answer."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from time_bounds import AT_ONCE  # tests/time_bounds.py (pytest's pythonpath)

from promptwire import Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.adapters.status import stream_failure
from promptwire.calls.generate import agenerate, agenerate_stream, generate, generate_stream
from promptwire.core.call import GenerateResult
from promptwire.core.errors import (
    BadRequestError,
    MalformedResponseError,
    ProviderConnectionError,
    ProviderError,
    QuotaExhaustedError,
    RateLimitedError,
    RefusalError,
    ServerError,
)
from promptwire.core.json_text import to_bytes
from promptwire.renderers.agentscript import renderer, shape_contract
from promptwire.testing.provider_servers import REFUSAL, REPLIES, FakeProvider, fake_provider

ADAPTERS: dict[str, Callable[[str], Any]] = {
    "openai": lambda root: OpenAIAdapter(api_key="sk-test", base_url=f"{root}/v1"),
    "openai-responses": lambda root: OpenAIResponsesAdapter(api_key="sk-test", base_url=f"{root}/v1"),
    "anthropic": lambda root: AnthropicAdapter(api_key="sk-test", base_url=root),
    "ollama": lambda root: OllamaAdapter(host=root),
}
ROUTES = {
    "openai": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
    "ollama": "/api/chat",
}
USAGE = {
    "openai": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    "openai-responses": {"input_tokens": 12, "output_tokens": 3, "total_tokens": 15},
    "anthropic": {"input_tokens": 12, "output_tokens": 3},
    "ollama": {"input_tokens": 12, "output_tokens": 3},
}
FINISH = {"openai": "stop", "openai-responses": "completed", "anthropic": "end_turn", "ollama": "stop"}
REASONING = {"openai": None, "openai-responses": "Easy.", "anthropic": "Easy.", "ollama": "Easy."}


def _prompt(attempts: int = 1) -> Prompt:
    return Prompt(instruction="Check.", output=shape_contract({"ok": "boolean"}), config={"attempts": attempts})


def _shown(text: str) -> None:
    """Where a test that does not look at the streamed text sends it."""


@pytest.fixture
def server() -> Iterator[FakeProvider]:
    with fake_provider() as running:
        yield running


def _sent_unstreamed(name: str, sent: bytes) -> bytes:
    """The body ``sent`` for a streamed call, with the stream flags the adapter adds taken away."""
    if name == "ollama":
        assert sent.count(b'"stream":true') == 1
        return sent.replace(b'"stream":true', b'"stream":false')
    flags = b',"stream":true,"stream_options":{"include_usage":true}}' if name == "openai" else b',"stream":true}'
    assert sent.endswith(flags)
    return sent[: -len(flags)] + b"}"


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_streamed_call_sends_the_built_request_with_the_stream_flags_and_reads_the_whole_reply(
    server: FakeProvider, name: str
) -> None:
    adapter = ADAPTERS[name](server.root)
    pieces: list[str] = []
    result = generate(_prompt(), render=renderer.render, adapter=adapter, model="ok", on_text=pieces.append)
    assert pieces == ['{"ok": ', "true}"]  # the text as it arrived, a word at a time
    assert result.value == {"ok": True}
    call = result.calls[0]
    (sent,) = server.raw_bodies
    assert sent == to_bytes(call.request.kwargs)  # what the call records (and a dry run shows) is what went out
    built = adapter.build_request(call.rendered, call.prompt.config, call.prompt.output, "ok")
    assert _sent_unstreamed(name, sent) == to_bytes(built.kwargs)  # only the stream flags differ
    assert call.request.notes == built.notes
    reply = call.reply
    assert reply is not None
    assert reply.text == "".join(pieces)
    assert reply.usage is not None
    assert {key: reply.usage.as_data()[key] for key in USAGE[name]} == USAGE[name]
    assert (reply.finish_reason, reply.reasoning) == (FINISH[name], REASONING[name])


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_call_made_whole_sends_no_stream_flag(server: FakeProvider, name: str) -> None:
    adapter = ADAPTERS[name](server.root)
    result = generate(_prompt(), render=renderer.render, adapter=adapter, model="ok")
    (sent,) = server.requests
    assert "stream_options" not in sent and sent.get("stream", False) is False
    assert server.raw_bodies == [to_bytes(result.calls[0].request.kwargs)]


def test_openai_chat_streams_the_usage_only_when_asked_and_the_adapter_asks(server: FakeProvider) -> None:
    import openai

    client = openai.OpenAI(api_key="sk-test", base_url=server.base_url, max_retries=0)
    create = client.chat.completions.create
    unasked = list(create(model="ok", messages=[{"role": "user", "content": "x"}], stream=True))
    asked = list(create(model="ok", messages=[], stream=True, stream_options={"include_usage": True}))
    assert [chunk.usage for chunk in unasked] == [None] * len(unasked)  # as OpenAI streams: no usage unasked
    assert asked[-1].choices == [] and asked[-1].usage is not None and asked[-1].usage.total_tokens == 15
    adapter = OpenAIAdapter(api_key="sk-test", base_url=server.base_url)
    streamed = adapter.streamed(adapter.build_request(renderer.render(_prompt()), _prompt().config, None, "ok"))
    assert streamed.kwargs["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("name", ADAPTERS)
def test_the_async_client_streams_the_same_pieces_and_reply(server: FakeProvider, name: str) -> None:
    adapter = ADAPTERS[name](server.root)

    async def both() -> tuple[list[str], GenerateResult, list[Any]]:
        pieces: list[str] = []
        result = await agenerate(_prompt(), render=renderer.render, adapter=adapter, model="ok", on_text=pieces.append)
        items = [
            item async for item in agenerate_stream(_prompt(), render=renderer.render, adapter=adapter, model="ok")
        ]
        await adapter.aclose()
        return pieces, result, items

    pieces, result, items = asyncio.run(both())
    assert pieces == items[:-1] == ['{"ok": ', "true}"]
    assert result.value == items[-1].value == {"ok": True}
    assert server.raw_bodies[0] == server.raw_bodies[1] == to_bytes(result.calls[0].request.kwargs)
    assert result.calls[0].reply is not None and result.calls[0].reply.usage is not None


def _with_tool_call(name: str) -> dict[str, Any]:
    """The fake's reply with a tool call added in each protocol's form (arguments of several words)."""
    reply = copy.deepcopy(REPLIES[ROUTES[name]]({"model": "ok"}))
    arguments = {"city": "Oslo", "days": 3}
    if name == "openai":
        call = {"id": "c1", "type": "function", "function": {"name": "t", "arguments": json.dumps(arguments)}}
        reply["choices"][0]["message"]["tool_calls"] = [call]
    elif name == "openai-responses":
        call = {"type": "function_call", "id": "f1", "call_id": "c1", "name": "t", "arguments": json.dumps(arguments)}
        reply["output"].append({**call, "status": "completed"})
    elif name == "anthropic":
        reply["content"].append({"type": "tool_use", "id": "c1", "name": "t", "input": arguments})
    else:
        reply["message"]["tool_calls"] = [{"function": {"name": "t", "arguments": arguments}}]
    return reply


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_streamed_tool_call_is_the_one_an_unstreamed_reply_gives(server: FakeProvider, name: str) -> None:
    reply = _with_tool_call(name)
    server.reply = lambda body: reply
    adapter = ADAPTERS[name](server.root)
    whole = generate(_prompt(), render=renderer.render, adapter=adapter, model="ok").calls[0].reply
    streamed = generate(_prompt(), render=renderer.render, adapter=adapter, model="ok", on_text=_shown).calls[0].reply
    assert whole is not None and streamed is not None
    assert streamed.tool_calls == whole.tool_calls
    assert [(call.name, call.arguments) for call in streamed.tool_calls] == [("t", {"city": "Oslo", "days": 3})]
    assert (streamed.text, streamed.finish_reason, streamed.reasoning) == (
        whole.text,
        whole.finish_reason,
        whole.reasoning,
    )


def test_a_compatible_servers_streamed_reasoning_content_is_the_reasoning(server: FakeProvider) -> None:
    reply = REPLIES["/v1/chat/completions"]({"model": "ok"})
    reply["choices"][0]["message"]["reasoning_content"] = "Think first."
    server.reply = lambda body: reply
    adapter = OpenAIAdapter(api_key="sk-test", base_url=server.base_url)
    shown: list[str] = []
    result = generate(_prompt(), render=renderer.render, adapter=adapter, model="ok", on_text=shown.append)
    assert result.calls[0].reply is not None and result.calls[0].reply.reasoning == "Think first."
    assert "".join(shown) == '{"ok": true}'  # the reasoning is not the answer's text


@pytest.mark.parametrize("name", ["openai", "openai-responses", "anthropic"])
def test_a_streamed_refusal_is_a_refusal(server: FakeProvider, name: str) -> None:
    adapter = ADAPTERS[name](server.root)
    with pytest.raises(RefusalError) as caught:
        generate(_prompt(3), render=renderer.render, adapter=adapter, model="refusal", on_text=_shown)
    assert str(caught.value) == f"LLM provider refused: {REFUSAL}"
    assert len(server.requests) == 1


MID_STREAM: list[tuple[str, type[ProviderError], str]] = [
    ("truncated", ProviderConnectionError, "incomplete chunked read"),  # the connection drops inside an event
    ("short", ProviderConnectionError, "stream ended before the reply was complete"),  # a clean end, too soon
    ("streamerror", ServerError, "stream failed"),  # the provider's error event
    ("streamrate", RateLimitedError, "stream failed: rate_limit"),
]


@pytest.mark.parametrize(("model", "expected", "words"), MID_STREAM, ids=[case[0] for case in MID_STREAM])
@pytest.mark.parametrize("name", ADAPTERS)
@pytest.mark.parametrize("driver", ["sync", "async"])
def test_a_stream_that_fails_in_the_middle_is_a_provider_error_not_an_answer(
    server: FakeProvider, driver: str, name: str, model: str, expected: type[ProviderError], words: str
) -> None:
    if name == "ollama" and model == "streamrate":
        expected, words = ServerError, "stream failed: rate limited"  # Ollama's error lines have no kind
    adapter = ADAPTERS[name](server.root)
    shown: list[str] = []
    options: dict[str, Any] = {"render": renderer.render, "adapter": adapter, "model": model, "timeout": 5}
    with pytest.raises(ProviderError) as caught:
        if driver == "sync":
            generate(_prompt(3), on_text=shown.append, **options)
        else:
            asyncio.run(agenerate(_prompt(3), on_text=shown.append, **options))
    error = caught.value
    assert type(error) is expected
    assert words in str(error)
    assert (error.provider, error.retryable) == (name, expected.retryable)
    assert shown == ['{"ok": ']  # the text before the failure was shown as it came; nothing passed it off
    assert len(error.calls) == 0  # no attempt was accepted or rejected: the call failed
    assert len(server.requests) == 1  # a provider failure is not retried as bad output


@pytest.mark.parametrize("name", ["openai", "openai-responses", "anthropic"])
def test_a_page_answering_a_streamed_request_is_quoted_as_a_malformed_response(server: FakeProvider, name: str) -> None:
    with pytest.raises(MalformedResponseError) as caught:
        generate(
            _prompt(), render=renderer.render, adapter=ADAPTERS[name](server.root), model="html200", on_text=_shown
        )
    assert "answered a streamed request with text/html, not an event stream" in str(caught.value)
    assert caught.value.body == "<html><body>Sign in to the hotel Wi-Fi</body></html>"


def _wait_for(condition: Callable[[], bool], seconds: float = AT_ONCE) -> None:
    """Wait (in the test's thread) for the fake server to have seen something."""
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the server did not see it in time"
        time.sleep(0.005)


@pytest.mark.parametrize("name", ADAPTERS)
def test_leaving_a_stream_early_closes_its_connection(server: FakeProvider, name: str) -> None:
    items = generate_stream(_prompt(), render=renderer.render, adapter=ADAPTERS[name](server.root), model="hang")
    assert next(items) == '{"ok": '
    assert server.hung_up == []  # the server is still holding the stream open
    items.close()
    _wait_for(lambda: server.hung_up == ["hang"])


@pytest.mark.parametrize("name", ADAPTERS)
@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_cancelling_a_pending_async_call_closes_its_connection(server: FakeProvider, name: str, streamed: bool) -> None:
    adapter = ADAPTERS[name](server.root)
    shown: list[str] = []

    async def cancelled() -> None:
        on_text = shown.append if streamed else None
        call = asyncio.ensure_future(
            agenerate(_prompt(), render=renderer.render, adapter=adapter, model="hang", on_text=on_text)
        )
        while not (shown if streamed else server.requests):  # the request is out (and, streamed, its first text in)
            await asyncio.sleep(0.005)
        assert not call.done() and server.hung_up == []
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(cancelled())
    _wait_for(lambda: server.hung_up == ["hang"])  # the server saw the connection closed: no stray request
    assert len(server.requests) == 1


@pytest.mark.parametrize("name", ADAPTERS)
def test_leaving_an_async_stream_early_closes_its_connection(server: FakeProvider, name: str) -> None:
    adapter = ADAPTERS[name](server.root)

    async def left() -> None:
        items = agenerate_stream(_prompt(), render=renderer.render, adapter=adapter, model="hang")
        assert await anext(items) == '{"ok": '
        await items.aclose()  # type: ignore[attr-defined]

    asyncio.run(left())
    _wait_for(lambda: server.hung_up == ["hang"])


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_hundred_concurrent_async_calls_overlap(server: FakeProvider, name: str) -> None:
    adapter = ADAPTERS[name](server.root)

    async def hundred() -> list[GenerateResult]:
        calls = [agenerate(_prompt(), render=renderer.render, adapter=adapter, model="together100") for _ in range(100)]
        results = await asyncio.gather(*calls)
        await adapter.aclose()
        return results

    results = asyncio.run(hundred())  # together100 answers only once a hundred requests are in at once
    assert [result.value for result in results] == [{"ok": True}] * 100
    assert len(server.requests) == 100
    assert len(adapter._clients) == 0  # every call went through the async client, none through the sync one


class _NoAsyncClient(OpenAIAdapter):
    """A streaming adapter whose SDK has no async client: the skeleton's default."""

    def async_client(self, endpoint: Any, seconds: float) -> Any:
        return None


def test_a_streaming_adapter_without_an_async_client_streams_from_a_worker_thread(server: FakeProvider) -> None:
    adapter = _NoAsyncClient(api_key="sk-test", base_url=server.base_url)

    async def streamed() -> tuple[list[Any], GenerateResult]:
        items = [
            item async for item in agenerate_stream(_prompt(), render=renderer.render, adapter=adapter, model="ok")
        ]
        whole = await agenerate(_prompt(), render=renderer.render, adapter=adapter, model="ok")
        return items, whole

    items, whole = asyncio.run(streamed())
    assert items[:-1] == ['{"ok": ', "true}"] and items[-1].value == whole.value == {"ok": True}
    assert len(adapter._clients) == 1  # the sync client, used from worker threads


@pytest.mark.parametrize(
    ("error", "expected", "message"),
    [
        (
            {"message": "Slow down", "type": "requests", "code": "rate_limit_exceeded"},
            RateLimitedError,
            "rate_limit_exceeded: Slow down",
        ),
        (
            {"message": "Spent", "type": "insufficient_quota", "code": "insufficient_quota"},
            QuotaExhaustedError,
            "insufficient_quota: Spent",
        ),
        (
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            ServerError,
            "overloaded_error: Overloaded",
        ),
        (
            {"type": "error", "error": {"type": "invalid_request_error", "message": "No"}},
            BadRequestError,
            "invalid_request_error: No",
        ),
        ({"code": "vector_store_timeout", "message": "Later"}, ServerError, "vector_store_timeout: Later"),
        ({"message": "Something broke"}, ServerError, "Something broke"),
        ("model runner has unexpectedly stopped", ServerError, "model runner has unexpectedly stopped"),
    ],
)
def test_an_error_event_is_the_class_its_kind_stands_for(error: object, expected: type, message: str) -> None:
    failure = stream_failure(error, secret="sk-secret")
    assert (type(failure), failure.status, str(failure)) == (expected, 200, f"LLM provider stream failed: {message}")


@pytest.mark.parametrize("name", ADAPTERS)
def test_build_request_shows_a_streamed_request_as_it_is_sent(server: FakeProvider, name: str) -> None:
    import promptwire
    from promptwire import PluginHost

    host = PluginHost(entry_points=False)
    shown = promptwire.build_request(_prompt(), name, "ok", host=host, stream=True)
    unstreamed = promptwire.build_request(_prompt(), name, "ok", host=host)
    generate(_prompt(), render=renderer.render, adapter=ADAPTERS[name](server.root), model="ok", on_text=_shown)
    assert server.raw_bodies == [to_bytes(shown.kwargs)]
    assert _sent_unstreamed(name, to_bytes(shown.kwargs)) == to_bytes(unstreamed.kwargs)
