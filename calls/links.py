"""The links a model call passes through on its way to the provider, and the bottom link that sends it.

Whatever stands around a call (recording its reply, answering it from a recording, waiting out a
rate limit, a dry run, handing it to an event loop) is one :class:`Link`: ``send(call, call_next)``
from synchronous code and ``asend(call, call_next)`` on an event loop, each passing the call on by
default (the shape of an HTTP client's middleware). Both give the reply as a stream: the text as it
arrives when the call streams, then one :class:`Whole`; a reply sent whole is a stream of that one
item. So a link is written once for streamed and whole replies alike, and cannot forget a method:
it has one per colour.

Only the bottom link (:func:`bottom_send`, :func:`bottom_asend`) touches an adapter, and it is the
only code that asks for the adapter's optional methods:

* ``stream(request, timeout) -> Iterator[str | Whole]``: the reply's text as it arrives, then one
  :class:`Whole`, the whole reply (assembled from the stream's events) that ``parse_reply`` reads,
  as it reads ``send``'s. A stream that ends without it was cut short. Without it the reply comes
  whole, from ``send``.
* ``asend(request, timeout)``: ``send`` on an event loop, with the SDK's async client. Without it
  ``send`` runs in a worker thread.
* ``astream(request, timeout) -> AsyncIterator[str | Whole]``: ``stream`` on an event loop. Without
  it ``stream`` is stepped in a worker thread (or, with no ``stream`` either, ``asend`` gives the
  whole reply).
* ``streamed(request) -> ProviderRequest``: the request as it is sent to be streamed (the built one
  with the provider's stream flags, ``"stream": true``..., and nothing else changed), asked by the
  attempt loop before the call starts (:func:`streamed_request`), so that what a dry run or the
  debug text shows is what is sent. Without it a request is sent as built.

So a plugin adapter written with the three synchronous methods works everywhere: streamed calls
show its whole text when it comes, and on an event loop its calls take a worker thread each (the
loop's default executor: a few at a time, where an async client takes a hundred). A cancelled call
in a worker thread ends the awaiting task at once, but its request runs to its end in the thread:
synchronous I/O cannot be interrupted.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Generator, Iterator, Sequence
from typing import Any

from ..core.call import Call, ModelAdapter, ProviderRequest, Whole
from ..core.stepping import aclose, stepped_in_thread

__all__ = [
    "ASend",
    "Answering",
    "AsyncItems",
    "Chain",
    "DryRun",
    "Items",
    "Link",
    "Send",
    "bottom_asend",
    "bottom_send",
    "streamed_request",
]

Items = Generator["str | Whole", None, None]
"""A reply as a stream: text as it arrives, then the :class:`Whole` reply."""
AsyncItems = AsyncGenerator["str | Whole", None]
Send = Callable[[Call], Items]
ASend = Callable[[Call], AsyncItems]


class Link:
    """One concern around a model call: see the module docstring. Override :meth:`send` and
    :meth:`asend`; each passes the call on unchanged by default."""

    def send(self, call: Call, call_next: Send) -> Items:
        return call_next(call)

    def asend(self, call: Call, call_next: ASend) -> AsyncItems:
        return call_next(call)


class Chain:
    """``links`` in order, outermost first, then the bottom link: what a call goes through."""

    __slots__ = ("asend", "links", "send")

    def __init__(self, links: Sequence[Link] = ()) -> None:
        self.links = tuple(links)
        send: Send = bottom_send
        asend: ASend = bottom_asend
        for link in reversed(self.links):
            send = _bound(link.send, send)
            asend = _abound(link.asend, asend)
        self.send: Send = send
        """The call's reply, from synchronous code."""
        self.asend: ASend = asend
        """The call's reply, on an event loop."""


def _bound(send: Callable[[Call, Send], Items], call_next: Send) -> Send:
    return lambda call: send(call, call_next)


def _abound(asend: Callable[[Call, ASend], AsyncItems], call_next: ASend) -> ASend:
    return lambda call: asend(call, call_next)


def streamed_request(adapter: ModelAdapter, request: ProviderRequest) -> ProviderRequest:
    """``request`` as it is sent to be streamed: the adapter's ``streamed``, else as it is."""
    streamed: Callable[[ProviderRequest], ProviderRequest] | None = getattr(adapter, "streamed", None)
    return request if streamed is None else streamed(request)


def bottom_send(call: Call) -> Items:
    """The provider's reply to ``call``: its ``stream`` when the call streams and it has one, else
    its ``send``; closing the stream closes the adapter's."""
    adapter, request, timeout = call.adapter, call.sent, call.timeout
    own: Callable[[ProviderRequest, float | None], Iterator[Any]] | None = (
        getattr(adapter, "stream", None) if call.stream else None
    )
    if own is None:
        yield Whole(adapter.send(request, timeout))
        return
    items = own(request, timeout)
    try:
        yield from items
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()


async def bottom_asend(call: Call) -> AsyncItems:
    """:func:`bottom_send` on an event loop: the adapter's ``astream`` or ``asend``, else its
    ``stream`` stepped in a worker thread, else its ``send`` in one."""
    adapter, request, timeout = call.adapter, call.sent, call.timeout
    if call.stream:
        own = getattr(adapter, "astream", None)
        if own is not None:
            items = own(request, timeout)
        elif getattr(adapter, "stream", None) is not None:
            items = stepped_in_thread(lambda: bottom_send(call))
        else:
            items = None
        if items is not None:
            try:
                async for item in items:
                    yield item
            finally:  # its connection, however the iteration ends
                await aclose(items)
            return
    yield Whole(await _asend(adapter, request, timeout))


async def _asend(adapter: ModelAdapter, request: ProviderRequest, timeout: float | None) -> Any:
    own = getattr(adapter, "asend", None)
    if own is not None:
        return await own(request, timeout)
    from ..core.stepping import in_worker

    return await in_worker(adapter.send, request, timeout)


class Answering(Link):
    """A link that answers each call in place of the provider (a dry run, a replay, a batch's
    results): :meth:`answer` gives the whole reply, and nothing below is sent."""

    def answer(self, call: Call) -> Whole:
        raise NotImplementedError

    def send(self, call: Call, call_next: Send) -> Items:
        yield self.answer(call)

    async def asend(self, call: Call, call_next: ASend) -> AsyncItems:
        yield self.answer(call)


class DryRun(Answering):
    """Nothing sent: each call answered by ``answers`` (the offline adapter: canned replies, then
    mock values) with the request it builds from the same render, so a program runs on and every
    request of every attempt is built as it would be sent."""

    def __init__(self, answers: ModelAdapter) -> None:
        self.answers = answers

    def answer(self, call: Call) -> Whole:
        prompt = call.prompt
        request = self.answers.build_request(call.rendered, prompt.config, prompt.output, call.model)
        raw = self.answers.send(request, call.timeout)
        return Whole(raw, self.answers.parse_reply(raw))
