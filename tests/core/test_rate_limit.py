"""Waiting out rate limits: a 429 sent again after what the provider asked, bounded in all; a spent
quota or any other failure raised at once."""

from __future__ import annotations

import asyncio
import time
from email.utils import formatdate
from typing import Any

import pytest

from promptwire.adapters.status import retry_after
from promptwire.core.errors import QuotaExhaustedError, RateLimitedError, ServerError
from promptwire.core.generate import ProviderRequest, Reply
from promptwire.core.rate_limit import WaitOnRateLimits


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
    """Refuses its first ``refusals`` calls with ``error``, then answers."""

    name = "flaky"

    def __init__(self, refusals: int, error: Exception) -> None:
        self.refusals = refusals
        self.error = error
        self.sent = 0

    def build_request(self, *args: Any) -> ProviderRequest:
        return ProviderRequest({})

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        self.sent += 1
        if self.sent <= self.refusals:
            raise self.error
        return "reply"

    def parse_reply(self, raw: Any) -> Reply:
        return Reply(raw)


def _limited(seconds: float | None) -> RateLimitedError:
    error = RateLimitedError("slow down", status=429)
    error.retry_after = seconds
    return error


def test_a_rate_limited_call_waits_and_is_sent_again_synchronously_and_on_a_loop() -> None:
    waits: list[float] = []
    flaky = _Flaky(2, _limited(0.01))
    assert WaitOnRateLimits(flaky, on_wait=waits.append).send(ProviderRequest({}), None) == "reply"
    assert (flaky.sent, waits) == (3, [0.01, 0.01])
    flaky = _Flaky(2, _limited(0.01))
    assert asyncio.run(WaitOnRateLimits(flaky).asend(ProviderRequest({}), None)) == "reply"  # type: ignore[attr-defined]
    assert flaky.sent == 3


def test_the_waits_of_a_call_are_bounded_in_all() -> None:
    flaky = _Flaky(10, _limited(0.3))
    with pytest.raises(RateLimitedError):
        WaitOnRateLimits(flaky, max_wait=1.0).send(ProviderRequest({}), None)
    assert flaky.sent == 4  # three waits of 0.3 s fit in 1 s, a fourth does not: the waits are counted
    flaky = _Flaky(10, _limited(None))  # no Retry-After: 1 s, then 2 s...
    with pytest.raises(RateLimitedError):
        WaitOnRateLimits(flaky, max_wait=0.5).send(ProviderRequest({}), None)
    assert flaky.sent == 1


@pytest.mark.parametrize("error", [QuotaExhaustedError("spent", status=429), ServerError("down", status=500)])
def test_other_failures_are_raised_at_once(error: Exception) -> None:
    flaky = _Flaky(1, error)
    with pytest.raises(type(error)):
        WaitOnRateLimits(flaky).send(ProviderRequest({}), None)
    assert flaky.sent == 1
