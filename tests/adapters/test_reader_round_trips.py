"""A provider's body read and written again by the same provider's adapter gives the same JSON value
(issue 34: "converting a conversation to its own provider's format gives the same JSON value it was
read from"). Each body holds only what the prompt model has a place for (no ``native`` leftovers):
what a writer cannot give back is then the writer's loss."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from reader_bodies import PNG, WEATHER_SCHEMA

import promptwire
from promptwire.core.errors import UnsupportedFieldsWarning

ADAPTERS = {
    "openai-chat": "openai",
    "openai-responses": "openai-responses",
    "anthropic": "anthropic",
    "ollama": "ollama",
}
"""The adapter that writes each reader's provider's requests."""

CHAT_TOOL = {
    "type": "function",
    "function": {"name": "get_weather", "description": "The weather", "parameters": WEATHER_SCHEMA},
}
RESPONSES_TOOL = {"type": "function", "name": "get_weather", "description": "The weather", "parameters": WEATHER_SCHEMA}
ANTHROPIC_TOOL = {"name": "get_weather", "description": "The weather", "input_schema": WEATHER_SCHEMA}

CASES: list[Any] = [
    pytest.param(
        "openai-chat",
        {
            "model": "gpt-4.1",
            "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
            "temperature": 0.5,
            "max_completion_tokens": 100,
        },
        id="openai-chat-text",
    ),
    pytest.param(
        "openai-chat",
        {
            "model": "gpt-4.1",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Where?"},
                        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                    ],
                },
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                        },
                        {
                            "id": "call_2",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Lyon"}'},
                        },
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "18C"},
                {"role": "tool", "tool_call_id": "call_2", "content": "15C"},
            ],
            "tools": [CHAT_TOOL],
        },
        id="openai-chat-tool-calls",
    ),
    pytest.param(
        "openai-chat",
        {
            "model": "gpt-4.1",
            "messages": [{"role": "user", "content": "Hi"}],
            "prompt_cache_key": "k",
            "prompt_cache_retention": "24h",
        },
        id="openai-chat-cache-key",
    ),
    pytest.param(
        "openai-responses",
        {"model": "o4-mini", "input": [{"role": "user", "content": "Hi"}], "max_output_tokens": 100},
        id="openai-responses-text",
    ),
    pytest.param(
        "openai-responses",
        {
            "model": "o4-mini",
            "instructions": "Be brief.",
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
                {
                    "type": "reasoning",
                    "id": "rs_1",
                    "summary": [{"type": "summary_text", "text": "Look it up."}],
                    "encrypted_content": "gAAAA",
                },
                {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
                {"type": "function_call_output", "call_id": "call_1", "output": "18C"},
            ],
            "tools": [RESPONSES_TOOL],
        },
        id="openai-responses-reasoning-and-calls",
    ),
    pytest.param(
        "anthropic",
        {
            "model": "claude-x",
            "max_tokens": 100,
            "system": "Be brief.",
            "messages": [{"role": "user", "content": "Hi"}],
        },
        id="anthropic-text",
    ),
    pytest.param(
        "anthropic",
        {
            "model": "claude-x",
            "max_tokens": 1024,
            "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                        {"type": "text", "text": "Where?"},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "Paris.", "signature": "sig"},
                        {"type": "redacted_thinking", "data": "enc"},
                        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_1",
                            "content": "18C",
                            "cache_control": {"type": "ephemeral"},
                        }
                    ],
                },
            ],
            "tools": [{**ANTHROPIC_TOOL, "cache_control": {"type": "ephemeral", "ttl": "1h"}}],  # 1h before 5m
        },
        id="anthropic-thinking-tools-cache",
    ),
    pytest.param(
        "ollama",
        {
            "model": "qwen3",
            "stream": False,
            "think": False,
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "What is it?", "images": [PNG]},
            ],
            "options": {"num_predict": 100, "temperature": 0.2},
        },
        id="ollama-text-and-images",
    ),
    pytest.param(
        "ollama",
        {
            "model": "qwen3",
            "stream": False,
            "think": True,
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": "",
                    "thinking": "Look it up.",
                    "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
                },
                {"role": "tool", "content": "18C", "tool_name": "get_weather"},
            ],
            "tools": [
                {
                    "type": "function",
                    "function": {"name": "get_weather", "description": "The weather", "parameters": WEATHER_SCHEMA},
                }
            ],
        },
        id="ollama-thinking-and-tools",
    ),
]


@pytest.mark.parametrize(("reader", "body"), CASES)
def test_a_body_read_and_written_by_its_own_provider_is_the_same_json_value(reader: str, body: dict[str, Any]) -> None:
    prompt = promptwire.read(body, reader)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedFieldsWarning)  # native.ollama: the "stream" the writer sets
        request = promptwire.build_request(prompt, ADAPTERS[reader], body["model"], format="conversation")
    assert request.kwargs == body
    # Nothing changed on the way, so the adapter has nothing to say: only the render's report of
    # what the body named besides (its model, at least) is there.
    assert [note for note in request.notes if not note.startswith("format 'conversation' cannot express")] == []
