"""asrender --record FILE and --responses FILE: a real run, through each built-in adapter's real SDK
over real HTTP (the local fake provider), replayed with no server, no key and the same bytes; a
changed program reported as prompt drift; a recording cut short; a link planted at --record's path."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from promptwire.calls.recording import Recorder
from promptwire.frontend.asrender.cli import main
from promptwire.runs.options import RunOptions
from promptwire.runs.run import run
from promptwire.testing.provider_servers import FakeProvider, fake_provider

PROGRAM = """import llm M from "openai://ok"
main agent A {
    model M
    role "Greeter"
    description "Greet people."
    main func(input) {
        use input.name as name
        generate({ input: "First." }) -> {
            ok boolean
        }
        generate({ input: "Second." })
    }
}
"""
INPUT = '{"name": "Ann"}'
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
        return generate({ input: text })
    }
}

main agent Lead {
    model Gpt
    role "Lead"
    description "Leads."
    main func(input) {
        draft = Writer.write("draft")
        return Checker.check(draft)
    }
}
"""
PROVIDERS = ("openai", "openai-responses", "anthropic", "ollama")
ENVIRONMENT = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit:
        main(list(argv))
    assert exit.value.code == 2
    return capsys.readouterr().err


def _untimed(shown: str) -> str:
    """A real run's output as its replay prints it: the same bytes but the times, which a replay,
    answered offline, does not have (the summary says so, ``seconds`` is null)."""
    shown = re.sub(r", [0-9.]+ s ===\n\Z", ", answered offline ===\n", shown)
    return re.sub(r'"seconds": [0-9.]+', '"seconds": null', shown)


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "greet.as"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No provider is reachable and no key is set: whatever is not replayed fails."""
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_recorded_run_replays_with_no_server_and_the_same_bytes(
    provider: str, program: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = tmp_path / "greet.recording.jsonl"
    real: dict[str, str] = {}
    with fake_provider() as server:
        _point_at(server, monkeypatch)
        for output in ("display", "trace", "json"):
            flags = ("--record", str(recording)) if output == "trace" else ()
            code, real[output], err = _run(
                capsys, str(program), "--input", INPUT, "--provider", provider, "-O", output, *flags
            )
            assert (code, err) == (0, "")
        assert len(server.requests) == 6
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    assert json.loads(real["trace"])["value"] == '{"ok": true}'  # the second generate's text
    for output in ("display", "trace", "json"):
        code, replayed, err = _run(capsys, str(program), "--input", INPUT, "--responses", str(recording), "-O", output)
        assert (code, err) == (0, "")
        assert replayed == _untimed(real[output])
    lines = recording.read_text(encoding="utf-8").splitlines()
    header, first, second = (json.loads(line) for line in lines)
    assert header == {"format": "promptwire-recording", "version": 1, "provider": provider, "model": None}
    assert [(r["call"], r["site"], r["attempt"], r["provider"]) for r in (first, second)] == [
        (1, f"{program}:8:9", 1, provider),
        (2, f"{program}:11:9", 1, provider),
    ]
    assert first["model"] == "ok" and first["request"]["model"] == "ok"
    assert first["usage"] is not None


def _point_at(server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    root = server.base_url.removesuffix("/v1")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", root)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("OLLAMA_HOST", root)


def _record(
    program: Path, recording: Path, provider: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with fake_provider() as server:
        _point_at(server, monkeypatch)
        assert main([str(program), "--input", INPUT, "--provider", provider, "--record", str(recording)]) == 0
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    capsys.readouterr()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_streamed_run_replays_the_same_value_and_trace(
    provider: str, program: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Recorded streamed (the stream flags set, the text in pieces), replayed whole: the body a
    recording keys is the one built, so streaming is no drift."""
    recording = tmp_path / "streamed.jsonl"
    pieces: list[str] = []
    with fake_provider() as server, Recorder(recording) as recorder:
        _point_at(server, monkeypatch)
        options = RunOptions(adapter=provider, on_text=pieces.append, record=recorder)
        streamed = run(program, json.loads(INPUT), options)
        assert all(body.get("stream") is True for body in server.requests)
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    assert "".join(pieces) == '{"ok": true}{"ok": true}'
    records = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()[1:]]
    assert [record["streamed"] for record in records] == [True, True]
    assert all(record["request"].get("stream") in (None, False) for record in records)
    code, out, err = _run(capsys, str(program), "--input", INPUT, "--responses", str(recording), "-O", "trace")
    assert (code, err) == (0, "")
    assert json.loads(out) == json.loads(json.dumps(streamed.to_dict()))


