"""``--from anthropic``: a Messages body read into the prompt model, every block and breakpoint."""

from __future__ import annotations

import copy

import pytest
import yaml
from reader_bodies import ANTHROPIC, PNG, WEATHER_SCHEMA

import promptwire
from promptwire.core.errors import FieldError
from promptwire.core.prompt import (
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
    return promptwire.read(data, "anthropic")


def test_the_system_blocks_lead_with_their_breakpoint() -> None:
    system = read(ANTHROPIC).history[0]
    assert system.role == "system"
    assert system.content == [
        TextPart(text="You are a weather assistant."),
        TextPart(text="Long reference text...", cache=CacheMark(ttl="1h")),
    ]
    assert read({**ANTHROPIC, "system": "Be brief."}).history[0].content == "Be brief."


def test_every_block_of_every_message() -> None:
    prompt = read(ANTHROPIC)
    assert [turn.role for turn in prompt.history] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert prompt.history[1].content == [
        ImagePart(data=PNG, media_type="image/png"),
        ImagePart(url="https://example.com/paris.jpg"),
        FilePart(data="JVBERi0x", media_type="application/pdf"),
        TextPart(text="What city is this, and its weather?", cache=CacheMark()),
    ]
    assert prompt.history[2].content == [
        ReasoningPart(text="The picture shows Paris.", signature="EqQBCgIYAhIM1gbcDa9GJwZA", provider="anthropic"),
        ReasoningPart(encrypted="EmwKAhgBEgy3va3pzix/LafPsn4aDFIT", redacted=True, provider="anthropic"),
        TextPart(text="Let me look it up."),
        ToolCallPart(id="toolu_01A", name="get_weather", arguments={"city": "Paris"}),
        ToolCallPart(id="toolu_01B", name="get_weather", arguments={"city": "Lyon"}),
    ]
    assert prompt.history[3].content == [
        ToolResultPart(call_id="toolu_01A", content="18C, sunny"),
        ToolResultPart(
            call_id="toolu_01B",
            content=[TextPart(text="station offline"), ImagePart(data=PNG, media_type="image/png")],
            is_error=True,
        ),
    ]


def test_the_tools_their_breakpoint_and_the_config() -> None:
    prompt = read(ANTHROPIC)
    assert [(tool.name, tool.description, tool.parameters) for tool in prompt.tools] == [
        ("get_weather", "The weather in a city", WEATHER_SCHEMA)
    ]
    assert prompt.cache == PromptCache(tools=CacheMark(ttl="1h"))
    assert prompt.config.max_output is not None and prompt.config.max_output.output_tokens == 1024
    assert prompt.config.temperature == 1


def test_everything_else_is_kept_by_its_path_under_native() -> None:
    assert read(ANTHROPIC).native == {
        "anthropic": {
            "model": "claude-sonnet-4-5",
            "thinking": {"type": "enabled", "budget_tokens": 2000},
            "tool_choice": {"type": "auto"},
        }
    }


def test_a_breakpoint_on_a_tool_before_the_last_and_blocks_of_other_kinds_are_kept() -> None:
    body = copy.deepcopy(ANTHROPIC)
    body["tools"].append({"name": "other", "input_schema": {"type": "object"}})
    search = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}
    plain = {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "notes"}, "title": "n"}
    body["messages"][3]["content"] = [search, plain]
    prompt = read(body)
    assert prompt.cache is None
    native = prompt.native["anthropic"]
    assert native["tools[0].cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert native["messages[3].content[0]"] == search
    assert native["messages[3].content[1]"] == plain
    assert prompt.history[4].content == []


def test_a_json_schema_output_format_is_the_output_contract() -> None:
    body = {
        **ANTHROPIC,
        "output_config": {"format": {"type": "json_schema", "schema": WEATHER_SCHEMA}, "effort": "low"},
    }
    prompt = read(body)
    assert prompt.output is not None and prompt.output.json_schema == WEATHER_SCHEMA
    assert prompt.native["anthropic"]["output_config.effort"] == "low"


def test_yaml_and_a_bare_list_read_alike() -> None:
    assert read(yaml.safe_load(yaml.safe_dump(ANTHROPIC))).history == read(ANTHROPIC).history
    assert read(ANTHROPIC["messages"]).history == read(ANTHROPIC).history[1:]


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        ([], None, None),
        ("x", "<root>", "must be a request body"),
        ({"messages": [{"role": "user", "content": 3}]}, "messages[0].content", "must be a list of content blocks"),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral", "ttl": "2h"}}],
                }
            ],
            "[0].content[0].cache_control.ttl",
            "",
        ),
        (
            [{"role": "user", "content": [{"type": "text", "text": "x", "cache_control": {"type": "persistent"}}]}],
            "[0].content[0].cache_control.type",
            "ephemeral",
        ),
        (
            [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": "{}"}]}],
            "[0].content[0].input",
            "arguments object",
        ),
        (
            [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "yes"}]}],
            "[0].content[0].is_error",
            "true or false",
        ),
        (
            [{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "data": "x"}}]}],
            "[0].content[0].source.media_type",
            "must be text",
        ),
        ({"messages": [], "system": [{"type": "text"}]}, "system[0].text", "must be text"),
    ],
)
def test_bad_data_names_its_path(data: object, field: str | None, reason: str | None) -> None:
    if field is None:
        assert read(data).history == []
        return
    with pytest.raises(FieldError) as raised:
        read(data)
    assert raised.value.field == field
    assert reason in raised.value.reason
