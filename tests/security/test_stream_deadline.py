"""A streamed provider call has one deadline in all, as a whole one has: a server that opens the
stream at once and then trickles its events (each well within the per-read timeout the SDKs apply)
is cut off at ``timeout`` with the usual timeout error, through each built-in adapter's real
client, from synchronous code and on an event loop, and through ``asrender`` (which streams on a
terminal: a run's calls). The server counts the events it sent before the client hung up: the work, not the
clock, shows where the call ended."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from promptwire import Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.calls.generate import agenerate, generate
from promptwire.core.errors import ProviderTimeoutError
from promptwire.renderers.agentscript import renderer
from promptwire.testing.provider_streams import STREAMS

EVERY = 0.1
"""Seconds between two events: a reply of 300 words takes half a minute."""
WORDS = 300
ROUTES = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages", "ollama": "/api/chat"}


def _reply(protocol: str) -> dict[str, Any]:
    text = "word " * WORDS
    if protocol == "anthropic":
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": WORDS},
        }
    if protocol == "ollama":
        return {
            "model": "m",
            "created_at": "2024-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": text},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 1,
            "eval_count": WORDS,
        }
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }


@dataclass
class Trickle:
    """A server on 127.0.0.1 that streams a long reply in ``protocol``'s wire format, one event
    every :data:`EVERY` seconds, until the client hangs up; ``sent`` counts the events it sent."""

    protocol: str
    url: str = ""
    sent: list[int] = field(default_factory=list)

    def serve(self, connection: socket.socket, stop: threading.Event) -> None:
        stream = STREAMS[ROUTES[self.protocol]]
        events, _ = stream.events(_reply(self.protocol), {"stream": True})
        count = 0
        with connection:
            connection.settimeout(5)
            with contextlib.suppress(OSError):
                connection.recv(65536)
                head = f"HTTP/1.1 200 OK\r\nContent-Type: {stream.content_type}\r\nTransfer-Encoding: chunked\r\n\r\n"
                connection.sendall(head.encode())
                for event in events:
                    if stop.is_set():
                        break
                    connection.sendall(f"{len(event):x}\r\n".encode() + event + b"\r\n")
                    count += 1
                    time.sleep(EVERY)
        self.sent.append(count)


@pytest.fixture(params=["openai", "anthropic", "ollama"])
def trickle(request: pytest.FixtureRequest) -> Iterator[Trickle]:
    server = Trickle(request.param)
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=server.serve, args=(connection, stop), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    server.url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    try:
        yield server
    finally:
        stop.set()
        listener.close()


def _adapter(server: Trickle, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    return {
        "openai": lambda: OpenAIAdapter(base_url=server.url + "/v1"),
        "anthropic": lambda: AnthropicAdapter(base_url=server.url),
        "ollama": lambda: OllamaAdapter(host=server.url),
    }[server.protocol]()


def _hung_up(server: Trickle) -> int:
    """The events the server sent before the client hung up (waiting for it to notice)."""
    for _ in range(100):
        if server.sent:
            return server.sent[0]
        time.sleep(0.05)
    raise AssertionError("the client never hung up")


@pytest.mark.parametrize("on_loop", [False, True], ids=["sync", "async"])
def test_a_streamed_call_ends_at_its_deadline_however_slowly_the_events_come(
    trickle: Trickle, monkeypatch: pytest.MonkeyPatch, on_loop: bool
) -> None:
    adapter = _adapter(trickle, monkeypatch)
    pieces: list[str] = []
    arguments: dict[str, Any] = {
        "render": renderer.render,
        "adapter": adapter,
        "model": "m",
        "timeout": 1.0,
        "on_text": pieces.append,
    }
    with pytest.raises(ProviderTimeoutError, match=r"timed out after 1\.0s"):
        if on_loop:
            asyncio.run(agenerate(Prompt(instruction="Hi."), **arguments))
        else:
            generate(Prompt(instruction="Hi."), **arguments)
    assert pieces  # the stream had begun: the deadline is the whole call's, not the first byte's
    assert _hung_up(trickle) < WORDS // 2  # about 10 events in 1 s; the whole stream is over 300


def test_a_streamed_run_cuts_a_trickling_provider_off_at_its_timeout(
    trickle: Trickle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # asrender streams on a terminal, and makes a provider's calls on an event loop (arun).
    from promptwire.runs.options import RunOptions
    from promptwire.runs.run import arun

    if trickle.protocol != "openai":
        pytest.skip("one provider is enough for the run's own path")
    program = tmp_path / "p.as"
    program.write_text(
        'import llm M from "openai://m"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        '    main func(input) {\n        return generate({ input: "Hi." })\n    }\n}\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    options = RunOptions(adapter="openai", timeout=1.0, stream=True, base_urls={"": trickle.url + "/v1"})
    with pytest.raises(ProviderTimeoutError):
        asyncio.run(arun(program, None, options))
    assert _hung_up(trickle) < WORDS // 2
