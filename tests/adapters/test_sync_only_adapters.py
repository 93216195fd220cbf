"""An adapter written with the synchronous methods only still works on an event loop and when
streamed: the echo plugin (on the skeleton, with no async client and no stream) over real HTTP,
and an adapter with nothing but ``build_request``, ``send`` and ``parse_reply``. On an event loop
its calls run in worker threads; streamed, its whole text is passed on once, when it comes."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from echo_server import echo_server  # the echo plugin's test server (pytest's pythonpath setting)

import promptwire
from promptwire import PluginHost
from promptwire.core.call import GenerateResult, ProviderRequest, Reply

PROMPT = {
    "instruction": "Say ok.",
    "output": {"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}},
}


@pytest.fixture
def echo_host(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[PluginHost, Any]]:
    import promptwire_echo.plugin as echo_plugin

    with echo_server() as server:
        monkeypatch.setenv("ECHO_URL", server.url)
        yield PluginHost(entry_points=False, plugins=[echo_plugin]), server


def test_the_echo_plugin_answers_awaited_calls_from_worker_threads(echo_host: tuple[PluginHost, Any]) -> None:
    host, server = echo_host

    async def ten() -> list[GenerateResult]:
        return await asyncio.gather(*(promptwire.agenerate(PROMPT, "echo", "ok", host=host) for _ in range(10)))

    assert [result.value for result in asyncio.run(ten())] == [{"ok": False}] * 10
    assert len(server.requests) == 10


def test_the_echo_plugin_streamed_passes_its_whole_text_once(echo_host: tuple[PluginHost, Any]) -> None:
    host, server = echo_host
    shown: list[str] = []
    result = promptwire.generate(PROMPT, "echo", "ok", host=host, on_text=shown.append)
    assert shown == ['{"ok": false}'] and result.value == {"ok": False}

    async def streamed() -> list[Any]:
        return [item async for item in promptwire.astream(PROMPT, "echo", "ok", host=host)]

    *texts, last = asyncio.run(streamed())
    assert texts == ['{"ok": false}'] and last.value == {"ok": False}
    assert server.requests[0] == server.requests[1]  # no stream flag: the echo protocol has none


class Bare:
    """An adapter with the three methods of the protocol, and nothing else."""

    name = "bare"

    def __init__(self) -> None:
        self.threads: list[str] = []

    def build_request(self, rendered: Any, config: Any, contract: Any, model: str | None) -> ProviderRequest:
        return ProviderRequest({"model": model, "text": rendered.user})

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        self.threads.append(threading.current_thread().name)
        return {"text": '{"ok": true}'}

    def parse_reply(self, raw: Any) -> Reply:
        return Reply(text=raw["text"], raw=raw)


def test_an_adapter_with_only_the_three_methods_works_everywhere() -> None:
    from promptwire.calls.generate import agenerate, agenerate_stream, generate_stream
    from promptwire.renderers.agentscript import renderer, shape_contract

    prompt = promptwire.Prompt(instruction="x", output=shape_contract({"ok": "boolean"}))
    bare = Bare()
    options: dict[str, Any] = {"render": renderer.render, "adapter": bare, "model": "m"}
    assert list(generate_stream(prompt, **options))[:-1] == ['{"ok": true}']

    async def awaited() -> tuple[GenerateResult, list[Any]]:
        return await agenerate(prompt, **options), [item async for item in agenerate_stream(prompt, **options)]

    result, items = asyncio.run(awaited())
    assert result.value == items[-1].value == {"ok": True} and items[:-1] == ['{"ok": true}']
    main = threading.current_thread().name
    assert bare.threads[0] == main and all(name != main for name in bare.threads[1:])  # on a loop: worker threads
    assert result.calls[0].request.kwargs == {"model": "m", "text": result.calls[0].rendered.user}  # no flags added
