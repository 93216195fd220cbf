"""``--from bedrock``: a Converse body read into the prompt model, every block and cache point."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
import yaml
from reader_bodies import BEDROCK, PNG, WEATHER_SCHEMA

import promptwire
from promptwire.core.errors import FieldError
from promptwire.core.prompt import (
    AudioPart,
    CacheMark,
    FilePart,
    ImagePart,
    PromptCache,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)


def read(data: object) -> promptwire.Prompt:
    return promptwire.read(data, "bedrock")


def test_the_system_blocks_lead_with_their_cache_point() -> None:
    system = read(BEDROCK).history[0]
    assert system.role == "system"
    assert system.content == [
        TextPart(text="You are a weather assistant."),
        TextPart(text="Long reference text...", cache=CacheMark(ttl="1h")),
    ]
    assert read({**BEDROCK, "system": [{"text": "Be brief."}]}).history[0].content == "Be brief."


def test_every_block_of_every_message() -> None:
    prompt = read(BEDROCK)
    assert [turn.role for turn in prompt.history] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert prompt.history[1].content == [
        TextPart(text="What city is this, and its weather?"),
        ImagePart(data=PNG, media_type="image/png"),
        ImagePart(url="s3://photos/paris.jpg"),
        FilePart(data="JVBERi0x", media_type="application/pdf", filename="notes", cache=CacheMark()),
    ]
    assert prompt.history[2].content == [
        ReasoningPart(text="The picture shows Paris.", signature="EqQBCgIYAhIM1gbcDa9GJwZA", provider="bedrock"),
        ReasoningPart(encrypted="EmwKAhgBEgy3va3pzix/LafPsn4aDFIT", redacted=True, provider="bedrock"),
        TextPart(text="Let me look it up."),
        ToolCallPart(id="tooluse_01A", name="get_weather", arguments={"city": "Paris"}),
        ToolCallPart(id="tooluse_01B", name="get_weather", arguments={"city": "Lyon"}),
    ]
    assert prompt.history[3].content == [
        ToolResultPart(call_id="tooluse_01A", content="18C, sunny"),
        ToolResultPart(
            call_id="tooluse_01B",
            content=[TextPart(text="station offline"), ImagePart(data=PNG, media_type="image/png")],
            is_error=True,
        ),
    ]
    assert prompt.history[4].content == "Paris: 18C and sunny; Lyon unknown."


def test_audio_and_a_json_result_block() -> None:
    messages = [
        {"role": "user", "content": [{"audio": {"format": "wav", "source": {"bytes": "UklGRg=="}}}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "w", "input": {}}}]},
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "t1", "content": [{"json": {"c": 18}}], "status": "success"}}],
        },
    ]
    prompt = read(messages)
    assert prompt.history[0].content == [AudioPart(data="UklGRg==", format="wav")]
    assert prompt.history[2].content == [ToolResultPart(call_id="t1", content='{"c": 18}')]
    assert prompt.native == {"bedrock": {"[2].content[0].toolResult.content[0]": {"json": {"c": 18}}}}


def test_a_json_result_block_that_has_no_json_text_names_its_place() -> None:
    block = {"toolResult": {"toolUseId": "t1", "content": [{"json": {"c": float("inf")}}]}}
    with pytest.raises(FieldError) as raised:
        read([{"role": "user", "content": [block]}])
    assert raised.value.field == "[0].content[0].toolResult.content[0].json.c"
    assert "no JSON form" in raised.value.reason


def test_the_tools_their_cache_point_the_config_and_the_output_contract() -> None:
    prompt = read(BEDROCK)
    assert [(tool.name, tool.description, tool.parameters) for tool in prompt.tools] == [
        ("get_weather", "The weather in a city", WEATHER_SCHEMA)
    ]
    assert prompt.cache == PromptCache(tools=CacheMark(ttl="1h"))
    assert prompt.config.max_output is not None and prompt.config.max_output.output_tokens == 1024
    assert prompt.config.temperature == 0.3
    assert prompt.output is not None
    assert (prompt.output.name, prompt.output.json_schema) == (
        "line",
        {"type": "object", "properties": {"line": {"type": "string"}}},
    )


def test_everything_else_is_kept_by_its_path_under_native() -> None:
    assert read(BEDROCK).native == {
        "bedrock": {
            "modelId": "anthropic.claude-sonnet-4-5-20250929-v1:0",
            "inferenceConfig.topP": 0.9,
            "toolConfig.toolChoice": {"auto": {}},
            "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 2000}},
        }
    }


def test_cache_points_that_mark_nothing_and_blocks_of_other_kinds_are_kept() -> None:
    first = {"cachePoint": {"type": "default"}}
    guard = {"guardContent": {"text": {"text": "x"}}}
    text_document = {"document": {"format": "txt", "name": "n", "source": {"text": "notes"}}}
    after_reasoning = {"cachePoint": {"type": "default"}}
    body = copy.deepcopy(BEDROCK)
    body["messages"][3]["content"] = [first, guard, text_document]
    body["messages"][1]["content"].insert(1, after_reasoning)
    body["toolConfig"]["tools"].insert(0, {"cachePoint": {"type": "default"}})
    prompt = read(body)
    native = prompt.native["bedrock"]
    assert native["messages[3].content[0]"] == first
    assert native["messages[3].content[1]"] == guard
    assert native["messages[3].content[2]"] == text_document
    assert native["messages[1].content[1]"] == after_reasoning
    assert native["toolConfig.tools[0]"] == {"cachePoint": {"type": "default"}}
    assert prompt.history[4].content == []
    assert prompt.cache == PromptCache(tools=CacheMark(ttl="1h"))


def test_yaml_and_a_bare_list_read_alike() -> None:
    assert read(yaml.safe_load(yaml.safe_dump(BEDROCK))).history == read(BEDROCK).history
    assert read(BEDROCK["messages"]).history == read(BEDROCK).history[1:]


def test_a_tool_use_and_its_result_go_to_openai_and_gemini() -> None:
    prompt = read(BEDROCK)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        openai = promptwire.build_request(prompt, "openai", "gpt-4.1", format="conversation")
        gemini = promptwire.build_request(prompt, "gemini", "gemini-2.5-flash", format="conversation")
    calls = openai.kwargs["messages"][2]["tool_calls"]
    assert [(call["id"], call["function"]["arguments"]) for call in calls] == [
        ("tooluse_01A", '{"city": "Paris"}'),
        ("tooluse_01B", '{"city": "Lyon"}'),
    ]
    assert [message["tool_call_id"] for message in openai.kwargs["messages"][3:5]] == ["tooluse_01A", "tooluse_01B"]
    model = gemini.kwargs["contents"][1]
    assert [part["functionCall"]["id"] for part in model["parts"] if "functionCall" in part] == [
        "tooluse_01A",
        "tooluse_01B",
    ]
    responses = [part["functionResponse"] for part in gemini.kwargs["contents"][2]["parts"]]
    assert [(response["id"], response["response"]) for response in responses] == [
        ("tooluse_01A", {"result": "18C, sunny"}),
        ("tooluse_01B", {"error": "station offline"}),
    ]
    assert any("reasoning from bedrock cannot be sent to openai" in note for note in openai.notes)
    assert "The picture shows Paris." not in str(openai.kwargs) + str(gemini.kwargs)


def _with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    body = copy.deepcopy(BEDROCK)
    holder = body
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return body


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        ([], None, None),
        ("x", "<root>", "must be a request body"),
        ({"contents": []}, "messages", "missing"),
        (_with(("messages", 0, "role"), "system"), "messages[0].role", "'user' or 'assistant'"),
        (_with(("messages", 0, "content"), "hi"), "messages[0].content", "must be a list of content blocks"),
        (_with(("messages", 0, "content", 1, "image", "format"), "bmp"), "messages[0].content[1].image.format", "png"),
        (
            _with(("messages", 0, "content", 4, "cachePoint", "type"), "x"),
            "messages[0].content[4].cachePoint.type",
            "default",
        ),
        (_with(("system", 2, "cachePoint", "ttl"), "2h"), "system[2].cachePoint.ttl", ""),
        (
            _with(("messages", 1, "content", 3, "toolUse", "input"), "{}"),
            "messages[1].content[3].toolUse.input",
            "arguments object",
        ),
        (
            _with(("messages", 2, "content", 1, "toolResult", "status"), "failed"),
            "messages[2].content[1].toolResult.status",
            "'success' or 'error'",
        ),
        (
            _with(("messages", 1, "content", 0, "reasoningContent"), {}),
            "messages[1].content[0].reasoningContent.reasoningText",
            "object",
        ),
        (_with(("inferenceConfig", "maxTokens"), "many"), "inferenceConfig.maxTokens", "whole number"),
        (
            _with(("outputConfig", "textFormat", "structure", "jsonSchema", "schema"), "{nope"),
            "outputConfig.textFormat.structure.jsonSchema.schema",
            "JSON text",
        ),
        (
            _with(("outputConfig", "textFormat", "structure", "jsonSchema", "schema"), "[]"),
            "outputConfig.textFormat.structure.jsonSchema.schema",
            "JSON Schema object",
        ),
        (
            _with(("outputConfig", "textFormat", "structure", "jsonSchema", "schema"), "[" * 100_000),
            "outputConfig.textFormat.structure.jsonSchema.schema",
            "JSON Schema object",
        ),
        (
            _with(("toolConfig", "tools", 0, "toolSpec", "inputSchema"), None),
            "toolConfig.tools[0].toolSpec.inputSchema",
            "object",
        ),
    ],
)
def test_bad_data_names_its_path(data: object, field: str | None, reason: str | None) -> None:
    if field is None:
        assert read(data).history == []
        return
    with pytest.raises(FieldError) as raised:
        read(data)
    assert raised.value.field == field
    assert reason is not None and reason in raised.value.reason
