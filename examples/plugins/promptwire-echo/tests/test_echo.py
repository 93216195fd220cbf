"""The plugin through promptwire's own front doors, over real HTTP to the echo server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from echo_server import echo_server
from promptwire_echo.adapter import EchoAdapter

import promptwire
from promptwire.plugin import (
    AuthenticationError,
    MalformedResponseError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    ServerError,
)
from promptwire.renderers.agentscript import shape_contract
from promptwire.testing.conformance import check_adapter

PROMPT = {
    "identity": {"role": "Greeter", "description": "Greets people."},
    "instruction": "Greet Ada.",
    "output": shape_contract({"greeting": "string", "warm": "boolean"}).model_dump(by_alias=True),
}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    with echo_server() as running:
        monkeypatch.setenv("ECHO_URL", running.url)
        yield running


def test_the_host_finds_both_registrations() -> None:
    host = promptwire.PluginHost()
    info = next(each for each in host.plugins() if each.name == "echo")
    assert (info.version, info.registers["adapters"], info.registers["renderers"]) == ("0.1.0", ["echo"], ["echo-flat"])
    assert host.renderer("flat") is host.renderer("echo-flat")


def test_generate_goes_over_http_and_meets_the_contract(server: Any) -> None:
    result = promptwire.generate(PROMPT, provider="echo")
    assert result.value == {"greeting": "echo", "warm": False}
    sent = json.loads(server.requests[0])
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert sent["schema"]["required"] == ["greeting", "warm"]


def test_the_flat_format_sends_one_user_message(server: Any) -> None:
    promptwire.generate(PROMPT, provider="echo", format="echo-flat")
    (message,) = json.loads(server.requests[0])["messages"]
    layered = promptwire.render(PROMPT)
    assert message == {"role": "user", "content": f"{layered.system}\n\n{layered.user}"}


def test_a_dropped_parameter_is_in_the_notes() -> None:
    request = promptwire.build_request({**PROMPT, "config": {"temperature": 0.5}}, provider="echo", model="m")
    assert request.kwargs["model"] == "m"
    assert request.notes == ("temperature 0.5 dropped: the echo server does not sample",)


@pytest.mark.parametrize(
    ("model", "expected", "status"),
    [
        ("e401", AuthenticationError, 401),
        ("e429", RateLimitedError, 429),
        ("e503", ServerError, 503),
        ("garbage", MalformedResponseError, 200),
    ],
)
def test_failures_are_provider_errors(server: Any, model: str, expected: type, status: int) -> None:
    with pytest.raises(ProviderError) as caught:
        promptwire.generate(PROMPT, provider="echo", model=model)
    assert (type(caught.value), caught.value.status) == (expected, status)
    assert caught.value.provider == "echo"  # filled in by generate: the adapter never says its name
    assert len(server.requests) == 1  # one attempt, one request


def test_a_slow_server_times_out(server: Any) -> None:
    with pytest.raises(ProviderError) as caught:
        promptwire.generate(PROMPT, provider="echo", model="slow", timeout=0.2)
    assert type(caught.value) is ProviderTimeoutError


def test_a_refused_connection() -> None:
    with echo_server() as running:
        url = running.url
    with pytest.raises(ProviderError) as caught:
        adapter = EchoAdapter(base_url=url)
        adapter.send(adapter.build_request(promptwire.render(PROMPT), promptwire.GenerateConfig(), None, None), 5)
    assert type(caught.value) is ProviderConnectionError


def test_the_adapter_meets_the_conversation_corpus() -> None:
    # Each conversation of promptwire's corpus against its expected request in conformance/, and
    # the rules every adapter meets. Refresh the files after a change, then read their diff:
    # python -m promptwire.testing.conformance --adapter echo --expected tests/conformance --write
    check_adapter(EchoAdapter(), Path(__file__).with_name("conformance"))
