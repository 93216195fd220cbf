"""``--provider auto`` routes each call by its model URI's scheme, ``--provider NAME`` forces one
provider and notes every call whose model names another, ``--base-url`` points a provider (or,
with auto, each scheme) at a server of one's own: tested over real HTTP against a fake server per
provider, the body each one received compared with what a dry run shows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from echo_server import echo_server  # the echo plugin's test server (pytest's pythonpath setting)

import promptwire
from promptwire.core.errors import ModelRouteError
from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_servers import FakeProvider, fake_provider

MIXED = """\
import llm Gpt from "openai://ok"
import llm Claude from "anthropic://ok"
import llm Llama from "ollama://ok"

agent Writer {
    model Claude
    role "Writer"
    description "Writes."
    func write(topic) {
        return generate({ input: topic }) -> {
            ok boolean
        }
    }
}

agent Checker {
    model Llama
    role "Checker"
    description "Checks."
    func check(text) {
        return generate({ input: text }) -> {
            ok boolean
        }
    }
}

main agent Lead {
    model Gpt
    role "Lead"
    description "Leads."
    main func(input) {
        plan = generate({ input: "plan" }) -> {
            ok boolean
        }
        draft = Writer.write("draft")
        return Checker.check(draft)
    }
}
"""
SITES = ["32:16", "10:16", "21:16"]  # the Lead's generate, then the Writer's, then the Checker's


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    program = tmp_path / "mixed.as"
    program.write_text(MIXED, encoding="utf-8")
    return program


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, FakeProvider]]:
    """A fake server for each provider, and the keys two of them need."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-anthropic-test-key")
    with ExitStack() as stack:
        yield {name: stack.enter_context(fake_provider()) for name in ("openai", "anthropic", "ollama")}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _dry_run(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    code, out, err = _run(capsys, *argv, "--dry-run", "-O", "json")
    assert (code, err) == (0, "")
    calls: list[dict[str, object]] = json.loads(out)
    return calls


def _base_urls(servers: dict[str, FakeProvider]) -> list[str]:
    return [
        "--base-url",
        f"openai={servers['openai'].base_url}",
        "--base-url",
        f"anthropic={servers['anthropic'].root}",  # the Anthropic SDK's base URL has no /v1
        "--base-url",
        f"ollama={servers['ollama'].root}",
    ]


def test_auto_sends_each_call_to_the_server_of_its_models_scheme(
    mixed: Path, servers: dict[str, FakeProvider], capsys: pytest.CaptureFixture[str]
) -> None:
    planned = _dry_run(capsys, str(mixed), "--provider", "auto")
    assert [(call["site"], call["provider"], call["model"]) for call in planned] == [
        (f"{mixed}:{SITES[0]}", "openai", "ok"),
        (f"{mixed}:{SITES[1]}", "anthropic", "ok"),
        (f"{mixed}:{SITES[2]}", "ollama", "ok"),
    ]
    code, out, err = _run(capsys, str(mixed), "--provider", "auto", *_base_urls(servers), "-O", "trace")
    assert (code, err) == (0, "")
    assert json.loads(out)["value"] == {"ok": True}
    for call in planned:  # each server received its own call, exactly as the dry run showed it
        (received,) = servers[str(call["provider"])].requests
        assert received == call["body"]
    assert "system" in servers["anthropic"].requests[0] and "messages" in servers["openai"].requests[0]


def test_auto_reads_the_sdk_environment_variables_too(
    mixed: Path, servers: dict[str, FakeProvider], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", servers["openai"].base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", servers["anthropic"].root)
    monkeypatch.setenv("OLLAMA_HOST", servers["ollama"].root)
    code, _, err = _run(capsys, str(mixed), "--provider", "auto", "-O", "trace")
    assert (code, err) == (0, "")
    assert [len(server.requests) for server in servers.values()] == [1, 1, 1]


def test_a_forced_provider_takes_every_call_and_notes_the_others(
    mixed: Path, servers: dict[str, FakeProvider], capsys: pytest.CaptureFixture[str]
) -> None:
    planned = _dry_run(capsys, str(mixed), "--provider", "openai")
    assert [call["provider"] for call in planned] == ["openai"] * 3
    assert [call["notes"] for call in planned] == [
        [],
        ["model anthropic://ok names the anthropic provider: sent to openai as 'ok', the provider asked for"],
        ["model ollama://ok names the ollama provider: sent to openai as 'ok', the provider asked for"],
    ]
    url = servers["openai"].base_url
    code, out, err = _run(capsys, str(mixed), "--provider", "openai", "--base-url", url, "-O", "trace")
    assert (code, err) == (0, "")
    assert servers["openai"].requests == [call["body"] for call in planned]
    assert servers["anthropic"].requests == servers["ollama"].requests == []
    notes = [event["data"] for event in _events(json.loads(out)["trace"]) if event["kind"] == "notes"]
    assert [(note["site"], note["notes"]) for note in notes] == [
        (str(call["site"]), call["notes"]) for call in planned[1:]
    ]


def _events(trace: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The trace's events in order, an agent call's own events after it."""
    for event in trace:
        yield event
        yield from _events(event["data"].get("trace", []) if event["kind"] == "agent" else [])


def test_the_dry_run_display_shows_the_note_under_the_request(mixed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, str(mixed), "--provider", "ollama", "--dry-run")
    assert (code, err) == (0, "")
    assert (
        "\nnote: model openai://ok names the openai provider: sent to ollama as 'ok', the provider asked for\n" in out
    )
    assert "\nnote: model anthropic://ok names the anthropic provider" in out


def test_openai_responses_is_reached_by_its_name_and_takes_openai_models_without_a_note(
    mixed: Path, servers: dict[str, FakeProvider], capsys: pytest.CaptureFixture[str]
) -> None:
    planned = _dry_run(capsys, str(mixed), "--provider", "openai-responses")
    assert planned[0]["notes"] == [] and "input" in planned[0]["body"]  # the Responses API's body
    assert "names the anthropic provider" in str(planned[1]["notes"])
    assert _dry_run(capsys, str(mixed), "--provider", "auto")[0]["provider"] == "openai"


def test_a_plugin_adapters_scheme_is_routed_to_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "echo.as"
    program.write_text(MIXED.replace("openai://ok", "echo://ok"), encoding="utf-8")
    with echo_server() as server:
        code, _, err = _run(capsys, str(program), "--provider", "auto", "--base-url", f"echo={server.url}")
        # the Lead's call reached the echo server; the Writer's went on to Anthropic, which has no key
        assert (code, err) == (
            1,
            "asrender: AuthenticationError [anthropic]: ANTHROPIC_API_KEY is required for anthropic:// models\n",
        )
        assert len(server.requests) == 1
    assert json.loads(server.requests[0])["model"] == "ok"


def test_a_model_without_a_scheme_under_auto_is_located_with_its_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "bare.as"
    program.write_text(MIXED.replace('"openai://ok"', '"gpt-4o"'), encoding="utf-8")
    code, out, err = _run(capsys, str(program), "--provider", "auto", "--dry-run")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"{program}:{SITES[0]}: error[RUNTIME_ERROR]: model 'gpt-4o' has no URI scheme, so provider 'auto' "
        "cannot tell where to send it: name it SCHEME://gpt-4o (openai://, ollama://, anthropic://, gemini://, bedrock://, azure://, echo://), "
        "or choose one provider with --provider NAME",
        '        plan = generate({ input: "plan" }) -> {',
        "               ^",
    ]


def test_a_prompt_file_under_auto_needs_a_model_with_a_scheme(
    tmp_path: Path, servers: dict[str, FakeProvider], capsys: pytest.CaptureFixture[str]
) -> None:
    prompt = tmp_path / "p.json"
    prompt.write_text('{"instruction": "Say ok."}', encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        main([str(prompt), "--provider", "auto", "--model", "ok"])
    out, err = capsys.readouterr()
    assert (exited.value.code, out) == (2, "")
    assert (
        err == "asrender: error: --provider auto sends a call where its model's scheme says: give --model SCHEME://ok\n"
    )
    url = f"anthropic={servers['anthropic'].root}"
    code, out, err = _run(capsys, str(prompt), "--provider", "auto", "--model", "anthropic://ok", "--base-url", url)
    assert (code, err) == (0, "")
    assert servers["anthropic"].requests[0]["messages"][0]["content"] == "Instruction:\nSay ok."


def test_a_base_url_password_is_masked_when_the_call_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = tmp_path / "p.json"
    prompt.write_text('{"instruction": "Say ok."}', encoding="utf-8")
    url = "http://user:hunter2-secret-pass@127.0.0.1:9/v1"  # the discard port: nothing listens
    code, out, err = _run(capsys, str(prompt), "--provider", "ollama", "--model", "ok", "--base-url", url)
    assert code == 1 and "--- failed ---\nProviderConnectionError" in out  # the failed call is shown
    assert "hunter2-secret-pass" not in out + err
    warning, failure = err.split("\n", 1)  # which credential goes where, said first
    assert (
        warning
        == "asrender: warning: base URL http://***@127.0.0.1:9/v1: Ollama's SDK sends no user or password from a URL: they are not sent"
    )
    assert failure.startswith("asrender: ProviderConnectionError [ollama]")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--provider", "openai", "--base-url", "ftp://host/v1"], "its scheme is not http or https): 'ftp://host/v1'"),
        (["--provider", "openai", "--base-url", "http://"], "it names no host): 'http://'"),
        (["--provider", "openai", "--base-url", "localhost:8080"], "its scheme is not http or https"),
        (["--provider", "openai", "--base-url", "http://h:port/v1"], "Port could not be cast"),
        (["--provider", "openai", "--base-url", "http://h/v1?x=1"], "a base URL has no query or fragment"),
        (["--provider", "openai", "--base-url", "http://a b/"], "it holds a space or a control character"),
        (["--provider", "openai", "--base-url", "https://me:pw-secret-9@h/\x1b"], "'https://***@h/\\x1b'\n"),
        (["--provider", "auto", "--base-url", "ollama="], "its scheme is not http or https): ''"),
        (["--base-url", "http://h/v1"], "--base-url needs --provider: offline runs send nothing"),
        (["--provider", "auto", "--base-url", "http://h/v1"], "say whose base URL it is: --base-url SCHEME=URL"),
        (["--provider", "openai", "--base-url", "ollama=http://h"], "SCHEME=URL is for --provider auto"),
        (["--provider", "auto", "--base-url", "nope=http://h"], "no adapter serves nope:// models (those served: "),
        (
            ["--provider", "openai", "--base-url", "http://a/v1", "--base-url", "http://b/v1"],
            "--base-url is given twice for openai",
        ),
    ],
)
def test_a_bad_base_url_is_one_usage_line(
    mixed: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([str(mixed), *flags, "--dry-run"] if "--provider" in flags else [str(mixed), *flags])
    out, err = capsys.readouterr()
    assert (exited.value.code, out) == (2, "")
    assert err.startswith("asrender: error: ") and err.count("\n") == 1
    assert message in err
    assert "pw-secret-9" not in err


def test_a_model_flag_of_another_scheme_is_read_by_its_own_adapter(
    mixed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    planned = _dry_run(capsys, str(mixed), "--provider", "openai", "--model", "ollama://gpu:8080/qwen3")
    assert [call["model"] for call in planned] == ["qwen3"] * 3  # was "ollama URI must include a model name"
    routed = _dry_run(capsys, str(mixed), "--provider", "auto", "--model", "anthropic://claude-x")
    assert [(call["provider"], call["model"]) for call in routed] == [("anthropic", "claude-x")] * 3


def test_python_callers_route_by_scheme_too(servers: dict[str, FakeProvider], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", servers["anthropic"].root)
    prompt = {
        "instruction": "Say ok.",
        "output": {"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}},
    }
    result = promptwire.generate(prompt, "auto", "anthropic://ok")
    assert result.value == {"ok": True} and len(servers["anthropic"].requests) == 1
    with pytest.raises(ModelRouteError, match="model 'ok' has no URI scheme"):
        promptwire.generate(prompt, "auto", "ok")
