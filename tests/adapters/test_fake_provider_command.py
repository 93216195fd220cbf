"""The fake provider as users and plugin authors start it: ``python -m promptwire.testing.provider_servers
--port N`` serves every built-in wire protocol on one port until stopped, answering each request with
the simplest value its output schema accepts (canned replies first, on request), so that every
example program runs against it through ``--base-url``."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.core.contract import OutputContract
from promptwire.core.prompt import GenerateConfig
from promptwire.core.rendered import Message, RenderedPrompt
from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_servers import answering, fake_provider, request_schema, shaped_text
from promptwire.testing.schema_values import conforming_value

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROGRAMS = sorted(path for path in EXAMPLES.rglob("*.as") if "plugins" not in path.relative_to(EXAMPLES).parts)
PERMISSIONS = {"lessons": ["--allow-write", "lessons.jsonl"]}
SCHEMA = {
    "type": "object",
    "properties": {
        "label": {"enum": ["spam", "ham"]},
        "score": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "done": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
    },
    "required": ["label", "score", "tags", "done", "note"],
    "additionalProperties": False,
}
VALUE = {"label": "spam", "score": 0, "tags": ["fake"], "done": True, "note": "fake"}


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (SCHEMA, VALUE),
        ({"type": "array", "items": {"type": "integer"}, "minItems": 3}, [0, 0, 0]),
        ({"const": 7}, 7),
        ({"anyOf": [{"type": "boolean"}, {"type": "string"}]}, True),
        (
            {"allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "null"}}}]},
            {"a": "fake", "b": None},
        ),
        ({}, {}),
        (True, {}),
        ({"type": "array"}, []),
    ],
)
def test_the_simplest_conforming_value(schema: Any, value: Any) -> None:
    assert conforming_value(schema) == value


@pytest.mark.parametrize(
    ("route", "adapter"),
    [
        ("/v1/chat/completions", OpenAIAdapter(api_key="k")),
        ("/v1/responses", OpenAIResponsesAdapter(api_key="k")),
        ("/v1/messages", AnthropicAdapter(api_key="k")),
        ("/api/chat", OllamaAdapter()),
    ],
)
def test_the_schema_is_read_where_each_adapter_puts_it(route: str, adapter: Any) -> None:
    rendered = RenderedPrompt(format="messages", messages=(Message("user", "Classify."),))
    contract = OutputContract(json_schema=SCHEMA)
    body = adapter.build_request(rendered, GenerateConfig(), contract, "m").kwargs
    assert request_schema(route, body) == SCHEMA
    assert json.loads(shaped_text(route, body)) == VALUE
    plain = adapter.build_request(rendered, GenerateConfig(), None, "m").kwargs
    assert (request_schema(route, plain), shaped_text(route, plain)) == (None, "fake")


def test_canned_replies_come_first_then_shaped_values() -> None:
    text = answering(["not json", {"label": "ham"}])
    body = {"response_format": {"type": "json_schema", "json_schema": {"schema": SCHEMA}}}
    route = "/v1/chat/completions"
    assert [text(route, body), text(route, body), json.loads(text(route, body))] == [
        "not json",
        '{"label": "ham"}',
        VALUE,
    ]


def _base_urls(provider: str, server: Any) -> list[str]:
    if provider == "auto":
        return [
            f"--base-url=openai={server.base_url}",
            f"--base-url=anthropic={server.root}",
            f"--base-url=ollama={server.root}",
        ]
    return [f"--base-url={server.base_url if provider.startswith('openai') else server.root}"]


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "ollama", "auto"])
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_every_example_program_runs_against_it(
    program: Path, provider: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-fake")
    folder = tmp_path / "examples"
    shutil.copytree(program.parent, folder, ignore=shutil.ignore_patterns("__pycache__", "*.jsonl"))
    monkeypatch.chdir(folder)
    with fake_provider(text=answering()) as server:
        argv = [program.name, "--provider", provider, *_base_urls(provider, server), "--output", "json"]
        code = main([*argv, *PERMISSIONS.get(program.stem, [])])
    out, err = capsys.readouterr()
    assert code == 0, err
    calls = json.loads(out)
    assert calls and all(call["error"] is None for call in calls)
    assert len(server.requests) == len(calls)


def test_a_streamed_reply_is_shaped_too(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-fake")
    monkeypatch.chdir(EXAMPLES)
    with fake_provider(text=answering()) as server:
        code = main(["evidence-qa.as", "--provider", "anthropic", "--base-url", server.root, "--stream"])
    out, err = capsys.readouterr()
    assert code == 0, err
    value = out.split("=== value ===\n", 1)[1].rsplit("\n=== ", 1)[0]
    assert json.loads(value) == {"answer": "fake", "confidence": 0, "sources": ["fake"]}
    assert server.requests[0]["stream"] is True


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_the_command_serves_every_protocol_on_one_port_until_stopped(tmp_path: Path) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(["canned first"]), encoding="utf-8")
    server = subprocess.Popen(
        [sys.executable, "-m", "promptwire.testing.provider_servers", "--port", "0", "--replies", str(replies)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()  # printed once listening
        assert first.startswith("fake provider on http://127.0.0.1:"), first + (
            server.stderr.read() if server.stderr else ""
        )
        root = first.split()[3]
        schema_format = {"type": "json_schema", "json_schema": {"name": "r", "schema": SCHEMA}}
        chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "response_format": schema_format}
        canned = _post(f"{root}/v1/chat/completions", chat)
        assert canned["choices"][0]["message"]["content"] == "canned first"
        shaped = _post(f"{root}/v1/chat/completions", chat)
        assert json.loads(shaped["choices"][0]["message"]["content"]) == VALUE
        anthropic = {
            "model": "m",
            "messages": [],
            "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
        }
        assert json.loads(_post(f"{root}/v1/messages", anthropic)["content"][-1]["text"]) == VALUE
        ollama = _post(f"{root}/api/chat", {"model": "m", "messages": [], "format": SCHEMA})
        assert json.loads(ollama["message"]["content"]) == VALUE
        responses = {"model": "m", "input": [], "text": {"format": {"type": "json_schema", "schema": SCHEMA}}}
        assert json.loads(_post(f"{root}/v1/responses", responses)["output"][-1]["content"][0]["text"]) == VALUE
    finally:
        server.send_signal(signal.SIGTERM)
        status = server.wait(timeout=30)
        leftover = server.communicate(timeout=30)
    assert status == 0, leftover


def test_the_command_refuses_a_bad_replies_file_in_one_line(tmp_path: Path) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text('{"not": "an array"}', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "promptwire.testing.provider_servers", "--replies", str(replies)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].endswith(f"--replies {replies}: canned replies are a JSON array")
