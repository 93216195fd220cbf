"""asrender FILE.as --provider: dry runs that send nothing, real calls over HTTP, one-line failures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import promptwire
from promptwire.core.errors import FieldError
from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_servers import fake_provider

TC09 = Path(__file__).parents[1] / "data" / "as" / "valid" / "tc09_retry.as"
INPUT = '{"text": "Buy now!!!"}'


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama"])
def test_a_dry_run_shows_every_request_and_answers_offline(provider: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, str(TC09), "--input", INPUT, "--provider", provider, "--dry-run", "-O", "json")
    assert (code, err) == (0, "")
    (call,) = json.loads(out)
    assert list(call) == ["site", "agent", "attempt", "provider", "model", "body", "notes", "cache_prefix"]
    assert (call["provider"], call["model"]) == (provider, "gpt-4o-mini")  # the program's model, retargeted
    assert call["body"]["model"] == "gpt-4o-mini"


def test_model_replaces_the_programs_model(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys, str(TC09), "--input", INPUT, "--provider", "ollama", "--model", "qwen3.6", "--dry-run", "-O", "json"
    )
    assert code == 0
    assert json.loads(out)[0]["body"]["model"] == "qwen3.6"


def test_a_dry_run_imports_no_sdk() -> None:
    code = (
        "import sys; from promptwire.frontend.asrender.cli import main; "
        f"main([{str(TC09)!r}, '--input', {INPUT!r}, '--provider', 'openai', '--dry-run', '-O', 'json']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'openai', 'anthropic', 'ollama', 'httpx'}), "
        "file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stderr.strip() == "[]"


def test_a_real_call_over_http_and_a_failure_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    program = tmp_path / "ok.as"
    program.write_text(
        'import llm M from "openai://ok"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        '    main func(input) {\n        generate({ input: "x" }) -> {\n            ok boolean\n        }\n    }\n}\n',
        encoding="utf-8",
    )
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-key")
        code, out, err = _run(capsys, str(program), "--provider", "openai", "-O", "trace")
        assert (code, err) == (0, "")
        assert json.loads(out)["value"] == {"ok": True}
        code, out, err = _run(capsys, str(program), "--provider", "openai", "--model", "e429q")
        assert code == 1
        # The call that failed is shown as every call of a failed run is, then the error, one line.
        assert out.startswith(f"=== {program}:7:9 agent A attempt 1 ===\n--- system ---\nYou are R.\n")
        assert "\n--- failed ---\nQuotaExhaustedError: LLM provider request failed (429): " in out
        assert err.startswith("asrender: QuotaExhaustedError [openai 429]: LLM provider request failed (429): ")
        assert err.count("\n") == 1
        assert "sk-secret-key" not in err + out
        code, out, err = _run(capsys, str(program), "--provider", "openai", "--model", "html200")
    assert code == 1
    assert out.endswith(
        "--- failed ---\nMalformedResponseError: LLM provider response is missing 'choices.0.message'\n"
    )
    assert err == (
        "asrender: MalformedResponseError [openai 200]: LLM provider response is missing 'choices.0.message'"
        " (it sent: <html><body>Sign in to the hotel Wi-Fi</body></html>)\n"
    )


def test_a_prompt_file_needs_a_model_and_program_flags_stay_with_programs_and_dry_run_needs_a_provider(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prompt = tmp_path / "p.yaml"
    prompt.write_text("instruction: hi\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        main([str(prompt), "--provider", "openai"])
    assert "--provider openai needs --model for a prompt file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(prompt), "--provider", "openai", "--model", "m", "--input", "{}"])
    assert "--input apply to .as programs only" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(TC09), "--dry-run"])
    assert "--dry-run needs --provider" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main([str(TC09), "--provider", "nope"])
    assert exited.value.code == 2 and "error: --provider: unknown adapter 'nope'" in capsys.readouterr().err


def test_what_an_adapter_changed_is_in_the_trace(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    program = tmp_path / "warm.as"
    program.write_text(
        'import llm M from "anthropic://claude"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        '    main func(input) {\n        generate({ input: "x", temperature: 0.5, debug: true })\n    }\n}\n',
        encoding="utf-8",
    )
    code, out, err = _run(capsys, str(program), "--provider", "anthropic", "--dry-run", "-O", "trace")
    assert code == 0
    notes = [event for event in json.loads(out)["trace"] if event["kind"] == "notes"]
    assert [note["data"]["site"] for note in notes] == [f"{program}:7:9"]
    assert any(text.startswith("temperature 0.5 dropped") for text in notes[0]["data"]["notes"])
    assert "note: temperature 0.5 dropped" in err  # debug: true also shows them on stderr


PROMPT_FILE = """identity:
  role: Classifier
  description: Labels one message.
