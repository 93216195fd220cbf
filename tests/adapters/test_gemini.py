"""The Gemini adapter through the real google-genai SDK over real HTTP, against the fake Gemini API
(testing/gemini_server.py): the body sent is the body built, whole and streamed, sync and async;
replies read with their thoughts, signatures and usage; failures as promptwire's errors (mid-stream
too); a hundred concurrent calls; token counts; record and replay; routing by scheme; a dry run
that imports no SDK."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import promptwire
from promptwire.adapters.gemini import GeminiAdapter
from promptwire.core.call import ProviderRequest, Whole
from promptwire.core.errors import (
    AuthenticationError,
    BadRequestError,
    MalformedResponseError,
    ModelNotFoundError,
    PermissionDeniedError,
    ProviderConnectionError,
    ProviderTimeoutError,
    RateLimitedError,
    RefusalError,
    ServerError,
)
from promptwire.core.json_text import to_bytes
from promptwire.frontend.asrender.cli import main
from promptwire.testing.gemini_server import gemini_server, tokens_of
from promptwire.testing.provider_servers import FakeProvider
from tests.adapters.test_fake_provider_command import PERMISSIONS, PROGRAMS

KEY = "gm-test-key-0123456789"
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    with gemini_server() as running:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", running.root)
        monkeypatch.setenv("GEMINI_API_KEY", KEY)
        monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
        yield running


def _request(model: str = "ok", **prompt: Any) -> ProviderRequest:
    return promptwire.build_request({"instruction": "Hi", **prompt}, provider="gemini", model=model)


# --- the request -----------------------------------------------------------------------------------


def test_the_body_is_gemini_json_with_the_model_in_the_url() -> None:
    request = promptwire.build_request(
        {
            "system": "Be brief.",
            "instruction": "Hi",
            "tools": [{"name": "look", "description": "Looks.", "parameters": SCHEMA, "returns": SCHEMA}],
            "output": {"schema": SCHEMA},
            "config": {"temperature": 0.5, "max_output": 100, "think": "high"},
        },
        provider="gemini",
        model="gemini://gemini-3-pro",
        format="conversation",
    )
    assert request.model == "gemini-3-pro" and "model" not in request.kwargs
    assert request.kwargs == {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "look",
                        "description": "Looks.",
                        "parametersJsonSchema": SCHEMA,
                        "responseJsonSchema": SCHEMA,
                    }
                ]
            }
        ],
        "generationConfig": {
            "temperature": 0.5,
            "maxOutputTokens": 100,
            "responseMimeType": "application/json",
            "responseJsonSchema": SCHEMA,
            "thinkingConfig": {"includeThoughts": True, "thinkingLevel": "HIGH"},
        },
    }
    assert request.notes == ()


def test_a_gemini_2_model_takes_a_budget_for_a_level_and_says_so() -> None:
    request = _request("gemini-2.5-flash", config={"think": "low"})
    assert request.kwargs["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 1024}
    assert request.notes == ("think 'low': gemini-2.5-flash takes a thinking budget, not a level; sent as 1024 tokens",)


def test_a_name_that_is_no_model_name_is_refused_before_sending() -> None:
    with pytest.raises(BadRequestError, match="is not a model name"):
        _request("gemini://gemini-3:streamGenerateContent")


def test_every_cache_breakpoint_is_named_in_one_note() -> None:
    request = promptwire.build_request(
        {"system": "S", "instruction": "Hi", "cache": {"system": {}, "key": "k1"}},
        provider="gemini",
        model="m",
    )
    assert request.notes == (
        "cache breakpoints left out (messages[0]): Gemini's context caching is a resource (cachedContents, "
        "made beforehand and named in a request), not a breakpoint",
        "cache key 'k1' left out: Gemini has no cache key",
    )


def test_a_dry_run_imports_no_sdk(tmp_path: Path) -> None:
    script = (
        "import sys, promptwire\n"
        "r = promptwire.build_request({'instruction': 'Hi'}, provider='gemini', model='gemini://m')\n"
        "assert r.kwargs['contents'][0]['parts'] == [{'text': 'Instruction:\\nHi'}]\n"
        "print(sorted(m for m in sys.modules if m.startswith(('google', 'httpx'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert done.stdout.strip() == "[]"


# --- sending ---------------------------------------------------------------------------------------


def test_the_bytes_sent_are_the_bytes_built_whole_and_streamed(server: FakeProvider) -> None:
    adapter = GeminiAdapter()
    request = _request(output={"schema": SCHEMA}, config={"think": True})
    reply = adapter.parse_reply(adapter.send(request, 5))
    *texts, whole = adapter.stream(adapter.streamed(request), 5)
    assert server.raw_bodies == [to_bytes(request.kwargs)] * 2
    assert server.headers[0]["x-goog-api-key"] == KEY
    assert reply.text == '{"ok": true}' == "".join(texts)
    assert isinstance(whole, Whole) and adapter.parse_reply(whole.raw).text == reply.text
    assert reply.reasoning == "I think about it (1)."
    assert reply.finish_reason == "STOP"
    assert reply.usage is not None and (reply.usage.input, reply.usage.output) == (12, 8)  # thoughts are output
    assert reply.usage.details is not None and reply.usage.details["cachedContentTokenCount"] == 2


def test_the_base_url_and_key_of_the_adapter_win(server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("GOOGLE_API_KEY", "the-google-key-first")
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")  # the SDK's switch to Vertex AI: not followed
    adapter = GeminiAdapter().with_base_url(server.root)
    adapter.send(_request(), 5)
    assert server.headers[0]["x-goog-api-key"] == "the-google-key-first"  # the SDK's order: GOOGLE_API_KEY first
    keyed = GeminiAdapter(api_key="own-key-0000", base_url=server.root)
    keyed.send(_request(), 5)
    assert server.headers[1]["x-goog-api-key"] == "own-key-0000"


def test_no_key_is_refused_before_sending(server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY")
    with pytest.raises(AuthenticationError, match="GEMINI_API_KEY"):
        GeminiAdapter().send(_request(), 5)
    assert server.requests == []


def test_async_calls_whole_and_streamed_and_a_hundred_at_once(server: FakeProvider) -> None:
    adapter = GeminiAdapter()

    async def calls() -> list[str]:
        one = adapter.parse_reply(await adapter.asend(_request(), 5)).text
        streamed = [item async for item in adapter.astream(_request(), 5)]
        assert isinstance(streamed[-1], Whole)
        many = await asyncio.gather(*(adapter.asend(_request("delay50"), 10) for _ in range(100)))
        await adapter.aclose()
        return [str(one), "".join(str(text) for text in streamed[:-1]), *(adapter.parse_reply(r).text for r in many)]

    texts = asyncio.run(calls())
    assert texts == ['{"ok": true}'] * 102
    assert len(server.requests) == 102


@pytest.mark.parametrize(
    ("model", "error", "status"),
    [
        ("e301", BadRequestError, 301),  # a redirect, which the SDK does not follow
        ("e400", BadRequestError, 400),
        ("e401", AuthenticationError, 401),
        ("e403", PermissionDeniedError, 403),
        ("e404", ModelNotFoundError, 404),
        ("e429", RateLimitedError, 429),
        ("e500", ServerError, 500),
        ("e503", ServerError, 503),
        ("html502", ServerError, 502),
        ("garbage", MalformedResponseError, None),
        ("truncated", ProviderConnectionError, None),
    ],
)
def test_failures_are_promptwires_errors(server: FakeProvider, model: str, error: type, status: int | None) -> None:
    with pytest.raises(error) as raised:
        GeminiAdapter().send(_request(model), 5)
    if status is not None:
        assert raised.value.status == status  # type: ignore[attr-defined]
        assert str(status) in str(raised.value)


def test_a_429_says_how_long_to_wait_from_its_retry_info(server: FakeProvider) -> None:
    with pytest.raises(RateLimitedError) as raised:
        GeminiAdapter().send(_request("busy1"), 5)
    assert raised.value.retry_after == 0.05
    assert GeminiAdapter().parse_reply(GeminiAdapter().send(_request("busy1"), 5)).text == '{"ok": true}'


def test_a_key_the_provider_quotes_is_masked(server: FakeProvider) -> None:
    with pytest.raises(AuthenticationError) as raised:
        GeminiAdapter().send(_request("e401echo"), 5)
    assert KEY not in str(raised.value)


def test_a_blocked_prompt_and_a_safety_finish_are_refusals(server: FakeProvider) -> None:
    adapter = GeminiAdapter()
    with pytest.raises(RefusalError, match="blocked"):
        adapter.parse_reply(adapter.send(_request("blocked"), 5))
    with pytest.raises(RefusalError):
        adapter.parse_reply(adapter.send(_request("refusal"), 5))


@pytest.mark.parametrize(
    ("model", "error"),
    [
        ("streamerror", ServerError),
        ("streamrate", RateLimitedError),
        ("short", ProviderConnectionError),
        ("truncated", ProviderConnectionError),
    ],
)
@pytest.mark.parametrize("awaited", [False, True], ids=["sync", "async"])
def test_a_stream_failing_in_the_middle_is_told(server: FakeProvider, model: str, error: type, awaited: bool) -> None:
    adapter = GeminiAdapter()
    got: list[Any] = []

    async def astreamed() -> None:
        async for item in adapter.astream(_request(model), 5):
            got.append(item)

    with pytest.raises(error):
        if awaited:
            asyncio.run(astreamed())
        else:
            got.extend(adapter.stream(_request(model), 5))
    if model != "truncated":
        assert got and not isinstance(got[-1], Whole)  # the first piece came, then the failure


def _hung_up(server: FakeProvider, times: int) -> bool:
    """Whether the server saw ``times`` clients of the ``hang`` model hang up (waiting a while for it)."""
    for _ in range(500):
        if server.hung_up.count("hang") >= times:
            return True
        threading.Event().wait(0.01)
    return False


def test_a_slow_server_times_out_and_a_stream_stopped_or_cancelled_hangs_up(server: FakeProvider) -> None:
    adapter = GeminiAdapter()
    with pytest.raises(ProviderTimeoutError):
        adapter.send(_request("slow"), 0.3)
    stream = adapter.stream(_request("hang"), 30)
    assert isinstance(next(stream), str)  # the first piece, then the consumer stops
    stream.close()
    assert _hung_up(server, 1)

    async def cancelled() -> None:
        started = asyncio.Event()

        async def read() -> None:
            async for _ in adapter.astream(_request("hang"), 30):
                started.set()

        task = asyncio.create_task(read())
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancelled())
    assert _hung_up(server, 2)


def test_a_reply_without_candidates_and_a_stream_that_is_none_are_malformed(server: FakeProvider) -> None:
    adapter = GeminiAdapter()
    with pytest.raises(MalformedResponseError, match="not an event stream"):
        list(adapter.stream(_request("unstreamed"), 5))

    async def astreamed() -> None:
        async for _ in adapter.astream(_request("unstreamed"), 5):
            pass

    with pytest.raises(MalformedResponseError, match="not an event stream"):
        asyncio.run(astreamed())
    server.reply = lambda body: {"candidates": []}
    with pytest.raises(MalformedResponseError, match="no candidates"):
        adapter.parse_reply(adapter.send(_request(), 5))


def test_a_reply_past_the_size_bound_is_refused(server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    from promptwire.core.errors import ReplyTooLargeError

    monkeypatch.setenv("PROMPTWIRE_MAX_REPLY_SIZE", "64K")
    adapter = GeminiAdapter()
    with pytest.raises(ReplyTooLargeError):
        adapter.send(_request("huge100"), 5)
    with pytest.raises(ReplyTooLargeError):
        list(adapter.stream(_request("huge100"), 5))


# --- token counts ----------------------------------------------------------------------------------


def test_token_counts_send_the_whole_request_and_the_endpoint_takes_it(server: FakeProvider) -> None:
    adapter = GeminiAdapter()
    request = _request(system="Be brief.", tools=[{"name": "look", "parameters": SCHEMA}])
    body = adapter.count_body(request)
    assert body == {"generateContentRequest": {"model": "models/ok", **request.kwargs}}
    expected = tokens_of(body)
    assert adapter.count_tokens(request) == expected
    assert asyncio.run(adapter.acount_tokens(request)) == expected
    assert server.raw_bodies == [to_bytes(body)] * 2
    assert GeminiAdapter.count_endpoint == "POST /v1beta/models/{model}:countTokens"


@pytest.mark.parametrize(
    "body",
    [
        {"contents": [], "generateContentRequest": {"model": "models/ok"}},
        {"model": "models/ok", "contents": []},
        {"generateContentRequest": {"contents": []}},
        {"generateContentRequest": {"model": "models/ok", "stream": True}},
    ],
)
def test_the_count_endpoint_refuses_what_the_real_one_refuses(server: FakeProvider, body: dict[str, Any]) -> None:
    adapter = GeminiAdapter()
    adapter.count_body = lambda request: body  # type: ignore[method-assign]
    with pytest.raises(BadRequestError, match="400"):
        adapter.count_tokens(_request())


def test_a_count_failure_is_promptwires_error(server: FakeProvider) -> None:
    with pytest.raises(ModelNotFoundError):
        GeminiAdapter().count_tokens(_request("e404"))


# --- the public API, the CLI, recordings -----------------------------------------------------------


def test_generate_by_scheme_under_auto_streams_and_records_then_replays(
    server: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "hi.as"
    program.write_text(
        'import llm G from "gemini://ok"\nmain agent A {\n    model G\n    role "R"\n    description "D."\n'
        '    main func(input) {\n        return generate({ input: "Hi" }) -> {\n            ok boolean\n        }\n'
        "    }\n}\n",
        encoding="utf-8",
    )
    recording = tmp_path / "hi.recording.jsonl"
    argv = [str(program), "--provider", "auto", "-O", "json"]
    assert main([*argv, "--record", str(recording)]) == 0
    real = json.loads(capsys.readouterr().out)
    assert [(call["provider"], call["model"], call["reply"]["value"]) for call in real] == [
        ("gemini", "ok", {"ok": True})
    ]
    assert server.requests[0]["generationConfig"]["responseJsonSchema"] == real[0]["schema"]
    monkeypatch.delenv("GEMINI_API_KEY")
    monkeypatch.delenv("GOOGLE_GEMINI_BASE_URL")
    assert main([*argv, "--responses", str(recording)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    differing = {key for key in real[0] if replayed[0][key] != real[0][key]}
    assert differing == {"seconds"}, {key: (real[0][key], replayed[0][key]) for key in differing}
    header, record = (json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines())
    assert header["provider"] == "auto"
    assert (record["provider"], record["model"], record["request"]) == ("gemini", "ok", server.requests[0])


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_the_sdk_sends_with_the_adapters_bounded_http_client_and_builds_none_of_its_own(asynchronous: bool) -> None:
    from promptwire.adapters.base import Endpoint

    adapter = GeminiAdapter()
    where = Endpoint("http://127.0.0.1:9/v1beta/models/m", KEY)
    client = adapter.async_client(where, 5) if asynchronous else adapter.client(where, 5)
    api = client.api
    sending = api._async_httpx_client if asynchronous else api._httpx_client
    assert sending is client.http and client.http.event_hooks["response"]  # the reply bounded
    assert type(api._httpx_client).__module__ == type(api._async_httpx_client).__module__ == "httpx"
    assert (api.vertexai, api._retry.stop.max_attempt_number, client.model) == (False, 1, "models/m")


def test_without_the_sdk_the_extra_to_install_is_named_and_a_dry_run_still_works(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from promptwire.core.sdk import SdkMissing

    monkeypatch.setitem(sys.modules, "google.genai", None)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    with pytest.raises(SdkMissing, match=r"pip install 'promptwire\[gemini\]'"):
        promptwire.generate({"instruction": "Say ok."}, "auto", "gemini://gemini-3-pro")
    prompt = tmp_path / "p.json"
    prompt.write_text('{"instruction": "Say ok."}', encoding="utf-8")
    assert main([str(prompt), "--provider", "gemini", "--model", "m", "--dry-run", "-O", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)[0]
    assert shown["body"]["contents"][0]["role"] == "user" and shown["model"] == "m"


def test_a_streamed_tool_call_recorded_replays_with_no_server(
    server: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptwire.calls.recording import Recorder, Recording

    prompt = {"instruction": "Weather?", "tools": [{"name": "look", "parameters": SCHEMA}]}
    path = tmp_path / "calls.jsonl"
    pieces: list[str] = []
    with Recorder(path) as recorder:
        real = promptwire.generate(prompt, "gemini", "tools", on_text=pieces.append, record=recorder)
    monkeypatch.delenv("GEMINI_API_KEY")
    monkeypatch.delenv("GOOGLE_GEMINI_BASE_URL")
    recording = Recording.parse(path.read_text(encoding="utf-8"), str(path))
    again = promptwire.generate(prompt, "gemini", "tools", replay=recording)
    (first,), (second,) = real.calls, again.calls
    assert second.reply.tool_calls == first.reply.tool_calls and first.reply.tool_calls
    assert second.reply.as_turn() == first.reply.as_turn()
    assert second.reply.usage == first.reply.usage and second.reply.reasoning == first.reply.reasoning
    assert len(server.requests) == 1


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_every_example_program_runs_against_the_fake_gemini_api(
    program: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    folder = tmp_path / "examples"
    shutil.copytree(program.parent, folder, ignore=shutil.ignore_patterns("__pycache__", "*.jsonl"))
    monkeypatch.chdir(folder)
    with gemini_server() as running:
        argv = [program.name, "--provider", "gemini", "--base-url", running.root, "--output", "json"]
        code = main([*argv, *PERMISSIONS.get(program.stem, [])])
    out, err = capsys.readouterr()
    assert code == 0, err
    calls = json.loads(out)
    assert calls and all(call["error"] is None and call["provider"] == "gemini" for call in calls)
    assert len(running.requests) == len(calls)


def test_the_command_serves_until_stopped() -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "promptwire.testing.gemini_server", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        assert first.startswith("fake Gemini API on http://127.0.0.1:"), first
        root = first.split()[4]
        adapter = GeminiAdapter(api_key=KEY, base_url=root)
        reply = adapter.parse_reply(adapter.send(_request(output={"schema": SCHEMA}), 10))
        assert json.loads(reply.text or "") == {"ok": True}
    finally:
        server.send_signal(signal.SIGTERM)
        status = server.wait(timeout=30)
        leftover = server.communicate(timeout=30)
    assert status == 0, leftover


def test_a_batch_waits_as_retry_info_asks_and_the_rows_succeed(
    server: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "classify.as"
    program.write_text(
        'import llm M from "gemini://ok"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        '    main func(input) {\n        generate({ input: "Classify it." }) -> {\n            ok boolean\n'
        "        }\n    }\n}\n",
        encoding="utf-8",
    )
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"text": "a"}\n{"text": "b"}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    argv = ["batch", str(program), "--inputs", str(rows), "--out", str(out), "--provider", "gemini"]
    assert main([*argv, "--model", "busy3", "--concurrency", "1"]) == 0
    assert "3 rate-limit waits" in capsys.readouterr().err
    assert server.asked["busy3"] == 5
    results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(result["status"], len(result["calls"])) for result in results] == [("ok", 1), ("ok", 1)]


@pytest.mark.parametrize(
    ("body", "refusal"),
    [
        ({"contents": [], "stream": True}, 'Unknown name \\"stream\\": Cannot find field.'),
        (
            {"contents": [{"role": "model", "parts": [{"text": "x", "thoughtSignature": "bm90IG91cnM="}]}]},
            "Corrupted thought signature",
        ),
        (
            {"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]}]},
            "number of function response parts",
        ),
    ],
)
def test_the_fake_api_refuses_what_the_real_one_refuses(
    server: FakeProvider, body: dict[str, Any], refusal: str
) -> None:
    with pytest.raises(BadRequestError, match=re.escape(refusal)):
        GeminiAdapter().send(ProviderRequest(body, model="ok"), 5)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_recording_names_the_endpoint_path_and_one_made_without_it_still_replays(
    server: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    """``path`` is the model's method below the base URL, as the SDK sends it: ``generateContent``,
    streamed or not (a stream goes to ``streamGenerateContent``, and ``streamed`` says so: streaming
    is how the reply travels, so a streamed recording replays whole). A recording made when the
    adapter recorded no path (``""``) still replays."""
    from pathless_recordings import pathless

    from promptwire.calls.recording import Recorder, Recording

    path = tmp_path / "calls.jsonl"
    with Recorder(path) as recorder:
        real = promptwire.generate(
            {"instruction": "Hi"}, "gemini", "ok", on_text=(lambda _: None) if streamed else None, record=recorder
        )
    method = "streamGenerateContent?alt=sse" if streamed else "generateContent"
    assert server.paths == [f"/v1beta/models/ok:{method}"]
    _, record = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    assert (record["path"], record["streamed"]) == ("v1beta/models/ok:generateContent", streamed)
    monkeypatch.delenv("GEMINI_API_KEY")
    monkeypatch.delenv("GOOGLE_GEMINI_BASE_URL")
    for text in (path.read_text(encoding="utf-8"), pathless(path.read_text(encoding="utf-8"))):
        again = promptwire.generate({"instruction": "Hi"}, "gemini", "ok", replay=Recording.parse(text, str(path)))
        assert again.calls[0].reply.text == real.calls[0].reply.text  # type: ignore[union-attr]
    assert len(server.paths) == 1
