"""A conversation written to OpenAI Chat Completions (adapters/openai_turns.py): tool calls and
tool messages, the order rules OpenAI enforces, what it cannot take back (reasoning, breakpoints,
images in a tool message) left out with a note; a reply read into the next turn, whole and
streamed, and a tool-calling loop through the public API with the real SDK over real HTTP."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import promptwire
from promptwire import ChatTurn, Prompt, ToolResultPart
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.core.call import Reply, Whole
from promptwire.core.errors import BadRequestError
from promptwire.testing.provider_servers import REPLIES, FakeProvider, fake_provider
from tests.hypothesis_profile import examples

WEATHER = {
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
CLOCK = {"name": "get_time", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}
USER = {"role": "user", "content": "Weather in Paris?"}
CALLS = {
    "role": "assistant",
    "content": "",
    "tool_calls": [
        {"id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'},  # the provider's own text
        {"id": "call_2", "name": "get_time", "arguments": {"zone": "Paris, été"}},  # an object
    ],
}


def _request(history: list[Any], model: str = "gpt-x", **prompt: Any) -> Any:
    return promptwire.build_request(
        {"history": history, **prompt}, provider="openai", model=model, format="conversation"
    )


def _tool(call_id: str, content: Any, **fields: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content, **fields}


# --- writing -------------------------------------------------------------------------------------


def test_parallel_calls_go_in_one_message_with_the_providers_argument_text() -> None:
    request = _request([USER, CALLS, _tool("call_1", "18C"), _tool("call_2", "noon")])
    assert request.kwargs["messages"][1:] == [
        {
            "role": "assistant",
            "content": None,  # no text beside the calls
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": '{"zone": "Paris, été"}'},
                },
            ],
        },
        {"role": "tool", "content": "18C", "tool_call_id": "call_1"},
        {"role": "tool", "content": "noon", "tool_call_id": "call_2"},
    ]
    assert request.notes == ()


def test_the_chat_shape_history_sends_what_the_one_round_tool_calls_send_but_null_content() -> None:
    calls = [{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}]
    as_turns = _request([USER, {"role": "assistant", "content": "", "tool_calls": calls}, _tool("call_1", "18C")])
    one_round = promptwire.build_request(
        {"history": [USER], "tool_calls": calls, "tool_results": [{"call_id": "call_1", "content": "18C"}]},
        provider="openai",
        model="gpt-x",
        format="conversation",
    )
    # The one-round form keeps its old bytes ("content": ""); a turn's calls without text send
    # null, as OpenAI returns them, so a reply goes back as it came.
    one_round.kwargs["messages"][1]["content"] = None
    assert as_turns.kwargs["messages"] == one_round.kwargs["messages"]


def test_an_assistant_turn_keeps_its_text_and_several_texts_stay_parts() -> None:
    one = {"role": "assistant", "content": [{"type": "text", "text": "Looking."}], "tool_calls": CALLS["tool_calls"]}
    two = {
        "role": "assistant",
        "content": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}, {"type": "reasoning", "text": "r"}],
    }
    messages = _request([USER, one, _tool("call_1", "18C"), _tool("call_2", "noon"), two]).kwargs["messages"]
    assert messages[1]["content"] == "Looking." and len(messages[1]["tool_calls"]) == 2
    assert messages[4] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}],
    }


def test_results_in_a_user_turn_become_tool_messages_before_the_rest_of_the_turn() -> None:
    results = {
        "role": "user",
        "content": [
            {"type": "text", "text": "Here you are."},
            {"type": "tool_result", "call_id": "call_2", "content": "noon"},
            {"type": "tool_result", "call_id": "call_1", "content": "18C"},
        ],
    }
    messages = _request([USER, CALLS, results]).kwargs["messages"]
    assert messages[2:] == [
        {"role": "tool", "content": "noon", "tool_call_id": "call_2"},
        {"role": "tool", "content": "18C", "tool_call_id": "call_1"},
        {"role": "user", "content": [{"type": "text", "text": "Here you are."}]},
    ]


def test_a_tool_message_takes_text_parts_only_and_the_rest_is_noted() -> None:
    content = [
        {"type": "text", "text": "a chart:"},
        {"type": "image", "data": "QUJD", "media_type": "image/png"},
        {"type": "text", "text": "done"},
    ]
    request = _request(
        [USER, CALLS, _tool("call_1", content, is_error=True, name="get_weather"), _tool("call_2", "noon")]
    )
    assert request.kwargs["messages"][2] == {
        "role": "tool",
        "content": [{"type": "text", "text": "a chart:"}, {"type": "text", "text": "done"}],
        "tool_call_id": "call_1",
    }
    assert request.notes == (
        "messages[2].content[0].content[1]: a Chat Completions tool message takes text only; this image_url part "
        "is left out",
        "messages[2].content[0]: OpenAI tool messages have no name; the tool is known by its call id",
        "messages[2].content[0]: OpenAI tool messages cannot mark an error; the result text is sent as is",
    )


@pytest.mark.parametrize(
    ("reasoning", "note"),
    [
        (
            {"type": "reasoning", "text": "Paris first.", "signature": "sig", "provider": "anthropic"},
            "messages[1].content[0]: reasoning from anthropic cannot be sent to openai; left out",
        ),
        (
            {"type": "reasoning", "text": "Paris first.", "provider": "openai"},
            "messages[1].content[0]: Chat Completions takes no reasoning back; left out",
        ),
        (
            {"type": "reasoning", "text": "Paris first."},
            "messages[1].content[0]: reasoning of unknown origin cannot be sent to openai; left out",
        ),
    ],
)
def test_reasoning_is_never_sent_and_always_noted(reasoning: dict[str, Any], note: str) -> None:
    turn = {"role": "assistant", "content": [reasoning, {"type": "text", "text": "It is sunny."}]}
    request = _request([USER, turn])
    assert request.kwargs["messages"][1] == {"role": "assistant", "content": "It is sunny."}
    assert "Paris first." not in json.dumps(request.kwargs)
    assert request.notes == (note,)


def test_breakpoints_are_one_note_and_the_cache_key_and_retention_go_last() -> None:
    history = [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?", "cache": {"ttl": "1h"}}]},
        {**CALLS, "cache": {}},
        _tool("call_1", [{"type": "text", "text": "18C", "cache": {}}]),
        _tool("call_2", "noon"),
    ]
    cache = {"system": {}, "tools": {}, "key": "user-42", "retention": "24h"}
    request = _request(history, system="Be brief.", cache=cache, tools=[WEATHER])
    assert list(request.kwargs) == ["model", "messages", "tools", "prompt_cache_key", "prompt_cache_retention"]
    assert request.kwargs["prompt_cache_key"] == "user-42" and request.kwargs["prompt_cache_retention"] == "24h"
    assert "cache" not in json.dumps(request.kwargs["messages"])
    assert request.notes == (
        "cache breakpoints left out (messages[0], messages[1].content[0], messages[2], "
        "messages[3].content[0].content[0], cache.tools): Chat Completions caches a request's prefix by itself "
        "and takes no breakpoints (prompt_cache_key and prompt_cache_retention steer it)",
    )


def test_a_tool_message_must_answer_a_call_of_the_assistant_message_before_it() -> None:
    with pytest.raises(BadRequestError, match=r"^messages\[1\]: content\[0\] answers tool call 'call_9'"):
        _request([USER, _tool("call_9", "18C")])
    late = [USER, CALLS, _tool("call_1", "18C"), _tool("call_2", "noon"), {"role": "user", "content": "More?"}]
    with pytest.raises(BadRequestError, match=r"^messages\[5\]: content\[0\] answers tool call 'call_1'"):
        _request([*late, _tool("call_1", "again")])  # a user message came between: the call is closed


def test_every_call_must_be_answered_before_the_next_message() -> None:
    with pytest.raises(BadRequestError) as raised:
        _request([USER, CALLS, _tool("call_1", "18C"), {"role": "user", "content": "Well?"}])
    assert str(raised.value) == (
        "messages[1]: tool call 'call_2' has no tool result before messages[3]: OpenAI requires a tool message "
        "answering each call of an assistant message before any other message"
    )
    with pytest.raises(BadRequestError, match=r"^messages\[1\]: tool call 'call_1' has no tool result after it"):
        _request([USER, CALLS])


def test_the_one_round_results_answer_the_calls_of_the_historys_last_turn() -> None:
    calls = {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1", "name": "get_weather"}]}
    request = promptwire.build_request(
        {"history": [USER, calls], "tool_results": [{"call_id": "call_1", "content": "18C"}]},
        provider="openai",
        model="gpt-x",
        format="conversation",
    )
    assert request.kwargs["messages"][2] == {"role": "tool", "content": "18C", "tool_call_id": "call_1"}


def test_ids_openai_refuses_are_mapped_the_same_for_the_call_and_its_result() -> None:
    long_id = "toolu_" + "x" * 40
    calls = {"role": "assistant", "content": "", "tool_calls": [{"id": long_id, "name": "get_weather"}]}
    request = _request([USER, calls, _tool(long_id, "18C")])
    sent = request.kwargs["messages"][1]["tool_calls"][0]["id"]
    assert len(sent) == 40 and sent != long_id and request.kwargs["messages"][2]["tool_call_id"] == sent
    assert request.notes == (
        f"tool call id {long_id!r} sent as {sent!r}: OpenAI takes ids of at most 40 characters from [a-zA-Z0-9_-]",
    )


def test_a_call_without_an_id_gets_one_and_a_note() -> None:
    turn = {"role": "assistant", "content": [{"type": "tool_call", "name": "get_weather", "arguments": {}}]}
    request = _request([USER, turn, _tool("call_1_0", "18C")])
    assert request.kwargs["messages"][1]["tool_calls"][0]["id"] == "call_1_0"
    assert request.kwargs["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert request.notes == (
        "messages[1].content[0]: a tool call without an id is sent as 'call_1_0' (OpenAI requires one)",
    )


# --- the reply is the next turn ------------------------------------------------------------------

REPLY_MESSAGE = {
    "role": "assistant",
    "content": "Let me check.",
    "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":  "Paris"}'}},
        {"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": "{not json"}},
    ],
    "reasoning_content": "Two tools at once.",  # a compatible server's (DeepSeek, vLLM)
}


@pytest.fixture
def server() -> Iterator[FakeProvider]:
    with fake_provider() as running:
        yield running


def _canned(message: dict[str, Any]) -> Any:
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
        return {"id": "chatcmpl-9", "object": "chat.completion", "created": 0, "model": "m", "choices": [choice]}

    return reply


def _replied(server: FakeProvider, request: Any, streamed: bool) -> Reply:
    adapter = OpenAIAdapter(api_key="sk-test", base_url=server.base_url)
    if not streamed:
        return adapter.parse_reply(adapter.send(request, 5))
    *texts, whole = adapter.stream(adapter.streamed(request), 5)
    assert isinstance(whole, Whole)
    reply = adapter.parse_reply(whole.raw)
    assert "".join(texts) == (reply.text or "")  # the text came as it arrived
    return reply


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_reply_is_read_into_its_turn_and_goes_back_as_it_came(server: FakeProvider, streamed: bool) -> None:
    server.reply = _canned(REPLY_MESSAGE)
    reply = _replied(server, _request([USER], tools=[WEATHER, CLOCK]), streamed)
    turn = reply.as_turn()
    assert turn is reply.turn and turn.role == "assistant"
    assert [part.model_dump(exclude_none=True, exclude_defaults=True) for part in turn.content] == [
        {"text": "Two tools at once.", "provider": "openai"},
        {"text": "Let me check."},
        {"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}, "arguments_text": '{"city":  "Paris"}'},
        {"id": "call_b", "name": "get_time", "arguments_text": "{not json"},
    ]
    assert turn.content[3].arguments is None  # type: ignore[union-attr]  # not a JSON object: its text is kept
    results = [_tool("call_a", "18C"), _tool("call_b", "noon")]
    again = _request([USER, turn, *results], tools=[WEATHER, CLOCK])
    sent_back = dict(REPLY_MESSAGE)
    del sent_back["reasoning_content"]  # Chat Completions takes none back: noted
    assert again.kwargs["messages"][1] == sent_back
    assert again.notes == ("messages[1].content[0]: Chat Completions takes no reasoning back; left out",)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("content", ["It is sunny.", ""])
def test_a_reply_of_text_alone_goes_back_as_text(server: FakeProvider, streamed: bool, content: str) -> None:
    server.reply = _canned({"role": "assistant", "content": content})
    turn = _replied(server, _request([USER]), streamed).as_turn()
    again = _request([USER, turn, {"role": "user", "content": "Thanks."}])
    assert again.kwargs["messages"][1] == {"role": "assistant", "content": content}  # not a list of parts
    assert again.notes == ()


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_the_tools_model_calls_every_tool_at_once_then_answers_with_the_results(
    server: FakeProvider, streamed: bool
) -> None:
    first = _replied(server, _request([USER], "tools", tools=[WEATHER, CLOCK]), streamed)
    assert first.finish_reason == "tool_calls" and first.text is None
    assert [(call.id, call.name, call.arguments) for call in first.tool_calls] == [
        ("call_0_0", "get_weather", {"city": "fake"}),
        ("call_0_1", "get_time", {"zone": "fake"}),
    ]
    history = [USER, first.as_turn(), _tool("call_0_0", "18C"), _tool("call_0_1", "noon")]
    returned = REPLIES["/v1/chat/completions"](server.requests[0])["choices"][0]["message"]  # what the provider sent
    assert (
        _request(history, tools=[WEATHER, CLOCK]).kwargs["messages"][1]
        == returned
        == {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_0_0",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "fake"}'},
                },
                {
                    "id": "call_0_1",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": '{"zone": "fake"}'},
                },
            ],
        }
    )
    last = _replied(server, _request(history, "tools", tools=[WEATHER, CLOCK]), streamed)
    assert last.text == "18C\nnoon" and last.tool_calls == ()


# --- the loop, through the public API ------------------------------------------------------------

TOOLS = {"get_weather": lambda city: f"18C in {city}", "get_time": lambda zone: f"noon in {zone}"}


def _loop(streamed: bool) -> tuple[Prompt, Any]:
    prompt = Prompt(history=[ChatTurn(role="user", content="Weather and time?")], tools=[WEATHER, CLOCK])
    on_text = [].append if streamed else None
    while True:
        result = promptwire.generate(prompt, "openai", "tools", format="conversation", on_text=on_text)
        reply = result.calls[-1].reply
        prompt.history.append(reply.as_turn())
        if not reply.tool_calls:
            return prompt, result
        done = [
            ToolResultPart(call_id=call.id, content=TOOLS[call.name](**call.arguments)) for call in reply.tool_calls
        ]
        prompt.history.append(ChatTurn(role="tool", content=done))


async def _aloop(streamed: bool) -> tuple[Prompt, Any]:
    prompt = Prompt(history=[ChatTurn(role="user", content="Weather and time?")], tools=[WEATHER, CLOCK])
    on_text = [].append if streamed else None
    while True:
        result = await promptwire.agenerate(prompt, "openai", "tools", format="conversation", on_text=on_text)
        reply = result.calls[-1].reply
        prompt.history.append(reply.as_turn())
        if not reply.tool_calls:
            return prompt, result
        done = [
            ToolResultPart(call_id=call.id, content=TOOLS[call.name](**call.arguments)) for call in reply.tool_calls
        ]
        prompt.history.append(ChatTurn(role="tool", content=done))


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("awaited", [False, True], ids=["sync", "async"])
def test_a_tool_calling_loop_runs_against_the_real_sdk(
    server: FakeProvider, monkeypatch: pytest.MonkeyPatch, streamed: bool, awaited: bool
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    prompt, result = asyncio.run(_aloop(streamed)) if awaited else _loop(streamed)
    assert result.value == "18C in fake\nnoon in fake"
    assert [turn.role for turn in prompt.history] == ["user", "assistant", "tool", "assistant"]
    first, second = server.requests
    assert [bool(body.get("stream")) for body in server.requests] == [streamed, streamed]
    assert second["messages"] == [
        *first["messages"],
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_0_0",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "fake"}'},
                },
                {
                    "id": "call_0_1",
                    "type": "function",
                    "function": {"name": "get_time", "arguments": '{"zone": "fake"}'},
                },
            ],
        },
        {"role": "tool", "content": "18C in fake", "tool_call_id": "call_0_0"},
        {"role": "tool", "content": "noon in fake", "tool_call_id": "call_0_1"},
    ]
    assert result.calls[-1].request.notes == ()


# --- any conversation ----------------------------------------------------------------------------


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A conversation whose calls are each answered right after their turn (as a tool turn each,
    one tool turn, or a user turn: Anthropic's shape), with tool-call ids of any text, reasoning
    from any provider, and images; every text is unique (``ask-3``, ``thought-4``...), so where
    it went can be told."""
    number = itertools.count()
    history: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        asked: list[dict[str, Any]] = [{"type": "text", "text": f"ask-{next(number)}"}]
        history.append({"role": "user", "content": asked + ([IMAGE] if draw(st.booleans()) else [])})
        parts: list[dict[str, Any]] = [
            {"type": "reasoning", "text": f"thought-{next(number)}", "provider": provider}
            for provider in draw(st.lists(st.sampled_from(["openai", "ollama", "anthropic", None]), max_size=2))
        ]
        if draw(st.booleans()):
            parts.append({"type": "text", "text": f"said-{next(number)}"})
        ids = draw(st.lists(st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=50), max_size=3))
        ids = list(dict.fromkeys(ids))  # one call an id within a turn
        calls = [{"type": "tool_call", "id": i, "name": f"tool-{next(number)}", "arguments": {"n": 1}} for i in ids]
        history.append({"role": "assistant", "content": parts + calls})
        results = [
            {
                "type": "tool_result",
                "call_id": i,
                "content": draw(st.sampled_from([text, [{"type": "text", "text": text}, IMAGE]])),
            }
            for i, text in ((i, f"result-{next(number)}") for i in ids)
        ]
        shape = draw(st.sampled_from(["tool turns", "one tool turn", "user turn"]))
        if results and shape == "tool turns":
            history += [{"role": "tool", "content": [result]} for result in results]
        elif results:
            history.append({"role": "tool" if shape == "one tool turn" else "user", "content": results})
    return history


