"""Synchronous code that makes model calls, run for an event loop: the code in a thread of its own,
each of its calls made on the loop with the adapter's async client.

A front end's interpreter is synchronous (a ``.as`` program's is). Run as is on an event loop it
would block the loop; run in a worker thread with its synchronous adapter, it would hold a thread
and a connection pool per run. :class:`OnLoop` does neither: the code runs in a thread of its own,
and :class:`OnLoop` is the one link of its calls' chain: each call is handed to the loop
(``asyncio.run_coroutine_threadsafe``), goes through the run's own chain there (``inner``, with the
adapter's async client at its bottom) and is waited for, so a hundred runs share the loop's async
clients and their connections like any other tasks. Cancelling :meth:`OnLoop.run` cancels
the call in flight (its connection is closed) and stops the code at its next call, where it sees
:class:`asyncio.CancelledError`; the run waits for the thread to end, so nothing is left running.
Work between calls (a tool the program runs) finishes first: a thread cannot be interrupted.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import threading
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, TypeVar

from ..core.call import Call
from .links import ASend, AsyncItems, Chain, Items, Link, Send

__all__ = ["OnLoop"]

_T = TypeVar("_T")
_END = object()


class OnLoop(Link):
    """The calls of code running in another thread than ``loop``'s, made on the loop through
    ``inner``: see the module docstring."""

    def __init__(
        self,
        inner: Chain,
        loop: asyncio.AbstractEventLoop,
        name: str = "model calls",
    ) -> None:
        self.inner = inner
        self.name = name
        self.loop = loop
        self._lock = threading.Lock()
        self._pending: set[concurrent.futures.Future[Any]] = set()
        self._cancelled = False

    async def run(self, work: Callable[[], _T]) -> _T:
        """``work()``, in a thread of its own, awaited."""
        done: concurrent.futures.Future[_T] = concurrent.futures.Future()

        def target() -> None:
            done.set_running_or_notify_cancel()
            try:
                done.set_result(work())
            except BaseException as exc:  # handed to the awaiting task, whatever it is
                done.set_exception(exc)

        # The caller's context goes along (its current span, telemetry's parent), as asyncio.to_thread's does.
        context = contextvars.copy_context()
        name = f"promptwire run ({self.name})"
        threading.Thread(target=context.run, args=(target,), name=name, daemon=True).start()
        try:
            return await asyncio.wrap_future(done)
        except asyncio.CancelledError:
            self.cancel()
            with contextlib.suppress(BaseException):  # how the work stopped: it was cancelled
                await asyncio.shield(asyncio.wrap_future(done))
            raise

    def cancel(self) -> None:
        """Cancel the call in flight and refuse any other."""
        with self._lock:
            self._cancelled = True
            pending = list(self._pending)
        for future in pending:
            future.cancel()

    def send(self, call: Call, call_next: Send) -> Items:
        items = self.inner.asend(call)
        if not call.stream:
            yield from self._whole(items)
            return
        try:
            while (item := self._on_loop(_next(items))) is not _END:
                yield item
        finally:  # closed on the loop even after a cancellation: its connection goes with it
            self._close_on_loop(items)

    def _whole(self, items: AsyncItems) -> Items:
        """The items of a call that does not stream, all read and closed on the loop in one trip
        there and back (they come at once, with the reply), then given in order, and what the
        reading raised after them, as item by item. A live batch makes a call a row: a trip to the
        loop and back for each item and one more for the end took three."""
        finished = False
        try:
            got, error = self._on_loop(_drained(items))
            finished = True
        finally:  # cancelled before the loop finished: closed there before the thread goes on
            if not finished:
                self._close_on_loop(items)
        yield from got
        if error is not None:
            raise error

    def asend(self, call: Call, call_next: ASend) -> AsyncItems:
        """A call already on an event loop goes through ``inner`` there."""
        return self.inner.asend(call)

    def _close_on_loop(self, items: AsyncItems) -> None:
        """``items`` closed on the loop, even after the run was cancelled."""
        asyncio.run_coroutine_threadsafe(items.aclose(), self.loop).result()

    def _on_loop(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        with self._lock:
            if self._cancelled:
                coroutine.close()
                raise asyncio.CancelledError
            future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
            self._pending.add(future)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise asyncio.CancelledError from None
        finally:
            with self._lock:
                self._pending.discard(future)


async def _next(items: AsyncIterator[Any]) -> Any:
    return await anext(items, _END)


async def _drained(items: AsyncItems) -> tuple[list[Any], Exception | None]:
    """Every item of ``items``, and the error that ended them (``None``: they ended), ``items``
    closed whatever happens (a cancellation is raised, after the close)."""
    got: list[Any] = []
    try:
        async for item in items:
            got.append(item)
    except Exception as exc:  # raised in the thread after the items that came before it
        return got, exc
    finally:
        await items.aclose()
    return got, None
