"""Awaited calls at once, and streamed text piece by piece, against the local fake provider.

* Throughput: ``CALLS`` concurrent ``promptwire.calls.generate.agenerate`` calls (OpenAI's adapter,
  the SDK's async client), each answered after the same server delay. The wall time is set against
  the ideal (one delay: every call at once), against the sum of the delays (one call after
  another) and against the bare SDK's async client making the same calls with ``asyncio.gather``
  (promptwire's own work per call, under concurrency).
* Streaming: a reply of ``WORDS`` words streamed a word a chunk, read by the SDK's own stream
  iteration (each chunk's text taken), and by promptwire's streamed ``generate`` (``on_text``),
  for each adapter, alternating run by run after a warm-up, medians: the time per chunk of each.
  Over HTTP most of it is the transport's and the SDK's, and the difference drowns in their noise
  on a shared machine, so promptwire's own cost per chunk is also measured hot: the same generate
  with the stream's SDK events fetched once and handed over again (no round trip), less a loop
  reading the text of those events as the SDK's caller would, over the chunks. It is the stream
  reader, the generator layers and the callback, and the call's own work (render, request, the
  whole reply read at the end) spread over the chunks; its target is against the SDK's own time
  per chunk.

The server runs in a process of its own (its threads would otherwise compete with the client for
the interpreter lock). Run from the repository root: ``python benchmarks/async_stream.py [--quick]``;
``rows()`` gives the same figures to ``benchmarks/run.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import statistics
import time
import timeit
from collections.abc import Callable
from typing import Any

from adapters import server_process
from promptwire import Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.calls.generate import agenerate, generate
from promptwire.renderers.agentscript import renderer, shape_contract

CALLS = 100
DELAY_MS = 100
WORDS = 1000
CHECKED = Prompt(instruction="Check.", output=shape_contract({"ok": "boolean"}))
TEXT = Prompt(instruction="Write.")

THROUGHPUT_TARGETS = {"ideal": 5.0, "serial": 0.05, "bare": 1.25}
"""Wall time at most 5 delays (the bare SDK's own takes about 4 on a shared 2-core machine: each
call's CPU work, the SDK's and the server's, is not concurrent); at most 5 % of one call after
another; at most 1.25 times the bare SDK's."""
CHUNK_TARGET = 1.25
"""promptwire's streamed call at most 1.25 times the SDK's own stream iteration, per chunk."""
OWN_TARGET = 0.10
"""promptwire's own cost per chunk at most a tenth of the SDK's own time per chunk."""


def _row(what: str, ours: float, yardstick: float, ratio: float, target: float) -> dict[str, Any]:
    return {
        "what": what,
        "promptwire": ours,
        "yardstick": yardstick,
        "ratio": ratio,
        "target": f"<= {target:.2f}",
        "pass": ratio <= target,
    }


def throughput(server: Any, calls: int = CALLS, delay_ms: int = DELAY_MS, rounds: int = 3) -> dict[str, float]:
    """Seconds of wall time for ``calls`` concurrent calls, promptwire's and the bare SDK's (the best
    of ``rounds``, both on one event loop and its clients, warmed up first)."""
    import openai

    model = f"delay{delay_ms}"
    adapter = OpenAIAdapter(api_key="k", base_url=server.base_url)
    request = adapter.build_request(renderer.render(CHECKED), CHECKED.config, CHECKED.output, model)

    async def measure() -> dict[str, float]:
        bare = openai.AsyncOpenAI(api_key="k", base_url=server.base_url, max_retries=0).chat.completions.create

        async def ours() -> None:
            await asyncio.gather(
                *(agenerate(CHECKED, render=renderer.render, adapter=adapter, model=model) for _ in range(calls))
            )

        async def theirs() -> None:
            await asyncio.gather(*(bare(**request.kwargs) for _ in range(calls)))

        timings: dict[str, list[float]] = {"promptwire": [], "bare": []}
        for _ in range(rounds + 1):  # the first round warms both up (connections, imports), and is dropped
            for name, run in (("promptwire", ours), ("bare", theirs)):
                start = time.perf_counter()
                await run()
                timings[name].append(time.perf_counter() - start)
        await adapter.aclose()
        return {name: min(values[1:]) for name, values in timings.items()}

    return asyncio.run(measure())


def _sdk_streams(server: Any) -> dict[str, Callable[[dict[str, Any]], int]]:
    """For each adapter: a bare SDK streamed call of a request's keyword arguments, which reads each
    chunk's text as a caller would and returns how many chunks had some."""
    import anthropic
    import ollama
    import openai

    chat = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
    claude = anthropic.Anthropic(api_key="k", base_url=server.root, max_retries=0)
    llama = ollama.Client(host=server.root, timeout=30)

    def openai_chat(kwargs: dict[str, Any]) -> int:
        stream = chat.chat.completions.create(**kwargs, stream=True, stream_options={"include_usage": True})
        return sum(1 for chunk in stream if chunk.choices and chunk.choices[0].delta.content)

    def openai_responses(kwargs: dict[str, Any]) -> int:
        stream = chat.responses.create(**kwargs, stream=True)
        return sum(1 for event in stream if event.type == "response.output_text.delta" and event.delta)

    def messages(kwargs: dict[str, Any]) -> int:
        stream = claude.messages.create(**kwargs, stream=True)
        return sum(1 for event in stream if event.type == "content_block_delta" and event.delta.type == "text_delta")

    def ollama_chat(kwargs: dict[str, Any]) -> int:
        return sum(1 for part in llama.chat(**{**kwargs, "stream": True}) if part.message.content)

    return {"openai": openai_chat, "openai-responses": openai_responses, "anthropic": messages, "ollama": ollama_chat}


def streaming(server: Any, words: int = WORDS, runs: int = 30) -> list[dict[str, float]]:
    """For each adapter: the median seconds of a streamed reply of ``words`` chunks, read by the
    SDK and by promptwire, and the number of chunks."""
    adapters = {
        "openai": OpenAIAdapter(api_key="k", base_url=server.base_url),
        "openai-responses": OpenAIResponsesAdapter(api_key="k", base_url=server.base_url),
        "anthropic": AnthropicAdapter(api_key="k", base_url=server.root),
        "ollama": OllamaAdapter(host=server.root),
    }
    model = f"words{words}"
    found = []
    for name, bare in _sdk_streams(server).items():
        adapter = adapters[name]
        kwargs = dict(adapter.build_request(renderer.render(TEXT), TEXT.config, None, model).kwargs)
        kwargs.pop("stream", None)  # Ollama's body says false; each bare call asks for its stream itself
        pieces: list[str] = []

        def ours(adapter: Any = adapter, pieces: list[str] = pieces) -> int:
            pieces.clear()
            generate(TEXT, render=renderer.render, adapter=adapter, model=model, on_text=pieces.append)
            return len(pieces)

        def theirs(bare: Callable[[dict[str, Any]], int] = bare, kwargs: dict[str, Any] = kwargs) -> int:
            return bare(kwargs)

        for _ in range(3):  # warm up: connections, validators, imports
            assert ours() == theirs() == words, (name, ours(), theirs())
        times: dict[str, list[float]] = {"promptwire": [], "sdk": []}
        for _ in range(runs):
            for side, run in (("promptwire", ours), ("sdk", theirs)):
                start = time.perf_counter()
                run()
                times[side].append(time.perf_counter() - start)
        medians = {side: statistics.median(t) for side, t in times.items()}
        found.append({"adapter": name, "chunks": words, **medians, "own": _own_time(adapter, model)})
    return found


def _own_time(adapter: Any, model: str) -> float:
    """Seconds of promptwire's own work for one streamed call (see the module docstring): the
    streamed generate with the SDK's events of one real stream replayed, less reading those
    events' text; best of several."""
    events: list[Any] = []
    sink: list[str] = []

    def recorded(client: Any, body: bytes) -> Any:
        for event in adapter.post_stream(client, body):
            events.append(event)
            yield event

    def replayed(client: Any, body: bytes) -> Any:
        return iter(events)

    recording, replaying = copy.copy(adapter), copy.copy(adapter)
    recording.post_stream, replaying.post_stream = recorded, replayed
    generate(TEXT, render=renderer.render, adapter=recording, model=model, on_text=sink.append)
    texts = _TEXTS[adapter.name]

    def ours() -> None:
        sink.clear()
        generate(TEXT, render=renderer.render, adapter=replaying, model=model, on_text=sink.append)

    def plain() -> None:
        sink.clear()
        sink.extend(text for event in events if (text := texts(event)))

    return min(timeit.repeat(ours, number=20, repeat=5)) / 20 - min(timeit.repeat(plain, number=20, repeat=5)) / 20


_TEXTS: dict[str, Callable[[Any], Any]] = {
    "openai": lambda chunk: chunk.choices and chunk.choices[0].delta.content,
    "openai-responses": lambda event: event.type == "response.output_text.delta" and event.delta,
    "anthropic": lambda event: (
        event.type == "content_block_delta" and event.delta.type == "text_delta" and event.delta.text
    ),
    "ollama": lambda part: part.message.content,
}
"""How a caller of each SDK takes the text out of an event."""


def rows(quick: bool = False) -> list[dict[str, Any]]:
    """The figures as table rows: what, promptwire (s), yardstick (s), ratio, target, pass."""
    found = []
    with server_process() as server:
        wall = throughput(server, rounds=3 if quick else 5)
        ideal, serial = DELAY_MS / 1000, CALLS * DELAY_MS / 1000
        what = f"{CALLS} agenerate at once, {DELAY_MS} ms delay"
        ours = wall["promptwire"]
        found.append(_row(f"{what}: vs one delay", ours, ideal, ours / ideal, THROUGHPUT_TARGETS["ideal"]))
        found.append(_row(f"{what}: vs the delays' sum", ours, serial, ours / serial, THROUGHPUT_TARGETS["serial"]))
        found.append(
            _row(f"{what}: vs bare AsyncOpenAI", ours, wall["bare"], ours / wall["bare"], THROUGHPUT_TARGETS["bare"])
        )
        for stream in streaming(server, runs=10 if quick else 30):
            chunks, adapter = stream["chunks"], stream["adapter"]
            ours, theirs = stream["promptwire"] / chunks, stream["sdk"] / chunks
            found.append(
                _row(f"streamed {chunks} chunks, per chunk: {adapter}", ours, theirs, ours / theirs, CHUNK_TARGET)
            )
            own = stream["own"] / chunks
            found.append(_row(f"streamed, own cost per chunk (hot): {adapter}", own, theirs, own / theirs, OWN_TARGET))
    return found


def _seconds(value: float) -> str:
    return f"{value * 1e6:9.1f} us" if value < 0.01 else f"{value:9.3f} s "


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer rounds and runs")
    args = parser.parse_args()
    found = rows(args.quick)
    print(f"{'what':<62}{'promptwire':>13}{'yardstick':>13}{'ratio':>8}  {'target':<8}pass")
    for row in found:
        ours, theirs = _seconds(row["promptwire"]), _seconds(row["yardstick"])
        print(f"{row['what']:<62}{ours:>13}{theirs:>13}{row['ratio']:8.3f}  {row['target']:<8}{row['pass']}")


if __name__ == "__main__":
    main()
