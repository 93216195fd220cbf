"""``--from openai-chat``: a Chat Completions body read into the prompt model, every turn and part."""

from __future__ import annotations

import copy
import json

import pytest
import yaml
from reader_bodies import OPENAI_CHAT, PNG, WEATHER_SCHEMA

import promptwire
from promptwire.core.errors import FieldError, UnsupportedFieldsWarning
from promptwire.core.prompt import (
    ImagePart,
    PromptCache,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)


def read(data: object) -> promptwire.Prompt:
    return promptwire.read(data, "openai-chat")


def test_every_turn_and_part_of_a_tool_calling_body() -> None:
    prompt = read(OPENAI_CHAT)
    assert [turn.role for turn in prompt.history] == [
        "developer",
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "user",
    ]
    assert prompt.history[0].content == "Answer in one line."
    question = prompt.history[1].content
    assert question[0] == TextPart(text="What city is this, and its weather?")
    assert question[1] == ImagePart(data=PNG, media_type="image/png", detail="low")
    assert question[2] == ImagePart(url="https://example.com/paris.jpg")
    assert prompt.history[2].content == [
        ToolCallPart(
            id="call_abc", name="get_weather", arguments={"city": "Paris"}, arguments_text='{"city": "Paris"}'
        ),
        ToolCallPart(id="call_def", name="get_weather", arguments={"city": "Lyon"}, arguments_text='{"city":"Lyon"}'),
    ]
    assert prompt.history[3].content == [ToolResultPart(call_id="call_abc", content="18C, sunny")]
    assert prompt.history[4].content == [ToolResultPart(call_id="call_def", content=[TextPart(text="15C, rain")])]
    assert prompt.history[5].content == "Paris: 18C and sunny."
    assert prompt.history[6].name == "ana"
    assert "instruction" not in prompt.model_fields_set


def test_the_body_fields_the_model_has_a_place_for() -> None:
    prompt = read(OPENAI_CHAT)
    assert [(tool.name, tool.description, tool.parameters) for tool in prompt.tools] == [
        ("get_weather", "The weather in a city", WEATHER_SCHEMA)
    ]
    assert prompt.config.temperature == 0.3
    assert prompt.config.max_output is not None and prompt.config.max_output.output_tokens == 400
    assert prompt.cache == PromptCache(key="weather-v1", retention="24h")


def test_everything_else_is_kept_by_its_path_under_native() -> None:
    assert read(OPENAI_CHAT).native == {
        "openai-chat": {
            "model": "gpt-4.1",
            "messages[2].refusal": None,
            "tools[0].function.strict": True,
            "tool_choice": "auto",
            "parallel_tool_calls": True,
        }
    }


def test_native_fields_are_reported_by_a_render() -> None:
    with pytest.warns(UnsupportedFieldsWarning, match="native.openai-chat"):
        rendered = promptwire.render(read(OPENAI_CHAT), "conversation")
    assert [warning.field for warning in rendered.warnings] == ["native.openai-chat"]


def test_a_json_schema_response_format_is_the_output_contract() -> None:
    body = copy.deepcopy(OPENAI_CHAT)
    body["response_format"] = {
        "type": "json_schema",
        "json_schema": {"name": "weather", "strict": True, "schema": WEATHER_SCHEMA},
    }
    prompt = read(body)
    assert prompt.output is not None
    assert (prompt.output.name, prompt.output.json_schema) == ("weather", WEATHER_SCHEMA)
    assert prompt.config.strict is True
    body["response_format"] = {"type": "json_object"}
    assert read(body).output is None
    assert read(body).native["openai-chat"]["response_format"] == {"type": "json_object"}


def test_reasoning_content_is_reasoning_of_provider_openai_before_the_text() -> None:
    prompt = read([{"role": "assistant", "content": "Hi.", "reasoning_content": "Greet back."}])
    assert prompt.history[0].content == [ReasoningPart(text="Greet back.", provider="openai"), TextPart(text="Hi.")]


def test_audio_and_inline_files() -> None:
    prompt = read(
        [
            {
                "role": "user",
                "content": [
                    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                    {
                        "type": "file",
                        "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBERi0x"},
                    },
                    {"type": "file", "file": {"file_id": "file-abc"}},
                ],
            }
        ]
    )
    audio, file = prompt.history[0].content
    assert (audio.data, audio.format) == ("UklGRg==", "wav")
    assert (file.data, file.media_type, file.filename) == ("JVBERi0x", "application/pdf", "a.pdf")
    assert prompt.native["openai-chat"] == {"[0].content[2]": {"type": "file", "file": {"file_id": "file-abc"}}}


def test_arguments_that_are_not_a_json_object_keep_their_text() -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"city": "Par'}}
    part = read([{"role": "assistant", "content": None, "tool_calls": [call]}]).history[0].content[0]
    assert (part.arguments, part.arguments_text) == (None, '{"city": "Par')


def test_a_bare_list_and_yaml_read_alike() -> None:
    messages = OPENAI_CHAT["messages"]
    from_yaml = read(yaml.safe_load(yaml.safe_dump(messages)))
    assert from_yaml.history == read(messages).history == read(OPENAI_CHAT).history
    assert read(json.loads(json.dumps(messages))).native == {"openai-chat": {"[2].refusal": None}}


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        (None, "<root>", "the document is empty"),
        ("hi", "<root>", "must be a request body"),
        ({"model": "m"}, "messages", "missing"),
        ({"messages": {}}, "messages", "must be a list of chat messages"),
        ([{"role": 3, "content": "x"}], "[0].role", "must be text"),
        ([{"role": "tool", "content": "x"}], "[0].tool_call_id", "must be text"),
        (
            {
                "messages": [
                    {"role": "user", "content": "x"},
                    {"role": "user", "content": "y"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": 3}}],
                    },
                ]
            },
            "messages[2].tool_calls[0].function.arguments",
            "must be the arguments' JSON text",
        ),
        ([{"role": "user", "content": [{"type": "text", "text": 1}]}], "[0].content[0].text", "must be text"),
        (
            [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x", "detail": "huge"}}]}],
            "[0].content[0].image_url.detail",
            "",
        ),
        ({"messages": [], "temperature": float("nan")}, "temperature", ""),
        ({"messages": [], "max_tokens": "10"}, "max_tokens", "whole number"),
        ({"messages": [], "prompt_cache_retention": "1h"}, "prompt_cache_retention", "'in_memory' or '24h'"),
    ],
)
def test_bad_data_names_its_path(data: object, field: str, reason: str) -> None:
    with pytest.raises(FieldError) as raised:
        read(data)
    assert raised.value.field == field
    assert reason in raised.value.reason
