"""``--from openai-responses``: a Responses body read into the prompt model, every item and part."""

from __future__ import annotations

import copy

import pytest
import yaml
from reader_bodies import OPENAI_RESPONSES, PNG, WEATHER_SCHEMA

import promptwire
from promptwire.core.errors import FieldError
from promptwire.core.prompt import (
    FilePart,
    ImagePart,
    PromptCache,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)


def read(data: object) -> promptwire.Prompt:
    return promptwire.read(data, "openai-responses")


def test_instructions_lead_and_the_assistants_items_in_a_row_are_one_turn() -> None:
    prompt = read(OPENAI_RESPONSES)
    assert [turn.role for turn in prompt.history] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert prompt.history[0].content == "Answer in one line."
    assert prompt.history[1].content == [
        TextPart(text="What city is this, and its weather?"),
        ImagePart(data=PNG, media_type="image/png", detail="auto"),
        FilePart(data="JVBERi0x", media_type="application/pdf", filename="notes.pdf"),
    ]
    assert prompt.history[2].content == [
        ReasoningPart(
            id="rs_0a1",
            summary=["The picture shows Paris; look up its weather."],
            encrypted="gAAAAABo-encrypted-reasoning",
            provider="openai-responses",
        ),
        ToolCallPart(
            id="call_abc",
            name="get_weather",
            arguments={"city": "Paris"},
            arguments_text='{"city":"Paris"}',
            item_id="fc_0a2",
        ),
    ]
    assert prompt.history[3].content == [ToolResultPart(call_id="call_abc", content="18C, sunny")]
    assert prompt.history[4].content == [TextPart(text="Paris: 18C and sunny.", item_id="msg_0a3")]
    assert prompt.history[5].content == "And tomorrow?"


def test_the_body_fields_the_model_has_a_place_for() -> None:
    prompt = read(OPENAI_RESPONSES)
    assert [(tool.name, tool.parameters) for tool in prompt.tools] == [("get_weather", WEATHER_SCHEMA)]
    assert prompt.config.think == "high"
    assert prompt.config.max_output is not None and prompt.config.max_output.output_tokens == 800
    assert prompt.config.strict is True
    assert prompt.output is not None and prompt.output.name == "weather"
    assert prompt.output.json_schema["required"] == ["line"]
    assert prompt.cache == PromptCache(key="weather-v1")


def test_everything_else_is_kept_by_its_path_under_native() -> None:
    assert read(OPENAI_RESPONSES).native == {
        "openai-responses": {
            "model": "o4-mini",
            "input[4].content[0].annotations": [],
            "tools[0].strict": True,
            "reasoning.summary": "auto",
            "include": ["reasoning.encrypted_content"],
            "store": False,
        }
    }


def test_parallel_calls_and_their_outputs_gather_into_one_turn_each() -> None:
    calls = [{"type": "function_call", "call_id": f"call_{n}", "name": "f", "arguments": "{}"} for n in range(2)]
    outputs = [{"type": "function_call_output", "call_id": f"call_{n}", "output": str(n)} for n in range(2)]
    prompt = read([{"role": "user", "content": "go"}, *calls, *outputs])
    assert [(turn.role, len(turn.content)) for turn in prompt.history] == [("user", 2), ("assistant", 2), ("tool", 2)]


def test_a_text_input_is_one_user_turn_and_reasoning_text_is_kept() -> None:
    assert read({"model": "m", "input": "Hi"}).history[0].content == "Hi"
    item = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [],
        "content": [{"type": "reasoning_text", "text": "step 1"}],
    }
    assert read([item]).history[0].content == [
        ReasoningPart(id="rs_1", summary=[], text="step 1", provider="openai-responses")
    ]


def test_an_output_of_parts_and_items_of_other_kinds() -> None:
    items = [
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {
            "type": "function_call_output",
            "call_id": "c",
            "output": [{"type": "input_text", "text": "see"}, {"type": "input_image", "image_url": "https://x/y.png"}],
        },
    ]
    prompt = read(items)
    assert prompt.history[0].content == [
        ToolResultPart(call_id="c", content=[TextPart(text="see"), ImagePart(url="https://x/y.png")])
    ]
    assert prompt.native == {"openai-responses": {"[0]": items[0]}}


def test_yaml_and_a_bare_list_read_alike() -> None:
    body = copy.deepcopy(OPENAI_RESPONSES)
    assert read(yaml.safe_load(yaml.safe_dump(body))).history == read(body).history
    assert read(body["input"]).history == read(body).history[1:]


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        (None, "<root>", "the document is empty"),
        ({"input": 3}, "input", "must be a list of input items"),
        ({"input": [], "instructions": ["x"]}, "instructions", "must be text"),
        ([{"type": "function_call", "call_id": "c", "name": "f", "arguments": {}}], "[0].arguments", "must be text"),
        ([{"type": "function_call_output", "output": "x"}], "[0].call_id", "must be text"),
        ([{"type": "reasoning", "summary": [{"type": "summary_text"}]}], "[0].summary[0]", "summary_text"),
        ({"input": [], "max_output_tokens": 0}, "max_output_tokens", ""),
        (
            {"input": [{"role": "user", "content": [{"type": "input_file", "file_data": 1}]}]},
            "input[0].content[0].file_data",
            "must be text",
        ),
    ],
)
def test_bad_data_names_its_path(data: object, field: str, reason: str) -> None:
    with pytest.raises(FieldError) as raised:
        read(data)
    assert raised.value.field == field
    assert reason in raised.value.reason
