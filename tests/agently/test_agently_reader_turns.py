"""The Agently reader on chat histories holding tool calls and results: Agently's own ``ChatMessage``
keeps them as extra fields (and its layout leaves them out); the reader reads them into turns."""

from __future__ import annotations

from typing import Any

import pytest

import promptwire
from promptwire.core.errors import FieldError
from promptwire.core.prompt import ImagePart, TextPart, ToolCallPart, ToolResultPart
from promptwire.renderers.agently import AgentlyPrompt

agently_prompt = pytest.importorskip("agently.types.data.prompt")
ChatMessage = agently_prompt.ChatMessage

CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}


def read(history: list[Any]) -> promptwire.Prompt:
    return promptwire.read({"input": "And Rome?", "chat_history": history}, "agently")


@pytest.mark.parametrize("as_model", [True, False], ids=["ChatMessage", "dict"])
def test_tool_calls_and_results_in_agentlys_messages_are_turn_parts(as_model: bool) -> None:
    messages: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Weather?"},
                {"type": "image_url", "image_url": {"url": "https://x/p.png"}},
            ],
        },
        {"role": "assistant", "content": "Looking.", "tool_calls": [CALL]},
        {"role": "tool", "content": "18C", "tool_call_id": "call_1"},
        {"role": "user", "content": "Thanks", "name": "ana"},
    ]
    history = [ChatMessage(**message) for message in messages] if as_model else messages
    turns = read(history).history
    assert turns[0].content == [TextPart(text="Weather?"), ImagePart(url="https://x/p.png")]
    assert turns[1].content == [
        TextPart(text="Looking."),
        ToolCallPart(id="call_1", name="get_weather", arguments={"city": "Paris"}, arguments_text='{"city": "Paris"}'),
    ]
    assert turns[2].content == [ToolResultPart(call_id="call_1", content="18C")]
    assert (turns[3].content, turns[3].name) == ("Thanks", "ana")


def test_flat_calls_and_an_error_flag() -> None:
    history = [
        ChatMessage(role="assistant", content="", tool_calls=[{"id": "c", "name": "f", "arguments": {"a": 1}}]),
        ChatMessage(role="tool", content="failed", tool_call_id="c", is_error=True),
    ]
    turns = read(history).history
    assert turns[0].content == [ToolCallPart(id="c", name="f", arguments={"a": 1})]
    assert turns[1].content == [ToolResultPart(call_id="c", content="failed", is_error=True)]


@pytest.mark.parametrize(
    ("message", "field"),
    [
        (ChatMessage(role="user", content="x", audio={"id": "a"}), "chat_history[0].audio"),
        (
            {"role": "assistant", "content": "", "tool_calls": [{**CALL, "index": 0}]},
            "chat_history[0].tool_calls[0].index",
        ),
        (
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{**CALL, "function": {**CALL["function"], "strict": True}}],
            },
            "chat_history[0].tool_calls[0].function.strict",
        ),
        (ChatMessage(role="tool", content="x", tool_call_id=3), "chat_history[0].tool_call_id"),
        ({"role": "assistant", "content": "", "tool_calls": 3}, "chat_history[0]"),
    ],
)
def test_what_a_turn_cannot_hold_is_refused_by_name(message: Any, field: str) -> None:
    with pytest.raises(FieldError) as raised:
        read([message])
    assert raised.value.field == field


def test_agentlys_own_layout_is_unchanged_by_the_extra_fields() -> None:
    # Agently's generator reads a message's role and content only: so does its clone.
    plain = {"input": "x", "chat_history": [{"role": "assistant", "content": "Looking."}]}
    with_calls = {"input": "x", "chat_history": [ChatMessage(role="assistant", content="Looking.", tool_calls=[CALL])]}
    assert AgentlyPrompt(with_calls).to_text() == AgentlyPrompt(plain).to_text()
    assert AgentlyPrompt(with_calls).to_messages() == AgentlyPrompt(plain).to_messages()
