"""``generate``'s attempts, driven four ways (whole or streamed, synchronous or on an event loop),
make the same decisions: one loop steps them all. Streamed, each attempt's text is passed on as it
arrives and the whole text is still read, coerced and checked at the end; a stream that stops
before its whole reply is an error, never an answer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from promptwire import Prompt
from promptwire.adapters.offline import OfflineAdapter
from promptwire.calls.generate import NotJsonError, agenerate, agenerate_stream, generate, generate_stream
from promptwire.calls.watch import Watcher
from promptwire.core.call import GenerateResult, ModelCall, ProviderRequest, Reply, Whole
from promptwire.core.errors import FieldError, PromptwireError, ProviderConnectionError, ServerError
from promptwire.renderers.agentscript import renderer, shape_contract

ANSWERS = ["Sure, here it is.", {"n": "three"}, {"n": 3}]
"""Not JSON, then JSON the contract refuses, then an answer: two repairs."""


def _prompt(attempts: int = 3) -> Prompt:
    return Prompt(instruction="Count.", output=shape_contract({"n": "number"}), config={"attempts": attempts})


def _run(driver: str, adapter: Any, **options: Any) -> tuple[GenerateResult, list[str]]:
    """One generate of :func:`_prompt` driven the ``driver`` way; the result and the text passed on."""
    shown: list[str] = []
    options = {"render": renderer.render, "adapter": adapter, "model": "m", **options}
    if driver == "sync":
        return generate(_prompt(), **options), shown
    if driver == "sync-streamed":
        return generate(_prompt(), on_text=shown.append, **options), shown
    if driver == "async":
        return asyncio.run(agenerate(_prompt(), **options)), shown
    return asyncio.run(agenerate(_prompt(), on_text=shown.append, **options)), shown


DRIVERS = ["sync", "sync-streamed", "async", "async-streamed"]


def _decisions(result: GenerateResult) -> list[tuple[int, str, str | None, Any]]:
    """What the loop decided at each attempt: the repair text it sent, the reason it gave."""
    return [(call.attempt, str(call.rendered.user), call.error, call.prompt.retry) for call in result.calls]


@pytest.mark.parametrize("driver", DRIVERS)
def test_every_driver_makes_the_same_repairs(driver: str) -> None:
    expected, _ = _run("sync", OfflineAdapter(ANSWERS))
    result, shown = _run(driver, OfflineAdapter(ANSWERS))
    assert (result.value, result.attempts) == ({"n": 3}, 3)
    assert _decisions(result) == _decisions(expected)
    assert result.calls[1].prompt.retry is not None and result.calls[1].prompt.retry.reason.startswith("LLM provider")
    # The offline adapter does not stream: a text reply is passed on whole when it comes, a JSON value is not text.
    assert shown == (["Sure, here it is."] if driver.endswith("streamed") else [])


class Streaming:
    """An adapter whose replies stream in pieces, each attempt's from ``texts``; ``whole=False``
    ends its streams without the whole reply, ``fail_after`` raises after that many pieces."""

    name = "streaming"

    def __init__(self, texts: list[str], *, whole: bool = True, fail_after: int | None = None) -> None:
        self.texts = texts
        self.complete = whole
        self.fail_after = fail_after
        self.sent: list[ProviderRequest] = []
        self.closed = 0

    def build_request(self, rendered: Any, config: Any, contract: Any, model: str | None) -> ProviderRequest:
        return ProviderRequest({"model": model})

    def streamed(self, request: ProviderRequest) -> ProviderRequest:
        return ProviderRequest({**request.kwargs, "stream": True}, request.notes)

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        self.sent.append(request)
        return self.texts[len(self.sent) - 1]

    def _items(self, request: ProviderRequest) -> Iterator[Any]:
        text = self.send(request, None)
        for count, piece in enumerate(text.split(" ")):
            if count == self.fail_after:
                raise ServerError("LLM provider stream failed: overloaded")
            yield piece if count == 0 else " " + piece
        if self.complete:
            yield Whole(text)

    def stream(self, request: ProviderRequest, timeout: float | None) -> Iterator[Any]:
        try:
            yield from self._items(request)
        finally:
            self.closed += 1

    async def astream(self, request: ProviderRequest, timeout: float | None) -> AsyncIterator[Any]:
        try:
            for item in self._items(request):
                await asyncio.sleep(0)
                yield item
        finally:
            self.closed += 1

    def parse_reply(self, raw: Any) -> Reply:
        return Reply(text=raw, raw=raw)


@pytest.mark.parametrize("driver", ["sync-streamed", "async-streamed"])
def test_streamed_text_is_passed_on_as_it_arrives_and_checked_whole_at_the_end(driver: str) -> None:
    adapter = Streaming(["It is three.", '{"n": "three"}', '{"n": 3}'])
    result, shown = _run(driver, adapter)
    assert shown == ["It", " is", " three.", '{"n":', ' "three"}', '{"n":', " 3}"]  # every attempt's, in turn
    assert result.value == {"n": 3}
    assert [call.error is not None for call in result.calls] == [True, True, False]
    assert [request.kwargs for request in adapter.sent] == [{"model": "m", "stream": True}] * 3
    assert [call.request.kwargs for call in result.calls] == [{"model": "m", "stream": True}] * 3
    assert adapter.closed == 3


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_a_whole_call_sends_the_request_as_built(driver: str) -> None:
    adapter = Streaming(["x", "y", '{"n": 1}'])
    result, _ = _run(driver, adapter)
    assert [request.kwargs for request in adapter.sent] == [{"model": "m"}] * 3
    assert result.value == {"n": 1}


@pytest.mark.parametrize("driver", ["sync-streamed", "async-streamed"])
def test_a_stream_that_ends_without_its_whole_reply_is_a_connection_error(driver: str) -> None:
    adapter = Streaming(['{"n": 3}'] * 3, whole=False)
    with pytest.raises(ProviderConnectionError, match="stream ended before the reply was complete") as caught:
        _run(driver, adapter)
    assert caught.value.provider == "streaming"
    assert len(adapter.sent) == 1  # a provider failure: not retried as a bad answer
    assert caught.value.calls == ()


@pytest.mark.parametrize("driver", ["sync-streamed", "async-streamed"])
def test_a_stream_failing_midway_raises_after_the_text_it_showed(driver: str) -> None:
    adapter = Streaming(['{"n": 3, "and": "more"}'] * 3, fail_after=2)
    with pytest.raises(ServerError) as caught:
        _run(driver, adapter)
    assert caught.value.provider == "streaming"
    assert (len(adapter.sent), adapter.closed) == (1, 1)


def test_closing_a_stream_early_closes_the_adapters_stream() -> None:
    adapter = Streaming(['{"n": 3}'])
    items = generate_stream(_prompt(1), render=renderer.render, adapter=adapter, model="m")
    assert next(items) == '{"n":'
    items.close()
    assert adapter.closed == 1


def test_a_failing_text_callback_stops_the_call_and_closes_its_stream() -> None:
    adapter = Streaming(['{"n": 3}'])

    def refuse(text: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        generate(_prompt(1), render=renderer.render, adapter=adapter, model="m", on_text=refuse)
    assert adapter.closed == 1


def test_the_async_stream_ends_with_the_result() -> None:
    async def items() -> list[Any]:
        return [
            item async for item in agenerate_stream(_prompt(), render=renderer.render, adapter=Streaming(ANSWERS_TEXT))
        ]

    *texts, result = asyncio.run(items())
    assert "".join(texts) == "".join(ANSWERS_TEXT)
    assert isinstance(result, GenerateResult) and result.value == {"n": 3}


ANSWERS_TEXT = ["no", '{"n": "x"}', '{"n": 3}']


@pytest.mark.parametrize("stream", [generate_stream, agenerate_stream])
def test_a_bad_timeout_is_refused_before_any_call(stream: Any) -> None:
    adapter = Streaming(ANSWERS_TEXT)
    with pytest.raises(FieldError, match="timeout: must be a positive number"):
        stream(_prompt(), render=renderer.render, adapter=adapter, timeout=0)
    assert adapter.sent == []


class Seen(Watcher):
    def __init__(self, seen: list[dict[str, Any]]) -> None:
        self.seen = seen

    def call_started(self, call: ModelCall) -> None:
        self.seen.append(dict(call.request.kwargs))


def test_a_watcher_sees_the_streamed_request() -> None:
    seen: list[dict[str, Any]] = []
    prompt = _prompt(1).model_copy(update={"config": _prompt(1).config.model_copy(update={"debug": True})})
    generate(
        prompt,
        render=renderer.render,
        adapter=Streaming(['{"n": 1}']),
        model="m",
        watchers=[Seen(seen)],
        on_text=lambda text: None,
    )
    assert seen == [{"model": "m", "stream": True}]


class Pending:
    """An adapter whose call never answers, and which notices being cancelled."""

    name = "pending"

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = False

    def build_request(self, rendered: Any, config: Any, contract: Any, model: str | None) -> ProviderRequest:
        return ProviderRequest({})

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        raise AssertionError("an async call must not block a thread")

    async def asend(self, request: ProviderRequest, timeout: float | None) -> Any:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise

    def parse_reply(self, raw: Any) -> Reply:
        return Reply(text=raw)


def test_cancelling_agenerate_cancels_the_call_in_flight() -> None:
    async def cancelled() -> Pending:
        adapter = Pending()
        task = asyncio.ensure_future(agenerate(_prompt(), render=renderer.render, adapter=adapter))
        await adapter.started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return adapter

    assert asyncio.run(cancelled()).cancelled


class TooDeep(Streaming):
    async def astream(self, request: ProviderRequest, timeout: float | None) -> AsyncIterator[Any]:
        raise RecursionError
        yield  # an async generator


def test_a_recursion_error_of_an_async_call_is_the_same_error() -> None:
    with pytest.raises(PromptwireError, match="streaming: the request or its reply is nested too deeply"):
        _run("async-streamed", TooDeep(ANSWERS_TEXT))


def test_a_not_json_stream_is_retried_with_the_repair_text() -> None:
    with pytest.raises(NotJsonError) as caught:
        _run("async-streamed", Streaming(["no", "still no", "never"]))
    assert [call.error for call in caught.value.calls] == [
        "LLM provider did not return JSON: no",
        "LLM provider did not return JSON: still no",
        "LLM provider did not return JSON: never",
    ]
