"""Synchronous code that makes model calls, run for an event loop: the code in a thread of its own,
each of its calls made on the loop with the adapter's async client.

A front end's interpreter is synchronous (a ``.as`` program's is). Run as is on an event loop it
would block the loop; run in a worker thread with its synchronous adapter, it would hold a thread
and a connection pool per run. :class:`OnLoop` does neither: the code runs in a thread of its own,
and its adapter is the caller's adapter seen from that thread, each call handed to the loop
(``asyncio.run_coroutine_threadsafe``) and waited for there, so a hundred runs share the loop's
async clients and their connections like any other tasks. Cancelling :meth:`OnLoop.run` cancels
the call in flight (its connection is closed) and stops the code at its next call, where it sees
:class:`asyncio.CancelledError`; the run waits for the thread to end, so nothing is left running.
Work between calls (a tool the program runs) finishes first: a thread cannot be interrupted.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, TypeVar

from . import exchange
from .contract import OutputContract
from .generate import ModelAdapter, ProviderRequest, Reply
from .prompt import GenerateConfig
from .rendered import RenderedPrompt

__all__ = ["OnLoop"]

_T = TypeVar("_T")
_END = object()


class OnLoop:
    """``adapter``, for code running in another thread than ``loop``'s: see the module docstring."""

    def __init__(self, adapter: ModelAdapter, loop: asyncio.AbstractEventLoop) -> None:
        self.adapter = adapter
        self.name = adapter.name
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

        threading.Thread(target=target, name=f"promptwire run ({self.name})", daemon=True).start()
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

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        return self.adapter.build_request(rendered, config, contract, model)

    def streamed(self, request: ProviderRequest) -> ProviderRequest:
        return exchange.streamed_request(self.adapter, request)

    def parse_reply(self, raw: Any) -> Reply:
        return self.adapter.parse_reply(raw)

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        return self._on_loop(exchange.asend(self.adapter, request, timeout))

    def stream(self, request: ProviderRequest, timeout: float | None) -> Iterator[Any]:
        items = exchange.astream(self.adapter, request, timeout)
        try:
            while (item := self._on_loop(_next(items))) is not _END:
                yield item
        finally:  # closed on the loop even after a cancellation: its connection goes with it
            asyncio.run_coroutine_threadsafe(exchange.aclose(items), self.loop).result()

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
