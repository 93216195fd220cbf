"""A model URI's query and fragment are not part of the model's name (AgentScript: the model is
``decodeURIComponent(hostname + pathname)``, case kept): in every adapter's request, and when
``asrender --provider`` retargets a program's model of another protocol, which asks the adapter of
the URI's protocol for the name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptwire import PluginHost, Prompt
from promptwire.calls.routing import Named, Routes
from promptwire.frontend.asrender.cli import main

HOST = PluginHost(entry_points=False)
PROMPT = Prompt(instruction="Say ok.")
RENDERED = HOST.renderer("messages").render(PROMPT)
PROVIDERS = ["openai", "openai-responses", "anthropic", "ollama"]


@pytest.mark.parametrize(
    ("provider", "uri", "model"),
    [
        ("openai", "openai://Claude-Sonnet-4?region=eu#frag", "Claude-Sonnet-4"),
        ("openai-responses", "openai://Org/Model%20X?region=eu#frag", "Org/Model X"),
        ("anthropic", "anthropic://Claude-Sonnet-4?region=eu#frag", "Claude-Sonnet-4"),
        ("anthropic", "anthropic://Claude-Sonnet-4#frag?not=query", "Claude-Sonnet-4"),
        ("ollama", "ollama://Claude-Sonnet-4?region=eu#frag", "Claude-Sonnet-4"),
        ("ollama", "ollama://gpu:8080/Org/Model%20X?x#y", "Org/Model X"),
    ],
)
def test_every_adapter_reads_the_name_without_query_or_fragment(provider: str, uri: str, model: str) -> None:
    request = HOST.adapter(provider).build_request(RENDERED, PROMPT.config, None, uri)
    assert request.kwargs["model"] == model


def test_ollama_keeps_the_host_its_uri_names() -> None:
    request = HOST.adapter("ollama").build_request(RENDERED, PROMPT.config, None, "ollama://gpu:8080/m?x#y")
    assert (request.kwargs["model"], request.endpoint) == ("m", "http://gpu:8080")


def _dry_run(tmp_path: Path, capsys: pytest.CaptureFixture[str], uri: str, provider: str) -> dict[str, object]:
    program = tmp_path / "p.as"
    program.write_text(
        f'import llm M from "{uri}"\nmain agent A {{\n    model M\n    role "R"\n    description "D"\n'
        '    main func(input) {\n        generate({ input: "x" }) -> {\n            ok boolean\n        }\n    }\n}\n',
        encoding="utf-8",
    )
    code = main([str(program), "--provider", provider, "--dry-run", "-O", "json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    (call,) = json.loads(out)
    body = call["body"]
    assert isinstance(body, dict)
    return body


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("uri", "model"),
    [
        ("anthropic://Claude-Sonnet-4?region=eu#frag", "Claude-Sonnet-4"),
        ("openai://Org/Model%20X?x=1", "Org/Model X"),
        ("ollama://gpu:8080/Org/Model%20X?x#y", "Org/Model X"),
        ("ollama://Qwen3?x#y", "Qwen3"),
    ],
)
def test_a_retargeted_model_is_its_name_as_its_own_protocol_reads_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], uri: str, model: str, provider: str
) -> None:
    assert _dry_run(tmp_path, capsys, uri, provider)["model"] == model


def test_a_uri_of_the_providers_own_protocol_goes_to_it_whole() -> None:
    # ollama://HOST:PORT/MODEL also names the host, which only the ollama adapter reads.
    router = Named(Routes(HOST), "ollama", reach=False)  # which hosts a run may reach: test_model_uri_hosts
    assert router.target("ollama://gpu:8080/m?x").model == "ollama://gpu:8080/m?x"
    assert router.target("openai://gpu:8080/m?x").model == "gpu:8080/m"
    assert Named(Routes(HOST), "ollama", "given", reach=False).target("openai://x").model == "given"


def test_a_protocol_no_adapter_serves_is_an_error_at_the_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "p.as"
    program.write_text(
        'import llm M from "foo://bar"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        '    main func(input) {\n        generate({ input: "x" })\n    }\n}\n',
        encoding="utf-8",
    )
    assert main([str(program), "--provider", "openai", "--dry-run", "-O", "json"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(
        f"{program}:7:9: error[RUNTIME_ERROR]: no adapter serves foo:// models (those served: openai://"
    )
    assert "install the plugin that does, or correct the model's URI\n" in err
