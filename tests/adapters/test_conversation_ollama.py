"""A conversation written to Ollama's ``/api/chat`` (adapters/ollama_turns.py): tool calls with
object arguments, tool messages naming their tool, images as bare base64, Ollama's own thinking;
what it cannot take left out with a note; a reply read into the next turn (ids given), whole and
streamed, and a tool-calling loop through the public API with the real SDK over real HTTP."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

import promptwire
from promptwire import ChatTurn, Prompt, ToolResultPart
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.core.call import Reply, Whole
from promptwire.core.errors import BadRequestError
from promptwire.testing.provider_servers import REPLIES, FakeProvider, fake_provider

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
        {"id": "call_0", "name": "get_weather", "arguments": {"city": "Paris"}},
        {"id": "call_1", "name": "get_time", "arguments": '{"zone": "été"}'},  # OpenAI's text: read into its object
    ],
}
IMAGE = {"type": "image", "data": "QUJD", "media_type": "image/png"}


def _request(history: list[Any], model: str = "qwen3", **prompt: Any) -> Any:
    return promptwire.build_request(
        {"history": history, **prompt}, provider="ollama", model=model, format="conversation"
    )


def _tool(call_id: str, content: Any, **fields: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content, **fields}


# --- writing -------------------------------------------------------------------------------------


def test_calls_go_with_object_arguments_and_results_name_their_tool() -> None:
    request = _request([USER, CALLS, _tool("call_0", "18C"), _tool("call_1", "noon")])
    assert request.kwargs["messages"][1:] == [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                {"function": {"name": "get_time", "arguments": {"zone": "été"}}},
            ],
        },
        {"role": "tool", "content": "18C", "tool_name": "get_weather"},
        {"role": "tool", "content": "noon", "tool_name": "get_time"},
    ]
    assert request.notes == ()  # call_<index> ids say nothing Ollama does not


def test_other_ids_are_left_out_with_a_note_and_a_results_own_name_wins() -> None:
    calls = {"role": "assistant", "content": "", "tool_calls": [{"id": "toolu_1", "name": "get_weather"}]}
    unknown = {"role": "user", "content": [{"type": "tool_result", "call_id": "nowhere", "content": "?"}]}
    request = _request([USER, calls, _tool("toolu_1", "18C", name="weather"), unknown])
    assert request.kwargs["messages"][2:] == [
        {"role": "tool", "content": "18C", "tool_name": "weather"},
        {"role": "tool", "content": "?"},
    ]
    assert request.notes == (
        "messages[3].content[0]: no earlier call has the id 'nowhere' and the result names no tool; "
        "sent without tool_name",
        "tool call ids left out (Ollama has none; a tool message names its tool): 'toolu_1'",
    )


def test_a_call_whose_arguments_are_no_object_is_refused_naming_the_turn() -> None:
    broken = {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "name": "get_time", "arguments": "{oops"}]}
    with pytest.raises(BadRequestError) as raised:
        _request([USER, broken, _tool("c", "noon")])
    assert str(raised.value) == (
        "messages[1]: tool call 'get_time' (content[0]) has arguments that are not a JSON object ('{oops'); "
        "Ollama takes a call's arguments as an object"
    )


def test_results_in_a_user_turn_come_first_with_their_images_and_the_rest_follows() -> None:
    results = {
        "role": "user",
        "content": [
            {"type": "text", "text": "Here."},
            {"type": "tool_result", "call_id": "call_0", "content": [{"type": "text", "text": "map:"}, IMAGE]},
            {"type": "tool_result", "call_id": "call_1", "content": "noon", "is_error": True},
            {"type": "image", "url": "https://example.com/a.png"},
        ],
    }
    request = _request([USER, CALLS, results])
    assert request.kwargs["messages"][2:] == [
        {"role": "tool", "content": "map:", "images": ["QUJD"], "tool_name": "get_weather"},
        {"role": "tool", "content": "noon", "tool_name": "get_time"},
        {"role": "user", "content": "Here."},
    ]
    assert request.notes == (
        "messages[2].content[2]: Ollama tool messages cannot mark an error; the result text is sent as is",
        "messages[2].content[3]: Ollama cannot carry this image_url part; left out",
    )


@pytest.mark.parametrize(
    ("reasoning", "thinking", "notes"),
    [
        ({"type": "reasoning", "text": "Paris first.", "provider": "ollama"}, "Paris first.", ()),
        (
            {"type": "reasoning", "text": "Paris first.", "signature": "sig", "provider": "anthropic"},
            None,
            ("messages[1].content[0]: reasoning from anthropic cannot be sent to ollama; left out",),
        ),
        (
            {"type": "reasoning", "encrypted": "gAAA", "provider": "openai-responses", "id": "rs_1"},
            None,
            ("messages[1].content[0]: reasoning from openai-responses cannot be sent to ollama; left out",),
        ),
    ],
)
def test_only_ollamas_own_reasoning_goes_back_as_thinking(
    reasoning: dict[str, Any], thinking: str | None, notes: tuple[str, ...]
) -> None:
    turn = {"role": "assistant", "content": [reasoning, {"type": "text", "text": "Sunny."}]}
    request = _request([USER, turn])
    expected: dict[str, Any] = {"role": "assistant", "content": "Sunny."}
    if thinking is not None:
        expected["thinking"] = thinking
    assert request.kwargs["messages"][1] == expected
    assert request.notes == notes
    if thinking is None:
        assert "Paris first." not in json.dumps(request.kwargs)


def test_breakpoints_and_openais_cache_settings_are_noted() -> None:
    history = [{"role": "user", "content": [{"type": "text", "text": "Hi", "cache": {}}, IMAGE], "cache": {}}]
    request = _request(history, system="Be brief.", tools=[WEATHER], cache={"system": {}, "tools": {}, "key": "k"})
    assert request.kwargs["messages"][1] == {"role": "user", "content": "Hi", "images": ["QUJD"]}
    assert "cache" not in json.dumps(request.kwargs) and "prompt_cache_key" not in request.kwargs
    assert request.notes == (
        "cache breakpoints left out (Ollama has none: it reuses a cached prompt prefix on its own): "
        "messages[0], messages[1], messages[1].content[0], tools",
        "cache key left out: OpenAI's prompt cache settings, which Ollama has no place for",
    )


# --- the reply is the next turn ------------------------------------------------------------------


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    with fake_provider() as running:
        monkeypatch.setenv("OLLAMA_HOST", running.root)  # where a request built for a bare model name goes
        yield running


def _replied(server: FakeProvider, request: Any, streamed: bool) -> Reply:
    adapter = OllamaAdapter()
    if not streamed:
        return adapter.parse_reply(adapter.send(request, 5))
    *texts, whole = adapter.stream(adapter.streamed(request), 5)
    assert isinstance(whole, Whole)
    reply = adapter.parse_reply(whole.raw)
    assert "".join(texts) == (reply.text or "")  # the text came as it arrived
    return reply


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_a_reply_is_read_into_its_turn_with_ids_and_goes_back_as_it_came(server: FakeProvider, streamed: bool) -> None:
    first = _replied(server, _request([USER], "tools", tools=[WEATHER, CLOCK]), streamed)
    turn = first.as_turn()
    assert turn is first.turn
    assert [part.model_dump(exclude_none=True, exclude_defaults=True) for part in turn.content] == [
        {"text": "Easy.", "provider": "ollama"},
        {"id": "call_0", "name": "get_weather", "arguments": {"city": "fake"}},
        {"id": "call_1", "name": "get_time", "arguments": {"zone": "fake"}},
    ]
    assert [call.id for call in first.tool_calls] == ["call_0", "call_1"]  # the same ids as the turn's
    history = [USER, turn, _tool("call_0", "18C"), _tool("call_1", "noon")]
    again = _request(history, "tools", tools=[WEATHER, CLOCK])
    returned = REPLIES["/api/chat"](server.requests[0])["message"]  # what the provider sent
    assert (
        again.kwargs["messages"][1]
        == returned
        == {
            "role": "assistant",
            "content": "",
            "thinking": "Easy.",
            "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"city": "fake"}}},
                {"function": {"name": "get_time", "arguments": {"zone": "fake"}}},
            ],
        }
    )
    assert again.notes == ()
    last = _replied(server, again, streamed)
    assert last.text == "18C\nnoon" and last.tool_calls == ()
    assert last.as_turn().model_dump(exclude_none=True, exclude_defaults=True)["content"] == [
        {"text": "Easy.", "provider": "ollama"},  # a part's type is its default
        {"text": "18C\nnoon"},
    ]


# --- the loop, through the public API ------------------------------------------------------------

TOOLS = {"get_weather": lambda city: f"18C in {city}", "get_time": lambda zone: f"noon in {zone}"}


def _loop(streamed: bool) -> tuple[Prompt, Any]:
    prompt = Prompt(history=[ChatTurn(role="user", content="Weather and time?")], tools=[WEATHER, CLOCK])
    on_text = [].append if streamed else None
    while True:
        result = promptwire.generate(prompt, "ollama", "tools", format="conversation", on_text=on_text)
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
        result = await promptwire.agenerate(prompt, "ollama", "tools", format="conversation", on_text=on_text)
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
    assert [body["stream"] for body in server.requests] == [streamed, streamed]
    assert second["messages"] == [
        *first["messages"],
        {
            "role": "assistant",
            "content": "",
            "thinking": "Easy.",
            "tool_calls": [
                {"function": {"name": "get_weather", "arguments": {"city": "fake"}}},
                {"function": {"name": "get_time", "arguments": {"zone": "fake"}}},
            ],
        },
        {"role": "tool", "content": "18C in fake", "tool_name": "get_weather"},
        {"role": "tool", "content": "noon in fake", "tool_name": "get_time"},
    ]
    assert result.calls[-1].request.notes == ()
