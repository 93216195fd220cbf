"""What a real run shows: each call's reply (or why it was rejected) under its prompt, the program's
value and a summary; progress lines on stderr; the display written as the run goes on a terminal;
a failed run's calls in every output; ``debug: true``'s raw reply and validation result. Over real
HTTP against the local fake provider, with ``main()`` and, where the terminal matters, a pty."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_servers import FakeProvider, fake_provider

from hypothesis_profile import examples

ROOT = Path(__file__).resolve().parents[2]
CLI_DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
SHOWN = CLI_DOC.split("### What a real run shows", 1)[1]
PROGRAM = SHOWN.split("```agentscript\n", 1)[1].split("```", 1)[0]
"""The program docs/cli.md shows: a classifier whose model (below) answers in words, then in JSON."""
CONSOLE = SHOWN.split("```console\n", 1)[1].split("```", 1)[0]
INPUT = '{"text": "WIN A PRIZE!!!"}'
USAGE = {"prompt_tokens": 61, "completion_tokens": 4, "total_tokens": 65}

DEBUG_SEED = [
    "resolved agent identity",
    "generate input",
    "selected context entries",
    "context labels",
    "budgets",
    "rendered prompt/messages",
    "output shape",
    "raw model output",
    "validation result",
]
"""The debug output AgentScript's ``generate`` document recommends (seeds/agentscript-generate.md)."""


