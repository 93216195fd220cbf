"""``generate(watchers=[...])``: whoever shows a run as it happens is told of the generate, of each
attempt as it is sent, of its text as it streams, of its reply as it comes and as it ends (its
reply, seconds and value, or why it was rejected, or the provider's failure), driven any of the
four ways."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from promptwire import Prompt
from promptwire.adapters.offline import OfflineAdapter
from promptwire.calls.generate import NotJsonError, agenerate, generate
from promptwire.calls.watch import Watcher
from promptwire.core.call import GenerateResult, ModelCall, ProviderRequest, Reply, Usage
from promptwire.core.coercion import ResultError
from promptwire.core.errors import ServerError
from promptwire.renderers.agentscript import renderer, shape_contract

ANSWERS = ["Sure, here it is.", {"n": "three"}, {"n": 3}]


def _prompt(attempts: int = 3) -> Prompt:
    return Prompt(instruction="Count.", output=shape_contract({"n": "number"}), config={"attempts": attempts})


class Watch(Watcher):
    def __init__(self) -> None:
        self.events: list[tuple[str, int, bool, str | None]] = []
        self.ended: list[ModelCall] = []
        self.errors: list[type[BaseException] | None] = []
        self.generates: list[tuple[str, Any]] = []
        self.texts: list[tuple[int, str]] = []

    def generate(self, prompt: Prompt, provider: str, streaming: bool) -> Watcher:
        self.generates.append(("started", (provider, streaming)))
        return self

    def call_started(self, call: ModelCall) -> None:
        self.events.append(("started", call.attempt, call.reply is not None, call.error))

    def text(self, call: ModelCall, piece: str) -> None:
        self.texts.append((call.attempt, piece))

    def call_replied(self, call: ModelCall) -> None:
        self.events.append(("replied", call.attempt, call.reply is not None, call.error))

    def call_ended(self, call: ModelCall, error: BaseException | None) -> None:
        self.events.append(("ended", call.attempt, call.reply is not None, call.error))
        self.ended.append(call)
        self.errors.append(None if error is None else type(error))

    def generate_ended(self, result: GenerateResult | None, error: BaseException | None) -> None:
        self.generates.append(("ended", result.value if result is not None else type(error)))


@pytest.mark.parametrize("driver", ["sync", "sync-streamed", "async", "async-streamed"])
def test_each_attempt_is_told_as_it_starts_and_ends(driver: str) -> None:
    watch = Watch()
    options: dict[str, Any] = {"render": renderer.render, "adapter": OfflineAdapter(ANSWERS), "watchers": [watch]}
    if driver.endswith("streamed"):
        options["stream"] = True
    result = (
        generate(_prompt(), **options) if driver.startswith("sync") else asyncio.run(agenerate(_prompt(), **options))
    )
    assert watch.events == [
        ("started", 1, False, None),
        ("replied", 1, True, None),
        ("ended", 1, True, "LLM provider did not return JSON: Sure, here it is."),
        ("started", 2, False, None),
        ("replied", 2, True, None),
        ("ended", 2, True, "LLM result field must be a number"),
        ("started", 3, False, None),
        ("replied", 3, True, None),
        ("ended", 3, True, None),
    ]
    assert watch.errors == [NotJsonError, ResultError, None]
    assert watch.generates == [("started", ("offline", driver.endswith("streamed"))), ("ended", {"n": 3})]
    # A streamed reply that came whole (the offline adapter does not stream) is told when it comes.
    assert watch.texts == ([(1, "Sure, here it is.")] if driver.endswith("streamed") else [])
    assert watch.ended == result.calls  # the same records the result holds
    assert [call.value for call in result.calls] == [None, None, {"n": 3}]
    assert all(call.provider == "offline" and call.seconds is not None for call in result.calls)


class Slow(OfflineAdapter):
    """Answers after 50 ms, then fails the second call as a server would."""

    sent = 0

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        time.sleep(0.05)
        self.sent += 1
        if self.sent == 2:
            raise ServerError("LLM provider request failed (500): down", status=500)
        return super().send(request, timeout)


def test_a_call_the_provider_failed_is_told_with_its_failure_and_not_kept() -> None:
    watch = Watch()
    with pytest.raises(ServerError) as caught:
        generate(_prompt(), render=renderer.render, adapter=Slow(ANSWERS), watchers=[watch])
    assert [event[:2] for event in watch.events] == [
        ("started", 1),
        ("replied", 1),
        ("ended", 1),
        ("started", 2),
        ("ended", 2),
    ]
    assert watch.errors == [NotJsonError, ServerError]
    assert watch.generates[-1] == ("ended", ServerError)
    failed = watch.ended[-1]
    assert (failed.reply, failed.error) == (None, "ServerError: LLM provider request failed (500): down")
    assert caught.value.calls == (watch.ended[0],)  # error.calls: the attempts that came back
    assert all(call.seconds is not None and call.seconds >= 0.05 for call in watch.ended)


def test_a_reply_is_kept_with_its_usage() -> None:
    class Counted(OfflineAdapter):
        def parse_reply(self, raw: Any) -> Reply:
            reply = super().parse_reply(raw)
            reply.usage = Usage.read({"input_tokens": 12, "output_tokens": 3})
            return reply

    result = generate(_prompt(1), render=renderer.render, adapter=Counted([{"n": 1}]))
    (call,) = result.calls
    assert call.reply is not None and call.reply.usage == Usage(12, 3, {"input_tokens": 12, "output_tokens": 3})
    assert call.value == {"n": 1}
