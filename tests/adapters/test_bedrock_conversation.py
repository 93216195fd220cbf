"""The bedrock adapter writes a conversation natively: Converse content blocks (toolUse and
toolResult paired and ordered, Bedrock's own signed reasoning back, cachePoint blocks after what
they mark), turns joined to alternate, refusals naming the turn; a reply is the next turn; and the
ten-line tool loop of docs/embedding.md runs through the public API against the fake Bedrock
Runtime with the real boto3 client, whole, streamed and async."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import promptwire
from promptwire.adapters.bedrock import BedrockAdapter
from promptwire.adapters.bedrock_turns import ConverseMessages, reply_turn
from promptwire.core.call import ProviderRequest
from promptwire.core.errors import BadRequestError
from promptwire.core.prompt import ChatTurn, ReasoningPart, TextPart, ToolCall, ToolCallPart
from promptwire.core.rendered import Message
from promptwire.testing.bedrock_server import fake_bedrock
from promptwire.testing.provider_servers import TOOLS_MODEL
from tests.hypothesis_profile import examples

WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
CLOCK = {"name": "get_time", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}
SIGNED = {"type": "reasoning", "text": "Paris first.", "signature": "sig-1", "provider": "bedrock"}


@pytest.fixture(autouse=True)
def aws(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDTESTKEY")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "test-secret-key")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.delenv("AWS_PROFILE", raising=False)


def _request(prompt: dict[str, Any], model: str = "model") -> ProviderRequest:
    return promptwire.build_request(prompt, "bedrock", f"bedrock://{model}", format="conversation")


def _call(id: str, name: str = "get_weather", **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_call", "id": id, "name": name, "arguments": arguments}


def _result(call_id: str, content: Any = "ok", **more: Any) -> dict[str, Any]:
    return {"type": "tool_result", "call_id": call_id, "content": content, **more}


def test_an_assistant_turn_is_its_blocks_and_the_results_one_user_turn_in_call_order() -> None:
    redacted = {"type": "reasoning", "encrypted": "b3BhcXVl", "redacted": True, "provider": "bedrock"}
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Weather in Paris and Rome?"},
                {
                    "role": "assistant",
                    "content": [
                        SIGNED,
                        redacted,
                        {"type": "text", "text": "Looking."},
                        _call("c1", city="Paris"),
                        _call("c2", city="Rome"),
                    ],
                },
                {"role": "tool", "content": [_result("c2", "19C")]},
                {"role": "tool", "content": [_result("c1", [{"type": "text", "text": "18C"}], is_error=True)]},
                {"role": "user", "content": "And tomorrow?"},
            ]
        }
    )
    assert request.kwargs["messages"] == [
        {"role": "user", "content": [{"text": "Weather in Paris and Rome?"}]},
        {
            "role": "assistant",
            "content": [
                {"reasoningContent": {"reasoningText": {"text": "Paris first.", "signature": "sig-1"}}},
                {"reasoningContent": {"redactedContent": "b3BhcXVl"}},
                {"text": "Looking."},
                {"toolUse": {"toolUseId": "c1", "name": "get_weather", "input": {"city": "Paris"}}},
                {"toolUse": {"toolUseId": "c2", "name": "get_weather", "input": {"city": "Rome"}}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"toolResult": {"toolUseId": "c1", "content": [{"text": "18C"}], "status": "error"}},
                {"toolResult": {"toolUseId": "c2", "content": [{"text": "19C"}]}},
                {"text": "And tomorrow?"},
            ],
        },
    ]
    assert request.notes == ()


def test_reasoning_of_another_provider_or_unsigned_is_left_out_with_a_note() -> None:
    foreign = {"type": "reasoning", "text": "Hmm.", "signature": "s", "provider": "anthropic"}
    unsigned = {"type": "reasoning", "text": "Hmm.", "provider": "bedrock"}
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": [foreign, unsigned, {"type": "text", "text": "Hello."}]},
                {"role": "user", "content": "Bye"},
            ]
        }
    )
    assert request.kwargs["messages"][1] == {"role": "assistant", "content": [{"text": "Hello."}]}
    assert request.notes == (
        "messages[1].content[0]: reasoning from anthropic cannot be sent to bedrock; left out",
        "messages[1].content[1]: reasoning without its signature cannot be sent back to bedrock "
        "(the model refuses reasoning it cannot verify); left out",
    )


def test_breakpoints_are_cache_points_after_what_they_mark() -> None:
    request = _request(
        {
            "system": "Rules.",
            "cache": {"system": {}, "tools": {"ttl": "1h"}, "key": "k"},
            "tools": [WEATHER],
            "history": [
                {"role": "user", "content": [{"type": "text", "text": "Long document.", "cache": {"ttl": "1h"}}]},
                {"role": "assistant", "content": "Read."},
                {"role": "user", "content": "Question?", "cache": {}},
            ],
        }
    )
    assert request.kwargs["system"] == [{"text": "Rules."}, {"cachePoint": {"type": "default"}}]
    assert request.kwargs["toolConfig"]["tools"][-1] == {"cachePoint": {"type": "default", "ttl": "1h"}}
    messages = request.kwargs["messages"]
    assert messages[0]["content"] == [{"text": "Long document."}, {"cachePoint": {"type": "default", "ttl": "1h"}}]
    assert messages[2]["content"] == [{"text": "Question?"}, {"cachePoint": {"type": "default"}}]
    assert request.notes == ("cache key 'k' left out: Bedrock has no cache key (it caches up to each cachePoint)",)


def test_consecutive_turns_of_one_role_are_joined_and_blank_text_left_out() -> None:
    request = _request(
        {
            "history": [
                {"role": "user", "content": "One."},
                {"role": "user", "content": "Two."},
                {"role": "assistant", "content": [{"type": "text", "text": " "}, {"type": "text", "text": "Ok."}]},
            ]
        }
    )
    assert request.kwargs["messages"] == [
        {"role": "user", "content": [{"text": "One."}, {"text": "Two."}]},
        {"role": "assistant", "content": [{"text": "Ok."}]},
    ]
    assert request.notes == (
        "messages[1]: joined to the user turn before it (Bedrock wants user and assistant turns to alternate)",
        "messages[2].content[0]: Bedrock refuses a blank text block; left out",
    )


def test_tool_ids_bedrock_refuses_are_mapped_the_same_for_the_call_and_its_result() -> None:
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": [_call("call.1:x")]},
                {"role": "tool", "content": [_result("call.1:x")]},
            ]
        }
    )
    sent = request.kwargs["messages"][1]["content"][0]["toolUse"]["toolUseId"]
    assert (
        sent.startswith("call_1_x_") and request.kwargs["messages"][2]["content"][0]["toolResult"]["toolUseId"] == sent
    )
    assert request.notes == (
        f"tool call id 'call.1:x' sent as {sent!r}: Bedrock takes ids of at most 64 characters from [a-zA-Z0-9_-]",
    )


@pytest.mark.parametrize(
    ("history", "problem"),
    [
        (
            [{"role": "user", "content": [_result("c9")]}],
            "messages[0]: the tool result for 'c9' answers no tool call of the assistant turn right before it",
        ),
        (
            [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": [_call("c1")]}],
            "messages[1]: tool call 'c1' has no tool result in the turn after it",
        ),
        (
            [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": [_call("c1")]},
                {"role": "tool", "content": [_result("c1"), _result("c1")]},
            ],
            "messages[2]: the tool call 'c1' is answered twice",
        ),
    ],
)
def test_order_rules_are_refused_naming_the_turn(history: list[Any], problem: str) -> None:
    with pytest.raises(BadRequestError) as raised:
        _request({"history": history})
    assert str(raised.value).startswith(problem)


def test_audio_goes_as_audio_and_an_image_by_url_is_left_out_with_a_note() -> None:
    request = _request(
        {
            "history": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "See."},
                        {"type": "image", "url": "https://x/a.png"},
                        {"type": "audio", "data": "AAAA", "format": "wav"},
                    ],
                }
            ]
        }
    )
    audio = {"audio": {"format": "wav", "source": {"bytes": "AAAA"}}}
    assert request.kwargs["messages"] == [{"role": "user", "content": [{"text": "See."}, audio]}]
    assert request.notes == (
        "messages[0].content[1]: Bedrock takes images as PNG, JPEG, GIF or WebP bytes (or from S3), not an image by "
        "URL; left out",
    )


FUNCTIONS = {"get_weather": lambda city: f"18C in {city}", "get_time": lambda zone: f"noon in {zone}"}


def _answers(reply: Any) -> dict[str, Any]:
    return {"role": "tool", "content": [_result(c.id, FUNCTIONS[c.name](**c.arguments)) for c in reply.tool_calls]}


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_tool_calling_loop_through_the_public_api(streamed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_bedrock() as server:
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.root)
        history: list[Any] = [{"role": "user", "content": "Weather and time in Paris?"}]
        while True:
            prompt = {"history": history, "tools": [WEATHER, CLOCK]}
            options = {"on_text": (lambda text: None) if streamed else None}
            result = promptwire.generate(prompt, "bedrock", TOOLS_MODEL, format="conversation", **options)
            reply = result.calls[-1].reply
            history.append(reply.as_turn())
            if not reply.tool_calls:
                break
            history.append(_answers(reply))
    _check_loop(server, result.value, streamed)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_tool_calling_loop_on_an_event_loop(streamed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    async def loop() -> Any:
        history: list[Any] = [{"role": "user", "content": "Weather and time in Paris?"}]
        while True:
            prompt = {"history": history, "tools": [WEATHER, CLOCK]}
            options = {"on_text": (lambda text: None) if streamed else None}
            result = await promptwire.agenerate(prompt, "bedrock", TOOLS_MODEL, format="conversation", **options)
            reply = result.calls[-1].reply
            history.append(reply.as_turn())
            if not reply.tool_calls:
                return result.value
            history.append(_answers(reply))

    with fake_bedrock() as server:
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", server.root)
        value = asyncio.run(loop())
    _check_loop(server, value, streamed)


def _check_loop(server: Any, value: Any, streamed: bool) -> None:
    assert value == "18C in fake\nnoon in fake"  # the fake's answer: the results' text
    assert [request["operation"] for request in server.requests] == ["converse-stream" if streamed else "converse"] * 2
    second = server.requests[1]
    signed = second["messages"][1]["content"][0]["reasoningContent"]["reasoningText"]
    assert signed["text"] == "I will call the tools (1)." and signed["signature"].startswith("issued:")
    assistant = second["messages"][1]["content"]
    assert [next(iter(block)) for block in assistant] == [
        "reasoningContent",
        "reasoningContent",
        "text",
        "toolUse",
        "toolUse",
    ]
    assert second["messages"][2]["content"] == [
        {"toolResult": {"toolUseId": "tooluse_1_0", "content": [{"text": "18C in fake"}]}},
        {"toolResult": {"toolUseId": "tooluse_1_1", "content": [{"text": "noon in fake"}]}},
    ]


def test_a_reply_goes_back_as_the_same_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_bedrock() as server:
        adapter = BedrockAdapter(base_url=server.root)
        prompt = {"history": [{"role": "user", "content": "Weather?"}], "tools": [WEATHER]}
        reply = adapter.parse_reply(adapter.send(_request(prompt, TOOLS_MODEL), 10))
        turns = [*prompt["history"], reply.as_turn(), _answers(reply)]
        sent_back = _request({**prompt, "history": turns}, TOOLS_MODEL)
        adapter.send(sent_back, 10)  # the fake checks the signature it issued, as Bedrock does
        assert len(server.requests) == 2
    returned = reply.raw["output"]["message"]["content"]
    written = sent_back.kwargs["messages"][1]["content"]
    assert written[2:] == returned[2:]  # text and calls as they came
    assert written[0] == returned[0]  # signed reasoning as it came
    assert written[1]["reasoningContent"]["redactedContent"] == _b64(returned[1]["reasoningContent"]["redactedContent"])


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode()


def test_one_round_calls_and_results_go_as_blocks() -> None:
    prompt = {
        "instruction": "Weather?",
        "tools": [{"name": "weather", "parameters": {"type": "object"}}],
        "tool_calls": [{"name": "weather", "id": "t1", "arguments": {"city": "Oslo"}}],
        "tool_results": [{"call_id": "t1", "content": "down", "is_error": True}],
    }
    request = promptwire.build_request(prompt, "bedrock", "bedrock://m", format="messages")
    assert request.kwargs["messages"][1:] == [
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "t1", "name": "weather", "input": {"city": "Oslo"}}}],
        },
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "down"}], "status": "error"}}],
        },
    ]
    assert request.notes == ()


def test_a_tool_turn_that_answers_no_call_is_user_text_and_says_so() -> None:
    request = _request({"history": [{"role": "assistant", "content": "Hi."}, {"role": "tool", "content": "x"}]})
    assert request.kwargs["messages"][1] == {"role": "user", "content": [{"text": "x"}]}
    assert request.notes == ("messages[1]: a tool turn that answers no call has no toolResult form; sent as user text",)


def test_an_image_in_s3_goes_as_its_location() -> None:
    image = {"type": "image", "url": "s3://bucket/photos/cat.JPG", "detail": "high"}
    request = _request({"history": [{"role": "user", "content": [{"type": "text", "text": "Cat?"}, image]}]})
    assert request.kwargs["messages"][0]["content"][1] == {
        "image": {"format": "jpeg", "source": {"s3Location": {"uri": "s3://bucket/photos/cat.JPG"}}}
    }
    assert request.notes == ("messages[0].content[1]: Bedrock has no image detail level; 'high' left out",)


_TEXT = st.one_of(st.sampled_from(["Hi.", "", " \n", "Paris?"]), st.text(max_size=4))
_CONTENT = st.one_of(
    _TEXT,
    _TEXT.map(lambda text: [{"type": "text", "text": text}]),
    st.just([{"type": "tool_call", "id": "call_1", "name": "f", "arguments": {}}]),
    st.just([{"type": "tool_result", "call_id": "call_1", "content": "ok"}]),
)
_MESSAGE_FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "name": st.sampled_from(["ann", None]),
        "tool_call_id": st.sampled_from(["call_1", None]),
        "tool_calls": st.sampled_from([(), (ToolCall(name="f", id="call_1"),)]),
        "is_error": st.booleans(),
        "cache": st.sampled_from([{}, None]),
    },
)


@given(
    st.lists(
        st.tuples(st.sampled_from(["system", "user", "assistant", "tool", "developer"]), _CONTENT, _MESSAGE_FIELDS),
        max_size=6,
    )
)
@settings(max_examples=examples(300))
def test_a_plain_text_conversation_is_written_as_the_general_pass_writes_it(
    messages: list[tuple[str, Any, dict[str, Any]]],
) -> None:
    # write() takes plain text conversations (the usual prompt) in a pass of their own: the same
    # system blocks, messages and notes as the general pass, and any other conversation goes there.
    rendered = tuple(Message(role, content, **fields) for role, content, fields in messages)
    fast, general = ConverseMessages(), ConverseMessages()
    try:
        expected = general._written(rendered)
    except BadRequestError as exc:
        with pytest.raises(BadRequestError, match=re.escape(str(exc))):
            fast.write(rendered)
        return
    assert fast.write(rendered) == expected
    assert fast.notes == general.notes


def test_the_usual_prompt_takes_the_plain_text_pass() -> None:
    rendered = (Message("system", "You are terse."), Message("user", "Hi."), Message("assistant", "Hello."))
    assert ConverseMessages()._plain(rendered) == (
        [{"text": "You are terse."}],
        [{"role": "user", "content": [{"text": "Hi."}]}, {"role": "assistant", "content": [{"text": "Hello."}]}],
    )
    for other in (Message("user", "Hi.", name="ann"), Message("user", " "), Message("developer", "Be terse.")):
        assert ConverseMessages()._plain((other,)) is None


def test_the_reply_turn_is_the_turn_its_parts_build_with_the_fields_given() -> None:
    """``reply_turn`` validates each part with the model's own validator: the turn and every part
    are what the models' constructors make of the same fields, with the same fields set (an
    ``exclude_unset`` dump, as a saved conversation writes it, shows no ``type``)."""
    message = {
        "role": "assistant",
        "content": [
            {"reasoningContent": {"reasoningText": {"text": "Easy.", "signature": "sig"}}},
            {"text": '{"ok": true}'},
            {"toolUse": {"toolUseId": "t1", "name": "look", "input": {"q": 1}}},
            {"reasoningContent": {"redactedContent": b"xx"}},
        ],
    }
    built = ChatTurn(
        role="assistant",
        content=[
            ReasoningPart(text="Easy.", signature="sig", provider="bedrock"),
            TextPart(text='{"ok": true}'),
            ToolCallPart(id="t1", name="look", arguments={"q": 1}),
            ReasoningPart(encrypted="eHg=", redacted=True, provider="bedrock"),
        ],
    )
    turn = reply_turn(message)
    assert turn == built
    assert turn.model_dump(exclude_unset=True) == built.model_dump(exclude_unset=True)
    assert "type" not in turn.model_dump(exclude_unset=True)["content"][1]
    with pytest.raises(ValidationError, match="text"):
        reply_turn({"content": [{"text": 5}]})
