"""The upstream Agently prompt-generator tests (21 functions, 29 items), ported byte for byte.

Source: ``tests/test_plugins/test_prompt_generator/test_agently_prompt_generator.py`` of the Agently
repository (4.1.4.7 tree; all pass against agently 4.1.4.10). Upstream builds prompts with
``prompt.set(key, value)``, which strips and dedents strings; the values below are already stripped.
Expected strings are Agently's, verbatim.
"""

from __future__ import annotations

import json
import warnings
from enum import Enum, IntEnum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field, ValidationError

from promptwire.core.errors import PromptwireError
from promptwire.renderers.agently import AgentlyEmptyPromptError, AgentlyPrompt
from promptwire.renderers.agently._agently.declarations import output_json_schema
from promptwire.renderers.agently._agently.sanitize import sanitize

BASE = {
    "input": "Hello",
    "instruct": "reply something",
    "info": "I'm a human",
    "output": {
        "thinking": (str, "describe how will you plan to reply?"),
        "reply": (str, "your final reply"),
    },
    "output_format": "json",
}

BASE_TEXT = """user:
[INFO]:
I'm a human

[INSTRUCT]:
reply something

[INPUT]:
Hello

[OUTPUT REQUIREMENT]:
Data Format: JSON
Data Structure:
{
  "thinking": <str>, // describe how will you plan to reply?
  "reply": <str> // your final reply
}

[OUTPUT]:
assistant:"""

MAIN_PROMPT = (
    "[INFO]:\nI'm a human\n\n[INSTRUCT]:\nreply something\n\n[INPUT]:\nHello\n\n[OUTPUT REQUIREMENT]:\n"
    'Data Format: JSON\nData Structure:\n{\n  "thinking": <str>, // describe how will you plan to reply?\n'
    '  "reply": <str> // your final reply\n}\n\n[OUTPUT]:'
)

HISTORY_WITH_PART = [
    {"role": "user", "content": [{"type": "text", "text": "ni hao"}, {"type": "something", "something": "OK"}]}
]


def test_to_prompt_object() -> None:
    data: dict[str, Any] = {"input": "OK"}
    dumped = AgentlyPrompt(data).to_prompt_object().model_dump()
    assert dumped["input"] == "OK"
    assert dumped["chat_history"] == []
    assert dumped["output_format"] == "markdown"

    data["user_info"] = "Nobody"
    prompt_object = AgentlyPrompt(data).to_prompt_object()
    assert prompt_object.model_extra == {"user_info": "Nobody"}
    assert prompt_object.model_dump()["input"] == "OK"
    assert prompt_object.model_dump()["user_info"] == "Nobody"

    data["output"] = {"reply": (str, "your reply")}
    dumped = AgentlyPrompt(data).to_prompt_object().model_dump()
    assert dumped["output"] == {"reply": (str, "your reply")}
    assert dumped["output_format"] == "json"

    auto = {"prompt.default_output_format": "auto"}
    assert AgentlyPrompt(data, auto).to_prompt_object().output_format == "xml_field"

    data["output_format"] = "yaml"
    dumped = AgentlyPrompt(data, auto).to_prompt_object().model_dump()
    assert dumped["output"] == {"reply": (str, "your reply")}
    assert dumped["output_format"] == "yaml"

    second = AgentlyPrompt({"output_format": "some random words", "output": [(str, "something")]})
    assert second.to_prompt_object().model_dump()["output_format"] == "some random words"


def test_to_text() -> None:
    assert AgentlyPrompt(BASE).to_text() == BASE_TEXT
    without_format = {key: value for key, value in BASE.items() if key != "output_format"}
    assert AgentlyPrompt(without_format).to_text() == BASE_TEXT


