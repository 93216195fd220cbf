"""A program run on an event loop (``promptwire.frontend.arun``): the interpreter in a thread of
its own (``OnLoop``), or on the loop's thread in a greenlet (``InGreenlets``, ``on_loop_thread``:
a batch's rows), each model call made on the loop with the SDK's async client. Either way it gives
what ``run`` gives, many programs overlap on one loop, the streamed text reaches the loop, and
cancelling a run closes the call in flight and leaves no thread or request running."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from time_bounds import AT_ONCE  # tests/time_bounds.py (pytest's pythonpath)

from promptwire.core.errors import RateLimitedError
from promptwire.runs.run import RunOptions, arun, request_dict, run
from promptwire.testing.provider_servers import FakeProvider, fake_provider

PROGRAM = """import llm Model from "openai://MODEL"

main agent Checker {
    model Model
    role "Checker"
    description "Check twice."

    main func(input) {
        use input.claim as claim
        first = generate({ input: "Check the claim." }) -> { ok boolean }
        second = generate({ input: "Check it again." }) -> { ok boolean }
        { first: first, second: second }
    }
}
"""
OPENAI = RunOptions(adapter="openai")


def _program(model: str) -> str:
    return PROGRAM.replace("MODEL", model)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    with fake_provider() as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        yield running


ON_LOOP_THREAD = pytest.mark.parametrize("on_loop_thread", [False, True], ids=["own thread", "greenlet"])


def _program_threads() -> list[str]:
    return [thread.name for thread in threading.enumerate() if thread.name.startswith("promptwire run")]


@ON_LOOP_THREAD
def test_an_awaited_run_gives_what_a_run_gives(on_loop_thread: bool) -> None:
    options = RunOptions(responses=[{"ok": True}, "not json", {"ok": False}])
    program = _program("gpt-4o").replace(
        'generate({ input: "Check it again." })', 'generate({ input: "Again.", attempts: 2 })'
    )
    expected = run(program, {"claim": "c"}, options)
    awaited = asyncio.run(arun(program, {"claim": "c"}, options, on_loop_thread=on_loop_thread))
    assert (awaited.value, awaited.trace) == (expected.value, expected.trace)
    assert [call.rendered for call in awaited.calls] == [call.rendered for call in expected.calls]
    assert [call.error for call in awaited.calls] == [None, "LLM provider did not return JSON: not json", None]


@ON_LOOP_THREAD
def test_programs_on_one_loop_overlap_their_model_calls(server: FakeProvider, on_loop_thread: bool) -> None:
    async def twenty() -> list[Any]:
        return await asyncio.gather(
            *(arun(_program("together20"), {"claim": "c"}, OPENAI, on_loop_thread=on_loop_thread) for _ in range(20))
        )

    # The server answers together20 only once twenty requests for it are in at once: each
    # program's first call, then each one's second; one after another, the first would wait alone.
    results = asyncio.run(twenty())
    assert [result.value for result in results] == [{"first": {"ok": True}, "second": {"ok": True}}] * 20
    assert len(server.requests) == 40
    assert _program_threads() == []


@ON_LOOP_THREAD
def test_the_streamed_text_of_an_awaited_run_reaches_the_loop(server: FakeProvider, on_loop_thread: bool) -> None:
    seen: list[tuple[str, int]] = []

    async def streamed() -> Any:
        options = replace(OPENAI, on_text=lambda text: seen.append((text, threading.get_ident())))
        return await arun(_program("ok"), {"claim": "c"}, options, on_loop_thread=on_loop_thread)

    result = asyncio.run(streamed())
    assert [text for text, _ in seen] == ['{"ok": ', "true}"] * 2
    assert {ident for _, ident in seen} == {threading.get_ident()}  # called on the loop, not the program's thread
    assert all(call.request.kwargs["stream"] is True for call in result.calls)
    assert all(body.endswith(b',"stream":true,"stream_options":{"include_usage":true}}') for body in server.raw_bodies)


@ON_LOOP_THREAD
def test_cancelling_an_awaited_run_closes_its_call_and_stops_the_program(
    server: FakeProvider, on_loop_thread: bool
) -> None:
    async def cancelled() -> None:
        task = asyncio.ensure_future(arun(_program("hang"), {"claim": "c"}, OPENAI, on_loop_thread=on_loop_thread))
        while not server.requests:
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancelled())
    deadline = time.monotonic() + AT_ONCE
    while not server.hung_up:
        assert time.monotonic() < deadline, "the call in flight was not closed"
        time.sleep(0.005)
    assert server.hung_up == ["hang"]
    assert len(server.requests) == 1  # the program's second call was never made
    assert _program_threads() == []  # and its thread has ended


@ON_LOOP_THREAD
def test_a_failed_awaited_run_raises_the_providers_error(server: FakeProvider, on_loop_thread: bool) -> None:
    with pytest.raises(RateLimitedError) as caught:
        asyncio.run(arun(_program("e429"), {"claim": "c"}, OPENAI, on_loop_thread=on_loop_thread))
    assert caught.value.provider == "openai"
    assert _program_threads() == []


@pytest.mark.parametrize("streamed", [False, True])
def test_a_dry_run_shows_the_stream_flags_of_a_streamed_run(streamed: bool) -> None:
    options = RunOptions(adapter="anthropic", dry_run=True, on_text=(lambda text: None) if streamed else None)
    (first, second) = run(_program("gpt-4o"), {"claim": "c"}, options).calls
    body = request_dict(first, "anthropic")["body"]
    assert list(body)[-1] == ("stream" if streamed else "output_config")
    assert body.get("stream") is (True if streamed else None)
    awaited = asyncio.run(arun(_program("gpt-4o"), {"claim": "c"}, options)).calls
    assert [call.request for call in awaited] == [first.request, second.request]


def test_runs_on_the_loops_thread_start_no_thread_and_their_blocking_work_goes_to_a_worker() -> None:
    """``InGreenlets``: the code runs on the loop's thread; what it hands to ``blocking`` (a tool's
    work) runs in a worker thread while the loop goes on: here the first run's work waits for the
    second run to reach its own, which it could never do if the first held the loop."""
    from promptwire.calls.in_greenlets import InGreenlets
    from promptwire.calls.links import Chain
    from promptwire.core.stepping import blocking

    second_started = threading.Event()

    async def two_runs() -> list[Any]:
        loop_thread = threading.get_ident()

        def first() -> tuple[bool, bool, bool]:
            on_the_loop = threading.get_ident() == loop_thread
            waited = blocking(lambda: second_started.wait(AT_ONCE))
            elsewhere = blocking(lambda: threading.get_ident() != loop_thread)
            return on_the_loop, waited, elsewhere

        def second() -> bool:
            second_started.set()
            return threading.get_ident() == loop_thread

        runs = [InGreenlets(Chain(()), asyncio.get_running_loop()) for _ in range(2)]
        return await asyncio.gather(runs[0].run(first), runs[1].run(second))

    threads_before = threading.active_count()
    assert asyncio.run(two_runs()) == [(True, True, True), True]
    assert _program_threads() == []
    assert threading.active_count() <= threads_before + 1  # the workers' pool, if it was not made before


def test_a_call_from_a_greenlet_is_made_in_the_codes_context() -> None:
    """What the code set in its context (the call's site, the run's span) is what the call's links
    see on the loop, as in a thread of its own."""
    import contextvars
    from types import SimpleNamespace
    from typing import cast

    from promptwire.calls.in_greenlets import InGreenlets
    from promptwire.calls.links import AsyncItems, Chain, Link, bottom_send
    from promptwire.core.call import Call, Whole

    where: contextvars.ContextVar[str] = contextvars.ContextVar("where", default="unset")

    class SaysWhere(Link):
        async def asend(self, call: Call, call_next: Any) -> AsyncItems:
            yield Whole(where.get())

    call = cast(Call, SimpleNamespace(stream=False))

    async def on_a_loop() -> list[Any]:
        runs = InGreenlets(Chain((SaysWhere(),)), asyncio.get_running_loop())

        def work() -> list[Any]:
            where.set("set by the code")
            return list(runs.send(call, bottom_send))

        return await runs.run(work)

    assert asyncio.run(on_a_loop()) == [Whole("set by the code")]


def test_a_call_that_does_not_stream_goes_to_the_loop_and_back_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its reply comes whole, so it is read and the call closed in one trip to the loop (three
    before: the reply, the end, the close), a live batch making a call a row."""
    trips: list[str] = []
    handed = asyncio.run_coroutine_threadsafe

    def counted(coroutine: Any, loop: asyncio.AbstractEventLoop) -> Any:
        trips.append(coroutine.__qualname__)
        return handed(coroutine, loop)

    monkeypatch.setattr(asyncio, "run_coroutine_threadsafe", counted)
    options = RunOptions(responses=[{"ok": True}, {"ok": False}])
    result = asyncio.run(arun(_program("gpt-4o"), {"claim": "c"}, options))
    assert result.value == {"first": {"ok": True}, "second": {"ok": False}}
    assert trips == ["_drained", "_drained"]


