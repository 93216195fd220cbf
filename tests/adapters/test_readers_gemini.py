"""``--from gemini``: a generateContent body read into the prompt model, every part and setting."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest
import yaml
from reader_bodies import GEMINI, PNG, WEATHER_SCHEMA

import promptwire
from promptwire.core.errors import FieldError
from promptwire.core.prompt import (
    AudioPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)


def read(data: object) -> promptwire.Prompt:
    return promptwire.read(data, "gemini")


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


def test_the_system_instruction_leads_and_roles_map() -> None:
    prompt = read(GEMINI)
    assert [turn.role for turn in prompt.history] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert prompt.history[0].content == [
        TextPart(text="You are a weather assistant."),
        TextPart(text="Answer in one line."),
    ]
    one = read({**GEMINI, "systemInstruction": {"parts": [{"text": "Be brief."}]}})
    assert one.history[0].content == "Be brief."


def test_every_part_of_every_content() -> None:
    prompt = read(GEMINI)
    assert prompt.history[1].content == [
        TextPart(text="What city is this, and its weather?"),
        ImagePart(data=PNG, media_type="image/png"),
        ImagePart(url="https://example.com/paris.jpg"),
        FilePart(data="JVBERi0x", media_type="application/pdf"),
    ]
    assert prompt.history[2].content == [
        ReasoningPart(text="The picture shows Paris.", signature="CiQBcsjafTq7", provider="gemini"),
        ReasoningPart(signature="CiQBsig2", provider="gemini"),
        ToolCallPart(id="call_0", name="get_weather", arguments={"city": "Paris"}),
        ToolCallPart(id="fc_lyon", name="get_weather", arguments={"city": "Lyon"}),
    ]
    assert prompt.history[3].content == [
        ToolResultPart(call_id="call_0", content="18C, sunny"),
        ToolResultPart(
            call_id="fc_lyon",
            content=[TextPart(text="station offline"), ImagePart(data=PNG, media_type="image/png")],
            is_error=True,
        ),
    ]
    assert prompt.history[4].content == "Paris: 18C and sunny; Lyon unknown."


def test_audio_a_file_by_uri_and_a_signature_on_text() -> None:
    contents = [
        {
            "role": "user",
            "parts": [
                {"inlineData": {"mimeType": "audio/wav", "data": "UklGRg=="}},
                {"fileData": {"mimeType": "application/pdf", "fileUri": "https://example.com/files/abc"}},
                {"fileData": {"mimeType": "image/png", "fileUri": "https://example.com/photo"}},
            ],
        },
        {"role": "model", "parts": [{"text": "Done.", "thoughtSignature": "c2ln"}]},
    ]
    prompt = read({"contents": contents})
    assert prompt.history[0].content == [
        AudioPart(data="UklGRg==", format="wav"),
        FilePart(url="https://example.com/files/abc", media_type="application/pdf"),
        ImagePart(url="https://example.com/photo"),
    ]
    # the adapter names an image's type by its URL: a type the URL does not say is kept
    assert prompt.native == {"gemini": {"contents[0].parts[2].fileData.mimeType": "image/png"}}
    assert prompt.history[1].content == [ReasoningPart(signature="c2ln", provider="gemini"), TextPart(text="Done.")]


def test_responses_without_ids_answer_calls_by_name_and_order() -> None:
    contents = [
        {
            "role": "model",
            "parts": [
                {"functionCall": {"name": "a", "args": {}}},
                {"functionCall": {"name": "b", "args": {}}},
                {"functionCall": {"name": "a", "args": {"n": 2}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "b", "response": {"result": "B"}}},
                {"functionResponse": {"name": "a", "response": {"result": "A1"}}},
                {"functionResponse": {"name": "a", "response": {"result": "A2"}}},
                {"functionResponse": {"name": "c", "response": {"result": "C"}}},
            ],
        },
    ]
    results = read(contents).history[1].content
    assert [(result.call_id, result.name) for result in results] == [  # type: ignore[union-attr]
        ("call_1", None),
        ("call_0", None),
        ("call_2", None),
        ("c", "c"),  # answers no call: named by its tool, as the Ollama reader does
    ]


def test_a_response_of_another_shape_is_its_json_text_and_kept() -> None:
    response = {"temperature": 18, "sky": "sunny"}
    contents = [
        {"role": "model", "parts": [{"functionCall": {"id": "x", "name": "w", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "x", "name": "w", "response": response}}]},
    ]
    prompt = read(contents)
    assert prompt.history[1].content == [ToolResultPart(call_id="x", content='{"temperature": 18, "sky": "sunny"}')]
    assert prompt.native == {"gemini": {"[1].parts[0].functionResponse.response": response}}


@pytest.mark.parametrize(
    ("value", "field", "reason"),
    [
        (float("nan"), "[1].parts[0].functionResponse.response.t", "no JSON form"),
        (10**5000, "[1].parts[0].functionResponse.response.t", "digits"),
        (_deep(5000), "[1].parts[0].functionResponse.response", "nested deeper than"),
    ],
    ids=["nan", "long-integer", "deep"],
)
def test_a_response_that_has_no_json_text_names_its_place(value: Any, field: str, reason: str) -> None:
    contents = [
        {"role": "model", "parts": [{"functionCall": {"id": "x", "name": "w", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "x", "name": "w", "response": {"t": value}}}]},
    ]
    with pytest.raises(FieldError) as raised:
        read(contents)
    assert raised.value.field.startswith(field)
    assert reason in raised.value.reason


def test_the_tools_the_config_and_the_output_contract() -> None:
    prompt = read(GEMINI)
    assert [(tool.name, tool.description, tool.parameters, tool.returns) for tool in prompt.tools] == [
        ("get_weather", "The weather in a city", WEATHER_SCHEMA, {"type": "string"})
    ]
    assert prompt.config.max_output is not None and prompt.config.max_output.output_tokens == 400
    assert (prompt.config.temperature, prompt.config.think) == (0.3, "high")
    assert prompt.output is not None and prompt.output.json_schema["required"] == ["line"]


def test_gemini_schemas_are_read_as_json_schema() -> None:
    schema = {"type": "OBJECT", "properties": {"type": {"type": "STRING"}, "n": {"type": "INTEGER"}}}
    body = {
        "contents": [],
        "tools": [{"functionDeclarations": [{"name": "f", "parameters": schema, "response": {"type": "STRING"}}]}],
        "generationConfig": {"responseMimeType": "application/json", "responseSchema": {"type": "ARRAY"}},
    }
    prompt = read(body)
    expected = {"type": "object", "properties": {"type": {"type": "string"}, "n": {"type": "integer"}}}
    assert (prompt.tools[0].parameters, prompt.tools[0].returns) == (expected, {"type": "string"})
    assert prompt.output is not None and prompt.output.json_schema == {"type": "array"}


def test_everything_else_is_kept_by_its_path_under_native() -> None:
    assert read(GEMINI).native == {
        "gemini": {
            "tools[1].googleSearch": {},
            "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
            "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_ONLY_HIGH"}],
            "generationConfig.topP": 0.9,
        }
    }
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
    prompt = read([{"role": "model", "parts": [code, {"text": "1", "thought": False, "partMetadata": {"a": 1}}]}])
    assert prompt.history[0].content == "1"
    assert prompt.native == {"gemini": {"[0].parts[0]": code, "[0].parts[1].partMetadata": {"a": 1}}}
    budget = read(
        {"contents": [], "generationConfig": {"thinkingConfig": {"includeThoughts": True, "thinkingBudget": 9}}}
    )
    assert budget.config.think is True  # thoughts shown; the budget has no place but the native one
    assert budget.native == {"gemini": {"generationConfig.thinkingConfig.thinkingBudget": 9}}
    level = {"includeThoughts": True, "thinkingLevel": ["HIGH"]}  # not a level: the whole setting kept
    odd = read({"contents": [], "generationConfig": {"thinkingConfig": level}})
    assert (odd.config.think, odd.native) == (False, {"gemini": {"generationConfig.thinkingConfig": level}})


def test_yaml_and_a_bare_list_read_alike() -> None:
    assert read(yaml.safe_load(yaml.safe_dump(GEMINI))).history == read(GEMINI).history
    assert read(GEMINI["contents"]).history == read(GEMINI).history[1:]


def test_a_function_call_and_its_result_go_to_anthropic_and_openai() -> None:
    prompt = read(GEMINI)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        anthropic = promptwire.build_request(prompt, "anthropic", "claude-x", format="conversation")
        openai = promptwire.build_request(prompt, "openai", "gpt-4.1", format="conversation")
    assistant = anthropic.kwargs["messages"][1]
    assert assistant["content"] == [
        {"type": "tool_use", "id": "call_0", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "fc_lyon", "name": "get_weather", "input": {"city": "Lyon"}},
    ]
    results = anthropic.kwargs["messages"][2]["content"]
    assert [(block["tool_use_id"], block.get("is_error", False)) for block in results] == [
        ("call_0", False),
        ("fc_lyon", True),
    ]
    assert anthropic.kwargs["system"] == "You are a weather assistant.\nAnswer in one line."
    assert any("reasoning from gemini cannot be sent to anthropic" in note for note in anthropic.notes)
    calls = openai.kwargs["messages"][2]["tool_calls"]
    assert [(call["id"], call["function"]["name"]) for call in calls] == [
        ("call_0", "get_weather"),
        ("fc_lyon", "get_weather"),
    ]
    tools = [(message["tool_call_id"], message["content"]) for message in openai.kwargs["messages"][3:5]]
    assert tools[0] == ("call_0", "18C, sunny")
    assert tools[1][0] == "fc_lyon"
    assert "The picture shows Paris." not in str(anthropic.kwargs) + str(openai.kwargs)


def _with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    body = copy.deepcopy(GEMINI)
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
        ({"messages": []}, "contents", "missing"),
        (_with(("contents", 0, "role"), "system"), "contents[0].role", "'user' or 'model'"),
        (_with(("contents", 0, "role"), []), "contents[0].role", "'user' or 'model'"),
        (_with(("contents", 0, "parts"), "hi"), "contents[0].parts", "must be a list of parts"),
        (
            _with(("contents", 0, "parts", 1, "inlineData", "mimeType"), 3),
            "contents[0].parts[1].inlineData.mimeType",
            "text",
        ),
        (_with(("contents", 1, "parts", 0, "thought"), "yes"), "contents[1].parts[0].thought", "true or false"),
        (
            _with(("contents", 1, "parts", 1, "functionCall", "args"), "{}"),
            "contents[1].parts[1].functionCall.args",
            "arguments object",
        ),
        (
            _with(("contents", 2, "parts", 0, "functionResponse", "response"), "ok"),
            "contents[2].parts[0].functionResponse.response",
            "response object",
        ),
        (_with(("systemInstruction",), "Be brief."), "systemInstruction", "content object"),
        (_with(("generationConfig", "maxOutputTokens"), 0), "generationConfig.maxOutputTokens", "number of tokens"),
        (_with(("generationConfig", "temperature"), "hot"), "generationConfig.temperature", "number"),
        (_with(("generationConfig", "responseJsonSchema"), []), "generationConfig.schema", "JSON Schema object"),
        (_with(("tools", 0, "functionDeclarations", 0, "name"), None), "tools[0].functionDeclarations[0].name", "text"),
        (
            {
                "contents": [],
                "tools": [{"functionDeclarations": [{"name": "f", "parameters": {"items": _deep(5000)}}]}],
            },
            "tools[0].functionDeclarations[0].parameters",
            "nested deeper than",
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