def test_prompt_slot_reference_placeholders_point_to_titles() -> None:
    prompt = AgentlyPrompt(
        {
            "input": {"customer": "Acme", "ticket": "T-42"},
            "info": {"policy": "Enterprise policy"},
            "instruct": "Use ${INPUT.customer} and ${INFO.policy}; obey ${OUTPUT}. Keep ${unknown} literal.",
            "output": {"reply": (str, "Answer using ${INSTRUCT} and ${INPUT.ticket}")},
            "output_format": "json",
        }
    )
    text = prompt.to_text()
    assert "Use [INPUT > customer] and [INFO > policy]; obey [OUTPUT REQUIREMENT]." in text
    assert "Keep ${unknown} literal." in text
    assert '"reply": <str> // Answer using [INSTRUCT] and [INPUT > ticket]' in text
    assert text == (
        "user:\n[INFO]:\n- policy: Enterprise policy\n\n[INSTRUCT]:\n"
        "Use [INPUT > customer] and [INFO > policy]; obey [OUTPUT REQUIREMENT]. Keep ${unknown} literal.\n\n"
        "[INPUT]:\ncustomer: Acme\nticket: T-42\n\n\n[OUTPUT REQUIREMENT]:\nData Format: JSON\nData Structure:\n"
        '{\n  "reply": <str> // Answer using [INSTRUCT] and [INPUT > ticket]\n}\n\n[OUTPUT]:\nassistant:'
    )


def test_prompt_slot_references_do_not_break_explicit_mappings() -> None:
    # Upstream: prompt.set("instruct", "Hello ${name}; see ${input.foo}.", mappings={"name": "Alice"});
    # the container substitutes ${name}, the generator turns the rest into a slot reference.
    text = AgentlyPrompt({"input": "Hello", "instruct": "Hello Alice; see ${input.foo}."}).to_text()
    assert "Hello Alice; see [INPUT > foo]." in text
    assert text == "user:\n[INSTRUCT]:\nHello Alice; see [INPUT > foo].\n\n[INPUT]:\nHello\n\n[OUTPUT]:\nassistant:"


def test_to_text_complex() -> None:
    prompt = AgentlyPrompt({**BASE, "chat_history": HISTORY_WITH_PART})
    with pytest.warns(UserWarning) as caught:
        text = prompt.to_text()
    assert text == BASE_TEXT.replace("user:\n", "user:\n[CHAT HISTORY]:\n[user]:ni hao\n\n", 1)
    assert [str(w.message) for w in caught] == [
        "Skipped content: unable to convert type 'something' to text. Content: {'type': 'something', 'something': 'OK'}"
    ]


def test_to_text_with_root_list_output() -> None:
    prompt = AgentlyPrompt({"input": "Hello", "output": [{"title": (str, "news title"), "url": (str, "news url")}]})
    assert prompt.to_text() == (
        "user:\n[INPUT]:\nHello\n\n[OUTPUT REQUIREMENT]:\nData Format: JSON\nData Structure:\n[\n  {\n"
        '    "title": <str>, // news title\n    "url": <str> // news url\n  },\n  ...\n]\n\n[OUTPUT]:\nassistant:'
    )


def test_empty_prompt() -> None:
    with pytest.raises(KeyError, match="Prompt requires at least one") as caught:
        AgentlyPrompt({}).to_text()
    message = (
        "Prompt requires at least one of 'input', 'info', 'instruct', 'output', 'attachment' "
        "or customize extra prompt keys to be provided."
    )
    assert isinstance(caught.value, AgentlyEmptyPromptError)
    assert isinstance(caught.value, PromptwireError)
    assert caught.value.args == (message,)
    assert str(caught.value) == message


