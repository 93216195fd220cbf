"""After the README's plain install no provider SDK is there: asking a provider says which extra to
install (exit 2 from ``asrender``, :class:`SdkMissing` from Python), never ``internal error:
ModuleNotFoundError``; a dry run needs no SDK; ``asrender plugins`` marks the adapters that cannot
send. The SDK is made missing by putting ``None`` in ``sys.modules``, as an import then fails."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import promptwire
from promptwire.core.sdk import SdkMissing
from promptwire.frontend.asrender.cli import main


@pytest.fixture
def prompt(tmp_path: Path) -> Path:
    path = tmp_path / "p.json"
    path.write_text('{"instruction": "Say ok."}', encoding="utf-8")
    return path


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama", "openai-responses"])
def test_a_provider_without_its_sdk_names_the_extra(
    prompt: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    module = provider.split("-")[0]
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(SystemExit) as exit:
        main([str(prompt), "--provider", provider, "--model", "m"])
    err = capsys.readouterr().err
    assert exit.value.code == 2
    assert f"needs the {module} SDK, which is not installed: pip install 'promptwire[{module}]'" in err
    assert "internal error" not in err and "ModuleNotFoundError" not in err
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"instruction": "x"}\n', encoding="utf-8")
    with pytest.raises(SystemExit) as exit:
        main(["batch", str(rows), "--out", str(tmp_path / "o.jsonl"), "--provider", provider, "--model", "m"])
    assert exit.value.code == 2 and f"pip install 'promptwire[{module}]'" in capsys.readouterr().err


def test_a_dry_run_needs_no_sdk(
    prompt: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    assert main([str(prompt), "--provider", "openai", "--model", "m", "--dry-run", "-O", "json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["body"]["model"] == "m"


def test_python_callers_get_the_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-anthropic-test-key")
    with pytest.raises(SdkMissing, match=r"pip install 'promptwire\[anthropic\]'"):
        promptwire.generate({"instruction": "Say ok."}, "anthropic", "claude-x")
    with pytest.raises(SdkMissing, match=r"pip install 'promptwire\[anthropic\]'"):
        promptwire.generate({"instruction": "Say ok."}, "auto", "anthropic://claude-x")


def test_plugins_marks_the_adapters_that_cannot_send(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ollama", None)
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "    ollama cannot send: the ollama adapter needs the ollama SDK, which is not installed" in out
    assert "openai cannot send" not in out
