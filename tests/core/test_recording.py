"""calls/recording.py: the recording format read and written, the request digest, drift found and
explained, and record/replay from Python (promptwire.generate, agenerate, arun) through the real
OpenAI and Ollama SDKs over real HTTP against the local fake provider."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import promptwire
from promptwire import Prompt
from promptwire.calls.recording import Recorder, Recording, first_difference, is_recording, request_digest
from promptwire.core.call import ProviderRequest
from promptwire.core.errors import PromptDrift, RecordingError
from promptwire.renderers.agentscript import shape_contract
from promptwire.runs.options import RunOptions
from promptwire.runs.run import arun
from promptwire.testing.provider_servers import fake_provider

from hypothesis_profile import examples

HEADER = '{"format":"promptwire-recording","version":1,"provider":"openai","model":null}\n'


def _prompt(instruction: str = "Check.") -> Prompt:
    return Prompt(instruction=instruction, output=shape_contract({"ok": "boolean"}))


def _record(call: int = 1, **changes: object) -> str:
    record = {
        "call": call,
        "site": None,
        "attempt": 1,
        "provider": "openai",
        "path": "chat/completions",
        "model": "m",
        "digest": request_digest("openai", "chat/completions", b'{"model":"m"}'),
        "streamed": False,
        "request": {"model": "m"},
        "reply": {"canned": "hi"},
        "usage": None,
        **changes,
    }
    return json.dumps(record) + "\n"


def test_the_digest_is_sha256_of_provider_path_and_the_body_bytes() -> None:
    body = '{"model":"gpt-4o","messages":[{"role":"user","content":"Hé \\ud83d"}]}'.encode()
    expected = hashlib.sha256(b"openai\nchat/completions\n" + body).hexdigest()
    assert request_digest("openai", "chat/completions", body) == f"sha256:{expected}"
    assert request_digest("openai-responses", "chat/completions", body) != f"sha256:{expected}"


def test_python_record_then_replay_with_no_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "calls.jsonl"
    with fake_provider() as server, Recorder(path) as recorder, monkeypatch.context() as env:
        env.setenv("OPENAI_BASE_URL", server.base_url)
        env.setenv("OPENAI_API_KEY", "sk-test")
        real = promptwire.generate(_prompt(), "openai", "ok", record=recorder)
    replayed = promptwire.generate(_prompt(), replay=Recording.read(path))
    assert (replayed.value, real.value) == ({"ok": True}, {"ok": True})
    assert replayed.calls[0].request.kwargs == real.calls[0].request.kwargs
    real_reply, replayed_reply = real.calls[0].reply, replayed.calls[0].reply
    assert real_reply is not None and replayed_reply is not None
    assert type(replayed_reply.raw) is type(real_reply.raw)  # the SDK's ChatCompletion, rebuilt
    assert (replayed_reply.text, replayed_reply.usage) == (real_reply.text, real_reply.usage)
    with pytest.raises(PromptDrift) as drift:
        promptwire.generate(_prompt("Check again."), replay=Recording.read(path))
    assert str(drift.value).startswith("prompt drift at a call without a site attempt 1: the request is not one")
    assert 'recorded: "Check."' in str(drift.value) and 'current:  "Check again."' in str(drift.value)
    assert len(drift.value.calls) == 0  # no reply came: nothing was answered


def test_concurrent_async_calls_record_and_replay_in_any_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "many.jsonl"
    prompts = [_prompt(f"Check number {index}.") for index in range(20)]

    async def many(**given: object) -> list[object]:
        results = await asyncio.gather(*(promptwire.agenerate(prompt, **given) for prompt in prompts))  # type: ignore[arg-type]
        return [result.calls[0].request.kwargs["messages"] for result in results]

    with fake_provider() as server, Recorder(path) as recorder, monkeypatch.context() as env:
        env.setenv("OLLAMA_HOST", server.base_url.removesuffix("/v1"))
        sent = asyncio.run(many(provider="ollama", model="ok", record=recorder))
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 21 and all(json.loads(line) for line in lines)
    prompts.reverse()  # asked in another order: each request finds its own reply
    assert asyncio.run(many(replay=Recording.read(path))) == list(reversed(sent))


def test_an_awaited_program_run_records_each_call_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """arun makes the program's calls on the event loop (OnLoop): the site set in the program's
    thread reaches the adapter there."""
    program = tmp_path / "p.as"
    program.write_text(
        'import llm M from "ollama://ok"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        '    main func(input) {\n        generate({ input: "One." })\n        generate({ input: "Two." })\n    }\n}\n',
        encoding="utf-8",
    )
    path = tmp_path / "p.jsonl"
    with fake_provider() as server, Recorder(path) as recorder, monkeypatch.context() as env:
        env.setenv("OLLAMA_HOST", server.base_url.removesuffix("/v1"))
        result = asyncio.run(arun(program, {}, RunOptions(adapter="ollama", record=recorder)))
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    assert [(record["site"], record["attempt"]) for record in records] == [(f"{program}:7:9", 1), (f"{program}:8:9", 1)]
    replayed = asyncio.run(arun(program, {}, RunOptions(replay=Recording.read(path))))
    assert replayed.to_dict() == result.to_dict()


def test_a_recording_is_told_from_canned_replies_by_its_header() -> None:
    assert is_recording(HEADER + _record())
    assert is_recording("\ufeff" + HEADER)
    assert not is_recording('["canned"]')
    assert not is_recording('{"format": "something else"}\n')
    assert not is_recording("{not json\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "run.jsonl:1: not a recording: no header line"),
        ('{"format": "x"}\n', 'run.jsonl:1: not a recording: the header must say "format": "promptwire-recording"'),
        (
            '{"format": "promptwire-recording", "version": 2}\n',
            "run.jsonl:1: a recording of version 2; this promptwire reads version 1",
        ),
        (
            HEADER + "{oops\n" + _record(),
            "run.jsonl:2: not a JSON line: Expecting property name enclosed in double quotes",
        ),
        (HEADER + '{"call": 1}\n', "run.jsonl:2: the record has no 'site', 'attempt', 'provider', 'path', 'model', "),
        (HEADER + _record(call=True), "run.jsonl:2: the record's 'call' is not an integer"),
        (HEADER + _record(site=3), "run.jsonl:2: the record's 'site' is not text or null"),
        (HEADER + _record(request=[]), "run.jsonl:2: the record's 'request' is not a JSON object"),
        (HEADER + "[1]\n", "run.jsonl:2: a record must be a JSON object"),
    ],
)
def test_what_is_not_a_recording_is_told_by_its_line(text: str, message: str) -> None:
    with pytest.raises(RecordingError) as error:
        Recording.parse(text, "run.jsonl")
    assert str(error.value).startswith(message)


def test_a_torn_last_line_is_left_out_and_said() -> None:
    torn = Recording.parse(HEADER + _record() + _record(2)[:30], "run.jsonl")
    assert len(torn.records) == 1
    assert torn.warnings == ("run.jsonl:3: a torn last line (the recording run was cut short), left out",)
    whole = Recording.parse(HEADER + _record() + _record(2).rstrip("\n"), "run.jsonl")  # only its newline lost
    assert (len(whole.records), whole.warnings) == (2, ())


@settings(max_examples=examples(2))
@given(st.text(alphabet=st.sampled_from('{}[]":,\n 01aptvf\\' + "\u2028"), max_size=300))
def test_any_text_reads_as_a_recording_or_fails_with_a_recording_error(text: str) -> None:
    for candidate in (text, HEADER + text, HEADER + _record() + text):
        try:
            Recording.parse(candidate, "run.jsonl")
        except RecordingError as exc:
            assert str(exc).startswith("run.jsonl:")


def test_the_first_difference_is_named_by_its_place() -> None:
    assert first_difference({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "x"}]}) is None
    assert first_difference({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "y"}]}) == ("a[1].b", '"x"', '"y"')
    assert first_difference({"a": 1}, {"a": 1.0}) == ("a", "1", "1.0")  # other bytes, the same number to Python
    assert first_difference({"a": 1, "b": 2}, {"b": 2, "a": 1}) == (
        "the body (the order of its keys)",
        '["a", "b"]',
        '["b", "a"]',
    )
    assert first_difference({"a": 1}, {"a": 1, "tools": []}) == ("tools", "(absent)", "[]")
    assert first_difference({"m": [1]}, {"m": [1, 2]}) == ("m[1]", "(absent)", "2")
    assert first_difference({"t": "one\ntwo\nthree"}, {"t": "one\n2\nthree"}) == ("t, line 2", '"two"', '"2"')
    assert first_difference({"t": "one\ntwo"}, {"t": "one\ntwo\n"}) == ("t, line 3", "(absent)", '""')
    long = first_difference({"t": "x" * 500}, {"t": "y" * 500})
    assert long is not None and len(long[1]) == 100 and long[1].endswith("...")


def test_accepted_drift_is_answered_by_the_next_record_and_kept() -> None:
    recording = Recording.parse(HEADER + _record(), "run.jsonl", accept_drift=True)
    answered = recording.answer("openai", "chat/completions", ProviderRequest({"model": "n"}))
    assert answered.call == 1 and recording.unused() == []
    (report,) = recording.drifted
    assert report.splitlines()[-3:] == ["  first difference, at model:", '    recorded: "m"', '    current:  "n"']
    with pytest.raises(PromptDrift):  # nothing left to answer with
        recording.answer("openai", "chat/completions", ProviderRequest({"model": "n"}))


def test_the_recorder_writes_only_a_regular_file_of_its_own(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(RecordingError, match="not a regular file"):
        Recorder(fifo)
    with pytest.raises(RecordingError, match="under /proc, /sys or /dev"):
        Recorder("/proc/self/comm")
    with pytest.raises(RecordingError, match="cannot write the file"):
        Recorder(tmp_path / "no-such-folder" / "run.jsonl")
    old = tmp_path / "old.jsonl"
    old.write_text("x" * 1000, encoding="utf-8")
    Recorder(old).close()  # emptied, then a header for a run that made no call
    assert Recording.read(old).records == []


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([1.0, 0.5]) | st.text("ab\n", max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("xyz"), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=examples(3))
@given(_JSON, _JSON)
def test_a_difference_is_found_exactly_when_the_bytes_differ(recorded: object, current: object) -> None:
    from promptwire.core.json_text import to_bytes

    found = first_difference(recorded, current)
    assert (found is None) == (to_bytes(recorded) == to_bytes(current))
    if found is not None:
        assert found[1] != found[2] or "order" in found[0]
