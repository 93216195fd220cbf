"""The links around a model call (record, replay, dry run, the event-loop bridge, rate limits): each
passes a streamed call on as a stream and a whole one whole, from synchronous code and on an event
loop, and the adapter's optional methods are asked for by the bottom link alone."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from promptwire.adapters.offline import OfflineAdapter
from promptwire.calls.generate import agenerate, generate
from promptwire.calls.links import Chain, DryRun, Link
from promptwire.calls.on_loop import OnLoop
from promptwire.calls.rate_limit import WaitOnRateLimits
from promptwire.calls.recording import Record, Recorder, Recording, Replay
from promptwire.core.call import Call, GenerateResult, ProviderRequest, Reply, Site, Whole
from promptwire.core.prompt import Prompt
from promptwire.renderers.agentscript.renderer import renderer
from promptwire.renderers.agentscript.shape import shape_contract

PIECES = ['{"n":', " 1}"]
SITE = Site("main.as", 3, 9, "A")


class Streaming:
    """A provider that streams ``{"n": 1}`` in two pieces, whole or streamed, sync or async; it
    remembers every request it was sent and how."""

    name = "streaming"
    path = "chat"

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def build_request(self, rendered: Any, config: Any, contract: Any, model: str | None) -> ProviderRequest:
        return ProviderRequest({"model": model, "ask": rendered.user})

    def streamed(self, request: ProviderRequest) -> ProviderRequest:
        return ProviderRequest({**request.kwargs, "stream": True}, request.notes, provider=request.provider)

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        self.sent.append(("send", dict(request.kwargs)))
        return {"text": "".join(PIECES)}

    async def asend(self, request: ProviderRequest, timeout: float | None) -> Any:
        self.sent.append(("asend", dict(request.kwargs)))
        return {"text": "".join(PIECES)}

    def stream(self, request: ProviderRequest, timeout: float | None) -> Iterator[str | Whole]:
        self.sent.append(("stream", dict(request.kwargs)))
        yield from PIECES
        yield Whole({"text": "".join(PIECES)})

    async def astream(self, request: ProviderRequest, timeout: float | None) -> AsyncIterator[str | Whole]:
        self.sent.append(("astream", dict(request.kwargs)))
        for piece in PIECES:
            yield piece
        yield Whole({"text": "".join(PIECES)})

    def parse_reply(self, raw: Any) -> Reply:
        return Reply(raw["text"], raw=raw, usage={"input_tokens": 4, "output_tokens": 2})


def _prompt() -> Prompt:
    return Prompt(instruction="n?", output=shape_contract({"n": "number"}))


def _generate(adapter: Any, links: list[Link], *, streamed: bool, on_loop: bool) -> tuple[GenerateResult, list[str]]:
    pieces: list[str] = []
    arguments: dict[str, Any] = {
        "render": renderer.render,
        "adapter": adapter,
        "chain": Chain(links),
        "model": "m",
        "site": SITE,
        "on_text": pieces.append if streamed else None,
    }
    result = asyncio.run(agenerate(_prompt(), **arguments)) if on_loop else generate(_prompt(), **arguments)
    assert result.value == {"n": 1}
    return result, pieces


COLOURS = pytest.mark.parametrize("on_loop", [False, True], ids=["sync", "async"])
STREAMED = pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])


@COLOURS
@STREAMED
def test_the_bottom_link_streams_a_streamed_call_and_sends_a_whole_one_whole(streamed: bool, on_loop: bool) -> None:
    adapter = Streaming()
    result, pieces = _generate(adapter, [], streamed=streamed, on_loop=on_loop)
    assert pieces == (PIECES if streamed else [])
    method = ("astream" if on_loop else "stream") if streamed else ("asend" if on_loop else "send")
    assert [how for how, _ in adapter.sent] == [method]
    assert ("stream" in adapter.sent[0][1]) is streamed
    (call,) = result.calls
    assert (call.site, call.provider, call.reply and call.reply.usage and call.reply.usage.input) == (
        SITE,
        "streaming",
        4,
    )


@COLOURS
@STREAMED
def test_a_link_that_overrides_nothing_passes_every_call_on_as_it_came(streamed: bool, on_loop: bool) -> None:
    adapter = Streaming()
    _, pieces = _generate(adapter, [Link(), Link()], streamed=streamed, on_loop=on_loop)
    assert pieces == (PIECES if streamed else [])
    assert len(adapter.sent) == 1


class Seen(Link):
    """Keeps every call that passes, and every item of its reply."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.items: list[Any] = []

    def send(self, call: Call, call_next: Any) -> Any:
        self.calls.append(call)
        for item in call_next(call):
            self.items.append(item)
            yield item

    async def asend(self, call: Call, call_next: Any) -> Any:
        self.calls.append(call)
        async for item in call_next(call):
            self.items.append(item)
            yield item


