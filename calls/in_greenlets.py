"""Synchronous code that makes model calls, run on the event loop's own thread: each run in a
greenlet, switching to the loop for each of its calls.

:class:`~promptwire.calls.on_loop.OnLoop` runs the code in a thread of its own and hands each call
to the loop. A live batch runs a hundred programs at once that way, and the threads contend for the
interpreter's lock: whenever the loop's thread waits on a socket, a program's thread takes the lock,
and the loop must wait to get it back. A batch of 128 rows at once against a server that answers at
once made about fifty context switches a row, against one in a plain ``AsyncOpenAI`` script.

:class:`InGreenlets` runs the same code in a greenlet (the ``greenlet`` package, SQLAlchemy's way
of running synchronous code on asyncio) started from the run's task: a call switches back to the
task with the coroutine to await, and the task switches in again with its result or error. One
thread, no lock handed over, and each call still goes through the run's chain on the loop.

Work between calls runs on the loop's thread, so what may block there is handed to a worker thread:
the interpreter's tool and memory calls go through :func:`promptwire.core.stepping.blocking`, which
awaits them in a worker while the loop goes on. Cancelling :meth:`InGreenlets.run` cancels the call
in flight and raises :class:`asyncio.CancelledError` in the code at that call, as ``OnLoop`` does.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from ..core.stepping import OFF_THE_LOOP, in_worker
from .links import AsyncItems
from .on_loop import OnLoop

__all__ = ["InGreenlets"]

_T = TypeVar("_T")


class InGreenlets(OnLoop):
    """:class:`OnLoop` with the code in a greenlet on the loop's thread: see the module docstring."""

    async def run(self, work: Callable[[], _T]) -> _T:
        """``work()``, in a greenlet of its own, each call it makes awaited here."""
        from greenlet import greenlet

        context = contextvars.copy_context()  # the caller's (its current span, telemetry's parent), as OnLoop's
        context.run(OFF_THE_LOOP.set, self._off_the_loop)
        self._code = code = greenlet(work)
        code.gr_context = context
        asked: Any = code.switch()
        while not code.dead:
            try:  # in the code's context, as OnLoop's calls are: the call's site, the run's span
                answer = await self.loop.create_task(asked, context=code.gr_context.copy())
            except BaseException as exc:  # the call's error, raised in the code at that call
                if isinstance(exc, asyncio.CancelledError):
                    self._cancelled = True
                asked = code.throw(exc)
            else:
                asked = code.switch(answer)
        if self._cancelled:  # the code went on after its call was cancelled: the run still was
            raise asyncio.CancelledError
        return asked  # type: ignore[no-any-return]

    def cancel(self) -> None:
        """Refuse any other call (the call in flight is cancelled with the run's task)."""
        self._cancelled = True

    def _close_on_loop(self, items: AsyncItems) -> None:
        self._switched(items.aclose())

    def _on_loop(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        if self._cancelled:
            coroutine.close()
            raise asyncio.CancelledError
        return self._switched(coroutine)

    def _switched(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        """``coroutine`` awaited by the run's task: the code waits, switched out, for its outcome."""
        parent = self._code.parent
        assert parent is not None
        return parent.switch(coroutine)  # type: ignore[no-any-return]

    def _off_the_loop(self, work: Callable[[], _T]) -> _T:
        return self._switched(in_worker(work))
