"""Async helpers every layer that touches an SDK's stream needs: a synchronous iterator stepped in
worker threads, and closing whatever an SDK gives back however it spells it.

Here, below the adapters and the call machinery alike, because both use them: the adapter skeleton
to step a stream without an async client, the links to do the same for a plugin adapter.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

__all__ = ["aclose", "stepped_in_thread"]

_Item = TypeVar("_Item")


async def stepped_in_thread(start: Callable[[], Iterator[_Item]]) -> AsyncIterator[_Item]:
    """A synchronous iterator, started and stepped in worker threads, so the loop never waits on
    its I/O. Cancelled while a step runs, it is closed if it can be; a step already sending runs to
    its end in its thread (synchronous I/O cannot be interrupted)."""
    import asyncio
    import contextvars

    # One context for every step: what a step sets (a generator's ``with`` spanning its yields,
    # such as the secrets its messages mask) is there at the next, as it is for a plain loop.
    context = contextvars.copy_context()
    items = await asyncio.to_thread(context.run, start)
    end = object()
    try:
        while (item := await asyncio.to_thread(context.run, _step, items, end)) is not end:
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
