"""The bedrock adapter: the Converse request built from a render, and the real boto3 client over
real HTTP to the fake Bedrock Runtime (JSON and AWS's binary event stream), whole and streamed,
its failures, its bound on a reply, async calls, recordings, token counts and routing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import promptwire
from promptwire.adapters.base import BUILTIN_SECRET_VARIABLES
from promptwire.adapters.bedrock import BedrockAdapter, EventReader, _split
from promptwire.adapters.status import read_reply
from promptwire.core.call import ProviderRequest, Whole
from promptwire.core.errors import (
    AuthenticationError,
    BadRequestError,
    ModelNotFoundError,
    PromptwireError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    RateLimitedError,
    RefusalError,
    ReplyTooLargeError,
    ServerError,
)
from promptwire.core.json_text import to_bytes
from promptwire.frontend.asrender.cli import main
from promptwire.testing.bedrock_server import (
    _stream_events,
    converse_reply,
    counted_tokens,
    event_message,
    fake_bedrock,
)
from promptwire.testing.provider_servers import FakeProvider

from hypothesis_profile import examples

MODEL = "anthropic.claude-3-5-sonnet-20240620-v1:0"
ARN = f"arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.{MODEL}"
SHAPED = {
    "instruction": "Check.",
    "output": {"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}},
}


@pytest.fixture(autouse=True)
def aws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fake credentials and a region, as the AWS SDK finds them; no profile of the machine's."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDTESTKEY")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret-key")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[FakeProvider]:
    with fake_bedrock() as running:
        yield running


def _request(prompt: Any, model: str = MODEL, **options: Any) -> promptwire.ProviderRequest:
    return promptwire.build_request(prompt, "bedrock", f"bedrock://{model}", **options)


def test_the_request_is_the_converse_request_with_the_model_id_as_the_uri_gives_it() -> None:
    prompt = {
        "system": "Be brief.",
        "instruction": "Hi",
        "tools": [{"name": "w", "description": "Weather.", "parameters": {"type": "object"}}],
        "output": {"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}},
        "config": {"max_output": 100, "temperature": 0.2},
    }
    request = _request(prompt, ARN)
    assert list(request.kwargs) == ["modelId", "messages", "system", "inferenceConfig", "toolConfig", "outputConfig"]
    assert request.kwargs["modelId"] == ARN and request.model_asked() == ARN
    assert request.kwargs["system"] == [{"text": "Be brief."}]
    assert request.kwargs["inferenceConfig"] == {"maxTokens": 100, "temperature": 0.2}
    assert request.kwargs["toolConfig"] == {
        "tools": [{"toolSpec": {"name": "w", "description": "Weather.", "inputSchema": {"json": {"type": "object"}}}}]
    }
    text_format = request.kwargs["outputConfig"]["textFormat"]
    assert text_format["type"] == "json_schema"
    assert json.loads(text_format["structure"]["jsonSchema"]["schema"])["properties"] == {"ok": {"type": "boolean"}}
    assert request.notes == ()


def test_the_schema_text_is_json_dumps_of_the_schema_its_half_characters_escaped_once_in_the_body() -> None:
    schema = {"type": "object", "properties": {"é \ud83d": {"type": "boolean"}}, "required": ["é \ud83d"]}
    request = _request({"instruction": "Hi", "output": {"schema": schema}}, "m")
    text = request.kwargs["outputConfig"]["textFormat"]["structure"]["jsonSchema"]["schema"]
    assert text == json.dumps(schema, ensure_ascii=False)
    assert '\\"é \\ud83d\\":' in to_bytes(request.kwargs).decode()


@pytest.mark.parametrize(
    ("model", "think", "max_output", "fields", "inference", "output"),
    [
        ("anthropic.claude-3-7-sonnet-20250219-v1:0", True, 8000, {"type": "enabled", "budget_tokens": 4096}, 8000, {}),
        (
            "anthropic.claude-sonnet-4-5-20250929-v1:0",
            "high",
            None,
            {"type": "enabled", "budget_tokens": 16384},
            17408,
            {},
        ),
        ("us.anthropic.claude-opus-4-6-v1", "low", None, {"type": "adaptive"}, None, {"effort": "low"}),
    ],
)
def test_claude_thinking_goes_in_the_additional_fields(
    model: str, think: Any, max_output: Any, fields: Any, inference: Any, output: Any
) -> None:
    request = _request({"instruction": "Hi", "config": {"think": think, "max_output": max_output}}, model)
    assert request.kwargs["additionalModelRequestFields"] == {"thinking": fields}
    assert request.kwargs.get("inferenceConfig", {}).get("maxTokens") == inference
    assert request.kwargs.get("outputConfig", {}) == output


def test_other_models_have_no_common_thinking_setting_and_the_note_says_so() -> None:
    request = _request({"instruction": "Hi", "config": {"think": True}}, "amazon.nova-pro-v1:0")
    assert "additionalModelRequestFields" not in request.kwargs
    assert request.notes == ("think True left out: Bedrock has no common thinking setting for amazon.nova-pro-v1:0",)


def test_a_dry_run_imports_no_aws_sdk() -> None:
    code = (
        "import sys, promptwire\n"
        "r = promptwire.build_request({'instruction': 'Hi'}, 'bedrock', 'bedrock://m')\n"
        "assert r.kwargs['modelId'] == 'm'\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('boto3', 'botocore', 'urllib3')))\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


def test_a_generate_sends_the_body_as_built_byte_for_byte(server: FakeProvider) -> None:
    adapter = BedrockAdapter(base_url=server.root)
    prompt = {"system": "Be brief.", "instruction": "Ünïcode \ud800 half", "config": {"max_output": 50}}
    request = _request(prompt, ARN)
    reply = adapter.parse_reply(adapter.send(request, 10))
    body = {key: value for key, value in request.kwargs.items() if key != "modelId"}
    assert server.raw_bodies == [to_bytes(body)]  # the dry run's bytes, not boto3's serialisation
    assert server.requests[0]["modelId"] == ARN  # percent-encoded in the URL by botocore, decoded back
    assert server.headers[0]["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDTESTKEY/")
    assert server.headers[0]["accept-encoding"] == "identity"
    assert (reply.text, reply.reasoning, reply.finish_reason) == ('{"ok": true}', "Easy.", "end_turn")
    assert reply.usage is not None and (reply.usage.input, reply.usage.output) == (12, 3)
    assert reply.usage.as_data()["cacheReadInputTokens"] == 5 and reply.usage.as_data()["cacheWriteInputTokens"] == 2
    assert reply.turn is not None and reply.turn.content[0].signature.startswith("issued:")  # type: ignore[union-attr]


def test_images_and_documents_go_as_base64_text_as_on_the_wire(server: FakeProvider) -> None:
    prompt = {
        "instruction": "Look.",
        "attachments": [
            {"type": "image", "data": "iVBORw0KGgo=", "media_type": "image/png"},
            {"type": "file", "data": "JVBERi0xLjQ=", "media_type": "application/pdf", "filename": "report.v2.pdf"},
        ],
    }
    request = _request(prompt)
    content = request.kwargs["messages"][0]["content"]
    assert content[1:] == [
        {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}},
        {"document": {"format": "pdf", "name": "report-v2", "source": {"bytes": "JVBERi0xLjQ="}}},
    ]
    BedrockAdapter(base_url=server.root).send(request, 10)
    assert server.requests[0]["messages"][0]["content"] == content


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_generate_through_the_public_api_whole_and_streamed(
    server: FakeProvider, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.root)  # botocore's own variable
    pieces: list[str] = []
    result = promptwire.generate(SHAPED, "bedrock", "ok", on_text=pieces.append if streamed else None)
    assert result.value == {"ok": True}
    assert server.requests[0]["operation"] == ("converse-stream" if streamed else "converse")
    assert pieces == (['{"ok": ', "true}"] if streamed else [])
    reply = result.calls[0].reply
    assert reply is not None and reply.turn is not None and reply.reasoning == "Easy."
    assert reply.usage is not None and reply.usage.input == 12


def test_the_event_stream_framing_is_read_by_botocores_own_parser() -> None:
    from botocore.eventstream import EventStreamBuffer

    events, _ = _stream_events(converse_reply("tools", {"toolConfig": {"tools": [{"toolSpec": {"name": "t"}}]}}, None))
    buffer = EventStreamBuffer()
    buffer.add_data(b"".join(events))
    messages = list(buffer)
    assert [m.headers[":event-type"] for m in messages][:2] == ["messageStart", "contentBlockDelta"]
    assert all(m.headers[":message-type"] == "event" for m in messages)
    assert json.loads(messages[-1].payload)["usage"]["inputTokens"] == 12
    exception = event_message({":exception-type": "throttlingException", ":message-type": "exception"}, b"{}")
    buffer.add_data(exception)
    assert next(iter(buffer)).headers[":exception-type"] == "throttlingException"


@pytest.mark.parametrize(
    ("model", "error", "status"),
    [
        ("e400", BadRequestError, 400),
        ("e401", AuthenticationError, 403),
        ("e403", AuthenticationError, 403),
        ("e404", ModelNotFoundError, 404),
        ("e429", RateLimitedError, 429),
        ("e500", ServerError, 500),
        ("e503", ServerError, 503),
    ],
)
def test_errors_are_promptwires_classes_by_bedrocks_error_type(
    server: FakeProvider, model: str, error: type[ProviderError], status: int
) -> None:
    adapter = BedrockAdapter(base_url=server.root)
    with pytest.raises(error) as raised:
        adapter.send(_request({"instruction": "Hi"}, model), 10)
    assert raised.value.status == status
    assert f"failure {model}" in str(raised.value)
    assert raised.value.retry_after == (1.0 if model == "e429" else None)


@pytest.mark.parametrize(
    ("model", "error", "said"),
    [
        ("streamerror", ServerError, "modelStreamErrorException: The model stopped in the middle."),
        ("streamrate", RateLimitedError, "throttlingException: Too many tokens"),
        ("short", ProviderConnectionError, "stream ended before the reply was complete"),
        ("truncated", ProviderConnectionError, "Connection broken"),
    ],
)
def test_a_stream_that_fails_in_the_middle_is_the_providers_failure(
    server: FakeProvider, model: str, error: type[ProviderError], said: str
) -> None:
    pieces: list[str] = []
    with pytest.raises(error, match=said):
        for item in BedrockAdapter(base_url=server.root).stream(_request({"instruction": "Hi"}, model), 10):
            if isinstance(item, str):
                pieces.append(item)
    assert pieces == ['{"ok": ']  # the first text came before the failure


def test_a_hanging_call_times_out_naming_the_endpoint(server: FakeProvider) -> None:
    with pytest.raises(ProviderTimeoutError, match=f"timed out after 0.5s: {server.root}"):
        BedrockAdapter(base_url=server.root).send(_request({"instruction": "Hi"}, "hang"), 0.5)


def test_no_credentials_and_no_region_are_told_as_such(monkeypatch: pytest.MonkeyPatch, server: FakeProvider) -> None:
    monkeypatch.delenv("AWS_DEFAULT_REGION")
    with pytest.raises(BadRequestError, match="need an AWS region"):
        BedrockAdapter().send(_request({"instruction": "Hi"}), 10)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    with pytest.raises(AuthenticationError, match="need AWS credentials"):
        BedrockAdapter(base_url=server.root).send(_request({"instruction": "Hi"}), 10)


def test_aws_secrets_are_masked_in_every_message(server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    assert {"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"} <= set(BUILTIN_SECRET_VARIABLES)
    monkeypatch.setenv("AWS_SESSION_TOKEN", "session-token-123456")
    with pytest.raises(BadRequestError) as raised:
        BedrockAdapter(base_url=server.root).send(_request({"instruction": "Hi"}, "e400echo"), 10)
    assert server.headers[0]["x-amz-security-token"] == "session-token-123456"  # the proxy saw it...
    assert "session-token-123456" not in str(raised.value) and "security token ***" in str(raised.value)


def test_a_guardrails_stop_is_a_refusal(server: FakeProvider) -> None:
    adapter = BedrockAdapter(base_url=server.root)
    with pytest.raises(RefusalError, match="the guardrail stopped this"):
        adapter.parse_reply(adapter.send(_request({"instruction": "Hi"}, "refusal"), 10))


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_reply_past_the_bound_is_refused(
    server: FakeProvider, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    monkeypatch.setenv("PROMPTWIRE_MAX_REPLY_SIZE", "64K")
    adapter = BedrockAdapter(base_url=server.root)
    request = _request({"instruction": "Hi"}, "huge100")
    with pytest.raises(ReplyTooLargeError, match="larger than 64 KiB"):
        list(adapter.stream(request, 10)) if streamed else adapter.send(request, 10)
    monkeypatch.setenv("PROMPTWIRE_MAX_REPLY_SIZE", "1M")
    assert adapter.parse_reply(adapter.send(request, 10)).text.startswith("x" * 1023 + " ")  # type: ignore[union-attr]


def test_a_consumer_that_stops_early_closes_the_connection(server: FakeProvider) -> None:
    stream = BedrockAdapter(base_url=server.root).stream(_request({"instruction": "Hi"}, "hang"), 10)
    assert next(stream) == '{"ok": '
    stream.close()
    deadline = time.monotonic() + 5
    while not server.hung_up and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.hung_up == ["hang"]


def test_a_cancelled_async_stream_stops_reading(server: FakeProvider) -> None:
    adapter = BedrockAdapter(base_url=server.root)

    async def cancelled() -> list[str]:
        pieces: list[str] = []

        async def read() -> None:
            async for item in adapter.astream(_request({"instruction": "Hi"}, "hang"), 5):
                if isinstance(item, str):
                    pieces.append(item)

        task = asyncio.create_task(read())
        while not pieces:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return pieces

    assert asyncio.run(cancelled()) == ['{"ok": ']


def test_a_hundred_concurrent_async_calls(server: FakeProvider, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.root)

    async def hundred() -> list[Any]:
        calls = [promptwire.agenerate(SHAPED, "bedrock", "delay20") for _ in range(100)]
        return await asyncio.gather(*calls)

    results = asyncio.run(hundred())
    assert [result.value for result in results] == [{"ok": True}] * 100
    assert len(server.requests) == 100


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_recorded_call_replays_the_same_reply(
    server: FakeProvider, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, streamed: bool
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.root)
    recording = tmp_path / "bedrock.jsonl"
    prompt = {"instruction": "Hi", "tools": [{"name": "w", "parameters": {"type": "object"}}]}
    options = {"on_text": (lambda text: None) if streamed else None}
    with promptwire.Recorder(recording) as recorder:
        real = promptwire.generate(prompt, "bedrock", "tools", record=recorder, **options)
    replayed = promptwire.generate(prompt, "bedrock", "tools", replay=promptwire.Recording.read(recording))
    assert len(server.requests) == 1
    real_reply, replayed_reply = real.calls[0].reply, replayed.calls[0].reply
    assert real_reply is not None and replayed_reply is not None
    assert replayed_reply.turn == real_reply.turn and replayed_reply.tool_calls == real_reply.tool_calls
    assert replayed_reply.turn.content[1].encrypted.startswith("aXNzdWVk")  # type: ignore[union-attr]


def test_token_counts_send_only_what_count_tokens_takes(server: FakeProvider) -> None:
    adapter = BedrockAdapter(base_url=server.root)
    prompt = {**SHAPED, "system": "S.", "tools": [{"name": "w", "parameters": {"type": "object"}}]}
    request = _request({**prompt, "config": {"max_output": 8000, "temperature": 0.5, "think": True}})
    body = adapter.count_body(request)
    assert list(body) == ["modelId", "input"]
    assert list(body["input"]["converse"]) == ["messages", "system", "toolConfig", "additionalModelRequestFields"]
    assert adapter.count_tokens(request) == counted_tokens(body["input"]["converse"])
    assert asyncio.run(adapter.acount_tokens(request)) == counted_tokens(body["input"]["converse"])
    assert server.raw_bodies[0] == to_bytes({"input": body["input"]})
    assert adapter.count_endpoint == "POST /model/{modelId}/count-tokens"


def test_the_count_endpoint_refuses_what_the_real_one_refuses(server: FakeProvider) -> None:
    adapter = BedrockAdapter(base_url=server.root)
    request = _request({**SHAPED, "config": {"max_output": 10}})
    whole = {"modelId": MODEL, "input": {"converse": {k: v for k, v in request.kwargs.items() if k != "modelId"}}}
    refused = ProviderRequest(request.kwargs, ())
    adapter.count_body = lambda _: whole  # type: ignore[method-assign]
    with pytest.raises(BadRequestError, match=r"extraneous key \[inferenceConfig\] is not permitted"):
        adapter.count_tokens(refused)


def test_provider_auto_routes_bedrock_uris_and_shows_json(
    server: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "p.as"
    program.write_text(
        f'import llm M from "bedrock://{ARN}"\nmain agent A {{\n    model M\n    role "R"\n    description "D"\n'
        '    main func(input) {\n        generate({ input: "x" }) -> {\n            ok boolean\n        }\n    }\n}\n',
        encoding="utf-8",
    )
    code = main(
        [str(program), "--provider", "auto", "--base-url", f"bedrock={server.root}", "-O", "json", "--progress"]
    )
    out, err = capsys.readouterr()
    assert code == 0 and f"agent A: bedrock {ARN} attempt 1 sent" in err  # the model shown in progress
    (call,) = json.loads(out)
    assert (call["provider"], call["model"], call["reply"]["value"]) == ("bedrock", ARN, {"ok": True})
    assert call["usage"]["cacheReadInputTokens"] == 5 and server.requests[0]["modelId"] == ARN
    code = main([str(program), "--provider", "auto", "--dry-run", "-O", "json"])
    (shown,) = json.loads(capsys.readouterr().out)
    assert (
        code == 0 and shown["body"]["modelId"] == ARN and list(shown["body"])[:3] == ["modelId", "messages", "system"]
    )


_KEYS = [
    "output",
    "message",
    "content",
    "role",
    "text",
    "toolUse",
    "toolUseId",
    "name",
    "input",
    "reasoningContent",
    "reasoningText",
    "signature",
    "redactedContent",
    "stopReason",
    "usage",
    "inputTokens",
    "outputTokens",
    "contentBlockDelta",
    "contentBlockStart",
    "contentBlockIndex",
    "delta",
    "start",
    "messageStart",
    "messageStop",
    "metadata",
]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=examples(2), deadline=None)
@given(JSON)
def test_any_reply_is_read_or_told_as_a_malformed_one(raw: Any) -> None:
    """A reply is data from the network: whatever its shape, it is a Reply or a PromptwireError."""
    with contextlib.suppress(PromptwireError):
        BedrockAdapter().parse_reply(raw)


@settings(max_examples=examples(2), deadline=None)
@given(st.lists(JSON, max_size=6))
@example([{"messageStop": False}])  # a stop of the wrong shape raised AttributeError from whole()
@example([{"messageStop": {}}, {"metadata": []}])
@example([{"contentBlockStart": {"contentBlockIndex": 0, "start": {"toolUse": {}}}}, {"messageStop": {}}])
def test_any_stream_is_read_or_told_as_a_malformed_one(events: list[Any]) -> None:
    reader = EventReader()
    try:
        for event in events:
            read_reply(reader.feed, event)
        BedrockAdapter().parse_reply(reader.whole())
    except PromptwireError:
        pass


def test_a_streamed_reply_is_the_same_turn_as_one_sent_whole(server: FakeProvider) -> None:
    adapter = BedrockAdapter(base_url=server.root)
    request = _request({"instruction": "Hi", "tools": [{"name": "w", "parameters": {"type": "object"}}]}, "tools")
    whole = adapter.parse_reply(adapter.send(request, 10))
    last = list(adapter.stream(request, 10))[-1]
    assert isinstance(last, Whole)
    streamed = adapter.parse_reply(last.raw)
    assert streamed.turn == whole.turn and streamed.tool_calls == whole.tool_calls
    assert streamed.usage == whole.usage and streamed.finish_reason == whole.finish_reason == "tool_use"


def test_the_fake_runs_as_a_command_until_stopped() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "promptwire.testing.bedrock_server"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        root = process.stdout.readline().split(" on ")[1].split()[0]
        adapter = BedrockAdapter(base_url=root)
        schema = {"type": "object", "properties": {"answer": {"type": "string"}, "n": {"type": "integer"}}}
        reply = adapter.parse_reply(adapter.send(_request({"instruction": "Q", "output": {"schema": schema}}), 10))
        assert json.loads(reply.text or "") == {"answer": "fake", "n": 0}  # the simplest value the schema accepts
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0


def test_a_program_run_is_recorded_and_replayed_byte_for_byte(
    server: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    program = tmp_path / "p.as"
    program.write_text(
        f'import llm M from "bedrock://{MODEL}"\nmain agent A {{\n    model M\n    role "R"\n    description "D"\n'
        '    main func(input) {\n        generate({ input: "x" }) -> {\n            ok boolean\n        }\n    }\n}\n',
        encoding="utf-8",
    )
    recording = tmp_path / "run.jsonl"
    run = [str(program), "--provider", "auto", "-O", "trace"]
    assert main([*run, "--base-url", f"bedrock={server.root}", "--record", str(recording)]) == 0
    recorded = capsys.readouterr().out
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name)  # a replay sends nothing and needs no credentials
    assert main([*run, "--responses", str(recording)]) == 0
    assert capsys.readouterr().out == recorded
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "model_id",
    [
        "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/" + "p" * 80,  # past the first read
        "é" * 47 + "x",  # a two-byte character cut by the first read
        "x" * 93 + '"\\',  # escapes across it
        "m" * 2048,
    ],
)
def test_the_model_id_is_cut_out_of_the_body_however_long_it_is(model_id: str) -> None:
    rest = {"messages": [{"role": "user", "content": [{"text": "Hi"}]}]}
    assert _split(to_bytes({"modelId": model_id, **rest})) == (model_id, to_bytes(rest))
    assert _split(to_bytes({"modelId": model_id})) == (model_id, b"{}")


@settings(max_examples=examples(2), deadline=None)
@given(st.text(max_size=40), st.dictionaries(st.sampled_from(["messages", "system", "x"]), JSON, max_size=3))
def test_the_body_sent_is_the_request_without_its_model_id(model_id: str, rest: dict[str, Any]) -> None:
    assert _split(to_bytes({"modelId": model_id, **rest})) == (model_id, to_bytes(rest))


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_recording_names_the_endpoint_path_and_one_made_without_it_still_replays(
    server: FakeProvider, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, streamed: bool
) -> None:
    """``path`` is the Converse operation's path below the endpoint, the model id percent-encoded
    as botocore sends it (``converse``, streamed or not: a stream goes to ``converse-stream``, and
    ``streamed`` says so). A recording made when the adapter recorded no path (``""``) still replays."""
    from pathless_recordings import pathless

    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.root)
    recording = tmp_path / "bedrock.jsonl"
    options = {"on_text": (lambda text: None) if streamed else None}
    with promptwire.Recorder(recording) as recorder:
        real = promptwire.generate({"instruction": "Hi"}, "bedrock", MODEL, record=recorder, **options)
    encoded = "anthropic.claude-3-5-sonnet-20240620-v1%3A0"
    assert server.paths == [f"/model/{encoded}/{'converse-stream' if streamed else 'converse'}"]
    _, record = (json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines())
    assert (record["path"], record["streamed"]) == (f"model/{encoded}/converse", streamed)
    monkeypatch.delenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME")
    for text in (recording.read_text(encoding="utf-8"), pathless(recording.read_text(encoding="utf-8"))):
        again = promptwire.generate(
            {"instruction": "Hi"}, "bedrock", MODEL, replay=promptwire.Recording.parse(text, str(recording))
        )
        assert again.calls[0].reply.text == real.calls[0].reply.text  # type: ignore[union-attr]
    assert len(server.paths) == 1