def test_message_prompt() -> None:
    history = [*HISTORY_WITH_PART, {"role": "assistant", "content": "hello, what can I help you?"}]
    prompt = AgentlyPrompt({**BASE, "chat_history": history})
    with pytest.warns(UserWarning) as caught:
        plain = prompt.to_messages(rich_content=False)
    assert plain == [
        {"role": "user", "content": "ni hao"},
        {"role": "assistant", "content": "hello, what can I help you?"},
        {"role": "user", "content": MAIN_PROMPT},
    ]
    assert [str(w.message) for w in caught] == [
        "Skipped content: unable to convert type 'something' to chat message when `rich_content` == False. "
        "Content: {'type': 'something', 'something': 'OK'}"
    ]
    assert prompt.to_messages(rich_content=True) == [
        {"role": "user", "content": [{"type": "text", "text": "ni hao"}, {"type": "something", "something": "OK"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hello, what can I help you?"}]},
        {"role": "user", "content": [{"type": "text", "text": MAIN_PROMPT}]},
    ]


def test_output_model() -> None:
    output = {
        "thinking": [(str, "Your plan to reply")],
        "reply": (Literal[1, 2, 3], "Your actually reply"),
        "number": int,
    }
    model = AgentlyPrompt({"output": output}).to_output_model()
    dumped = model.model_validate({"thinking": 1, "number": "123"}).model_dump()
    assert dumped["thinking"] == ["1"]
    assert dumped["number"] == 123
    assert dumped["reply"] is None
    assert sanitize(output, remain_type=True) == output

    root = AgentlyPrompt({"output": [(int,)]}).to_output_model()
    assert root.model_validate({"list": ["456"]}).model_dump()["list"] == [456]
    validated: Any = root.model_validate(["456"])
    assert validated.model_dump()["list"] == [456]
    assert validated.root == [456]
    assert list(validated) == [456]
    assert list(validated)[0] == 456  # noqa: RUF015 - upstream's assertion, verbatim


def test_output_model_nested_list_serializes_validated_items_without_warning() -> None:
    output = {"groups": [{"title": (str,), "options": [{"name": (str,), "enabled": (bool,)}]}]}
    model = AgentlyPrompt({"output": output}).to_output_model(strict_output=True)
    data = {"groups": [{"title": "g1", "options": [{"name": "a", "enabled": True}]}]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dumped = model.model_validate(data).model_dump(mode="json", warnings="warn")
    assert dumped == data
    assert not [w for w in caught if "PydanticSerializationUnexpectedValue" in str(w.message)]


def test_output_json_schema_projection_preserves_nested_list_contract() -> None:
    schema = output_json_schema(
        {
            "title": (str, "group title", True),
            "options": [{"name": (str, "option name", True), "enabled": (bool, "selection state", True)}],
        },
        strict_output=True,
    )
    assert schema["type"] == "object"
    assert schema["required"] == ["title", "options"]
    assert schema["properties"]["options"]["type"] == "array"
    assert schema["properties"]["options"]["items"]["required"] == ["name", "enabled"]
    assert schema["properties"]["options"]["items"]["properties"]["enabled"]["type"] == "boolean"


class Net(BaseModel):
    name: str
    sinks: Annotated[list[str], Field(min_length=1, max_length=2)]


class Package(BaseModel):
    nets: Annotated[list[Net], Field(min_length=2, max_length=2)]


def test_projected_pydantic_fragment_model_preserves_nested_constraints() -> None:
    projected = AgentlyPrompt({"output": Package}).to_prompt_object().output
    fragment = AgentlyPrompt({"output": {"value": projected}, "output_format": "json", "ensure_all_keys": True})
    model = fragment.to_output_model(strict_output=True)
    valid = {"value": {"nets": [{"name": "a", "sinks": ["x"]}, {"name": "b", "sinks": ["y", "z"]}]}}
    assert len(model.model_validate(valid).model_dump()["value"]["nets"]) == 2
    with pytest.raises(ValidationError):
        model.model_validate({"value": {"nets": [{"name": "a", "sinks": []}, {"name": "b", "sinks": ["y"]}]}})


class ActionItemTask(BaseModel):
    task: str


class TicketWithTasks(BaseModel):
    title: str = Field(description="Ticket title")
    priority: int
    action_items: list[ActionItemTask]


def test_pydantic_output_model_preserves_declared_type_and_exposes_structural_prompt() -> None:
    prompt = AgentlyPrompt({"output": TicketWithTasks})
    prompt_object = prompt.to_prompt_object()
    assert list(prompt_object.output) == ["title", "priority", "action_items"]
    first = prompt_object.output["action_items"][0]
    assert isinstance(first, list)
    assert list(first[0]) == ["task"]
    assert prompt_object.output_format == "json"
    assert prompt.to_output_model() is TicketWithTasks


class ActionItem(BaseModel):
    name: str = Field(min_length=2, max_length=5, pattern=r"^[a-z]+$", description="item name")


class ConstrainedTicket(BaseModel):
    title: str = Field(min_length=3, max_length=8, description="result title")
    priority: int = Field(ge=1, le=3, description="ticket priority")
    action_items: list[ActionItem] = Field(min_length=1, max_length=2, description="action items")


FORMAT_MARKERS = {
    "json": "Data Format: JSON",
    "flat_markdown": "Data Format: Structured Markdown",
    "hybrid": "Data Format: Structured Markdown with JSON blocks",
    "xml_field": "Data Format: XML-like field envelope",
    "yaml_literal": "Data Format: YAML literal document",
}


@pytest.mark.parametrize("output_format", list(FORMAT_MARKERS))
def test_pydantic_output_constraints_are_rendered_for_every_structured_format(output_format: str) -> None:
    text = AgentlyPrompt(
        {"input": "Create a ticket.", "output": ConstrainedTicket, "output_format": output_format}
    ).to_text()
    assert FORMAT_MARKERS[output_format] in text
    assert "Field requirements:" in text
    assert "- title: result title; required; must not be null; length: 3..8 characters" in text
    assert "- priority: ticket priority; required; must not be null; value: >= 1 and <= 3" in text
    assert "- action_items: action items; required; must not be null; item count: 1..2" in text
    assert (
        "- action_items[*].name: item name; required; must not be null; length: 2..5 characters; pattern: ^[a-z]+$"
        in text
    )


class AliasedTicket(BaseModel):
    identifier: str = Field(alias="ticket_id", min_length=1)
    note: str | None
    status: Literal["open", "closed"]
    confidence: float = Field(gt=0, lt=1, multiple_of=0.1)


def test_pydantic_output_contract_renders_alias_nullability_literal_and_numeric_rules() -> None:
    text = AgentlyPrompt({"input": "x", "output": AliasedTicket, "output_format": "json"}).to_text()
    assert "- ticket_id: required; must not be null; length: >= 1 characters" in text
    assert "- note: required; null is allowed" in text
    assert '- status: required; must not be null; allowed values: ["open","closed"]' in text
    assert "- confidence: required; must not be null; value: > 0 and < 1; multiple of 0.1" in text


@pytest.mark.parametrize("output_format", list(FORMAT_MARKERS))
def test_tuple_ensure_policies_are_rendered_for_every_structured_format(output_format: str) -> None:
    text = AgentlyPrompt(
        {
            "input": "Decide whether to continue.",
            "output": {"ready": (bool, "whether ready", True), "reply": (str, "final reply", "not_null")},
            "output_format": output_format,
        }
    ).to_text()
    assert "- ready: whether ready; required key; null or empty values are allowed" in text
    assert "- reply: final reply; required key; value must not be null, blank, or empty" in text


def test_serializable_output_prompt_preserves_not_null_ensure_marker() -> None:
    output = {
        "ready": (bool, "whether the plan can proceed", True),
        "questions": (list, "clarification questions if needed", "not_null"),
    }
    serialized = AgentlyPrompt({"output": output}).to_serializable_prompt_data()["output"]
    assert serialized["ready"]["$ensure"] is True
    assert serialized["questions"]["$ensure"] == "not_null"
    assert serialized == {
        "ready": {"$type": "bool", "$desc": "whether the plan can proceed", "$ensure": True},
        "questions": {"$type": "list", "$desc": "clarification questions if needed", "$ensure": "not_null"},
    }


class TicketStatus(Enum):
    OPEN = "open"
    CLOSED = "closed"


class TicketPriority(IntEnum):
    LOW = 1
    HIGH = 2


def test_output_model_supports_enum() -> None:
    prompt = AgentlyPrompt(
        {"output": {"status": (TicketStatus, "ticket status"), "priority": (TicketPriority, "ticket priority")}}
    )
    assert prompt.to_text() == (
        "user:\n[OUTPUT REQUIREMENT]:\nData Format: JSON\nData Structure:\n{\n"
        '  "status": <Literal[open, closed]>, // ticket status\n'
        '  "priority": <Literal[1, 2]> // ticket priority\n}\n\n[OUTPUT]:\nassistant:'
    )
    assert json.loads(prompt.to_json_prompt())["output"] == {
        "status": {"$type": "Literal[open, closed]", "$desc": "ticket status"},
        "priority": {"$type": "Literal[1, 2]", "$desc": "ticket priority"},
    }
    model = prompt.to_output_model()
    by_value: Any = model.model_validate({"status": "open", "priority": 1})
    assert by_value.status is TicketStatus.OPEN
    assert by_value.priority is TicketPriority.LOW
    by_name: Any = model.model_validate({"status": "OPEN", "priority": "HIGH"})
    assert by_name.status is TicketStatus.OPEN
    assert by_name.priority is TicketPriority.HIGH


def test_hybrid_prompt_marks_sanitized_scalar_fields_as_text() -> None:
    text = AgentlyPrompt(
        {
            "output": {
                "analysis": (str, "One paragraph analysis.", True),
                "items": [{"name": (str, "Item name.", True)}],
            },
            "output_format": "hybrid",
        }
    ).to_text()
    assert "- analysis: text; One paragraph analysis." in text
    assert "### analysis\n(your content here)" in text
    assert '### items\n```json\n[\n  {\n    "name": "..."\n  }\n]\n```' in text


def test_rich_prompt() -> None:
    prompt = AgentlyPrompt(
        {"attachment": [{"type": "text", "text": "你好"}, {"type": "image_url", "image_url": "http://example.com"}]}
    )
    assert prompt.to_messages(rich_content=True)[0] == {
        "role": "user",
        "content": [{"type": "text", "text": "你好"}, {"type": "image_url", "image_url": "http://example.com"}],
    }
    with pytest.warns(UserWarning) as caught:
        assert prompt.to_messages()[0] == {"role": "user", "content": "你好"}
    assert [str(w.message) for w in caught] == [
        "Skipped content: unable to put attachment content into prompt messages when `rich_content` == False\n"
        "Content: {'type': 'image_url', 'image_url': 'http://example.com'}"
    ]


def test_strict_role_orders() -> None:
    prompt = AgentlyPrompt(
        {
            "chat_history": [
                {"role": "assistant", "content": "Hi, how can I help you today?"},
                {"role": "user", "content": "?"},
            ],
            "input": "hi",
        }
    )
    assert prompt.to_messages(rich_content=True, strict_role_orders=True) == [
        {"role": "user", "content": [{"type": "text", "text": "[CHAT HISTORY]"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Hi, how can I help you today?"}]},
        {"role": "user", "content": [{"type": "text", "text": "?"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "[User continue input]"}]},
        {"role": "user", "content": "hi"},
    ]
    assert prompt.to_messages(rich_content=False, strict_role_orders=True) == [
        {"role": "user", "content": "[CHAT HISTORY]"},
        {"role": "assistant", "content": "Hi, how can I help you today?"},
        {"role": "user", "content": "?"},
        {"role": "assistant", "content": "[User continue input]"},
        {"role": "user", "content": "hi"},
    ]