IMAGE = {"type": "image", "data": "QUJD", "media_type": "image/png"}


def _texts(history: list[dict[str, Any]], prefix: str) -> list[str]:
    found = re.findall(rf'"({prefix}-\d+)"', json.dumps(history))
    return found


@settings(max_examples=examples(1), deadline=None)
@given(conversations())
def test_any_conversation_keeps_every_part_or_names_it_and_pairs_every_call(history: list[dict[str, Any]]) -> None:
    request = _request(history)
    body = json.dumps(request.kwargs, ensure_ascii=False)
    for prefix in ("ask", "said", "tool", "result"):
        assert all(f'"{text}"' in body for text in _texts(history, prefix)), prefix
    assert "thought-" not in body  # reasoning never goes, as text or otherwise
    for index, turn in enumerate(history):
        for position, part in enumerate(turn["content"]):
            if part["type"] == "reasoning":
                assert any(note.startswith(f"messages[{index}].content[{position}]: ") for note in request.notes)
    made: set[str] = set()
    for message in request.kwargs["messages"]:
        if message["role"] == "tool":
            assert message["tool_call_id"] in made
            made.discard(message["tool_call_id"])
            continue
        assert not made  # every call was answered before the next message
        made = {call["id"] for call in message.get("tool_calls", ())}
        assert all(len(call_id) <= 40 and re.fullmatch("[a-zA-Z0-9_-]+", call_id) for call_id in made)
    assert not made


