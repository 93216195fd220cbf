"""One model call's exchange with an adapter: a request sent, its reply received whole or as a
stream of text, from synchronous code or on an event loop.

A :class:`.generate.ModelAdapter` has three methods: ``build_request``, ``send`` and
``parse_reply``. Four more are optional, and each function here uses the adapter's own when it has
it, else does without:

* ``streamed(request) -> ProviderRequest``: the request as it is sent to be streamed: the built one
  with the stream flags the provider needs (``"stream": true``...) and nothing else changed, so
  that what a dry run or the debug text shows is what is sent. Without it a request is sent as
  built.
* ``stream(request, timeout) -> Iterator[str | Whole]``: the reply's text as it arrives, then one
  :class:`Whole`, the whole reply (assembled from the stream's events) that ``parse_reply`` reads,
  as it reads ``send``'s. A stream that ends without it was cut short. Without it the reply comes
  whole, from ``send``.
* ``asend(request, timeout)``: ``send`` on an event loop, with the SDK's async client. Without it
  ``send`` runs in a worker thread.
* ``astream(request, timeout) -> AsyncIterator[str | Whole]``: ``stream`` on an event loop. Without
  it ``stream`` is stepped in a worker thread (or, with no ``stream`` either, ``asend`` gives the
  whole reply).

So a plugin adapter written with the three synchronous methods works everywhere: streamed calls
show its whole text when it comes, and on an event loop its calls take a worker thread each (the
loop's default executor: a few at a time, where an async client takes a hundred). A cancelled call
in a worker thread ends the awaiting task at once, but its request runs to its end in the thread:
synchronous I/O cannot be interrupted.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from .errors import ProviderConnectionError

if TYPE_CHECKING:
    from .generate import ModelAdapter, ProviderRequest

__all__ = ["Whole", "aclose", "asend", "astream", "cut_short", "stepped_in_thread", "stream", "streamed_request"]

_Item = TypeVar("_Item")


@dataclass(frozen=True, slots=True)
class Whole:
    """The last item of a stream: the whole reply, as ``parse_reply`` reads it."""

    raw: Any


def cut_short() -> ProviderConnectionError:
    """A stream that ended before the provider said the reply was complete: its text so far is not
    the answer (the connection can end cleanly in the middle, a proxy's timeout for one)."""
    return ProviderConnectionError("LLM provider stream ended before the reply was complete")


def streamed_request(adapter: ModelAdapter, request: ProviderRequest) -> ProviderRequest:
    """``request`` as it is sent to be streamed: see the module docstring."""
    streamed: Callable[[ProviderRequest], ProviderRequest] | None = getattr(adapter, "streamed", None)
    return request if streamed is None else streamed(request)


def stream(adapter: ModelAdapter, request: ProviderRequest, timeout: float | None) -> Generator[Any, None, None]:
    """The adapter's stream of ``request``'s reply: text as it arrives, then the :class:`Whole`
    reply; closing it closes the adapter's."""
    own: Callable[[ProviderRequest, float | None], Iterator[Any]] | None = getattr(adapter, "stream", None)
    if own is None:
        yield Whole(adapter.send(request, timeout))
    else:
        yield from own(request, timeout)


async def asend(adapter: ModelAdapter, request: ProviderRequest, timeout: float | None) -> Any:
    """The adapter's reply to ``request``, awaited: its ``asend``, else ``send`` in a worker thread."""
    own = getattr(adapter, "asend", None)
    if own is not None:
        return await own(request, timeout)
    import asyncio

    return await asyncio.to_thread(adapter.send, request, timeout)


def astream(adapter: ModelAdapter, request: ProviderRequest, timeout: float | None) -> AsyncIterator[Any]:
    """:func:`stream` on an event loop: the adapter's ``astream``, else its ``stream`` stepped in a
    worker thread, else the whole reply from :func:`asend`."""
    own: Callable[[ProviderRequest, float | None], AsyncIterator[Any]] | None = getattr(adapter, "astream", None)
    if own is not None:
        return own(request, timeout)
    if getattr(adapter, "stream", None) is not None:
        return stepped_in_thread(lambda: stream(adapter, request, timeout))
    return _awaited_whole(adapter, request, timeout)


async def _awaited_whole(
    adapter: ModelAdapter, request: ProviderRequest, timeout: float | None
) -> AsyncIterator[Whole]:
    yield Whole(await asend(adapter, request, timeout))


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
