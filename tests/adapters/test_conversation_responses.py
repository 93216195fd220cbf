"""The openai-responses adapter writes a conversation natively (issue 34): its own reasoning items
back as they came, an assistant's text as ``output_text``, ``function_call`` items with the model's
own argument text and their ``function_call_output`` items, paired as the API requires; cache
breakpoints noted and the cache key and retention sent; a reply is the next turn; and a
tool-calling loop runs through the public API against the fake provider with the real SDK."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import promptwire
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.core.call import ProviderRequest
from promptwire.core.errors import BadRequestError, ProviderError
from promptwire.testing.provider_servers import REPLIES, TOOLS_MODEL, _issued, _responses_refusal, fake_provider

from hypothesis_profile import examples

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
OWN = {
    "type": "reasoning",
    "summary": ["Weather first."],
    "encrypted": "gAAA",
    "provider": "openai-responses",
    "id": "rs_9",
}


def _request(prompt: dict[str, Any]) -> ProviderRequest:
    return promptwire.build_request(prompt, "openai-responses", "gpt-x", format="conversation")


def _result(call_id: str, content: Any = "ok", **more: Any) -> dict[str, Any]:
    return {"type": "tool_result", "call_id": call_id, "content": content, **more}


def test_an_assistant_turn_becomes_its_reasoning_message_and_function_call_items_in_order() -> None:
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": [
                        {**OWN, "text": "Thinking aloud."},
                        {"type": "text", "text": "Looking."},
                        {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}},
                    ],
                },
                {"role": "tool", "content": [_result("call_1", "18C")]},
            ],
            "instruction": "And tomorrow?",
        }
    )
    assert request.kwargs["input"] == [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "type": "reasoning",
            "id": "rs_9",
            "summary": [{"type": "summary_text", "text": "Weather first."}],
            "content": [{"type": "reasoning_text", "text": "Thinking aloud."}],
            "encrypted_content": "gAAA",
        },
        {"role": "assistant", "content": [{"type": "output_text", "text": "Looking."}]},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city": "Paris"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
        {"role": "user", "content": "And tomorrow?"},
    ]
    assert request.notes == ()


def test_the_models_own_argument_text_goes_back_as_it_came() -> None:
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Go"},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"id": "c1", "name": "t", "arguments": '{ "a":1 }'}],
                },
                {"role": "tool", "content": "done", "tool_call_id": "c1"},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c2", "name": "t", "arguments": "{oops"}]},
                {"role": "tool", "content": "bad arguments", "tool_call_id": "c2", "is_error": True},
            ]
        }
    )
    calls = [item["arguments"] for item in request.kwargs["input"] if item.get("type") == "function_call"]
    assert calls == ['{ "a":1 }', "{oops"]
    assert request.notes == ("messages[4].content[0]: Responses function outputs cannot mark an error; sent as is",)


def test_a_results_images_are_input_images_and_what_it_cannot_carry_is_noted() -> None:
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Draw"},
                {"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "draw"}]},
                {
                    "role": "user",
                    "content": [
                        _result(
                            "c1",
                            [
                                {"type": "text", "text": "drawn"},
                                {"type": "image", "url": "https://x/a.png", "detail": "high"},
                                {"type": "audio", "data": "QUJD", "format": "wav"},
                            ],
                        ),
                        {"type": "text", "text": "Nice?"},
                    ],
                },
            ]
        }
    )
    assert request.kwargs["input"][2:] == [
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": [
                {"type": "input_text", "text": "drawn"},
                {"type": "input_image", "image_url": "https://x/a.png", "detail": "high"},
            ],
        },
        {"role": "user", "content": [{"type": "input_text", "text": "Nice?"}]},
    ]
    assert request.notes == (
        "messages[2].content[0].content[2]: the Responses API cannot carry this input_audio part; left out",
    )


def test_an_assistants_text_parts_are_output_text_and_its_images_are_noted() -> None:
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Hi"},
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Hello."}, {"type": "image", "url": "https://x/a.png"}],
                },
            ]
        }
    )
    assert request.kwargs["input"][1] == {"role": "assistant", "content": [{"type": "output_text", "text": "Hello."}]}
    assert request.notes == ("messages[1].content[1]: the Responses API cannot carry this image_url part; left out",)


@pytest.mark.parametrize(
    ("reasoning", "note"),
    [
        (
            {"type": "reasoning", "text": "hm", "signature": "s", "provider": "anthropic"},
            "messages[1].content[0]: reasoning from anthropic cannot be sent to openai-responses; left out",
        ),
        (
            {"type": "reasoning", "text": "hm"},
            "messages[1].content[0]: reasoning of unknown origin cannot be sent to openai-responses; left out",
        ),
        (
            {"type": "reasoning", "text": "hm", "provider": "openai-responses"},
            "messages[1].content[0]: reasoning without its item id cannot be sent back to openai-responses; left out",
        ),
    ],
)
def test_reasoning_it_cannot_take_back_is_left_out_with_a_note_never_sent_as_text(
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
    assert request.kwargs["input"][1:] == [
        {"role": "assistant", "content": [{"type": "output_text", "text": "Hello."}]}
    ]
    assert request.notes == (note,)
    assert "hm" not in json.dumps(request.kwargs)


@pytest.mark.parametrize(
    ("history", "error"),
    [
        (
            [{"role": "tool", "content": [_result("c9")]}],
            "messages[1]: content[0]: the tool result for 'c9' answers no tool call before it",
        ),
        (
            [{"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "t"}]}],
            "messages[1]: tool call 'c1' has no output after it "
            "(the Responses API requires one for every function_call)",
        ),
        (
            [
                {"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "t"}]},
                {"role": "tool", "content": [_result("c1"), _result("c1")]},
            ],
            "messages[2]: content[1]: the tool call 'c1' is answered twice",
        ),
        (
            [
                {"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "t"}]},
                {"role": "tool", "content": [_result("c1")]},
                {"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "t"}]},
            ],
            "messages[3]: content[0]: tool call 't': its id 'c1' is an earlier call's "
            "(the Responses API pairs calls and outputs by id)",
        ),
        (
            [{"role": "assistant", "content": [{"type": "tool_call", "name": "t"}]}],
            "messages[1]: content[0]: tool call 't' has no id, which the Responses API needs (call_id) "
            "to pair it with its output",
        ),
        (
            [{"role": "user", "content": [{"type": "tool_call", "id": "c1", "name": "t"}]}],
            "messages[1]: content[0]: tool call 't' is in a user turn; the Responses API takes tool calls from the assistant",
        ),
    ],
)
def test_calls_and_outputs_that_do_not_pair_are_refused_naming_the_turn(
    history: list[dict[str, Any]], error: str
) -> None:
    with pytest.raises(BadRequestError) as raised:
        _request({"history": [{"role": "user", "content": "Go"}, *history]})
    assert str(raised.value) == error


def test_breakpoints_are_noted_and_the_cache_key_and_retention_sent_last() -> None:
    request = _request(
        {
            "system": "You help.",
            "history": [
                {"role": "user", "content": [{"type": "text", "text": "A long document.", "cache": {"ttl": "1h"}}]},
                {"role": "assistant", "content": "Read it.", "cache": {}},
            ],
            "instruction": "Summarize.",
            "tools": [WEATHER],
            "cache": {"system": {}, "tools": {}, "key": "user-7", "retention": "24h"},
        }
    )
    assert list(request.kwargs)[-2:] == ["prompt_cache_key", "prompt_cache_retention"]
    assert (request.kwargs["prompt_cache_key"], request.kwargs["prompt_cache_retention"]) == ("user-7", "24h")
    assert request.kwargs["instructions"] == "You help."
    assert request.notes == (
        "cache breakpoints left out (messages[0], messages[1].content[0], messages[2], cache.tools): the Responses "
        "API caches a request's prefix by itself and takes no breakpoints (prompt_cache_key and "
        "prompt_cache_retention steer it)",
    )


def _adapter(server: Any) -> OpenAIResponsesAdapter:
    return OpenAIResponsesAdapter(api_key="sk-test", base_url=server.base_url)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_reply_appended_to_the_history_goes_back_as_the_items_returned(streamed: bool) -> None:
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
        assert reply is not None
        returned = REPLIES["/v1/responses"](server.requests[0])["output"]
        prompt["history"] += [
            reply.as_turn(),
            {"role": "tool", "content": [_result(c.id, "fine") for c in reply.tool_calls]},
        ]
        second = promptwire.generate(
            prompt, model=TOOLS_MODEL, format="conversation", adapter=_adapter(server), on_text=on_text
        )
        sent = server.requests[1]["input"][1:4]
    assert [item["type"] for item in returned] == ["reasoning", "function_call", "function_call"]
    assert sent[0] == returned[0]  # the reasoning item, encrypted content and all
    assert sent[1:] == returned[1:]  # the calls with their item ids, which the reasoning pairs with
    assert second.value == '{"ok": true}'
    assert server.requests[0].get("stream") is (True if streamed else None)


def test_the_reply_turn_holds_reasoning_text_and_calls_with_their_argument_text() -> None:
    with fake_provider() as server:
        prompt = {"history": [{"role": "user", "content": "Go"}], "tools": [WEATHER]}
        calls = promptwire.generate(prompt, model=TOOLS_MODEL, format="conversation", adapter=_adapter(server))
        answered = promptwire.generate(
            {"instruction": "Hi"}, model="ok", format="conversation", adapter=_adapter(server)
        )
    turns = [result.calls[-1].reply.as_turn().model_dump(exclude_none=True) for result in (calls, answered)]  # type: ignore[union-attr]
    assert turns == [
        {
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "summary": ["Calling the tools."],
                    "encrypted": _issued("rs_1"),
                    "redacted": False,
                    "provider": "openai-responses",
                    "id": "rs_1",
                },
                {
                    "type": "tool_call",
                    "id": "call_1_0",
                    "name": "get_weather",
                    "arguments": {"city": "fake"},
                    "arguments_text": '{"city": "fake"}',
                    "item_id": "fc_1_0",
                },
            ],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "summary": ["Easy."],
                    "redacted": False,
                    "provider": "openai-responses",
                    "id": "rs_1",
                },
                {"type": "text", "text": '{"ok": true}', "item_id": "msg_1"},
            ],
        },
    ]


def test_the_fake_provider_refuses_reasoning_it_did_not_encrypt_and_an_output_without_its_call() -> None:
    forged = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "forged"}
    stray = {"type": "function_call_output", "call_id": "call_7", "output": "?"}
    with fake_provider() as server:
        client = openai.OpenAI(api_key="sk-test", base_url=server.base_url, max_retries=0)
        errors = []
        for item in (forged, stray):
            with pytest.raises(openai.BadRequestError) as raised:
                client.responses.create(model="ok", input=[{"role": "user", "content": "Go"}, item])  # type: ignore[list-item]
            errors.append(raised.value.body)
        client.close()
    assert errors == [
        {
            "message": "The encrypted content for item rs_1 could not be verified.",
            "type": "invalid_request_error",
            "param": "input[1]",
            "code": None,
        },
        {
            "message": "No tool call found for function call output with call_id call_7.",
            "type": "invalid_request_error",
            "param": "input[1]",
            "code": None,
        },
    ]


def test_a_forged_reasoning_item_in_the_history_is_the_providers_400() -> None:
    history = [
        {"role": "user", "content": "Go"},
        {"role": "assistant", "content": [{**OWN, "encrypted": "forged"}, {"type": "text", "text": "Hi"}]},
    ]
    with fake_provider() as server, pytest.raises(ProviderError) as raised:
        promptwire.generate({"history": history}, model="ok", format="conversation", adapter=_adapter(server))
    assert raised.value.status == 400
    assert "The encrypted content for item rs_9 could not be verified." in str(raised.value)


FUNCTIONS = {"get_weather": lambda city: f"18C in {city}", "get_time": lambda zone: f"noon in {zone}"}


def _outputs(reply: Any) -> dict[str, Any]:
    return {"role": "tool", "content": [_result(c.id, FUNCTIONS[c.name](**c.arguments)) for c in reply.tool_calls]}


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_tool_calling_loop_through_the_public_api(streamed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        history: list[Any] = [{"role": "user", "content": "Weather and time in Paris?"}]
        while True:
            prompt = {"history": history, "tools": [WEATHER, CLOCK]}
            options = {"on_text": (lambda text: None) if streamed else None}
            result = promptwire.generate(prompt, "openai-responses", TOOLS_MODEL, format="conversation", **options)
            reply = result.calls[-1].reply
            history.append(reply.as_turn())
            if not reply.tool_calls:
                break
            history.append(_outputs(reply))
    _check_loop(server, result.value, streamed)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_tool_calling_loop_on_an_event_loop(streamed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    async def loop() -> Any:
        history: list[Any] = [{"role": "user", "content": "Weather and time in Paris?"}]
        while True:
            prompt = {"history": history, "tools": [WEATHER, CLOCK]}
            options = {"on_text": (lambda text: None) if streamed else None}
            result = await promptwire.agenerate(
                prompt, "openai-responses", TOOLS_MODEL, format="conversation", **options
            )
            reply = result.calls[-1].reply
            history.append(reply.as_turn())
            if not reply.tool_calls:
                return result.value
            history.append(_outputs(reply))

    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        value = asyncio.run(loop())
    _check_loop(server, value, streamed)


def _check_loop(server: Any, value: Any, streamed: bool) -> None:
    assert value == '{"ok": true}'  # the model's text: the prompt asks for no shape
    assert len(server.requests) == 2
    assert server.requests[1]["input"][-2:] == [
        {"type": "function_call_output", "call_id": "call_1_0", "output": "18C in fake"},
        {"type": "function_call_output", "call_id": "call_1_1", "output": "noon in fake"},
    ]
    assert all(request.get("stream") is (True if streamed else None) for request in server.requests)


def test_a_turn_with_nothing_the_api_takes_is_left_out_with_a_note() -> None:
    foreign = {"type": "reasoning", "text": "hm", "signature": "s", "provider": "anthropic"}
    request = _request({"history": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": [foreign]}]})
    assert request.kwargs["input"] == [{"role": "user", "content": "Hi"}]
    assert request.notes == (
        "messages[1].content[0]: reasoning from anthropic cannot be sent to openai-responses; left out",
        "messages[1]: nothing of this turn can go to the Responses API; left out",
    )


IDS = st.sampled_from(["call_1", "call_2", "call_3", "toolu_4", "c" * 70])
REASONING = st.builds(
    lambda provider, encrypted, id: {
        "type": "reasoning",
        "text": "SECRET THOUGHT",
        "summary": ["SECRET SUMMARY"],
        "provider": provider,
        "encrypted": encrypted,
        "id": id,
    },
    st.sampled_from(["anthropic", "openai-responses", None]),
    st.sampled_from([None, _issued("rs_1")]),  # encrypted as the fake provider encrypts
    st.sampled_from([None, "rs_1"]),
)
TEXT = st.builds(lambda mark: {"type": "text", "text": "words", "cache": mark}, st.sampled_from([None, {}]))
CALL = st.builds(lambda id: {"type": "tool_call", "id": id, "name": "t", "arguments": {"a": 1}}, IDS)
RESULT = st.builds(lambda id: {"type": "tool_result", "call_id": id, "content": "r"}, IDS)


@st.composite
def _round(draw: st.DrawFn) -> list[dict[str, Any]]:
    """An assistant turn (reasoning, text, tool calls) and the turns that answer it: its results in
    any order, over one or two tool or user turns, and sometimes a result missing or one too many."""
    ids = draw(st.lists(IDS, unique=True, max_size=3))
    said = draw(st.lists(st.one_of(REASONING, TEXT), max_size=3))
    turns = [{"role": "assistant", "content": said + [draw(CALL) | {"id": id} for id in ids]}]
    results = [draw(RESULT) | {"call_id": id} for id in draw(st.permutations(ids))]
    if results and draw(st.integers(0, 9)) == 0:
        results.pop()
    if draw(st.integers(0, 9)) == 0:
        results.append(draw(RESULT))
    cut = draw(st.integers(0, len(results)))
    for chunk in (results[:cut], results[cut:]):
        if chunk:
            turns.append({"role": draw(st.sampled_from(["tool", "user"])), "content": chunk})
    return turns


TURNS = st.lists(_round(), max_size=3).map(lambda rounds: [turn for turns in rounds for turn in turns])


def _clean(turn: dict[str, Any]) -> dict[str, Any]:
    """The turn without the ``None`` fields a strategy drew (the model takes them as not given)."""
    return {**turn, "content": [{k: v for k, v in part.items() if v is not None} for part in turn["content"]]}


@settings(max_examples=examples(1), deadline=None)
@given(TURNS)
def test_any_conversation_is_sent_paired_with_no_reasoning_as_text_or_refused_naming_a_turn(
    turns: list[dict[str, Any]],
) -> None:
    try:
        request = _request({"history": [{"role": "user", "content": "Go"}, *map(_clean, turns)]})
    except BadRequestError as exc:
        assert str(exc).startswith("messages[")
        return
    items = request.kwargs["input"]
    assert _responses_refusal({"input": items}) is None  # every output answers a call before it
    called = [item["call_id"] for item in items if item.get("type") == "function_call"]
    answered = [item["call_id"] for item in items if item.get("type") == "function_call_output"]
    assert sorted(called) == sorted(answered)
    reasoning = [item for item in items if item.get("type") == "reasoning"]
    assert all(item["id"] == "rs_1" for item in reasoning)  # only its own, with its id
    others = json.dumps([item for item in items if item.get("type") != "reasoning"])
    assert "SECRET" not in others
    assert not any("cache" in json.dumps(item) for item in items)


def test_reasoning_text_several_text_parts_and_broken_arguments_go_back_as_they_came() -> None:
    output = [
        {
            "type": "reasoning",
            "id": "rs_5",
            "summary": [],
            "content": [{"type": "reasoning_text", "text": "Step one."}],
            "encrypted_content": _issued("rs_5"),
        },
        {
            "type": "message",
            "id": "msg_5",
            "role": "assistant",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "First.", "annotations": []},
                {"type": "output_text", "text": "Second.", "annotations": []},
            ],
        },
        {
            "type": "function_call",
            "id": "fc_5",
            "call_id": "call_5",
            "name": "t",
            "arguments": "{oops",
            "status": "completed",
        },
    ]
    with fake_provider() as server:
        server.reply = lambda body: {**REPLIES["/v1/responses"](body), "output": output}
        result = promptwire.generate({"instruction": "Go"}, model="ok", format="conversation", adapter=_adapter(server))
    turn = result.calls[-1].reply.as_turn()  # type: ignore[union-attr]
    request = _request(
        {"history": [{"role": "user", "content": "Go"}, turn, {"role": "tool", "content": [_result("call_5", "?")]}]}
    )
    assert request.kwargs["input"][1:4] == [
        output[0],
        {
            "type": "message",
            "id": "msg_5",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "First."}, {"type": "output_text", "text": "Second."}],
        },
        output[2],  # with its item id, which the reasoning before it pairs with
    ]
    assert turn.content[3].arguments is None  # type: ignore[union-attr]


def test_call_ids_longer_than_the_api_takes_are_mapped_the_same_way_for_the_call_and_its_output() -> None:
    long = "call_" + "x" * 80
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Go"},
                {"role": "assistant", "content": [{"type": "tool_call", "id": long, "name": "t"}]},
                {"role": "tool", "content": [_result(long)]},
            ]
        }
    )
    call, output = request.kwargs["input"][1:]
    assert call["call_id"] == output["call_id"] != long
    assert len(call["call_id"]) == 64
    assert request.notes == (
        f"tool call id {long!r} sent as {call['call_id']!r}: the Responses API takes ids of at most 64 characters "
        "from [!-~]",
    )


def test_a_results_tool_name_is_noted() -> None:
    request = _request(
        {
            "history": [
                {"role": "user", "content": "Go"},
                {"role": "assistant", "content": [{"type": "tool_call", "id": "c1", "name": "t"}]},
                {"role": "tool", "content": "18C", "tool_call_id": "c1", "name": "t"},
            ]
        }
    )
    assert request.kwargs["input"][2] == {"type": "function_call_output", "call_id": "c1", "output": "18C"}
    assert request.notes == (
        "messages[2].content[0]: Responses function outputs are sent without their tool's name; "
        "the tool is known by its call id",
    )
