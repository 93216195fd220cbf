"""A provider's body read and written again by the same provider's adapter gives the same JSON value
(issue 34: "converting a conversation to its own provider's format gives the same JSON value it was
read from"). Each body holds only what the prompt model has a place for (no ``native`` leftovers):
what a writer cannot give back is then the writer's loss."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from reader_bodies import PNG, WEATHER_SCHEMA

import promptwire
from promptwire.core.errors import BadRequestError, UnsupportedFieldsWarning
from promptwire.core.json_text import to_bytes

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


# --- Gemini and Bedrock: what their adapters write, read back --------------------------------------

CORPUS_ADAPTERS = ("gemini", "bedrock")
"""The adapters whose readers are checked on the whole conformance corpus: the reader of an
adapter's own body is the exact inverse of its writer."""


def _built(prompt: Any, adapter: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedFieldsWarning)  # native.bedrock: the modelId the body names
        return promptwire.build_request(prompt, adapter, "conformance-model", format="conversation")


def _corpus() -> list[Any]:
    from promptwire.testing.conformance.corpus import conversations

    return [
        pytest.param(adapter, conversation, id=f"{adapter}-{conversation.name}")
        for adapter in CORPUS_ADAPTERS
        for conversation in conversations()
        if conversation.refused is None
    ]


@pytest.mark.parametrize(("adapter", "conversation"), _corpus())
def test_a_corpus_conversation_written_read_and_written_again_is_the_same_bytes(
    adapter: str, conversation: Any
) -> None:
    try:
        first = _built(dict(conversation.prompt), adapter)
    except BadRequestError as refused:  # the provider refuses it (broken arguments): no body to read
        pytest.skip(f"{adapter} refuses {conversation.name}: {refused}")
    prompt = promptwire.read(json.loads(to_bytes(first.kwargs)), adapter)
    again = _built(prompt, adapter)
    assert to_bytes(again.kwargs) == to_bytes(first.kwargs)
    # What the first build changed or left out is gone from the body read, so the second has nothing
    # to say but that Bedrock's modelId, kept under native, is no part of the rendered conversation.
    native = "format 'conversation' cannot express these prompt fields, which were left out: native.bedrock"
    assert [note for note in again.notes if note != native] == []


GEMINI_CASES: list[Any] = [
    pytest.param(
        {
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
                {
                    "role": "model",
                    "parts": [
                        {"text": "Look it up.", "thought": True, "thoughtSignature": "c2lnMQ=="},
                        {
                            "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                            "thoughtSignature": "c2ln",
                        },
                    ],
                },
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"name": "get_weather", "response": {"result": "18C"}}}],
                },
            ],
            "tools": [
                {
                    "functionDeclarations": [
                        {
                            "name": "get_weather",
                            "description": "The weather",
                            "parametersJsonSchema": WEATHER_SCHEMA,
                            "responseJsonSchema": {"type": "string"},
                        }
                    ]
                }
            ],
            "generationConfig": {
                "temperature": 0.5,
                "maxOutputTokens": 100,
                "responseMimeType": "application/json",
                "responseJsonSchema": {"type": "object"},
                "thinkingConfig": {"includeThoughts": True, "thinkingLevel": "HIGH"},
            },
        },
        id="gemini-tools-config-output-thinking",
    ),
]

BEDROCK_CASES: list[Any] = [
    pytest.param(
        {
            "modelId": "conformance-model",
            "messages": [
                {"role": "user", "content": [{"text": "Weather in Paris?"}, {"cachePoint": {"type": "default"}}]},
                {
                    "role": "assistant",
                    "content": [
                        {"reasoningContent": {"reasoningText": {"text": "Look it up.", "signature": "sig"}}},
                        {"reasoningContent": {"redactedContent": "ZW5j"}},
                        {"toolUse": {"toolUseId": "t1", "name": "get_weather", "input": {"city": "Paris"}}},
                    ],
                },
                {
                    "role": "user",
                    "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "18C"}], "status": "error"}}],
                },
            ],
            "system": [{"text": "Be brief."}, {"cachePoint": {"type": "default", "ttl": "1h"}}],
            "inferenceConfig": {"maxTokens": 100, "temperature": 0.5},
            "toolConfig": {
                "tools": [
                    {
                        "toolSpec": {
                            "name": "get_weather",
                            "description": "The weather",
                            "inputSchema": {"json": WEATHER_SCHEMA},
                        }
                    },
                    {"cachePoint": {"type": "default", "ttl": "1h"}},
                ]
            },
            "outputConfig": {
                "textFormat": {"type": "json_schema", "structure": {"jsonSchema": {"schema": '{"type": "object"}'}}}
            },
        },
        id="bedrock-tools-cache-config-output",
    ),
]


@pytest.mark.parametrize("body", GEMINI_CASES)
def test_a_gemini_body_read_and_written_by_the_gemini_adapter_is_the_same_bytes(body: dict[str, Any]) -> None:
    prompt = promptwire.read(body, "gemini")
    assert "gemini" not in prompt.native
    request = promptwire.build_request(prompt, "gemini", "gemini-3-pro", format="conversation")
    assert (to_bytes(request.kwargs), request.notes) == (to_bytes(body), ())


@pytest.mark.parametrize("body", BEDROCK_CASES)
def test_a_bedrock_body_read_and_written_by_the_bedrock_adapter_is_the_same_bytes(body: dict[str, Any]) -> None:
    prompt = promptwire.read(body, "bedrock")
    assert prompt.native == {"bedrock": {"modelId": body["modelId"]}}
    request = _built(prompt, "bedrock")
    assert to_bytes(request.kwargs) == to_bytes(body)
    assert [note for note in request.notes if not note.startswith("format 'conversation' cannot express")] == []
