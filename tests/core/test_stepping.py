"""Blocking SDK calls on an event loop (:mod:`promptwire.core.stepping`): as many at once as the
run asks for, not asyncio's own pool of ``min(32, cores + 4)`` threads (six on 2 cores, which held
a 128-row Bedrock batch to six calls at once), each with its caller's context."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Iterator
from typing import Any

from promptwire.calls.links import _asend
from promptwire.core.stepping import WORKER_THREADS, in_worker, stepped_in_thread

AT_ONCE = 40  # more than asyncio's pool holds on any machine (at most 32)
SECRET: contextvars.ContextVar[str] = contextvars.ContextVar("secret", default="")


class BlockingAdapter:
    """A plugin's adapter with a blocking ``send`` and no ``asend``: each call waits until
    :data:`AT_ONCE` calls are in at once (a broken barrier after 30 s alone fails the test)."""

    def __init__(self) -> None:
        self.together = threading.Barrier(AT_ONCE)

    def send(self, request: Any, timeout: float | None) -> str:
        self.together.wait(timeout=30)
        return f"{request} {SECRET.get()}"


def test_blocking_calls_run_as_many_at_once_as_are_awaited() -> None:
    adapter = BlockingAdapter()

    async def calls() -> list[str]:
        SECRET.set("the caller's")
        return list(await asyncio.gather(*(_asend(adapter, index, None) for index in range(AT_ONCE))))  # type: ignore[arg-type]

    assert asyncio.run(calls()) == [f"{index} the caller's" for index in range(AT_ONCE)]
    assert WORKER_THREADS >= 128  # a batch's usual --concurrency


def test_a_stepped_iterator_meets_others_stepped_at_once() -> None:
    together = threading.Barrier(AT_ONCE)

    def items() -> Iterator[str]:
        together.wait(timeout=30)
        yield SECRET.get()
        together.wait(timeout=30)
        yield "second"

    async def one() -> list[str]:
        return [item async for item in stepped_in_thread(items)]

    async def all_at_once() -> list[list[str]]:
        SECRET.set("kept")
        return list(await asyncio.gather(*(one() for _ in range(AT_ONCE))))

    assert asyncio.run(all_at_once()) == [["kept", "second"]] * AT_ONCE


def test_in_worker_hands_back_what_the_work_raises() -> None:
    def fails() -> None:
        raise ValueError("from the thread")

    async def run() -> str:
        try:
            await in_worker(fails)
        except ValueError as error:
            return str(error)
        return "nothing raised"

    assert asyncio.run(run()) == "from the thread"
