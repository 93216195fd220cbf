"""``env://``: values or null, only the names ``--allow-env`` allows (none by default), secrets kept
out of traces."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptwire.core.permissions import NotAllowed
from promptwire.core.tools import REDACTED, ToolContext, ToolError, ToolRequest
from promptwire.frontend.asrender.cli import main
from promptwire.runs.run import RunOptions, run
from promptwire.tools.env import env_tool, looks_secret

from agentscript_source import as_program


def get(name: str, allowed: frozenset[str] | None = None) -> object:
    """``Env.get`` by a run that allows ``allowed`` (by default, the name asked for)."""
    context = ToolContext(Path.cwd(), env=frozenset({name}) if allowed is None else allowed)
    return env_tool(ToolRequest("Env", "env://", "get", [{"name": name}]), context)


def test_get_returns_the_value_or_null(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PW_REGION", "eu")
    monkeypatch.delenv("PW_UNSET", raising=False)
    assert get("PW_REGION").result == "eu"
    assert get("PW_UNSET").result is None


def test_the_allow_list_refuses_other_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME_REGION", "eu")
    assert get("HOME_REGION", frozenset({"HOME_REGION"})).result == "eu"
    refusal = r"^Reading the environment variable PATH needs --allow-env \(asrender \.\.\. --allow-env PATH\)$"
    with pytest.raises(NotAllowed, match=refusal):
        get("PATH", frozenset({"HOME_REGION"}))
    with pytest.raises(NotAllowed, match=refusal):
        get("PATH", frozenset())


def test_nothing_is_readable_by_default_not_even_whether_a_name_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PW_UNSET", raising=False)
    for name in ("HOME", "PW_UNSET", "OPENAI_API_KEY"):
        with pytest.raises(NotAllowed, match=f"needs --allow-env \\(asrender \\.\\.\\. --allow-env {name}\\)$"):
            env_tool(ToolRequest("Env", "env://", "get", [{"name": name}]), ToolContext(Path.cwd()))


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OPENAI_API_KEY", True),
        ("github_token", True),
        ("DB_PASSWORD", True),
        ("ClientSecret", True),
        ("KEYRING", True),
        ("HOME", False),
        ("PW_REGION", False),
    ],
)
def test_secret_looking_names(name: str, secret: bool) -> None:
    assert looks_secret(name) is secret
    assert get(name).secret is secret


@pytest.mark.parametrize(
    ("args", "message"), [([], "Env.get expects one json object argument"), ([{}], "Env.get.name is required")]
)
def test_bad_calls(args: list[object], message: str) -> None:
    with pytest.raises(ToolError, match=f"^{message}$"):
        env_tool(ToolRequest("Env", "env://", "get", args), ToolContext(Path.cwd()))
    with pytest.raises(ToolError, match=r"^Unsupported env method 'set'. Supported: get$"):
        env_tool(ToolRequest("Env", "env://", "set", [{}]), ToolContext(Path.cwd()))


PROGRAM = as_program(
    """
    key = Env.get({ name: "PW_TEST_API_KEY" })
    region = Env.get({ name: "PW_TEST_REGION" })
    { length: key, region: region }
    """,
    'import tool Env from "env://"',
)


def test_a_secret_reaches_the_program_but_never_the_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PW_TEST_API_KEY", "sk-very-secret")
    monkeypatch.setenv("PW_TEST_REGION", "eu")
    allowed = ToolContext(Path.cwd(), env=frozenset({"PW_TEST_API_KEY", "PW_TEST_REGION"}))
    result = run(PROGRAM, {}, RunOptions(tools=allowed), path="env.as")
    assert result.value == {"length": "sk-very-secret", "region": "eu"}
    traced = [event["data"]["result"] for event in result.trace if event["kind"] == "tool"]
    assert traced == [REDACTED, "eu"]
    assert "sk-very-secret" not in repr(result.trace)


def test_asrender_allow_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PW_TEST_API_KEY", "sk-very-secret")
    monkeypatch.setenv("PW_TEST_REGION", "eu")
    program = tmp_path / "env.as"
    program.write_text(PROGRAM, encoding="utf-8")
    assert main([str(program), "--allow-env", "PW_TEST_API_KEY, PW_TEST_REGION", "-O", "trace"]) == 0
    out, _ = capsys.readouterr()
    assert '"region": "eu"' in out and REDACTED in out
    assert main([str(program), "--allow-env", "PW_TEST_REGION", "-O", "trace"]) == 1
    out, err = capsys.readouterr()
    assert "Tool Env.get (env://) failed: Reading the environment variable PW_TEST_API_KEY needs --allow-env" in err
    assert "Traceback" not in err and "sk-very-secret" not in out + err
    assert main([str(program), "-O", "trace"]) == 1  # nothing is readable without --allow-env
    out, err = capsys.readouterr()
    assert "needs --allow-env (asrender ... --allow-env PW_TEST_API_KEY)" in err and "sk-very-secret" not in out + err