def _replies(*texts: str, delay: float = 0.0) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A Chat Completions reply with each text in turn (the last one again after that), the first
    after ``delay`` seconds."""
    sent: list[str] = []

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        if not sent and delay:
            time.sleep(delay)
        text = texts[min(len(sent), len(texts) - 1)]
        sent.append(text)
        message = {"role": "assistant", "content": text}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return {"id": "c", "object": "chat.completion", "created": 0, "model": body["model"], "choices": [choice]} | {
            "usage": USAGE
        }

    return reply


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeProvider]:
    """The fake provider, the documented model on it, the program in ``tmp_path`` (the current folder)."""
    (tmp_path / "spam.as").write_text(PROGRAM, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with fake_provider() as provider:
        provider.reply = _replies("Probably spam.", '{"spam": true}')
        monkeypatch.setenv("OPENAI_BASE_URL", provider.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        yield provider


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _pattern(shown: str) -> re.Pattern[str]:
    """The documented output as a pattern: ``...`` stands for lines left out, seconds for any."""
    parts = []
    for line in shown.splitlines(keepends=True):
        if line == "...\n":
            parts.append(r"(?:.*\n)*?")
        else:  # re.escape writes "0.79 s" as "0\\.79\\ s"
            parts.append(re.sub(r"\d+\\\.\d\d(?=\\ s)", lambda _: r"\d+\.\d\d", re.escape(line)))
    return re.compile("".join(parts))


def test_the_cli_doc_shows_what_a_real_run_prints(server: FakeProvider, capsys: pytest.CaptureFixture[str]) -> None:
    command, rest = CONSOLE.split("\n", 1)
    stdout, progress = rest.split("$ cat progress.txt\n")
    assert command == f"$ asrender spam.as --input '{INPUT}' --provider openai --progress 2>progress.txt"
    code, out, err = _run(capsys, "spam.as", "--input", INPUT, "--provider", "openai", "--progress")
    assert code == 0
    assert _pattern(stdout).fullmatch(out), out
    assert _pattern(progress).fullmatch(err), err
    assert [request.get("stream") for request in server.requests] == [None, None]  # not a terminal: not streamed


def test_json_gives_each_calls_reply_usage_seconds_and_error(
    server: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "spam.as", "--input", INPUT, "--provider", "openai", "-O", "json")
    assert (code, err) == (0, "")
    first, second = json.loads(out)
    for call in (first, second):
        assert list(call)[-7:] == ["provider", "model", "reply", "usage", "seconds", "error", "cache_prefix"]
        assert (call["provider"], call["model"], call["usage"]["prompt_tokens"]) == ("openai", "gpt-4o-mini", 61)
        assert isinstance(call["seconds"], float) and call["seconds"] >= 0
    assert first["reply"] == {"text": "Probably spam.", "value": None}
    assert first["error"] == "LLM provider did not return JSON: Probably spam."
    assert (second["reply"], second["error"]) == ({"text": '{"spam": true}', "value": {"spam": True}}, None)


def test_the_trace_holds_none_of_the_new_facts(server: FakeProvider, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "spam.as", "--input", INPUT, "--provider", "openai", "-O", "trace")
    trace = json.loads(out)
    assert code == 0 and list(trace) == ["value", "trace"]
    assert [event["kind"] for event in trace["trace"]] == ["use", "generate"]
    for fact in ('"seconds"', '"usage"', '"reply"', '"provider"', '"error"'):
        assert fact not in out


def test_offline_calls_show_their_replies_untimed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "spam.as").write_text(PROGRAM, encoding="utf-8")
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(["Probably spam."]), encoding="utf-8")
    code, out, err = _run(capsys, str(tmp_path / "spam.as"), "--input", INPUT, "--responses", str(replies))
    assert (code, err) == (0, "")
    assert "--- reply ---\nProbably spam.\n--- rejected ---\nLLM provider did not return JSON: Probably spam.\n" in out
    # The second attempt is answered with the mock value: a value with no text.
    assert out.endswith(
        '--- value ---\n{\n  "spam": true\n}\n=== value ===\n{\n  "spam": true\n}\n'
        "=== 1 call, 2 attempts, answered offline ===\n"
    )
    code, out, _ = _run(capsys, str(tmp_path / "spam.as"), "--input", INPUT, "-O", "json")
    (call,) = json.loads(out)
    assert (call["provider"], call["seconds"], call["usage"]) == ("offline", None, None)


STRICT = PROGRAM.replace("attempts: 2 }", "attempts: 3, strict: true }")


@pytest.mark.parametrize("output", ["display", "json", "text", "trace"])
def test_a_failed_run_shows_every_call_then_the_error(
    output: str, server: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("spam.as").write_text(STRICT, encoding="utf-8")
    server.reply = _replies('{"spam": "yes"}')  # strict: a string is no boolean, three times
    code, out, err = _run(capsys, "spam.as", "--input", INPUT, "--provider", "openai", "-O", output)
    assert code == 1
    # Located at the shape field the check failed on, as AgentScript locates it (issue 36, fact 9).
    assert err.startswith("spam.as:11:13: error[RUNTIME_ERROR]: LLM result field must be a boolean at 11:13 at 11:13\n")
    reason = "LLM result field must be a boolean at 11:13"
    if output == "display":
        heads = [line for line in out.splitlines() if line.startswith("=== ")]
        assert heads == [f"=== spam.as:10:9 agent Classifier attempt {n} ===" for n in (1, 2, 3)]
        assert out.count(f'--- reply ---\n{{"spam": "yes"}}\n--- rejected ---\n{reason}\n') == 3
    elif output == "text":
        assert out.count("system:\nYou are Classifier.\nLabel one message.\n\nuser:\n") == 3
        assert out.count(f"Error:\n{reason}\n") == 2  # the repair text the second and third attempts read
    else:  # trace: the reference's trace has no form for a failed run; its calls are shown as json's
        calls = json.loads(out)
        assert [(call["attempt"], call["error"], call["reply"]["text"]) for call in calls] == [
            (n, reason, '{"spam": "yes"}') for n in (1, 2, 3)
        ]


def test_a_provider_error_shows_the_calls_before_it_and_the_failed_one(
    server: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, "spam.as", "--input", INPUT, "--provider", "openai", "--model", "e500", "--progress")
    assert code == 1
    assert out.startswith("=== spam.as:10:9 agent Classifier attempt 1 ===\n--- system ---\n")
    assert "\n--- failed ---\nServerError: LLM provider request failed (500): " in out
    assert out.count("=== ") == 1  # no value, no summary: the run failed
    lines = err.splitlines()
    assert lines[0] == "asrender: spam.as:10:9 agent Classifier: openai e500 attempt 1 sent"
    assert re.fullmatch(
        r"asrender: spam\.as:10:9 agent Classifier: openai e500 attempt 1 failed after \d+\.\d\d s: ServerError: .*",
        lines[1],
    )
    assert lines[2].startswith("asrender: ServerError [openai 500]: ")


def test_debug_shows_the_raw_reply_and_the_validation_result(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    program = tmp_path / "spam.as"
    program.write_text(PROGRAM.replace("attempts: 2 }", "attempts: 2, debug: true }"), encoding="utf-8")
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps(["Probably spam.", '{"spam": true}']), encoding="utf-8")
    code, _, err = _run(capsys, str(program), "--input", INPUT, "--responses", str(replies))
    assert code == 0
    blocks = err.split("--- end AgentScript generate debug ---\n")
    assert blocks[0].startswith("--- AgentScript generate debug: Classifier attempt 1 ---\nSystem:\n")
    assert blocks[1] == (
        "--- AgentScript generate debug: Classifier attempt 1 reply ---\nRaw model output:\nProbably spam.\n"
        'Validation result:\n{"ok": false, "strict": false, "error": "LLM provider did not return JSON: '
        'Probably spam."}\n'
    )
    assert blocks[2].startswith("--- AgentScript generate debug: Classifier attempt 2 ---\nSystem:\n")
    assert blocks[3] == (
        "--- AgentScript generate debug: Classifier attempt 2 reply ---\nRaw model output:\n"
        '{"spam": true}\nValidation result:\n{"ok": true, "strict": false}\n'
    )
    assert blocks[4] == ""
    labels = {line.rstrip(":").lower() for line in err.splitlines() if line.endswith(":")}
    assert set(DEBUG_SEED[-2:]) <= labels  # the seed's last two, which the reference's block lacked


def test_progress_is_quiet_off_a_terminal_unless_asked(
    server: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "spam.as", "--input", INPUT, "--provider", "openai")
    assert (code, err) == (0, "")
    server.reply = _replies("Probably spam.", '{"spam": true}')
    code, _, err = _run(capsys, "spam.as", "--input", INPUT, "--provider", "openai", "--progress")
    assert (code, len(err.splitlines())) == (0, 4)


def test_stream_is_a_display_of_replies_that_arrive(capsys: pytest.CaptureFixture[str]) -> None:
    program = str(ROOT / "examples" / "critic.as")
    for flags, message in (
        (["-O", "json"], "--stream shows the display; --output json is printed once the run has ended"),
        (["--provider", "openai", "--dry-run"], "--stream needs replies that arrive; a dry run answers offline"),
    ):
        with pytest.raises(SystemExit) as exit_info:
            main([program, "--stream", *flags])
        assert exit_info.value.code == 2
        assert capsys.readouterr().err == f"asrender: error: {message}\n"


def test_streamed_to_a_file_the_display_is_the_same_bytes(
    server: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    code, shown_after, _ = _run(capsys, "spam.as", "--input", INPUT, "--provider", "openai")
    server.reply = _replies("Probably spam.", '{"spam": true}')
    code, streamed, _ = _run(capsys, "spam.as", "--input", INPUT, "--provider", "openai", "--stream")
    assert code == 0
    assert [request.get("stream") for request in server.requests] == [None, None, True, True]
    time_line = re.compile(r"\d+\.\d\d s ===\n$")
    assert time_line.sub("", streamed) == time_line.sub("", shown_after)


def test_on_a_terminal_the_prompt_shows_before_the_reply_comes(server: FakeProvider) -> None:
    server.reply = _replies("Probably spam.", '{"spam": true}', delay=3.0)
    controller, terminal = pty.openpty()
    env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test"}
    argv = [sys.executable, "-m", "promptwire", "spam.as", "--input", INPUT, "--provider", "openai"]
    process = subprocess.Popen(argv, stdout=terminal, stderr=terminal, env=env)
    os.close(terminal)
    seen = b""
    try:
        while b"--- user ---" not in seen:  # the first prompt, before its reply (3 s away) has come
            ready, _, _ = select.select([controller], [], [], 20)
            assert ready, seen
            seen += os.read(controller, 65536)
        assert process.poll() is None
        while True:
            ready, _, _ = select.select([controller], [], [], 20)
            try:
                chunk = os.read(controller, 65536) if ready else b""
            except OSError:  # the terminal closed with the process
                chunk = b""
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(controller)
        process.wait(timeout=30)
    text = seen.decode().replace("\r\n", "\n")
    assert process.returncode == 0, text
    assert "asrender: spam.as:10:9 agent Classifier: openai gpt-4o-mini attempt 1 sent\n" in text
    assert "--- reply ---\nProbably spam.\n--- rejected ---\nLLM provider did not return JSON: Probably spam.\n" in text
    assert re.search(r"=== 1 call, 2 attempts, 122 tokens in, 8 out, \d+\.\d\d s ===\n", text)
    assert [request.get("stream") for request in server.requests] == [True, True]  # streamed to the terminal


def test_a_reply_cannot_forge_progress_lines(server: FakeProvider, capsys: pytest.CaptureFixture[str]) -> None:
    server.reply = _replies("x\n\x1b[2Jasrender: all good\u202e", '{"spam": true}')
    code, out, err = _run(capsys, "spam.as", "--input", INPUT, "--provider", "openai", "--progress")
    assert code == 0
    assert len(err.splitlines()) == 4  # sent, rejected, sent, done: the reply's newline is escaped
    assert "\x1b" not in err and "\u202e" not in err
    assert "rejected after" in err.splitlines()[1] and "\\x1b[2Jasrender: all good" in err.splitlines()[1]
    assert "--- reply ---\nx\n\x1b[2Jasrender: all good\u202e\n--- rejected ---\n" in out  # a file gets the bytes


def test_a_streamed_display_still_warns_of_what_its_format_leaves_out(
    server: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["spam.as", "--input", INPUT, "--provider", "openai", "-f", "agently"]
    code, after, warned = _run(capsys, *argv)
    server.reply = _replies("Probably spam.", '{"spam": true}')
    code, streamed, warned_streaming = _run(capsys, *argv, "--stream")
    assert code == 0
    assert warned_streaming == warned and warned.startswith("asrender: warning: format 'agently' cannot express")
    time_line = re.compile(r"\d+\.\d\d s ===\n$")
    assert time_line.sub("", streamed) == time_line.sub("", after)


@settings(max_examples=examples(0.5), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reply=st.text())
def test_any_reply_is_shown_as_it_came_and_progress_stays_one_line_a_call(
    reply: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    program = tmp_path / "spam.as"
    program.write_text(PROGRAM, encoding="utf-8")
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([reply, '{"spam": false}']), encoding="utf-8")
    code, out, err = _run(capsys, str(program), "--input", INPUT, "--responses", str(replies), "--progress")
    assert code == 0
    lines = err.splitlines()
    assert all(line.startswith("asrender: ") for line in lines) and len(lines) in (2, 4)  # 2: the reply was JSON
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", err)
    clean = re.sub("[\ud800-\udfff]", "\ufffd", reply)  # half a character shows as U+FFFD, as any text
    if len(lines) == 4 and reply:
        assert f"--- reply ---\n{clean}" in out
