"""``env://``: values or null, an allow-list from ``--allow-env``, secrets kept out of traces."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptwire.core.tools import REDACTED, ToolContext, ToolError, ToolRequest
from promptwire.frontend import run
from promptwire.frontend.asrender.cli import main
from promptwire.tools.env import env_tool, looks_secret


def get(name: str, allowed: frozenset[str] | None = None) -> object:
    return env_tool(ToolRequest("Env", "env://", "get", [{"name": name}]), ToolContext(Path.cwd(), allowed_env=allowed))


def test_get_returns_the_value_or_null(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PW_REGION", "eu")
    monkeypatch.delenv("PW_UNSET", raising=False)
    assert get("PW_REGION").result == "eu"
    assert get("PW_UNSET").result is None


def test_the_allow_list_refuses_other_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME_REGION", "eu")
    assert get("HOME_REGION", frozenset({"HOME_REGION"})).result == "eu"
    with pytest.raises(
        ToolError, match=r"^Environment variable 'PATH' is not allowed \(--allow-env allows: HOME_REGION\)$"
    ):
        get("PATH", frozenset({"HOME_REGION"}))
    with pytest.raises(ToolError, match=r"allows: none\)$"):
        get("PATH", frozenset())


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


PROGRAM = """import llm M from "openai://gpt-4o"
import tool Env from "env://"

main agent A {
    model M
    role "R"
    description "D"

    main func(input) {
        key = Env.get({ name: "PW_TEST_API_KEY" })
        region = Env.get({ name: "PW_TEST_REGION" })
        { length: key, region: region }
    }
}
"""


def test_a_secret_reaches_the_program_but_never_the_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PW_TEST_API_KEY", "sk-very-secret")
    monkeypatch.setenv("PW_TEST_REGION", "eu")
    result = run(PROGRAM, {}, path="env.as")
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
    assert "Tool Env.get (env://) failed: Environment variable 'PW_TEST_API_KEY' is not allowed" in err
    assert "Traceback" not in err and "sk-very-secret" not in out + err
