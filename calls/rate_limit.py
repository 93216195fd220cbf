"""Waiting out a provider's rate limit, for callers that send many calls at once (a batch).

A 429 says "not now", not "no": the same request may succeed later, and the provider often says
when (``Retry-After``, kept on the error as ``retry_after``). :class:`WaitOnRateLimits` is a link
(:mod:`.links`): a call refused with :class:`RateLimitedError` waits (what the provider asked, else
a doubling back-off) and is sent again, inside the one call ``generate`` made: it is not a failed
attempt, and the prompt is not changed. A streamed call is sent again the same way while no text
of it has come (a refusal comes before the stream opens). The waits of one call are bounded in all
(``max_wait``); past it the last 429 is raised like any other failure. A spent quota
(:class:`QuotaExhaustedError`) is not a rate limit and is raised at once: waiting does not fix it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from ..core.call import Call
from ..core.errors import RateLimitedError
from .links import ASend, AsyncItems, Items, Link, Send

__all__ = ["DEFAULT_MAX_WAIT", "WaitOnRateLimits"]

DEFAULT_MAX_WAIT = 300.0
"""Seconds one call may spend waiting out rate limits, in all."""

_FIRST_BACKOFF = 1.0
_LONGEST_BACKOFF = 60.0


class WaitOnRateLimits(Link):
    """Each call refused for a rate limit sent again after a wait: see the module docstring.
    ``on_wait`` hears of each wait (its seconds), for a caller that counts them."""

    def __init__(self, max_wait: float = DEFAULT_MAX_WAIT, on_wait: Callable[[float], None] | None = None) -> None:
        self.max_wait = max_wait
        self.on_wait = on_wait

    def send(self, call: Call, call_next: Send) -> Items:
        waits: list[float] = []
        while True:
            passed = False
            items = call_next(call)
            try:
                for item in items:
                    passed = True
                    yield item
                return
            except RateLimitedError as exc:
                if passed:
                    raise
                seconds = self._wait(exc, waits)
            finally:
                items.close()
            time.sleep(seconds)

    async def asend(self, call: Call, call_next: ASend) -> AsyncItems:
        waits: list[float] = []
        while True:
            passed = False
            items = call_next(call)
            try:
                async for item in items:
                    passed = True
                    yield item
                return
            except RateLimitedError as exc:
                if passed:
                    raise
                seconds = self._wait(exc, waits)
            finally:
                await items.aclose()
            await asyncio.sleep(seconds)

    def _wait(self, error: RateLimitedError, waits: list[float]) -> float:
        """How long to wait before sending again (added to ``waits``, this call's waits so far), or
        ``error`` raised when the waits are spent."""
        backoff = min(_FIRST_BACKOFF * 2 ** len(waits), _LONGEST_BACKOFF)
        seconds = error.retry_after if error.retry_after is not None else backoff
        waited = sum(waits)
        if waited + seconds > self.max_wait:
            raise error
        waits.append(seconds)
        if self.on_wait is not None:
            self.on_wait(seconds)
        return seconds