_CONTENT = st.one_of(
    st.text(max_size=5),
    st.just([{"type": "tool_call", "id": "call_1", "name": "f", "arguments": {}}]),
    st.just([{"type": "tool_result", "call_id": "call_1", "content": "ok"}]),
)
_MESSAGE_FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "name": st.sampled_from(["ann", None]),
        "tool_call_id": st.sampled_from(["call_1", None]),
        "is_error": st.booleans(),
        "cache": st.sampled_from([{}, None]),
    },
)


@given(
    st.lists(
        st.tuples(st.sampled_from(["user", "system", "assistant", "tool", "developer"]), _CONTENT, _MESSAGE_FIELDS),
        max_size=6,
    )
)
@settings(max_examples=examples(200))
def test_writing_all_messages_at_once_is_writing_each(messages: list[tuple[str, Any, dict[str, Any]]]) -> None:
    # write_all writes the usual text message inline (a history holds 100,000s): the same dicts,
    # notes, breakpoints and refusals as write for each message and then finish.
    from promptwire.adapters.openai_turns import ChatMessages
    from promptwire.core.rendered import Message

    rendered = [Message(role, text, **fields) for role, text, fields in messages]
    at_once, each = ChatMessages(), ChatMessages()
    try:
        written = at_once.write_all(rendered)
    except BadRequestError as exc:
        with pytest.raises(BadRequestError, match=re.escape(str(exc))):
            [data for index, message in enumerate(rendered) for data in each.write(message, index)]
            each.finish()
        return
    assert written == [data for index, message in enumerate(rendered) for data in each.write(message, index)]
    each.finish()
    assert (at_once.notes, at_once.breakpoints) == (each.notes, each.breakpoints)
