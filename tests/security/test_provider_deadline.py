"""A provider call awaited on an event loop (as asrender makes them) has one deadline in all: a server that trickles its
answer a byte at a time (each read well within the per-read timeout the SDKs apply) is cut off at
``timeout`` with the usual timeout error, through each built-in adapter's real async client."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from promptwire import Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.calls.generate import agenerate
from promptwire.core.errors import ProviderTimeoutError
from promptwire.frontend.asrender.cli import main
from promptwire.renderers.agentscript import renderer

BODY = json.dumps({"id": "x", "object": "chat.completion", "choices": [], "padding": "." * 400}).encode()


@pytest.fixture
def trickling() -> Iterator[str]:
    """A server on 127.0.0.1 that sends its headers at once, then its body one byte every 50 ms
    (about 20 s in all); yields its root URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()

    def serve(connection: socket.socket) -> None:
        with connection:
            connection.settimeout(5)
            with contextlib.suppress(OSError):
                connection.recv(65536)
                head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(BODY)}\r\n\r\n"
                connection.sendall(head.encode())
                for byte in BODY:
                    if stop.is_set():
                        return
                    time.sleep(0.05)
                    connection.sendall(bytes([byte]))

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama"])
def test_an_awaited_call_ends_at_its_deadline_however_slowly_the_server_trickles(
    provider: str, trickling: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    adapter = {
        "openai": lambda: OpenAIAdapter(base_url=trickling + "/v1"),
        "anthropic": lambda: AnthropicAdapter(base_url=trickling),
        "ollama": lambda: OllamaAdapter(host=trickling),
    }[provider]()
    started = time.monotonic()
    with pytest.raises(ProviderTimeoutError, match=r"timed out after 1\.0s"):
        asyncio.run(
            agenerate(Prompt(instruction="Hi."), render=renderer.render, adapter=adapter, model="m", timeout=1.0)
        )
    assert time.monotonic() - started < 15  # not the 20 s the body takes


def test_asrender_cuts_a_trickling_provider_off_at_its_timeout(
    trickling: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """asrender makes a provider's calls on an event loop, so --timeout is the whole call's."""
    program = tmp_path / "p.as"
    program.write_text(
        'import llm M from "openai://m"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        '    main func(input) {\n        return generate({ input: "Hi." })\n    }\n}\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    started = time.monotonic()
    code = main([str(program), "--provider", "openai", "--base-url", trickling + "/v1", "--timeout", "1"])
    err = capsys.readouterr().err
    assert code == 1 and "ProviderTimeoutError [openai]: LLM provider request timed out after 1.0s" in err
    assert time.monotonic() - started < 15  # not the 20 s the body takes
