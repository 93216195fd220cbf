"""Waiting out rate limits: a 429 sent again after what the provider asked, bounded in all; a spent
quota or any other failure raised at once."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from email.utils import formatdate
from typing import Any

import pytest

from promptwire.adapters.status import retry_after
from promptwire.calls.generate import agenerate, generate
from promptwire.calls.links import Chain
from promptwire.calls.rate_limit import WaitOnRateLimits
from promptwire.core.call import ProviderRequest, Reply, Whole
from promptwire.core.errors import QuotaExhaustedError, RateLimitedError, ServerError
from promptwire.core.prompt import Prompt
from promptwire.renderers.agentscript.renderer import renderer
from promptwire.renderers.agentscript.shape import shape_contract


class _Response:
    def __init__(self, **headers: str) -> None:
        self.headers = headers


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after-ms": "250", "retry-after": "3"}, 0.25),
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "-5"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "nan"}, None),
        ({}, None),
    ],
)
def test_retry_after_reads_the_headers_the_providers_send(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after(_Response(**headers)) == seconds
    assert retry_after(None) is None


def test_retry_after_reads_an_http_date() -> None:
    seconds = retry_after(_Response(**{"retry-after": formatdate(time.time() + 30, usegmt=True)}))
    assert seconds is not None and 28 <= seconds <= 30


class _Flaky:
    """Refuses its first ``refusals`` calls with ``error``, then answers ``{"n": 1}``, whole or as
    a stream of two pieces (its ``stream``), synchronously or on an event loop (its ``astream``)."""

    name = "flaky"

    def __init__(self, refusals: int, error: Exception) -> None:
        self.refusals = refusals
        self.error = error
        self.sent = 0

    def build_request(self, *args: Any) -> ProviderRequest:
        return ProviderRequest({})

    def streamed(self, request: ProviderRequest) -> ProviderRequest:
        return ProviderRequest({**request.kwargs, "stream": True})

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        assert "stream" not in request.kwargs, "a streamed call went down the whole-reply path"
        self._refuse()
        return '{"n": 1}'

    def stream(self, request: ProviderRequest, timeout: float | None) -> Iterator[str | Whole]:
        assert request.kwargs.get("stream") is True
        self._refuse()
        yield '{"n":'
        yield " 1}"
        yield Whole('{"n": 1}')

    async def astream(self, request: ProviderRequest, timeout: float | None) -> AsyncIterator[str | Whole]:
        for item in self.stream(request, timeout):
            yield item

    def parse_reply(self, raw: Any) -> Reply:
        return Reply(raw)

    def _refuse(self) -> None:
        self.sent += 1
        if self.sent <= self.refusals:
            raise self.error


def _limited(seconds: float | None) -> RateLimitedError:
    error = RateLimitedError("slow down", status=429)
    error.retry_after = seconds
    return error


def _generate(adapter: _Flaky, link: WaitOnRateLimits, *, streamed: bool = False, on_loop: bool = False) -> Any:
    """The value of one generate whose calls go through ``link`` to ``adapter``, its text streamed
    (the pieces checked) or not, from synchronous code or on an event loop."""
    prompt = Prompt(instruction="n?", output=shape_contract({"n": "number"}))
    pieces: list[str] = []
    arguments: dict[str, Any] = {
        "render": renderer.render,
        "adapter": adapter,
        "chain": Chain([link]),
        "on_text": pieces.append if streamed else None,
    }
    result = asyncio.run(agenerate(prompt, **arguments)) if on_loop else generate(prompt, **arguments)
    assert pieces == (['{"n":', " 1}"] if streamed else [])
    return result.value


@pytest.mark.parametrize("on_loop", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_rate_limited_call_waits_and_is_sent_again(streamed: bool, on_loop: bool) -> None:
    # A streamed call through the rate limiter is streamed: it once went down the whole-reply path
    # with "stream": true in its body and failed (the wrapper had no ``stream`` of its own).
    waits: list[float] = []
    flaky = _Flaky(2, _limited(0.01))
    link = WaitOnRateLimits(on_wait=waits.append)
    assert _generate(flaky, link, streamed=streamed, on_loop=on_loop) == {"n": 1}
    assert (flaky.sent, waits) == (3, [0.01, 0.01])


def test_the_waits_of_a_call_are_bounded_in_all() -> None:
    waits: list[float] = []
    flaky = _Flaky(10, _limited(0.05))
    with pytest.raises(RateLimitedError):
        _generate(flaky, WaitOnRateLimits(max_wait=0.18, on_wait=waits.append))
    assert (flaky.sent, waits) == (4, [0.05, 0.05, 0.05])  # three waits of 0.05 s fit in 0.18 s, a fourth does not
    flaky = _Flaky(10, _limited(None))  # no Retry-After: 1 s, then 2 s...
    with pytest.raises(RateLimitedError):
        _generate(flaky, WaitOnRateLimits(max_wait=0.5))
    assert flaky.sent == 1


@pytest.mark.parametrize("error", [QuotaExhaustedError("spent", status=429), ServerError("down", status=500)])
def test_other_failures_are_raised_at_once(error: Exception) -> None:
    flaky = _Flaky(1, error)
    with pytest.raises(type(error)):
        _generate(flaky, WaitOnRateLimits())
    assert flaky.sent == 1
