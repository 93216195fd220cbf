"""Waiting out a provider's rate limit, for callers that send many calls at once (a batch).

A 429 says "not now", not "no": the same request may succeed later, and the provider often says
when (``Retry-After``, kept on the error as ``retry_after``). :class:`WaitOnRateLimits` wraps an
adapter so that a call refused with :class:`RateLimitedError` waits (what the provider asked, else
a doubling back-off) and is sent again, inside the one call ``generate`` made: it is not a failed
attempt, and the prompt is not changed. The waits of one call are bounded in all (``max_wait``);
past it the last 429 is raised like any other failure. A spent quota
(:class:`QuotaExhaustedError`) is not a rate limit and is raised at once: waiting does not fix it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from . import exchange
from .contract import OutputContract
from .errors import RateLimitedError
from .generate import ModelAdapter, ProviderRequest, Reply
from .prompt import GenerateConfig
from .rendered import RenderedPrompt

__all__ = ["DEFAULT_MAX_WAIT", "WaitOnRateLimits"]

DEFAULT_MAX_WAIT = 300.0
"""Seconds one call may spend waiting out rate limits, in all."""

_FIRST_BACKOFF = 1.0
_LONGEST_BACKOFF = 60.0


class WaitOnRateLimits:
    """``adapter`` with each call refused for a rate limit sent again after a wait: see the module
    docstring. ``on_wait`` hears of each wait (its seconds), for a caller that counts them."""

    def __init__(
        self,
        adapter: ModelAdapter,
        max_wait: float = DEFAULT_MAX_WAIT,
        on_wait: Callable[[float], None] | None = None,
    ) -> None:
        self.adapter = adapter
        self.name = adapter.name
        self.max_wait = max_wait
        self.on_wait = on_wait

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        return self.adapter.build_request(rendered, config, contract, model)

    def streamed(self, request: ProviderRequest) -> ProviderRequest:
        return exchange.streamed_request(self.adapter, request)

    def parse_reply(self, raw: Any) -> Reply:
        return self.adapter.parse_reply(raw)

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        waits: list[float] = []
        while True:
            try:
                return self.adapter.send(request, timeout)
            except RateLimitedError as exc:
                seconds = self._wait(exc, waits)
            time.sleep(seconds)

    async def asend(self, request: ProviderRequest, timeout: float | None) -> Any:
        waits: list[float] = []
        while True:
            try:
                return await exchange.asend(self.adapter, request, timeout)
            except RateLimitedError as exc:
                seconds = self._wait(exc, waits)
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
