"""``--from ollama``: an Ollama chat body read into the prompt model: images, thinking, tool calls
and the results that name their tool."""

from __future__ import annotations

import pytest
import yaml
from reader_bodies import OLLAMA, PNG, WEATHER_SCHEMA

import promptwire
from promptwire.core.errors import FieldError
from promptwire.core.prompt import ImagePart, ReasoningPart, TextPart, ToolCallPart, ToolResultPart


def read(data: object) -> promptwire.Prompt:
    return promptwire.read(data, "ollama")


def test_every_turn_and_part() -> None:
    prompt = read(OLLAMA)
    assert [turn.role for turn in prompt.history] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert prompt.history[1].content == [
        TextPart(text="What city is this, and its weather?"),
        ImagePart(data=PNG, media_type="image/png"),
    ]
    assert prompt.history[2].content == [
        ReasoningPart(text="The picture shows Paris.", provider="ollama"),
        ToolCallPart(id="call_0", name="get_weather", arguments={"city": "Paris"}),
    ]
    assert prompt.history[3].content == [ToolResultPart(call_id="call_0", content="18C, sunny", name="get_weather")]
    assert prompt.history[4].content == "Paris: 18C and sunny."


def test_a_result_answers_the_first_open_call_of_its_tool_by_the_calls_id() -> None:
    # The fourth answers no call: it is named by its tool.
    calls = [
        {"id": "call_1", "function": {"name": "a", "arguments": {}}},
        {"id": "call_2", "function": {"name": "b", "arguments": {}}},
        {"id": "call_3", "function": {"name": "a", "arguments": {}}},
    ]
    results = [{"role": "tool", "content": str(n), "tool_name": name} for n, name in enumerate("baab")]
    prompt = read([{"role": "assistant", "content": "", "tool_calls": calls}, *results])
    assert [turn.content[0].call_id for turn in prompt.history[1:]] == ["call_2", "call_1", "call_3", "b"]


def test_the_body_fields_the_model_has_a_place_for_and_the_rest() -> None:
    prompt = read(OLLAMA)
    assert [(tool.name, tool.parameters) for tool in prompt.tools] == [("get_weather", WEATHER_SCHEMA)]
    assert prompt.config.think is True
    assert prompt.config.temperature == 0.2
    assert prompt.config.max_output is not None and prompt.config.max_output.output_tokens == 300
    assert prompt.output is not None and prompt.output.json_schema["required"] == ["line"]
    assert prompt.native == {
        "ollama": {"model": "qwen3:8b", "stream": False, "options.num_ctx": 8192, "keep_alive": "5m"}
    }
    assert read({"messages": [], "format": "json", "think": "max"}).native == {
        "ollama": {"format": "json", "think": "max"}
    }


def test_image_kinds_are_told_by_their_bytes() -> None:
    jpeg, unknown = "/9j/4AAQSkZJRg==", "AAAA"
    parts = read([{"role": "user", "content": "", "images": [jpeg, unknown]}]).history[0].content
    assert [part.media_type for part in parts] == ["image/jpeg", None]


def test_yaml_and_a_bare_list_read_alike() -> None:
    assert read(yaml.safe_load(yaml.safe_dump(OLLAMA))).history == read(OLLAMA).history
    assert read(OLLAMA["messages"]).history == read(OLLAMA).history


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        (None, "<root>", "the document is empty"),
        ([{"role": "user", "content": ["x"]}], "[0].content", "must be text"),
        ([{"role": "user", "content": "x", "images": "abc"}], "[0].images", "must be a list of base64 images"),
        ([{"role": "user", "content": "x", "images": [1]}], "[0].images[0]", "must be text"),
        (
            {
                "messages": [
                    {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": 1}}]}
                ]
            },
            "messages[0].tool_calls[0].function.arguments",
            "arguments' object",
        ),
        ({"messages": [], "options": {"temperature": "hot"}}, "options.temperature", "must be a number"),
    ],
)
def test_bad_data_names_its_path(data: object, field: str, reason: str) -> None:
    with pytest.raises(FieldError) as raised:
        read(data)
    assert raised.value.field == field
    assert reason in raised.value.reason
