"""A program's ``ollama://HOST:PORT/MODEL`` names the server its prompts go to: the run sends there
only where the user allowed it (``--allow-net``, or it is the configured host), and the user's
``OLLAMA_API_KEY`` goes to the configured host only, never to a host a URI names."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

import promptwire
from promptwire.core.permissions import NotAllowed, Permissions
from promptwire.frontend.asrender.cli import main
from promptwire.runs.options import RunOptions
from promptwire.runs.run import run
from promptwire.testing.provider_servers import FakeProvider, fake_provider

KEY = "ollama-user-secret-key"


def _program(folder: Path, host: str) -> Path:
    program = folder / "named.as"
    program.write_text(
        f'import llm M from "ollama://{host}/ok"\n\n'
        'main agent A {\n    model M\n    role "r"\n    description "d"\n'
        '    main func(input) {\n        return generate({ input: "hi" }) -> {\n            ok boolean\n'
        "        }\n    }\n}\n",
        encoding="utf-8",
    )
    return program


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeProvider, FakeProvider]]:
    """The user's configured Ollama server (``OLLAMA_HOST``, with a key) and another one."""
    with ExitStack() as stack:
        configured, other = (stack.enter_context(fake_provider()) for _ in range(2))
        monkeypatch.setenv("OLLAMA_HOST", configured.root)
        monkeypatch.setenv("OLLAMA_API_KEY", KEY)
        yield configured, other


def _host(server: FakeProvider) -> str:
    return server.root.removeprefix("http://")


@pytest.mark.parametrize("provider", ["ollama", "auto"])
def test_a_uri_naming_another_host_is_refused_naming_the_flag(
    servers: tuple[FakeProvider, FakeProvider], tmp_path: Path, capsys: pytest.CaptureFixture[str], provider: str
) -> None:
    configured, other = servers
    program = _program(tmp_path, _host(other))
    assert main([str(program), "--provider", provider, "-O", "trace"]) == 1
    err = capsys.readouterr().err
    assert f"needs --allow-net {_host(other)}" in err and "Traceback" not in err
    assert other.requests == [] and configured.requests == []


def test_an_explicit_base_url_is_not_overridden_by_the_program(
    servers: tuple[FakeProvider, FakeProvider], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configured, other = servers
    program = _program(tmp_path, _host(other))
    code = main([str(program), "--provider", "ollama", "--base-url", configured.root, "-O", "trace"])
    assert code == 1 and "--allow-net" in capsys.readouterr().err
    assert other.requests == []


def test_an_allowed_host_is_reached_without_the_users_key(
    servers: tuple[FakeProvider, FakeProvider], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configured, other = servers
    program = _program(tmp_path, _host(other))
    assert main([str(program), "--provider", "ollama", "--allow-net", _host(other), "-O", "trace"]) == 0
    (headers,) = other.headers
    assert "authorization" not in headers and KEY not in str(headers)
    assert configured.requests == []


def test_the_configured_host_named_by_the_uri_gets_the_key(
    servers: tuple[FakeProvider, FakeProvider], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    configured, _ = servers
    program = _program(tmp_path, _host(configured))
    assert main([str(program), "--provider", "ollama", "-O", "trace"]) == 0
    (headers,) = configured.headers
    assert headers["authorization"] == f"Bearer {KEY}"


def test_a_streamed_call_to_an_allowed_host_carries_no_key(
    servers: tuple[FakeProvider, FakeProvider], tmp_path: Path
) -> None:
    _, other = servers
    program = _program(tmp_path, _host(other))
    allowed = Permissions(tmp_path, net=frozenset({_host(other)}))
    run(program, None, RunOptions(adapter="ollama", tools=allowed, on_text=lambda _: None))
    (headers,) = other.headers
    assert "authorization" not in headers


def test_python_callers_are_refused_too_unless_the_host_is_configured(
    servers: tuple[FakeProvider, FakeProvider], tmp_path: Path
) -> None:
    _, other = servers
    program = _program(tmp_path, _host(other))
    with pytest.raises(NotAllowed, match="--allow-net"):
        promptwire.run(program, provider="ollama")
    assert other.requests == []
    result = promptwire.run(program, provider="ollama", base_url=other.root)  # the user's own choice
    assert result.value == {"ok": True} and other.headers[0]["authorization"] == f"Bearer {KEY}"


def test_a_dry_run_shows_the_named_host_and_sends_nothing(
    servers: tuple[FakeProvider, FakeProvider], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, other = servers
    program = _program(tmp_path, _host(other))
    assert main([str(program), "--provider", "ollama", "--dry-run", "-O", "json"]) == 0
    assert other.requests == []
