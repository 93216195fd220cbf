"""Token counts before sending: each call's exact request counted by its provider's count endpoint.

A count is asked of the adapter the call is routed to (``count_tokens``, on the adapter skeleton:
:class:`~promptwire.adapters.base.ProviderAdapter`), with a body it derives from the request the
call would send, so what is counted is what would be sent. A provider without a count endpoint (or
an adapter that has no ``count_tokens``) raises :class:`TokenCountUnavailable`: a count is never
guessed. The :class:`Count` link counts every call of a run (a program's, a batch's) as a dry run
walks it: each call counted, then answered offline, so the program goes on to its next call. A call
routed to a provider that cannot count (``--provider auto`` over several providers) is named among
the counts as :class:`NotCounted`, with why, and the run goes on to count the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.call import Call, ModelAdapter, ProviderRequest, Site
from ..core.errors import TokenCountUnavailable
from .links import ASend, AsyncItems, Items, Link, Send

__all__ = ["CallCount", "Count", "NotCounted", "TokenCounts", "acount_call", "count_call", "counter"]


@dataclass(frozen=True, slots=True)
class CallCount:
    """One call's input tokens as its provider counted them: ``endpoint`` is the count endpoint
    asked, ``left_out`` the request's fields its body leaves out (the endpoint refuses them, and
    they do not change what the model reads: a limit, a sampling setting, a cache key)."""

    provider: str
    model: Any
    input_tokens: int
    endpoint: str
    left_out: tuple[str, ...] = ()
    site: Site | None = None
    attempt: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {
            **_call_fields(self.site, self.attempt, self.provider, self.model),
            "count_endpoint": self.endpoint,
            "input_tokens": self.input_tokens,
            "left_out": list(self.left_out),
        }


def _call_fields(site: Site | None, attempt: int, provider: str, model: Any) -> dict[str, Any]:
    """Which call a count (or a call not counted) is of, as its data says it."""
    return {
        "site": None if site is None else str(site),
        "agent": None if site is None else site.agent,
        "attempt": attempt,
        "provider": provider,
        "model": model,
    }


@dataclass(frozen=True, slots=True)
class NotCounted:
    """A call whose provider has no count endpoint: named with the reason (``unavailable``'s
    message), so a total that leaves it out says so instead of passing for the whole."""

    provider: str
    model: Any
    unavailable: TokenCountUnavailable
    site: Site | None = None
    attempt: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {**_call_fields(self.site, self.attempt, self.provider, self.model), "reason": str(self.unavailable)}


@dataclass(frozen=True, slots=True)
class TokenCounts:
    """The counts of every call, in order, and their ``total``; ``not_counted``, the calls whose
    provider could not count them, which the total leaves out."""

    calls: tuple[CallCount, ...]
    not_counted: tuple[NotCounted, ...] = ()

    @property
    def total(self) -> int:
        return sum(call.input_tokens for call in self.calls)

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": [call.to_dict() for call in self.calls],
            "total": self.total,
            "not_counted": [call.to_dict() for call in self.not_counted],
        }

    def whole(self) -> TokenCounts:
        """These counts, when any call was counted (or none was made); else the first call's
        :class:`TokenCountUnavailable`: with nothing counted there is no total to show."""
        if self.not_counted and not self.calls:
            raise self.not_counted[0].unavailable
        return self


def counter(adapter: ModelAdapter, provider: str) -> Any:
    """The adapter itself when it counts; a provider without a count endpoint said as such."""
    if getattr(adapter, "count_endpoint", None) is None or not hasattr(adapter, "count_tokens"):
        raise TokenCountUnavailable(provider, getattr(adapter, "no_count_hint", ""))
    return adapter


def count_call(
    adapter: ModelAdapter, provider: str, request: ProviderRequest, site: Site | None = None, attempt: int = 1
) -> CallCount:
    """The input tokens of ``request`` as ``adapter`` (registered as ``provider``) counts them."""
    counting = counter(adapter, provider)
    tokens: int = counting.count_tokens(request)
    return _counted(counting, provider, request, tokens, site, attempt)


async def acount_call(
    adapter: ModelAdapter, provider: str, request: ProviderRequest, site: Site | None = None, attempt: int = 1
) -> CallCount:
    """:func:`count_call` on an event loop, with the adapter's async client."""
    counting = counter(adapter, provider)
    tokens: int = await counting.acount_tokens(request)
    return _counted(counting, provider, request, tokens, site, attempt)


def _counted(
    counting: Any, provider: str, request: ProviderRequest, tokens: int, site: Site | None, attempt: int
) -> CallCount:
    said = getattr(counting, "count_left_out", None)  # on the adapter skeleton; a plugin's may not say
    left_out: tuple[str, ...] = tuple(said(request)) if said is not None else ()
    return CallCount(provider, request.model_asked(), tokens, counting.count_endpoint, left_out, site, attempt)


class Count(Link):
    """Counts each call's request (the one built, without stream flags) before passing it on, to
    the dry run's offline answer; :attr:`counted` holds the counts in call order."""

    def __init__(self) -> None:
        self.counted: list[CallCount] = []
        self.not_counted: list[NotCounted] = []

    def counts(self) -> TokenCounts:
        return TokenCounts(tuple(self.counted), tuple(self.not_counted))

    def send(self, call: Call, call_next: Send) -> Items:
        try:
            self.counted.append(count_call(call.adapter, call.provider, call.request, call.site, call.attempt))
        except TokenCountUnavailable as unavailable:
            self._not_counted(call, unavailable)
        return call_next(call)

    async def asend(self, call: Call, call_next: ASend) -> AsyncItems:
        try:
            counted = await acount_call(call.adapter, call.provider, call.request, call.site, call.attempt)
        except TokenCountUnavailable as unavailable:
            self._not_counted(call, unavailable)
        else:
            self.counted.append(counted)
        async for item in call_next(call):
            yield item

    def _not_counted(self, call: Call, unavailable: TokenCountUnavailable) -> None:
        model = call.request.model_asked()
        self.not_counted.append(NotCounted(call.provider, model, unavailable, call.site, call.attempt))