@COLOURS
@STREAMED
def test_the_facts_of_a_call_ride_on_it(streamed: bool, on_loop: bool) -> None:
    seen = Seen()
    _generate(Streaming(), [seen], streamed=streamed, on_loop=on_loop)
    (call,) = seen.calls
    assert (call.attempt, call.site, call.stream, call.provider, call.model) == (1, SITE, streamed, "streaming", "m")
    assert "stream" not in call.request.kwargs  # as built
    assert (call.sent is call.request) is not streamed  # as sent: the stream flags added
    assert seen.items[:-1] == (PIECES if streamed else []) and isinstance(seen.items[-1], Whole)


@COLOURS
@STREAMED
def test_a_recorded_call_streams_and_is_recorded_by_its_built_request(
    tmp_path: Path, streamed: bool, on_loop: bool
) -> None:
    path = tmp_path / "run.jsonl"
    with Recorder(path) as recorder:
        _, pieces = _generate(Streaming(), [Record(recorder)], streamed=streamed, on_loop=on_loop)
    assert pieces == (PIECES if streamed else [])
    header, line = (json.loads(text) for text in path.read_text().splitlines())
    assert header["format"] == "promptwire-recording"
    assert (line["site"], line["attempt"], line["streamed"], line["provider"]) == (
        "main.as:3:9",
        1,
        streamed,
        "streaming",
    )
    assert "stream" not in line["request"]
    assert line["usage"] == {"input_tokens": 4, "output_tokens": 2}

    # Replayed, streamed or not, from synchronous code or on a loop: nothing is sent.
    for replay_streamed in (False, True):
        adapter = Streaming()
        recording = Recording.read(path)
        _, pieces = _generate(adapter, [Replay(recording)], streamed=replay_streamed, on_loop=on_loop)
        assert adapter.sent == []
        assert pieces == (["".join(PIECES)] if replay_streamed else [])  # a whole reply, shown when it comes
        assert recording.unused() == []


@COLOURS
@STREAMED
def test_a_dry_run_builds_the_streamed_request_and_sends_nothing(streamed: bool, on_loop: bool) -> None:
    adapter = Streaming()
    seen = Seen()
    _, pieces = _generate(adapter, [seen, DryRun(OfflineAdapter(['{"n": 1}']))], streamed=streamed, on_loop=on_loop)
    assert adapter.sent == []
    assert pieces == (['{"n": 1}'] if streamed else [])
    assert ("stream" in seen.calls[0].sent.kwargs) is streamed


@STREAMED
def test_a_call_from_another_thread_is_made_on_the_loop_through_the_inner_chain(streamed: bool) -> None:
    adapter = Streaming()
    seen = Seen()

    async def main() -> tuple[GenerateResult, list[str], str]:
        loop = asyncio.get_running_loop()
        on_loop = OnLoop(Chain([seen]), loop)
        pieces: list[str] = []
        result = await on_loop.run(
            lambda: generate(
                _prompt(),
                render=renderer.render,
                adapter=adapter,
                chain=Chain([on_loop]),
                on_text=pieces.append if streamed else None,
            )
        )
        return result, pieces, threading.current_thread().name

    result, pieces, _ = asyncio.run(main())
    assert result.value == {"n": 1}
    assert pieces == (PIECES if streamed else [])
    assert [how for how, _ in adapter.sent] == ["astream" if streamed else "asend"]  # the async client, on the loop
    assert len(seen.calls) == 1


@COLOURS
def test_a_streamed_call_through_every_link_at_once_streams(tmp_path: Path, on_loop: bool) -> None:
    adapter = Streaming()
    with Recorder(tmp_path / "r.jsonl") as recorder:
        links: list[Link] = [WaitOnRateLimits(), Seen(), Record(recorder), Link()]
        _, pieces = _generate(adapter, links, streamed=True, on_loop=on_loop)
    assert pieces == PIECES
    assert [how for how, _ in adapter.sent] == ["astream" if on_loop else "stream"]


class InTheUrl(Streaming):
    """A provider whose model goes in the URL (a deployment), not in the body."""

    def build_request(self, rendered: Any, config: Any, contract: Any, model: str | None) -> ProviderRequest:
        return ProviderRequest({"ask": rendered.user}, model=model)


def test_a_model_outside_the_body_is_recorded_digested_and_shown(tmp_path: Path) -> None:
    from promptwire.core.errors import PromptDrift
    from promptwire.frontend.asrender.progress import model_of

    path = tmp_path / "run.jsonl"
    with Recorder(path) as recorder:
        result, _ = _generate(InTheUrl(), [Record(recorder)], streamed=False, on_loop=False)
    assert model_of(result.calls[0]) == "m"  # progress lines and --output json name it
    line = json.loads(path.read_text().splitlines()[1])
    assert line["model"] == "m" and "model" not in line["request"]
    _generate(InTheUrl(), [Replay(Recording.read(path))], streamed=False, on_loop=False)  # the same model replays
    other = {
        "render": renderer.render,
        "adapter": InTheUrl(),
        "chain": Chain([Replay(Recording.read(path))]),
        "model": "another",
    }
    with pytest.raises(PromptDrift):  # the body is the same; the model is not
        generate(_prompt(), **other)
