"""The anthropic adapter writes a conversation natively (issue 34): signed thinking back as it
came, tool_use/tool_result blocks paired and ordered as the Messages API requires, breakpoints as
``cache_control``; a reply is the next turn, byte for byte; and a tool-calling loop runs through the
public API against the fake provider with the real SDK, over real HTTP."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic
import pytest

import promptwire
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.core.call import ProviderRequest
from promptwire.core.errors import BadRequestError, ProviderError
from promptwire.testing.provider_servers import REPLIES, TOOLS_MODEL, _issued, fake_provider

WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
CLOCK = {
    "name": "get_time",
    "description": "The time in a zone.",
    "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}},
}


def _request(prompt: dict[str, Any]) -> ProviderRequest:
    return promptwire.build_request(prompt, "anthropic", "claude-x", format="conversation")


def _call(id: str, name: str = "get_weather", **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_call", "id": id, "name": name, "arguments": arguments}


def _result(call_id: str, content: Any = "ok", **more: Any) -> dict[str, Any]:
    return {"type": "tool_result", "call_id": call_id, "content": content, **more}


SIGNED = {"type": "reasoning", "text": "Paris first.", "signature": "sig-1", "provider": "anthropic"}


def test_an_assistant_turn_is_its_blocks_in_order_and_the_results_one_user_turn_in_call_order() -> None:
    redacted = {"type": "reasoning", "encrypted": "opaque", "redacted": True, "provider": "anthropic"}
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
            ],
            "instruction": "And tomorrow?",
        }
    )
    assert request.kwargs["messages"] == [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Paris first.", "signature": "sig-1"},
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "c2", "name": "get_weather", "input": {"city": "Rome"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "c1",
                    "content": [{"type": "text", "text": "18C"}],
                    "is_error": True,
                },
                {"type": "tool_result", "tool_use_id": "c2", "content": "19C"},
                {"type": "text", "text": "And tomorrow?"},
            ],
        },
    ]
    assert request.notes == ("max_tokens 1024: Anthropic requires a limit and the generate set none",)


def test_results_in_a_user_turn_and_images_in_a_result_take_their_blocks() -> None:
    image = {"type": "image", "data": "QUJD", "media_type": "image/png"}
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Draw it."},
                {"role": "assistant", "content": [_call("c1", "draw")]},
                {"role": "user", "content": [_result("c1", [{"type": "text", "text": "drawn"}, image])]},
            ]
        }
    )
    assert request.kwargs["messages"][2] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "c1",
                "content": [
                    {"type": "text", "text": "drawn"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "QUJD"}},
                ],
            }
        ],
    }


@pytest.mark.parametrize(
    ("reasoning", "note"),
    [
        (
            {"type": "reasoning", "text": "hm", "encrypted": "e", "id": "rs_1", "provider": "openai-responses"},
            "messages[1].content[0]: reasoning from openai-responses cannot be sent to anthropic; left out",
        ),
        (
            {"type": "reasoning", "text": "hm", "signature": "s"},
            "messages[1].content[0]: reasoning of unknown origin cannot be sent to anthropic; left out",
        ),
        (
            {"type": "reasoning", "text": "hm", "provider": "anthropic"},
            "messages[1].content[0]: thinking without its signature cannot be sent back to anthropic "
            "(the API refuses unsigned thinking); left out",
        ),
        (
            {"type": "reasoning", "redacted": True, "provider": "anthropic"},
            "messages[1].content[0]: redacted thinking without its data cannot be sent back to anthropic; left out",
        ),
    ],
)
def test_reasoning_anthropic_cannot_take_back_is_left_out_with_a_note_never_sent_as_text(
    reasoning: dict[str, Any], note: str
) -> None:
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": [reasoning, {"type": "text", "text": "Hello."}]},
            ]
        }
    )
    assert request.kwargs["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": "Hello."}]}
    assert note in request.notes
    assert "hm" not in json.dumps(request.kwargs)


def test_ids_anthropic_refuses_are_mapped_the_same_way_for_the_call_and_its_result() -> None:
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Go"},
                {"role": "assistant", "content": [_call("call.1/x")]},
                {"role": "tool", "content": [_result("call.1/x")]},
            ]
        }
    )
    use = request.kwargs["messages"][1]["content"][0]["id"]
    assert request.kwargs["messages"][2]["content"][0]["tool_use_id"] == use
    assert use.startswith("call_1_x_") and len(use) <= 64
    assert (
        f"tool call id 'call.1/x' sent as {use!r}: Anthropic takes ids of at most 64 characters from [a-zA-Z0-9_-]"
        in (request.notes)
    )


@pytest.mark.parametrize(
    ("history", "error"),
    [
        (
            [{"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "t", "arguments": "{oops"}]}],
            "messages[1]: content[0]: tool call 't' has arguments that are not a JSON object ('{oops'); "
            "Anthropic takes a call's input as an object",
        ),
        (
            [
                {"role": "assistant", "content": [_call("c1"), _call("c2")]},
                {"role": "tool", "content": [_result("c1")]},
            ],
            "messages[1]: tool call 'c2' has no tool result in the turn after it "
            "(Anthropic requires every tool_use to be answered by a tool_result in the next user turn)",
        ),
        (
            [{"role": "assistant", "content": [_call("c1")]}],
            "messages[1]: tool call 'c1' has no tool result in the turn after it "
            "(Anthropic requires every tool_use to be answered by a tool_result in the next user turn)",
        ),
        (
            [{"role": "tool", "content": [_result("c9")]}],
            "messages[1]: the tool result for 'c9' answers no tool call of the assistant turn right before it "
            "(Anthropic takes a tool_result only in the user turn after its tool_use)",
        ),
        (
            [
                {"role": "assistant", "content": [_call("c1")]},
                {"role": "tool", "content": [_result("c1"), _result("c2")]},
            ],
            "messages[2]: the tool result for 'c2' answers no tool call of the assistant turn right before it "
            "(Anthropic takes a tool_result only in the user turn after its tool_use) (messages[1])",
        ),
        (
            [
                {"role": "assistant", "content": [_call("c1")]},
                {"role": "tool", "content": [_result("c1"), _result("c1")]},
            ],
            "messages[2]: the tool call 'c1' of messages[1] is answered twice",
        ),
        (
            [{"role": "assistant", "content": [_result("c1")]}],
            "messages[1]: content[0]: a tool result is in an assistant turn; Anthropic takes it in a user turn",
        ),
        (
            [{"role": "user", "content": [_call("c1")]}],
            "messages[1]: content[0]: tool call 'get_weather' is in a user turn; "
            "Anthropic takes tool calls in assistant turns only",
        ),
        (
            [{"role": "assistant", "content": [{"type": "tool_call", "name": "t", "arguments": {}}]}],
            "messages[1]: content[0]: tool call 't' has no id, which Anthropic needs to pair it with its result",
        ),
    ],
)
def test_turns_that_break_anthropics_order_rules_are_refused_naming_the_turn(
    history: list[dict[str, Any]], error: str
) -> None:
    with pytest.raises(BadRequestError) as raised:
        _request({"history": [{"role": "user", "content": "Go"}, *history]})
    assert str(raised.value) == error


def test_breakpoints_become_cache_control_on_the_marked_blocks_the_system_and_the_last_tool() -> None:
    request = _request(
        {
            "system": "You help.",
            "history": [
                {"role": "user", "content": [{"type": "text", "text": "A long document.", "cache": {"ttl": "1h"}}]},
                {"role": "assistant", "content": "Read it.", "cache": {}},
            ],
            "instruction": "Summarize.",
            "tools": [WEATHER, CLOCK],
            "cache": {"system": {"ttl": "1h"}, "tools": {"ttl": "1h"}, "key": "user-7", "retention": "24h"},
        }
    )
    body = request.kwargs
    assert body["system"] == [
        {"type": "text", "text": "You help.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    ]
    assert body["messages"][:2] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "A long document.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "Read it.", "cache_control": {"type": "ephemeral"}}],
        },
    ]
    assert "cache_control" not in body["tools"][0]
    assert body["tools"][1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert request.notes[1:] == (
        "cache key 'user-7' left out: Anthropic has no cache key (it caches the request's prefix up to each breakpoint)",
        "cache retention '24h' left out: Anthropic has no retention setting (a breakpoint's ttl, 5m or 1h, says how long)",
    )


def test_a_message_mark_goes_on_its_last_block_and_beyond_four_the_last_are_kept() -> None:
    history = [
        {
            "role": "user",
            "content": [{"type": "text", "text": f"page {n}"}, {"type": "text", "text": "end"}],
            "cache": {},
        }
        for n in range(3)
    ]
    request = _request({"system": "S", "history": history, "tools": [WEATHER], "cache": {"system": {}, "tools": {}}})
    body = request.kwargs
    marked = [[("cache_control" in block) for block in message["content"]] for message in body["messages"]]
    assert marked == [[False, True]] * 3
    assert "cache_control" not in body["tools"][0]
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert request.notes[1:] == (
        "cache.tools: cache breakpoint left out: Anthropic takes at most 4 per request, and the last ones are kept",
    )


def test_a_breakpoint_on_thinking_and_tools_without_tools_are_noted() -> None:
    request = _request(
        {
            "history": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": [SIGNED], "cache": {}}],
            "cache": {"tools": {}},
        }
    )
    assert request.kwargs["messages"][1]["content"] == [
        {"type": "thinking", "thinking": "Paris first.", "signature": "sig-1"}
    ]
    assert request.notes[1:] == (
        "messages[1]: Anthropic takes no cache breakpoint on a thinking block; left out",
        "cache.tools: there are no tools to mark; cache breakpoint left out",
    )


def _adapter(server: Any) -> AnthropicAdapter:
    return AnthropicAdapter(api_key="sk-test", base_url=server.root)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_reply_appended_to_the_history_goes_back_as_exactly_the_blocks_returned(streamed: bool) -> None:
    pieces: list[str] = []
    on_text = pieces.append if streamed else None
    with fake_provider() as server:
        prompt: dict[str, Any] = {
            "history": [{"role": "user", "content": "Weather and time?"}],
            "tools": [WEATHER, CLOCK],
        }
        first = promptwire.generate(
            prompt, model=TOOLS_MODEL, format="conversation", adapter=_adapter(server), on_text=on_text
        )
        reply = first.calls[-1].reply
        assert reply is not None and reply.turn is not None
        returned = REPLIES["/v1/messages"](server.requests[0])["content"]
        assert [block["type"] for block in returned] == [
            "thinking",
            "redacted_thinking",
            "text",
            "tool_use",
            "tool_use",
        ]
        answers = [_result(call.id, "fine") for call in reply.tool_calls]
        prompt["history"] += [reply.as_turn(), {"role": "user", "content": answers}]
        second = promptwire.generate(
            prompt, model=TOOLS_MODEL, format="conversation", adapter=_adapter(server), on_text=on_text
        )
        sent = server.requests[1]["messages"]
    assert sent[1] == {"role": "assistant", "content": returned}  # the same JSON values, block for block
    assert [block["tool_use_id"] for block in sent[2]["content"]] == [block["id"] for block in returned[3:]]
    assert second.value == '{"ok": true}'
    assert (server.requests[0].get("stream"), bool(pieces)) == ((True, True) if streamed else (None, False))


def test_the_reply_turn_holds_every_block_with_its_signature_and_data() -> None:
    with fake_provider() as server:
        prompt = {"history": [{"role": "user", "content": "Go"}], "tools": [WEATHER]}
        result = promptwire.generate(prompt, model=TOOLS_MODEL, format="conversation", adapter=_adapter(server))
    reply = result.calls[-1].reply
    assert reply is not None
    assert reply.as_turn().model_dump(exclude_none=True) == {
        "role": "assistant",
        "content": [
            {
                "type": "reasoning",
                "text": "I will call the tools (1).",
                "signature": _issued("I will call the tools (1)."),
                "redacted": False,
                "provider": "anthropic",
            },
            {"type": "reasoning", "encrypted": _issued("redacted 1"), "redacted": True, "provider": "anthropic"},
            {"type": "text", "text": "Let me look that up."},
            {"type": "tool_call", "id": "toolu_1_0", "name": "get_weather", "arguments": {"city": "fake"}},
        ],
    }


@pytest.mark.parametrize(
    ("history", "message"),
    [
        (
            [
                {"role": "user", "content": "Go"},
                {"role": "assistant", "content": [{**SIGNED, "signature": "forged"}, {"type": "text", "text": "Hi"}]},
                {"role": "user", "content": "Again"},
            ],
            "messages.1.content.0: Invalid `signature` in `thinking` block",
        ),
        (
            [
                {"role": "user", "content": "Go"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "reasoning", "encrypted": "x", "redacted": True, "provider": "anthropic"},
                        {"type": "text", "text": "Hi"},
                    ],
                },
                {"role": "user", "content": "Again"},
            ],
            "messages.1.content.0: Invalid `data` in `redacted_thinking` block",
        ),
    ],
)
def test_the_fake_provider_refuses_reasoning_it_did_not_sign_as_the_api_does(
    history: list[dict[str, Any]], message: str
) -> None:
    with fake_provider() as server, pytest.raises(ProviderError) as raised:
        promptwire.generate({"history": history}, model="ok", format="conversation", adapter=_adapter(server))
    assert (raised.value.status, message in str(raised.value)) == (400, True)


def test_the_fake_provider_refuses_a_tool_result_that_answers_no_tool_use_of_the_turn_before() -> None:
    body = {
        "model": "ok",
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "Go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "?"}]},
        ],
    }
    with fake_provider() as server:
        client = anthropic.Anthropic(api_key="sk-test", base_url=server.root, max_retries=0)
        with pytest.raises(anthropic.BadRequestError) as raised:
            client.messages.create(**body)
        body["messages"][2]["content"][0]["tool_use_id"] = "t1"
        assert client.messages.create(**body).content[1].text == '{"ok": true}'
        client.close()
    assert raised.value.body == {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: t2. "
            "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
        },
    }


FUNCTIONS = {"get_weather": lambda city: f"18C in {city}", "get_time": lambda zone: f"noon in {zone}"}


def _answers(reply: Any) -> dict[str, Any]:
    return {"role": "user", "content": [_result(c.id, FUNCTIONS[c.name](**c.arguments)) for c in reply.tool_calls]}


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_tool_calling_loop_through_the_public_api(streamed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_provider() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        history: list[Any] = [{"role": "user", "content": "Weather and time in Paris?"}]
        while True:
            prompt = {"history": history, "tools": [WEATHER, CLOCK]}
            options = {"on_text": (lambda text: None) if streamed else None}
            result = promptwire.generate(prompt, "anthropic", TOOLS_MODEL, format="conversation", **options)
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
            result = await promptwire.agenerate(prompt, "anthropic", TOOLS_MODEL, format="conversation", **options)
            reply = result.calls[-1].reply
            history.append(reply.as_turn())
            if not reply.tool_calls:
                return result.value
            history.append(_answers(reply))

    with fake_provider() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        value = asyncio.run(loop())
    _check_loop(server, value, streamed)


def _check_loop(server: Any, value: Any, streamed: bool) -> None:
    assert value == '{"ok": true}'  # the model's text: the prompt asks for no shape
    assert len(server.requests) == 2
    last = server.requests[1]["messages"][-1]["content"]
    assert last == [
        {"type": "tool_result", "tool_use_id": "toolu_1_0", "content": "18C in fake"},
        {"type": "tool_result", "tool_use_id": "toolu_1_1", "content": "noon in fake"},
    ]
    assert all(request.get("stream") is (True if streamed else None) for request in server.requests)


def test_a_1h_breakpoint_after_a_shorter_one_is_refused() -> None:
    prompt = {
        "history": [
            {"role": "user", "content": "first", "cache": {}},
            {"role": "assistant", "content": "ok"},
            {"role": "user", "content": "second", "cache": {"ttl": "1h"}},
        ]
    }
    with pytest.raises(BadRequestError) as raised:
        _request(prompt)
    assert str(raised.value) == (
        "messages[2]: a 1h cache breakpoint cannot come after a 5-minute one (messages[0]): "
        "Anthropic requires the breakpoints of the longer ttl first"
    )
    prompt["history"][0]["cache"] = {"ttl": "1h"}  # type: ignore[index]
    assert [m["content"][0]["cache_control"] for m in _request(prompt).kwargs["messages"][::2]] == [
        {"type": "ephemeral", "ttl": "1h"}
    ] * 2


def test_an_assistant_turn_with_nothing_anthropic_takes_is_left_out_with_a_note() -> None:
    foreign = {"type": "reasoning", "text": "hm", "provider": "ollama"}
    request = _request(
        {
            "history": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": [foreign]}],
            "instruction": "Go on.",
        }
    )
    assert request.kwargs["messages"] == [{"role": "user", "content": "Hi"}, {"role": "user", "content": "Go on."}]
    assert request.notes[1:] == (
        "messages[1].content[0]: reasoning from ollama cannot be sent to anthropic; left out",
        "messages[1]: nothing of this assistant turn can go to Anthropic; left out",
    )
