"""The bound on the bytes a provider's reply may hold, whole or streamed.

A reply is read into memory, then parsed, then kept (its text, the SDK's object, a recording's
copy): 400 MiB from a provider cost 1.2 to 1.6 GiB. So the HTTP client counts what it reads and
refuses a reply past the bound, with a :class:`ReplyTooLargeError` that says the bound and how to
raise it, before the rest is read. The bound is on the whole reply, whole or streamed: a stream's
events together, and so each event or line (a single line without its end is never more than the
stream it is part of). A ``Content-Length`` past the bound is refused before a byte is read.

The default, 64 MiB (:data:`DEFAULT_MAX_REPLY_BYTES`), is above what the longest answer a model
gives takes: 128k tokens are about 0.5 MiB of text, sent whole in well under 1 MiB of JSON, and
streamed in an event a token of some 200 to 250 bytes each, about 30 MiB. Read whole, a reply just
under the bound peaks near 250 MiB of memory (measured: the body, its text and the SDK's object).
``PROMPTWIRE_MAX_REPLY_SIZE`` (bytes, or with K, M or G: ``256M``) changes it, for the rare reply
that needs more (log probabilities of every token of a long answer, audio or images in it).

The bytes counted are the bytes received: a request asks for them uncompressed
(``Accept-Encoding: identity``), and a reply compressed all the same is refused, since a few MiB of
gzip can unpack to gigabytes behind the count's back.

The bound is enforced by event hooks on the SDK's HTTP client (``bounded_hooks``; the adapters
pass them to the ``httpx``/``httpx2`` client they build): the response hook wraps the response's
byte stream, which every reading of the body goes through, the SDK's or promptwire's. An SDK that
wraps what its HTTP client raises ("Connection error") keeps it as the cause, where
:meth:`~promptwire.adapters.base.ProviderAdapter.send` finds it (:func:`refused_reply`).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from typing import Any

from ..core.environment import environment_value
from ..core.errors import MalformedResponseError, PromptwireError, ReplyTooLargeError

__all__ = [
    "DEFAULT_MAX_REPLY_BYTES",
    "SETTING",
    "CompressedReplyError",
    "ReplySizeSettingError",
    "bounded_chunks",
    "bounded_hooks",
    "checked_reply",
    "max_reply_bytes",
    "refused_reply",
    "shown_size",
]

DEFAULT_MAX_REPLY_BYTES = 64 * 2**20
SETTING = "PROMPTWIRE_MAX_REPLY_SIZE"
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}


class ReplySizeSettingError(PromptwireError):
    """``PROMPTWIRE_MAX_REPLY_SIZE`` is not a size: refused before a request is sent."""


class CompressedReplyError(MalformedResponseError):
    """A reply compressed although asked for uncompressed: its unpacked size cannot be bounded."""


def max_reply_bytes() -> int:
    """The bound on a reply: ``PROMPTWIRE_MAX_REPLY_SIZE`` when set (``1000``, ``64M``, ``2G``),
    else :data:`DEFAULT_MAX_REPLY_BYTES`. Read for each reply, so a change applies at once."""
    text = (environment_value(SETTING) or "").strip()  # read for each reply: see core.environment
    if not text:
        return DEFAULT_MAX_REPLY_BYTES
    number, unit = (text[:-1], text[-1].upper()) if text[-1:].isalpha() else (text, "")
    if unit not in _UNITS or not number.isdigit() or int(number) == 0:
        shown = text if len(text) <= 40 and text.isprintable() else repr(text[:40])
        raise ReplySizeSettingError(
            f"{SETTING}={shown} is not a size in bytes above 0 (such as 1000, 64M or 2G; unset: "
            f"{shown_size(DEFAULT_MAX_REPLY_BYTES)})"
        )
    return int(number) * _UNITS[unit]


def shown_size(size: int) -> str:
    """``size`` as a setting would spell it: ``64M``, ``100K``, ``1000``."""
    for unit in ("G", "M", "K"):
        if size % _UNITS[unit] == 0:
            return f"{size // _UNITS[unit]}{unit}"
    return str(size)


def _in_words(size: int) -> str:
    """``size`` for a message: ``64 MiB``, ``100 KiB``, ``1,000 bytes``."""
    for unit, word in (("G", "GiB"), ("M", "MiB"), ("K", "KiB")):
        if size % _UNITS[unit] == 0:
            return f"{size // _UNITS[unit]} {word}"
    return f"{size:,} bytes"


def _too_large(limit: int, told: str = "") -> ReplyTooLargeError:
    return ReplyTooLargeError(
        f"LLM provider reply is larger than {_in_words(limit)}{told}, the bound on a reply; refused "
        f"(set {SETTING} to raise it, such as {SETTING}={shown_size(limit * 4)})"
    )


def refused_reply(exc: BaseException) -> PromptwireError | None:
    """The refusal this module raised inside the HTTP client, found in ``exc`` or what it was
    raised from: an SDK may wrap what its HTTP client raises as a connection error ("Connection
    error."), which a reply too large must not pass for."""
    seen: BaseException | None = exc
    for _ in range(8):  # a short chain; never a loop
        if isinstance(seen, ReplyTooLargeError | CompressedReplyError | ReplySizeSettingError):
            return seen
        if seen is None:
            return None
        seen = seen.__cause__  # raise ... from: how the SDKs wrap it
    return None


def _checked(response: Any) -> int:
    """The bound, once the response's headers say nothing past it: no compression, no
    ``Content-Length`` over it."""
    limit = max_reply_bytes()
    encoding = response.headers.get("content-encoding", "").strip().lower()
    if encoding not in ("", "identity"):
        raise CompressedReplyError(
            f"LLM provider sent a reply compressed with {encoding[:40]!r}, though asked for it uncompressed "
            "(its unpacked size cannot be bounded as it is read)",
            status=response.status_code,
        )
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > limit:
        raise _too_large(limit, f" (its Content-Length says {int(length):,} bytes)")
    return limit


def checked_reply(response: Any) -> int:
    """The bound on ``response``'s body, once its headers say nothing past it (no compression, no
    ``Content-Length`` over it), for an HTTP client that takes no ``httpx`` hooks (botocore's
    urllib3: see :mod:`promptwire.adapters.bedrock`); with :func:`bounded_chunks` its body is read
    within it."""
    return _checked(response)


def bounded_chunks(chunks: Iterable[bytes], limit: int) -> Iterator[bytes]:
    """``chunks`` passed on as they come, refused with :class:`ReplyTooLargeError` once they hold
    more than ``limit`` bytes together."""
    read = 0
    for chunk in chunks:
        read += len(chunk)
        if read > limit:
            raise _too_large(limit)
        yield chunk


def _uncompressed(request: Any) -> None:
    request.headers["accept-encoding"] = "identity"


def _bounded(response: Any) -> None:
    limit = _checked(response)
    response.stream = _stream_class(sys.modules[type(response).__module__.split(".")[0]], False)(response.stream, limit)


async def _abounded(response: Any) -> None:
    limit = _checked(response)
    response.stream = _stream_class(sys.modules[type(response).__module__.split(".")[0]], True)(response.stream, limit)


async def _auncompressed(request: Any) -> None:
    _uncompressed(request)


def bounded_hooks(*, asynchronous: bool = False) -> dict[str, list[Callable[[Any], Any]]]:
    """The ``event_hooks`` of an ``httpx``/``httpx2`` client (``asynchronous``: an async one)
    whose every response is read within :func:`max_reply_bytes`."""
    if asynchronous:
        request_hook: Callable[[Any], Awaitable[None]] = _auncompressed
        response_hook: Callable[[Any], Awaitable[None]] = _abounded
        return {"request": [request_hook], "response": [response_hook]}
    return {"request": [_uncompressed], "response": [_bounded]}


@functools.cache
def _stream_class(http: Any, asynchronous: bool) -> Any:
    """A byte stream of the HTTP library ``http`` (``httpx`` or ``httpx2``: a response reads only
    its own library's streams) that counts what it passes on and stops past the bound."""
    if asynchronous:

        class AsyncBounded(http.AsyncByteStream):  # type: ignore[misc]
            def __init__(self, stream: Any, limit: int) -> None:
                self._stream, self._limit = stream, limit

            async def __aiter__(self) -> AsyncIterator[bytes]:
                read = 0
                async for chunk in self._stream:
                    read += len(chunk)
                    if read > self._limit:
                        raise _too_large(self._limit)
                    yield chunk

            async def aclose(self) -> None:
                await self._stream.aclose()

        return AsyncBounded

    class Bounded(http.SyncByteStream):  # type: ignore[misc]
        def __init__(self, stream: Any, limit: int) -> None:
            self._stream, self._limit = stream, limit

        def __iter__(self) -> Iterator[bytes]:
            read = 0
            for chunk in self._stream:
                read += len(chunk)
                if read > self._limit:
                    raise _too_large(self._limit)
                yield chunk

        def close(self) -> None:
            self._stream.close()

    return Bounded
