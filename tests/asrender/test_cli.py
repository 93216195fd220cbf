from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.asrender.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-ticket.yaml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_plugins_lists_builtins(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plugins")
    assert code == 0
    assert out.startswith("promptwire ")
    assert "renderers: agentscript, agens, agently, messages" in out


def test_plugins_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plugins", "--json")
    builtin = next(p for p in json.loads(out) if p["name"] == "promptwire")
    assert code == 0
    assert {"agentscript", "agens", "agently", "messages"} <= set(builtin["renderers"])
    assert "register_renderers" in builtin["hooks"]
    assert set(builtin) >= {"name", "version", "hooks", "renderers", "adapters", "readers"}


def test_render_example_agentscript(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "render", str(EXAMPLE), "--format", "agentscript")
    assert (code, err) == (0, "")
    assert out.startswith("--- system ---\nYou are Support Triage Agent.\nClassify incoming tickets")
    assert "[recent history]\nsource: input.history\n" in out
    assert 'Return JSON matching this schema:\n{\n  "type": "object",' in out


def test_render_json_output_is_the_whole_render(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "render", str(EXAMPLE), "--format", "messages", "--output", "json")
    data = json.loads(out)
    assert code == 0
    assert data["format"] == "messages"
    assert [m["role"] for m in data["messages"]] == ["system", "user"]


def test_render_from_agens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "msg.json", json.dumps({"input": "Write a haiku about autumn."}))
    code, out, _ = run(capsys, "render", path, "--from", "agens", "--format", "agens")
    assert code == 0
    assert out == (
        "--- system ---\n\n--- user ---\n"
        "## Input\nThe following is the original input from the user:\n\nWrite a haiku about autumn.\n\n"
    )


def test_agens_order_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = {"input": "x", "retries": 1, "tool_calls": [{"id": "c"}], "tool_results": {}}
    path = write(tmp_path, "msg.json", json.dumps(message))
    _, declared, _ = run(capsys, "render", path, "--from", "agens", "--format", "agens")
    _, alphabetical, _ = run(capsys, "render", path, "--from", "agens", "--format", "agens", "-o", "order=alphabetical")
    assert declared.index("## Retry") > declared.index("## Tool Results")
    assert alphabetical.index("## Retry") < alphabetical.index("## Tool Calls")


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "bad.json",
            '{"instruction": "x",}',
            "bad.json:1:21: invalid JSON: Expecting property name enclosed in double quotes",
        ),
        ("bad.yaml", "instruction: [unclosed\n", "bad.yaml:2:1: invalid YAML: "),
        ("field.yaml", "context:\n  - value: 1\n    budget: lots\n", "field.yaml: context[0].budget: "),
        ("typo.yaml", "instructions: x\n", "typo.yaml: instructions: unknown field"),
        ("list.yaml", "- 1\n- 2\n", "list.yaml: prompt: must be a mapping of Prompt fields"),
    ],
)
def test_bad_input_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str, expected: str
) -> None:
    path = write(tmp_path, name, text)
    code, out, err = run(capsys, "render", path)
    assert code == 1
    assert out == ""
    assert err.startswith(f"asrender: {tmp_path / expected}") or err.startswith(f"asrender: {tmp_path}/{expected}")
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "render", "/no/such/prompt.yaml")
    assert (code, err) == (1, "asrender: /no/such/prompt.yaml: no such file\n")


def test_unknown_format_and_reader(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:  # a bad command line
        main(["render", str(EXAMPLE), "--format", "nope"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.startswith(
        "asrender: error: --format: unknown renderer 'nope' (available: agentscript, agens, agently, messages, conversation, template"
    )
    with pytest.raises(SystemExit) as exited:
        main(["render", str(EXAMPLE), "--from", "nope"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.startswith("asrender: error: --from: unknown reader 'nope'")


@pytest.mark.parametrize("file", [EXAMPLE, EXAMPLE.parent / "evidence-qa.as"], ids=["prompt file", "program"])
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-o", "colour=red"], "format 'agentscript' takes no option 'colour' (it takes: strict)"),
        (
            ["-f", "messages", "-o", "colour=red", "-o", "size=2"],
            "format 'messages' takes no options 'colour', 'size' (it takes: layout, strict)",
        ),
        (
            ["-f", "agently", "-o", "colour=red"],
            "format 'agently' takes no option 'colour' (it takes: rich_content, role_mapping, settings, strict, "
            "strict_role_orders)",
        ),
    ],
)
def test_an_option_the_format_does_not_take_is_a_usage_error_naming_those_it_does(
    file: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["render", str(file), *argv])
    assert exit_info.value.code == 2
    assert capsys.readouterr() == ("", f"asrender: error: {message}\n")


def test_strict_refuses_unexpressible_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "p.yaml", "instruction: x\nhistory:\n  - {role: user, content: hi}\n")
    code, _, err = run(capsys, "render", path, "--format", "agentscript", "--strict")
    assert code == 1
    assert err == "asrender: format 'agentscript' cannot express these prompt fields, which were left out: history\n"


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["render"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["render", str(EXAMPLE), "-o", "novalue"])
    assert info.value.code == 2


def test_stdin_and_module_entry_point() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "promptwire", "render", "-", "--format", "agentscript"],
        input='{"instruction": "Say hello."}',
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "--- user ---\nInstruction:\nSay hello.\n"


def test_startup_imports_no_heavy_modules() -> None:
    code = (
        "import sys; from promptwire.frontend.asrender.cli import main; main(['plugins']);"
        "heavy = [m for m in ('openai', 'anthropic', 'ollama', 'jsonschema', 'jinja2', 'httpx', 'yaml') if m in sys.modules];"
        "print(heavy)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_warnings_are_one_plain_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "p.yaml", "instruction: x\nhistory:\n  - {role: user, content: hi}\n")
    code, out, err = run(capsys, "render", path, "--format", "agentscript")
    assert code == 0
    assert out == "--- user ---\nInstruction:\nx\n"
    assert err == (
        "asrender: warning: format 'agentscript' cannot express these prompt fields, which were left out: history\n"
    )


def test_version_is_the_installed_packages(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import metadata

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr() == (f"asrender {metadata.version('promptwire')}\n", "")


@pytest.mark.parametrize("command", ["render", "snapshot"])
def test_format_help_lists_the_registered_formats_plugins_too(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptwire import PluginHost, hookimpl
    from promptwire.frontend.asrender import flags
    from promptwire.plugins.builtins import builtin_renderer

    class Fifty:
        name = "fifty%"  # a % in a help text is argparse's formatting: it must come out as it is
        render = builtin_renderer("agentscript").render

    class Mine:
        @hookimpl
        def register_renderers(self, register: Any) -> None:
            register(Fifty())

    monkeypatch.setattr(flags, "plugin_host", lambda: PluginHost(entry_points=False, plugins=[Mine()]))
    with pytest.raises(SystemExit):
        main([command, "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    # render's default names the readers whose default is conversation too: "(default: agentscript; ..."
    assert "agentscript, agens, agently, messages, conversation, template, fifty% (default: agentscript" in help_text