def test_a_changed_program_is_reported_as_drift_not_answered(
    program: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = tmp_path / "greet.jsonl"
    _record(program, recording, "openai", monkeypatch, capsys)
    program.write_text(PROGRAM.replace('"Second."', '"Second, politely."'), encoding="utf-8")
    code, out, err = _run(capsys, str(program), "--input", INPUT, "--responses", str(recording))
    assert code == 1  # the calls before the drift are shown, the drifted one is not answered
    assert out.startswith(f"=== {program}:8:9 agent A attempt 1 ===") and "--- reply ---" in out
    lines = err.splitlines()
    assert lines[0] == (
        f"asrender: prompt drift at {program}:11:9 attempt 1: the request is not one {recording} recorded;"
        f" the next recorded call is call 2, at {program}:11:9 attempt 1"
    )
    assert lines[1].startswith("  recorded sha256:") and lines[1].endswith(" (openai chat/completions)")
    assert lines[2].startswith("  current  sha256:") and lines[1][11:] != lines[2][11:]
    assert lines[3:] == [
        "  first difference, at messages[1].content, line 6:",
        '    recorded: "Second."',
        '    current:  "Second, politely."',
    ]
    code, out, err = _run(capsys, str(program), "--input", INPUT, "--responses", str(recording), "--accept-drift")
    assert code == 0 and "Second, politely." in out
    assert err.startswith(f"asrender: warning: prompt drift at {program}:11:9 attempt 1:")


def test_a_run_that_makes_more_or_fewer_calls_than_recorded(
    program: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = tmp_path / "greet.jsonl"
    _record(program, recording, "ollama", monkeypatch, capsys)
    program.write_text(PROGRAM.replace('        generate({ input: "Second." })\n', ""), encoding="utf-8")
    code, _, err = _run(capsys, str(program), "--input", INPUT, "--responses", str(recording))
    assert code == 0
    assert (
        err
        == f"asrender: warning: {recording}: 1 recorded call(s) not made by this run: call 2 at {program}:11:9 attempt 1\n"
    )
    program.write_text(PROGRAM.replace('"Second." })', '"Second." })\n        generate({ input: "Third." })'))
    code, _, err = _run(capsys, str(program), "--input", INPUT, "--responses", str(recording), "--accept-drift")
    assert code == 1
    assert err.startswith(f"asrender: prompt drift at {program}:12:9 attempt 1: the request is not one {recording}")
    assert "its 2 recorded calls are all used: this run makes more calls" in err


def test_a_recording_with_a_torn_last_line(
    program: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run killed while writing its last reply: the replies before it replay, the torn line is
    said and left out, and the call it held is not answered."""
    recording = tmp_path / "greet.jsonl"
    _record(program, recording, "anthropic", monkeypatch, capsys)
    data = recording.read_bytes()
    recording.write_bytes(data[: len(data) - 40])
    code, out, err = _run(capsys, str(program), "--input", INPUT, "--responses", str(recording))
    assert code == 1 and out.startswith(f"=== {program}:8:9 agent A attempt 1 ===")  # the call it answered
    assert err.startswith(
        f"asrender: warning: {recording}:3: a torn last line (the recording run was cut short), left out\n"
    )
    assert f"prompt drift at {program}:11:9 attempt 1" in err
    assert "its 1 recorded calls are all used" in err


def test_a_symbolic_link_at_the_record_path_is_never_followed(
    program: Path, tmp_path: Path, offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n", encoding="utf-8")
    link = tmp_path / "run.jsonl"
    link.symlink_to(precious)
    code, out, err = _run(capsys, str(program), "--provider", "openai", "--record", str(link))
    assert (code, out) == (1, "")
    assert err == (
        f"asrender: {link}: a symbolic link; a recording is never written through one (remove it or write elsewhere)\n"
    )
    assert precious.read_text(encoding="utf-8") == "keep me\n"
    os.link(precious, tmp_path / "second-name.txt")
    code, _, err = _run(capsys, str(program), "--provider", "openai", "--record", str(precious))
    assert code == 1 and "other hard links" in err
    assert precious.read_text(encoding="utf-8") == "keep me\n"


def test_canned_replies_still_work_and_flags_that_cannot_go_together(
    program: Path, tmp_path: Path, offline: None, capsys: pytest.CaptureFixture[str]
) -> None:
    canned = tmp_path / "canned.json"
    canned.write_text('[{"ok": false}, "Hello, Ann."]', encoding="utf-8")
    code, out, err = _run(capsys, str(program), "--input", INPUT, "--responses", str(canned), "-O", "trace")
    assert (code, err) == (0, "")
    assert json.loads(out)["value"] == "Hello, Ann."
    err = _usage_error(capsys, str(program), "--responses", str(canned), "--accept-drift")
    assert err == "asrender: error: --accept-drift applies to a replay (--responses naming a recording)\n"
    err = _usage_error(capsys, str(program), "--provider", "openai", "--dry-run", "--record", str(tmp_path / "r"))
    assert err == "asrender: error: --record records a real run (--provider P); --dry-run sends nothing\n"
    err = _usage_error(capsys, str(program), "--record", str(tmp_path / "r"))
    assert err == "asrender: error: --record records a real run (--provider P); an offline run sends nothing\n"
    recording = tmp_path / "canned.jsonl"
    recording.write_text('{"format":"promptwire-recording","version":1,"provider":"openai","model":null}\n')
    err = _usage_error(capsys, str(program), "--responses", str(recording), "--record", str(tmp_path / "r"))
    assert err == "asrender: error: --record records a real run (--provider P); a replay sends nothing\n"
    assert not (tmp_path / "r").exists()


def test_snapshot_replays_the_recording_beside_a_program(
    program: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real run made a regression test: ``NAME.recording.jsonl`` beside ``NAME.as``."""
    (tmp_path / "greet.input.json").write_text(INPUT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with fake_provider() as server:
        _point_at(server, monkeypatch)
        code = main(
            [
                "greet.as",
                "--input-file",
                "greet.input.json",
                "--provider",
                "openai",
                "--record",
                "greet.recording.jsonl",
            ]
        )
        assert code == 0
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    real = capsys.readouterr().out
    code, out, err = _run(capsys, "snapshot", str(tmp_path), "--update")
    assert (code, out, err) == (
        0,
        "stored __prompts__/greet.as.agentscript.txt\n1 programs: 0 unchanged, 0 changed, 1 new, 0 removed; 1 stored\n",
        "",
    )
    assert (tmp_path / "__prompts__" / "greet.as.agentscript.txt").read_text(encoding="utf-8") == _untimed(real)
    code, out, err = _run(capsys, "snapshot", str(tmp_path))
    assert (code, out, err) == (0, "1 programs: 1 unchanged, 0 changed, 0 new, 0 removed\n", "")
    program.write_text(PROGRAM.replace('"First."', '"First, kindly."'), encoding="utf-8")
    code, _, err = _run(capsys, "snapshot", str(tmp_path))
    assert code == 2
    assert err.startswith(f"{tmp_path / 'greet.as'}: cannot render\nprompt drift at greet.as:8:9 attempt 1:")
    (tmp_path / "greet.responses.json").write_text("[]", encoding="utf-8")
    code, _, err = _run(capsys, "snapshot", str(tmp_path))
    assert code == 2 and "has both greet.responses.json and greet.recording.jsonl: keep one" in err


def test_a_failed_prompt_file_run_replays_the_same_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every attempt's reply is recorded, the rejected ones too: the replay fails as the run did."""
    prompt = tmp_path / "hi.json"
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    prompt.write_text(json.dumps({"instruction": "Say hi.", "config": {"attempts": 2}, "output": {"schema": schema}}))
    recording = tmp_path / "hi.jsonl"
    with fake_provider() as server:
        _point_at(server, monkeypatch)
        real = _run(capsys, str(prompt), "--provider", "openai", "--model", "words3", "--record", str(recording))
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    code, shown, err = real
    assert (code, err) == (1, "asrender: LLM provider did not return JSON: word0 word1 word2\n")
    assert shown.count("--- rejected ---") == 2  # both attempts, shown before the error
    assert _run(capsys, str(prompt), "--responses", str(recording)) == (code, _untimed(shown), err)
    records = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()]
    assert records[0]["model"] == "words3"  # the header: the replay asks for the same model
    assert [(r["site"], r["attempt"]) for r in records[1:]] == [(f"{prompt}:1:1", 1), (f"{prompt}:1:1", 2)]


def test_a_routed_run_records_each_call_under_its_provider_and_replays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --provider auto the calls go to several providers: each is recorded under its own name
    (the header says auto), and the replay sends each to the same provider's reading of its reply."""
    program = tmp_path / "two.as"
    program.write_text(MIXED, encoding="utf-8")
    recording = tmp_path / "two.recording.jsonl"
    with fake_provider() as server:
        _point_at(server, monkeypatch)
        code, real, err = _run(
            capsys, str(program), "--input", INPUT, "--provider", "auto", "--record", str(recording), "-O", "trace"
        )
        assert (code, err) == (0, "") and len(server.requests) == 2
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    header, *records = (json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines())
    assert header["provider"] == "auto"
    assert [(record["provider"], record["path"]) for record in records] == [
        ("anthropic", "v1/messages"),
        ("ollama", "api/chat"),
    ]
    assert _run(capsys, str(program), "--input", INPUT, "--responses", str(recording), "-O", "trace") == (0, real, "")
