"""The azure and azure-responses adapters: OpenAI's requests sent through the openai SDK's Azure
client, over real HTTP to the fake provider speaking Azure's paths (the deployment in the URL, the
``api-version`` query, the ``api-key`` header, Azure's error shape): whole and streamed, errors
(mid-stream too), cancellation, async, a hundred concurrent calls, record and replay, dry runs,
routing by the ``azure://`` scheme, the deployment shown as the model."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from time_bounds import AT_ONCE  # tests/time_bounds.py (pytest's pythonpath)

import promptwire
from promptwire import PluginHost, Prompt
from promptwire.adapters.azure import AzureChatAdapter, AzureResponsesAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.calls.generate import agenerate, generate, generate_stream
from promptwire.calls.recording import Recorder, Recording
from promptwire.core.errors import (
    AuthenticationError,
    ModelNotFoundError,
    ProviderError,
    RateLimitedError,
    ServerError,
    TokenCountUnavailable,
)
from promptwire.core.json_text import to_bytes
from promptwire.frontend.asrender.cli import main
from promptwire.renderers.agentscript import renderer, shape_contract
from promptwire.testing.provider_servers import FakeProvider, fake_provider

HOST = PluginHost(entry_points=False)
VERSION = "2024-10-21"
ADAPTERS: dict[str, Callable[[str], AzureChatAdapter]] = {
    "azure": lambda root: AzureChatAdapter(api_key="az-key", base_url=root),
    "azure-responses": lambda root: AzureResponsesAdapter(api_key="az-key", base_url=root),
}
OPENAI = {"azure": OpenAIAdapter(), "azure-responses": OpenAIResponsesAdapter()}


def _prompt() -> Prompt:
    return Prompt(instruction="Check.", output=shape_contract({"ok": "boolean"}), config={"attempts": 1})


def _path(name: str, deployment: str) -> str:
    if name == "azure":
        return f"/openai/deployments/{deployment}/chat/completions?api-version={VERSION}"
    return f"/openai/responses?api-version={VERSION}"


@pytest.fixture(autouse=True)
def version(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("AZURE_OPENAI_API_VERSION", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("OPENAI_API_VERSION", VERSION)


@pytest.fixture
def server() -> Iterator[FakeProvider]:
    with fake_provider() as running:
        yield running


@pytest.mark.parametrize("name", ADAPTERS)
def test_the_request_is_openais_but_for_where_azure_puts_the_deployment(name: str) -> None:
    prompt = _prompt()
    rendered = renderer.render(prompt)
    azure = ADAPTERS[name]("http://unused").build_request(rendered, prompt.config, prompt.output, "azure://prod-4o")
    openai = OPENAI[name].build_request(rendered, prompt.config, prompt.output, "prod-4o")
    assert azure.model_asked() == "prod-4o"
    assert azure.notes == openai.notes
    if name == "azure":  # the deployment is in the URL: the body names no model
        assert azure.model == "prod-4o" and "model" not in azure.kwargs
        assert to_bytes(azure.kwargs) == to_bytes({k: v for k, v in openai.kwargs.items() if k != "model"})
    else:  # the Responses API takes the deployment as the body's model: OpenAI's bytes
        assert azure.model is None
        assert to_bytes(azure.kwargs) == to_bytes(openai.kwargs)


@pytest.mark.parametrize("name", ADAPTERS)
@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_call_goes_to_azures_path_with_the_version_and_key(server: FakeProvider, name: str, streamed: bool) -> None:
    adapter = ADAPTERS[name](server.root)
    pieces: list[str] = []
    result = generate(
        _prompt(), render=renderer.render, adapter=adapter, model="ok", on_text=pieces.append if streamed else None
    )
    assert result.value == {"ok": True}
    assert server.paths == [_path(name, "ok")]
    assert server.headers[0]["api-key"] == "az-key" and "authorization" not in server.headers[0]
    request = result.calls[0].request
    assert server.raw_bodies[0] == to_bytes({**request.kwargs, **(adapter.stream_flags if streamed else {})})
    assert result.calls[0].reply is not None and result.calls[0].reply.usage is not None
    if streamed:
        assert "".join(pieces) == '{"ok": true}' and len(pieces) > 1


@pytest.mark.parametrize("name", ADAPTERS)
@pytest.mark.parametrize(
    ("model", "error", "code"),
    [
        ("e401", AuthenticationError, "401"),
        ("e404", ModelNotFoundError, "DeploymentNotFound"),
        ("e429", RateLimitedError, "429"),
    ],
)
def test_azures_errors_are_promptwires(
    server: FakeProvider, name: str, model: str, error: type[ProviderError], code: str
) -> None:
    with pytest.raises(error) as raised:
        generate(_prompt(), render=renderer.render, adapter=ADAPTERS[name](server.root), model=model)
    assert raised.value.status == int(model[1:]) and code in str(raised.value)
    assert "az-key" not in str(raised.value)


@pytest.mark.parametrize("name", ADAPTERS)
def test_an_error_mid_stream_is_the_providers_failure(server: FakeProvider, name: str) -> None:
    items = generate_stream(_prompt(), render=renderer.render, adapter=ADAPTERS[name](server.root), model="streamerror")
    assert next(items) == '{"ok": '
    with pytest.raises(ServerError):
        list(items)


def test_a_deployment_name_is_one_segment_of_the_url(server: FakeProvider) -> None:
    adapter = ADAPTERS["azure"](server.root)
    generate(_prompt(), render=renderer.render, adapter=adapter, model="../../responses")
    assert server.paths == [_path("azure", "..%2F..%2Fresponses")]


def test_the_fake_refuses_what_azure_refuses(server: FakeProvider) -> None:
    url = f"{server.root}/openai/deployments/ok/chat/completions"
    missing_version = _post(url, {"api-key": "k"})
    missing_key = _post(f"{url}?api-version={VERSION}", {})
    assert missing_version == (404, {"error": {"code": "404", "message": "Resource not found"}})
    assert missing_key[0] == 401 and missing_key[1]["error"]["code"] == "401"


def _post(url: str, headers: dict[str, str]) -> tuple[int, Any]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, data=b'{"messages": []}', headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=AT_ONCE) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_missing_endpoint_version_or_key_is_said_before_sending(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    prompt = _prompt()
    adapter = ADAPTERS[name]("")
    adapter.base_url = None
    with pytest.raises(ProviderError, match="AZURE_OPENAI_ENDPOINT"):
        generate(prompt, render=renderer.render, adapter=adapter, model="ok")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.delenv("OPENAI_API_VERSION")
    with pytest.raises(ProviderError, match="OPENAI_API_VERSION"):
        generate(prompt, render=renderer.render, adapter=adapter, model="ok")
    with pytest.raises(AuthenticationError, match="AZURE_OPENAI_API_KEY"):
        generate(prompt, render=renderer.render, adapter=type(adapter)(), model="ok")


def test_the_sdks_variable_wins_over_azures_own(server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "2025-01-01")
    generate(_prompt(), render=renderer.render, adapter=ADAPTERS["azure"](server.root), model="ok")
    monkeypatch.delenv("OPENAI_API_VERSION")
    generate(_prompt(), render=renderer.render, adapter=ADAPTERS["azure"](server.root), model="ok")
    assert [path.rpartition("=")[2] for path in server.paths] == [VERSION, "2025-01-01"]


def _wait_for(condition: Callable[[], bool]) -> None:
    import time

    deadline = time.monotonic() + AT_ONCE
    while not condition():
        assert time.monotonic() < deadline, "the server did not see it in time"
        time.sleep(0.005)


@pytest.mark.parametrize("name", ADAPTERS)
def test_cancelling_an_async_call_closes_its_connection(server: FakeProvider, name: str) -> None:
    async def cancelled() -> None:
        call = asyncio.ensure_future(
            agenerate(_prompt(), render=renderer.render, adapter=ADAPTERS[name](server.root), model="hang")
        )
        while not server.requests:
            await asyncio.sleep(0.005)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(cancelled())
    _wait_for(lambda: server.hung_up == ["hang"])


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_hundred_concurrent_async_calls_go_through_the_async_client(server: FakeProvider, name: str) -> None:
    adapter = ADAPTERS[name](server.root)

    async def hundred() -> list[object]:
        calls = [agenerate(_prompt(), render=renderer.render, adapter=adapter, model="delay50") for _ in range(100)]
        results = await asyncio.gather(*calls)
        await adapter.aclose()
        return [result.value for result in results]

    assert asyncio.run(hundred()) == [{"ok": True}] * 100
    assert server.paths == [_path(name, "delay50")] * 100
    assert len(adapter._clients) == 0  # none through the sync client


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_recorded_call_replays_with_no_server(
    server: FakeProvider, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = tmp_path / "azure.jsonl"
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", server.root)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "az-key")
    with Recorder(recording) as recorder:
        recorder.begin(name, None)
        real = promptwire.generate(_prompt(), name, "azure://ok", record=recorder)
    record = json.loads(recording.read_text(encoding="utf-8").splitlines()[1])
    assert record["model"] == "ok"
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT")
    monkeypatch.delenv("AZURE_OPENAI_API_KEY")
    replayed = promptwire.generate(_prompt(), name, "azure://ok", replay=Recording.read(recording))
    assert replayed.value == real.value == {"ok": True} and len(server.requests) == 1


@pytest.mark.parametrize("name", ADAPTERS)
def test_azure_has_no_count_endpoint_and_says_so(name: str) -> None:
    prompt = _prompt()
    request = ADAPTERS[name]("http://unused").build_request(renderer.render(prompt), prompt.config, None, "ok")
    with pytest.raises(TokenCountUnavailable, match=f"provider '{name}' has no token-count endpoint"):
        ADAPTERS[name]("http://unused").count_tokens(request)


def test_the_adapters_are_registered_and_the_sdk_is_imported_only_to_send() -> None:
    assert HOST.adapter("azure").description.startswith("Azure OpenAI Chat Completions")
    assert HOST.adapter("azure-responses").description.startswith("Azure OpenAI Responses")
    code = (
        "import sys; from promptwire import PluginHost, Prompt; h = PluginHost(entry_points=False); "
        "p = Prompt(instruction='x'); "
        "[h.adapter(n).build_request(h.renderer('agentscript').render(p), p.config, None, 'azure://d') "
        "for n in ('azure', 'azure-responses')]; print('openai' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False"


PROGRAM = """import llm M from "azure://ok"
main agent A {
    model M
    role "Greeter"
    description "Greet people."
    main func(input) {
        generate({ input: "First." }) -> {
            ok boolean
        }
    }
}
"""


def test_an_azure_model_is_routed_by_its_scheme_recorded_and_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "greet.as"
    program.write_text(PROGRAM, encoding="utf-8")
    recording = tmp_path / "greet.jsonl"
    with fake_provider() as server:
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", server.root)
        monkeypatch.setenv("AZURE_OPENAI_API_KEY", "az-key")
        code = main([str(program), "--input", "{}", "--provider", "auto", "-O", "json", "--record", str(recording)])
        shown, err = capsys.readouterr()
        assert (code, err) == (0, "")
        assert server.paths == [_path("azure", "ok")]
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT")
    monkeypatch.delenv("AZURE_OPENAI_API_KEY")
    assert [(call["provider"], call["model"]) for call in json.loads(shown)] == [("azure", "ok")]
    code = main([str(program), "--input", "{}", "--responses", str(recording), "-O", "json"])
    replayed, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert [call["reply"] for call in json.loads(replayed)] == [call["reply"] for call in json.loads(shown)]


def test_a_dry_run_of_an_azure_program_imports_no_sdk(tmp_path: Path) -> None:
    program = tmp_path / "greet.as"
    program.write_text(PROGRAM, encoding="utf-8")
    code = (
        "import sys; from promptwire.frontend.asrender.cli import main; "
        f"c = main([{str(program)!r}, '--input', '{{}}', '--provider', 'auto', '--dry-run']); "
        "print(c, 'openai' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stderr.strip().splitlines()[-1] == "0 False"
    assert "--- request: azure ok ---" in done.stdout and '"model"' not in done.stdout
