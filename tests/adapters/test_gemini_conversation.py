"""A conversation written to Gemini's ``contents`` (adapters/gemini_turns.py): function calls and
responses paired by name and id, results gathered into the turn after their calls, Gemini's own
thoughts and signatures back where they came, everything else left out with a note, order rules
refused naming the turn; a reply read into the next turn and sent back as it came, whole and
streamed; the tool-calling loop of docs/embedding.md §9 through the public API, sync and async."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings

import promptwire
from promptwire import ChatTurn, Prompt, ToolResultPart
from promptwire.adapters.gemini import GeminiAdapter
from promptwire.core.call import Reply, Whole
from promptwire.core.errors import BadRequestError
from promptwire.testing.gemini_server import gemini_server
from promptwire.testing.provider_servers import FakeProvider
from tests.adapters.test_conversation_openai_chat import conversations
from tests.hypothesis_profile import examples

WEATHER = {
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
CLOCK = {"name": "get_time", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}
USER = {"role": "user", "content": "Weather in Paris?"}
CALLS = {
    "role": "assistant",
    "content": [
        {"type": "reasoning", "text": "Two tools.", "signature": "c2lnMQ==", "provider": "gemini"},
        {"type": "reasoning", "signature": "c2lnMg==", "provider": "gemini"},
        {"type": "tool_call", "id": "c-1", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"type": "tool_call", "id": "c-2", "name": "get_time", "arguments": {"zone": "CET"}},
    ],
}
IMAGE = {"type": "image", "data": "QUJD", "media_type": "image/png"}


def _request(history: list[Any], model: str = "gemini-3-pro", **prompt: Any) -> Any:
    return promptwire.build_request(
        {"history": history, **prompt}, provider="gemini", model=model, format="conversation"
    )


def _results(*results: tuple[str, Any]) -> dict[str, Any]:
    return {"role": "tool", "content": [{"type": "tool_result", "call_id": i, "content": c} for i, c in results]}


# --- writing -------------------------------------------------------------------------------------


def test_calls_and_results_go_as_function_parts_with_ids_and_signatures() -> None:
    request = _request([USER, CALLS, _results(("c-2", "noon"), ("c-1", [{"type": "text", "text": "18C"}, IMAGE]))])
    assert request.kwargs["contents"][1:] == [
        {
            "role": "model",
            "parts": [
                {"text": "Two tools.", "thought": True, "thoughtSignature": "c2lnMQ=="},
                {
                    "functionCall": {"id": "c-1", "name": "get_weather", "args": {"city": "Paris"}},
                    "thoughtSignature": "c2lnMg==",
                },
                {"functionCall": {"id": "c-2", "name": "get_time", "args": {"zone": "CET"}}},
            ],
        },
        {
            "role": "user",
            "parts": [  # in call order
                {
                    "functionResponse": {
                        "id": "c-1",
                        "name": "get_weather",
                        "response": {"result": "18C"},
                        "parts": [{"inlineData": {"mimeType": "image/png", "data": "QUJD"}}],
                    }
                },
                {"functionResponse": {"id": "c-2", "name": "get_time", "response": {"result": "noon"}}},
            ],
        },
    ]
    assert request.notes == ()


def test_an_error_result_goes_under_error_and_the_one_round_shape_too() -> None:
    history = [
        USER,
        {"role": "assistant", "content": "", "tool_calls": [{"id": "t1", "name": "get_weather", "arguments": {}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "no such city", "is_error": True},
    ]
    request = _request(history)
    assert request.kwargs["contents"][1:] == [
        {"role": "model", "parts": [{"functionCall": {"id": "t1", "name": "get_weather", "args": {}}}]},
        {
            "role": "user",
            "parts": [{"functionResponse": {"id": "t1", "name": "get_weather", "response": {"error": "no such city"}}}],
        },
    ]


@pytest.mark.parametrize(
    ("history", "problem"),
    [
        ([USER, _results(("c-1", "18C"))], r"messages\[1\]: the tool result for 'c-1' answers no tool call"),
        ([USER, CALLS, _results(("c-1", "18C"))], r"messages\[1\]: tool call 'c-2' has no tool result"),
        (
            [USER, CALLS, _results(("c-1", "a"), ("c-1", "b"), ("c-2", "c"))],
            r"messages\[2\]: the tool call 'c-1' of messages\[1\] is answered twice",
        ),
        (
            [
                USER,
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_call", "id": "x", "name": "f", "arguments": None, "arguments_text": "{"}
                    ],
                },
            ],
            r"messages\[1\]: content\[0\]: tool call 'f' has arguments that are not a JSON object",
        ),
        (
            [{"role": "user", "content": [{"type": "tool_call", "id": "x", "name": "f", "arguments": {}}]}],
            r"messages\[0\]: content\[0\]: tool call 'f' is in a user turn",
        ),
    ],
)
def test_order_rules_are_refused_naming_the_turn(history: list[Any], problem: str) -> None:
    with pytest.raises(BadRequestError, match=problem):
        _request(history)


def test_other_reasoning_and_what_gemini_cannot_take_are_noted() -> None:
    history = [
        {"role": "user", "name": "ann", "content": [{"type": "image", "url": "https://x.test/a.png", "detail": "low"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "Hm.", "signature": "s", "provider": "anthropic"},
                {"type": "reasoning", "text": "Hm.", "redacted": True, "encrypted": "e", "provider": "gemini"},
                {"type": "text", "text": "Hello."},
            ],
        },
    ]
    request = _request(history)
    assert request.kwargs["contents"] == [
        {"role": "user", "parts": [{"fileData": {"mimeType": "image/png", "fileUri": "https://x.test/a.png"}}]},
        {"role": "model", "parts": [{"text": "Hello."}]},
    ]
    assert request.notes == (
        "messages[0]: Gemini has no speaker name; 'ann' left out",
        "messages[0].content[0]: Gemini has no image detail level; 'low' left out",
        "messages[1].content[0]: reasoning from anthropic cannot be sent to gemini; left out",
        "messages[1].content[1]: Gemini has no redacted or encrypted reasoning to take back; left out",
    )


# --- the reply is the next turn ------------------------------------------------------------------


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    with gemini_server() as running:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", running.root)
        monkeypatch.setenv("GEMINI_API_KEY", "gm-test-key-0123456789")
        monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
        yield running


def _replied(request: Any, streamed: bool) -> Reply:
    adapter = GeminiAdapter()
    if not streamed:
        return adapter.parse_reply(adapter.send(request, 5))
    *texts, whole = adapter.stream(adapter.streamed(request), 5)
    assert isinstance(whole, Whole)
    reply = adapter.parse_reply(whole.raw)
    assert "".join(texts) == (reply.text or "")
    return reply


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_reply_is_read_into_its_turn_and_goes_back_as_it_came(server: FakeProvider, streamed: bool) -> None:
    first = _replied(_request([USER], "tools", tools=[WEATHER, CLOCK]), streamed)
    turn = first.as_turn()
    assert [call.id for call in first.tool_calls] == ["call_0", "call_1"]  # Gemini gave none
    assert first.reasoning == "I think about it (1)."
    history = [USER, turn, _results(("call_0", "18C"), ("call_1", "noon"))]
    again = _request(history, "tools", tools=[WEATHER, CLOCK])
    sent_back = again.kwargs["contents"][1]
    returned = server.requests[0] and json.loads(json.dumps(_whole_content(first)))
    assert sent_back == returned  # byte for byte what Gemini sent
    assert sent_back["parts"][1]["thoughtSignature"].startswith("c2lnbmVk")
    assert again.kwargs["contents"][2]["parts"][0] == {
        "functionResponse": {"name": "get_weather", "response": {"result": "18C"}}
    }
    assert again.notes == ()
    last = _replied(again, streamed)
    assert last.text == "18C\nnoon" and last.tool_calls == ()
    final = _request([*history, last.as_turn(), {"role": "user", "content": "Thanks."}], "tools")
    assert final.kwargs["contents"][3] == json.loads(json.dumps(_whole_content(last)))


def _whole_content(reply: Reply) -> Any:
    return reply.raw.candidates[0].content.model_dump(mode="json", by_alias=True, exclude_none=True)


# --- the loop, through the public API ------------------------------------------------------------

TOOLS = {"get_weather": lambda city: f"18C in {city}", "get_time": lambda zone: f"noon in {zone}"}


def _loop(streamed: bool) -> tuple[Prompt, Any]:
    prompt = Prompt(history=[ChatTurn(role="user", content="Weather and time?")], tools=[WEATHER, CLOCK])
    on_text = [].append if streamed else None
    while True:
        result = promptwire.generate(prompt, "gemini", "tools", format="conversation", on_text=on_text)
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
        result = await promptwire.agenerate(prompt, "gemini", "tools", format="conversation", on_text=on_text)
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
def test_a_tool_calling_loop_runs_against_the_real_sdk(server: FakeProvider, streamed: bool, awaited: bool) -> None:
    prompt, result = asyncio.run(_aloop(streamed)) if awaited else _loop(streamed)
    assert result.value == "18C in fake\nnoon in fake"
    assert [turn.role for turn in prompt.history] == ["user", "assistant", "tool", "assistant"]
    first, second = server.requests
    assert second["contents"][: len(first["contents"])] == first["contents"]
    assert [part.get("functionResponse", {}).get("name") for part in second["contents"][-1]["parts"]] == [
        "get_weather",
        "get_time",
    ]
    assert result.calls[-1].request.notes == ()


# --- any conversation ----------------------------------------------------------------------------


@settings(max_examples=examples(1), deadline=None)
@given(conversations())
def test_any_conversation_keeps_every_part_or_names_it(history: list[dict[str, Any]]) -> None:
    try:
        request = _request(history)
    except BadRequestError as error:
        assert re.match(r"messages\[\d+\]", str(error))
        return
    body = json.dumps(request.kwargs, ensure_ascii=False)
    for prefix in ("ask", "said", "tool", "result"):
        assert all(f'"{text}"' in body for text in re.findall(rf'"({prefix}-\d+)"', json.dumps(history))), prefix
    for index, turn in enumerate(history):
        for position, part in enumerate(turn["content"]):
            if part["type"] == "reasoning" and part["provider"] != "gemini":
                assert re.search(rf"{part['text']}(?!\d)", body) is None
                assert any(note.startswith(f"messages[{index}].content[{position}]: ") for note in request.notes)