instruction: Is this spam?
context:
  - label: message
    value: Buy now!!!
output:
  json_schema:
    type: object
    properties:
      ok: {type: boolean}
    required: [ok]
config:
  temperature: 0.2
"""


def test_a_prompt_file_dry_run_shows_the_request_in_the_chosen_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prompt = tmp_path / "spam.yaml"
    prompt.write_text(PROMPT_FILE, encoding="utf-8")
    code, out, err = _run(
        capsys, str(prompt), "--provider", "anthropic", "--model", "claude-x", "--dry-run", "-O", "json"
    )
    assert (code, err) == (0, "")
    (call,) = json.loads(out)
    assert (call["site"], call["agent"], call["attempt"]) == (f"{prompt}:1:1", None, 1)
    assert (call["provider"], call["model"]) == ("anthropic", "claude-x")
    assert call["body"]["max_tokens"] == 1024 and "temperature" not in call["body"]
    assert any(note.startswith("temperature 0.2 dropped") for note in call["notes"])
    # The format chosen is what is sent: agens puts its own prefix pair on the wire.
    code, out, _ = _run(
        capsys, str(prompt), "--provider", "openai", "--model", "m", "--dry-run", "-O", "json", "-f", "agens"
    )
    (call,) = json.loads(out)
    rendered = json.loads(_run(capsys, str(prompt), "-f", "agens", "-O", "json")[1])
    assert [m["content"] for m in call["body"]["messages"]] == [m["content"] for m in rendered["messages"]]
    code, out, _ = _run(capsys, str(prompt), "--provider", "openai", "--model", "m", "--dry-run")
    assert out.startswith(f"=== {prompt}:1:1 attempt 1 ===\n")
    assert "--- request: openai m ---\n" in out


def test_a_prompt_file_is_asked_of_a_real_provider_over_http(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    prompt = tmp_path / "spam.yaml"
    prompt.write_text(PROMPT_FILE, encoding="utf-8")
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-key")
        code, out, err = _run(capsys, str(prompt), "--provider", "openai", "--model", "ok", "-O", "trace")
        assert (code, err) == (0, "")
        assert json.loads(out) == {"value": {"ok": True}, "trace": []}
        assert len(server.requests) == 1
        assert server.requests[0]["response_format"]["json_schema"]["schema"]["required"] == ["ok"]
        code, out, err = _run(capsys, str(prompt), "--provider", "openai", "--model", "e401echo")
    assert code == 1
    assert out.startswith(f"=== {prompt}:1:1 attempt 1 ===\n--- system ---\nYou are Classifier.\n")
    assert "\n--- failed ---\nAuthenticationError: LLM provider request failed (401): " in out
    assert "sk-secret-key" not in out
    assert err.startswith("asrender: AuthenticationError [openai 401]: ")
    assert "incorrect API key provided: ***" in err  # the provider quoted the key; the line does not
    assert "sk-secret-key" not in err


def test_a_prompt_file_runs_offline_with_canned_replies_and_retries(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    prompt = tmp_path / "spam.yaml"
    prompt.write_text(PROMPT_FILE.replace("temperature: 0.2", "attempts: 2"), encoding="utf-8")
    responses = tmp_path / "replies.json"
    responses.write_text('["not json", "{\\"ok\\": false}"]', encoding="utf-8")
    code, out, err = _run(capsys, str(prompt), "--responses", str(responses), "-O", "trace")
    assert (code, err) == (0, "")
    assert json.loads(out)["value"] == {"ok": False}
    code, out, err = _run(capsys, str(prompt), "--responses", str(responses))
    assert out.count(" attempt ") == 2  # both attempts shown, the second with the repair text
    assert "not json" in out.split(" attempt 2 ===")[1]


@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "inf", "soon"])
def test_a_timeout_is_a_positive_number_of_seconds(seconds: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([str(TC09), "--input", INPUT, "--provider", "openai", "--dry-run", f"--timeout={seconds}"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.endswith(f"argument --timeout: not a positive number of seconds: {seconds!r}\n")
    with pytest.raises(FieldError, match=r"^timeout: must be a positive number of seconds"):
        promptwire.generate({"instruction": "x"}, timeout=float(seconds) if seconds != "soon" else 0)
