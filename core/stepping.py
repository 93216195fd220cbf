"""Async helpers every layer that touches an SDK's stream needs: a blocking call run in a worker
thread, a synchronous iterator stepped in worker threads, and closing whatever an SDK gives back
however it spells it.

Here, below the adapters and the call machinery alike, because both use them: the adapter skeleton
to step a stream without an async client, the links to do the same for a plugin adapter.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["OFF_THE_LOOP", "WORKER_THREADS", "aclose", "blocking", "in_worker", "stepped_in_thread"]

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")

WORKER_THREADS = 256
"""The blocking SDK calls (an SDK without an async client: the AWS SDK, a plugin's) that run at once
in one process. asyncio's own pool, which ``asyncio.to_thread`` uses, has ``min(32, cores + 4)``
threads: on 2 cores, six calls at once, whatever ``--concurrency`` a batch asked for. A thread is
made only when a call finds none idle."""

OFF_THE_LOOP: ContextVar[Callable[[Callable[[], Any]], Any] | None] = ContextVar(
    "promptwire_off_the_loop", default=None
)
"""How code running on an event loop's own thread has blocking work done elsewhere (set by
:class:`promptwire.calls.in_greenlets.InGreenlets` for the code it runs); ``None`` elsewhere."""

_workers: ThreadPoolExecutor | None = None
_workers_made = threading.Lock()


async def in_worker(work: Callable[..., _Result], *args: Any) -> _Result:
    """``work(*args)`` in a worker thread, awaited, with the caller's context (its current span, the
    secrets its messages mask), as ``asyncio.to_thread`` does, in a pool of :data:`WORKER_THREADS`."""
    import asyncio
    import contextvars

    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(_pool(), lambda: context.run(work, *args))


def blocking(work: Callable[[], _Result]) -> _Result:
    """``work()``, which may wait on I/O (a tool, a memory store): here, in code that has a thread of
    its own; in a worker thread, the loop going on meanwhile, in code running on an event loop's own
    thread (:data:`OFF_THE_LOOP`)."""
    elsewhere = OFF_THE_LOOP.get()
    return work() if elsewhere is None else elsewhere(work)


def _pool() -> ThreadPoolExecutor:
    global _workers
    with _workers_made:
        if _workers is None:
            from concurrent.futures import ThreadPoolExecutor

            _workers = ThreadPoolExecutor(WORKER_THREADS, thread_name_prefix="promptwire sdk")
        return _workers


async def stepped_in_thread(start: Callable[[], Iterator[_Item]]) -> AsyncIterator[_Item]:
    """A synchronous iterator, started and stepped in worker threads, so the loop never waits on
    its I/O. Cancelled while a step runs, it is closed if it can be; a step already sending runs to
    its end in its thread (synchronous I/O cannot be interrupted)."""
    import contextvars

    # One context for every step: what a step sets (a generator's ``with`` spanning its yields,
    # such as the secrets its messages mask) is there at the next, as it is for a plain loop.
    context = contextvars.copy_context()
    items = await in_worker(context.run, start)
    end = object()
    try:
        while (item := await in_worker(context.run, _step, items, end)) is not end:
            yield item
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            # "generator already executing" (ValueError) or its context still entered (RuntimeError):
            # its step is still in its thread.
            with contextlib.suppress(ValueError, RuntimeError):
                context.run(close)


def _step(items: Iterator[_Item], end: object) -> _Item:
    """The next item, or ``end`` (typed as an item: the caller compares with it first)."""
    return next(items, end)  # type: ignore[return-value]


async def aclose(thing: Any) -> None:
    """Close an async iterator, or an SDK's async client or stream, whichever way it spells it
    (``aclose()``, or ``close()``, awaited when it is a coroutine); one with neither is left."""
    import inspect

    close = getattr(thing, "aclose", None) or getattr(thing, "close", None)
    closing = close() if close is not None else None
    if inspect.isawaitable(closing):
        await closing