@ON_LOOP_THREAD
def test_what_a_call_raises_after_its_reply_reaches_the_code_after_the_reply(on_loop_thread: bool) -> None:
    """Read in one trip, a call's items still reach the program's thread in order, and what the
    chain raised after them after them, as it did item by item."""
    from types import SimpleNamespace
    from typing import cast

    from promptwire.calls.in_greenlets import InGreenlets
    from promptwire.calls.links import AsyncItems, Chain, Link, bottom_send
    from promptwire.calls.on_loop import OnLoop
    from promptwire.core.call import Call, Whole

    class RepliesThenFails(Link):
        async def asend(self, call: Call, call_next: Any) -> AsyncItems:
            yield Whole("the reply")
            raise RateLimitedError("after the reply")

    call = cast(Call, SimpleNamespace(stream=False))

    async def on_a_loop() -> list[Any]:
        kind = InGreenlets if on_loop_thread else OnLoop
        on_loop = kind(Chain((RepliesThenFails(),)), asyncio.get_running_loop())

        def work() -> list[Any]:
            seen: list[Any] = []
            try:
                seen.extend(on_loop.send(call, bottom_send))
            except RateLimitedError as exc:
                seen.append(str(exc))
            return seen

        return await on_loop.run(work)

    assert asyncio.run(on_a_loop()) == [Whole("the reply"), "after the reply"]
