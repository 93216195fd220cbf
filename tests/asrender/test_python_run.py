"""``promptwire.run`` / ``promptwire.arun`` run a program from Python, and ``promptwire.read`` reads
another framework's prompt, with the parameter names ``generate`` uses."""

from __future__ import annotations

import asyncio
import inspect
import json
from pathlib import Path

import pytest

import promptwire
from promptwire.testing.provider_servers import fake_provider

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SOURCE = """\
import llm M from "ollama://ok"

main agent A {
    model M
    role "R"
    description "D"

    main func(input) {
        use input.topic as topic
        return generate({ input: "Say ok." }) -> {
            ok boolean
        }
    }
}
"""


def test_the_shared_parameters_have_generates_names() -> None:
    generate = inspect.signature(promptwire.generate).parameters
    for function in (promptwire.run, promptwire.arun):
        parameters = inspect.signature(function).parameters
        shared = (
            "provider",
            "model",
            "format",
            "host",
            "timeout",
            "responses",
            "on_text",
            "record",
            "replay",
            "adapter",
        )
        for name in shared:
            assert parameters[name].kind == generate[name].kind, (function.__name__, name)


def test_a_program_file_runs_offline_with_canned_replies() -> None:
    given = json.loads((EXAMPLES / "evidence-qa.input.json").read_text(encoding="utf-8"))
    replies = json.loads((EXAMPLES / "evidence-qa.responses.json").read_text(encoding="utf-8"))
    result = promptwire.run(EXAMPLES / "evidence-qa.as", given, responses=replies)
    assert result.value == {**replies[-1], "confidence": 0.8}  # a number written as text, coerced
    assert [call.attempt for call in result.calls] == [1, 2]
    assert result.to_dict()["value"] == result.value


def test_program_text_runs_against_a_provider_by_its_scheme(monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_provider() as server:
        result = promptwire.run(SOURCE, {"topic": "x"}, "auto", base_url={"ollama": server.root}, path="inline.as")
        forced = promptwire.run(SOURCE, {"topic": "x"}, "ollama", "ok", base_url=server.root, format="messages")
    assert result.value == forced.value == {"ok": True}
    assert str(result.calls[0].site) == "inline.as:10:16"
    assert server.requests[0] == server.requests[1]  # messages is AgentScript's text for such a prompt


def test_a_program_run_is_recorded_and_replayed_from_python(tmp_path: Path) -> None:
    recording = tmp_path / "inline.recording.jsonl"
    with fake_provider() as server, promptwire.Recorder(recording) as recorder:
        real = promptwire.run(SOURCE, {"topic": "x"}, "ollama", "ok", base_url=server.root, record=recorder)
    replayed = promptwire.run(SOURCE, {"topic": "x"}, replay=promptwire.Recording.read(recording))  # no server
    assert replayed.value == real.value == {"ok": True} and replayed.trace == real.trace
    with pytest.raises(promptwire.FieldError, match="record"):
        promptwire.run(SOURCE, {"topic": "x"}, record=recorder, replay=promptwire.Recording.read(recording))


def test_arun_streams_on_the_callers_loop() -> None:
    pieces: list[str] = []

    async def main() -> promptwire.runs.run.RunResult:
        return await promptwire.arun(SOURCE, {"topic": "x"}, responses=['{"ok": false}'], on_text=pieces.append)

    result = asyncio.run(main())
    assert result.value == {"ok": False} and pieces == ['{"ok": false}']


def test_arun_on_the_loops_thread_gives_the_same_run_and_starts_no_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    async def main(on_loop_thread: bool) -> tuple[promptwire.runs.run.RunResult, list[str]]:
        pieces: list[str] = []
        result = await promptwire.arun(
            SOURCE, {"topic": "x"}, responses=['{"ok": false}'], on_text=pieces.append, on_loop_thread=on_loop_thread
        )
        return result, pieces

    started = threading.Thread.start
    names: list[str] = []

    def counted(thread: threading.Thread) -> None:
        names.append(thread.name)
        started(thread)

    monkeypatch.setattr(threading.Thread, "start", counted)
    (in_thread, pieces), (on_loop, same_pieces) = asyncio.run(main(False)), asyncio.run(main(True))
    assert (on_loop.value, on_loop.trace, same_pieces) == (in_thread.value, in_thread.trace, pieces)
    # one program thread, the first run's: the second ran on the loop's thread
    assert [name for name in names if name.startswith("promptwire run")] == ["promptwire run (offline)"]


def test_a_failed_run_raises_with_its_calls() -> None:
    with pytest.raises(promptwire.PromptwireError) as failed:
        promptwire.run(SOURCE, {"topic": "x"}, responses=["not json"])
    assert len(failed.value.calls) == 1


def test_read_takes_another_frameworks_prompt() -> None:
    prompt = promptwire.read({"input": "Hi", "output": {"reply": ("str", "your reply")}}, "agently")
    assert prompt.instruction == "Hi" and prompt.output is not None
    assert promptwire.read({"instruction": "Hi"}) == promptwire.Prompt(instruction="Hi")
    with pytest.raises(promptwire.FieldError, match="identity"):
        promptwire.read({"identity": 3})


@pytest.mark.parametrize(
    ("base_url", "error", "message"),
    [
        ("ftp://me:pw-secret-1@h", promptwire.FieldError, "base_url: not an http:// or https:// URL"),
        ({"ollama": "http://h", "nope": "http://h"}, promptwire.PromptwireError, "no adapter serves nope:// models"),
        ("http://h", promptwire.PromptwireError, "say whose base URL it is"),
    ],
)
def test_a_bad_base_url_is_refused_before_the_run(base_url: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message) as refused:
        promptwire.run(SOURCE, {"topic": "x"}, "auto", base_url=base_url)  # type: ignore[arg-type]
    assert "pw-secret-1" not in str(refused.value)
