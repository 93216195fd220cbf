"""Where agently 4.1.4.10 crashes, AgentlyPrompt raises an error that names the field and the reason.

The C1..C9 numbers are the crash-case table of the Agently reference; the others are crashes found by
the differential tests. Every error is an AgentlyFieldError (a promptwire FieldError), never a raw
TypeError/AttributeError; the deliberate empty-prompt refusal keeps Agently's KeyError message.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum, IntEnum
from typing import Any, List  # noqa: UP035 - the bare typing.List is what is tested

import pytest
from pydantic import BaseModel, ValidationError

from promptwire.core.errors import FieldError, PromptwireError
from promptwire.renderers.agently import AgentlyEmptyPromptError, AgentlyFieldError, AgentlyPrompt


class Mixed(str, Enum):  # noqa: UP042 - the str-mixin kind is what is tested
    A = "a"


class Level(IntEnum):
    HIGH = 2


class Small(BaseModel):
    n: int


def raises_field_error(call: Callable[[], Any], field: str, *reason_parts: str) -> AgentlyFieldError:
    with pytest.raises(AgentlyFieldError) as caught:
        call()
    error = caught.value
    assert isinstance(error, FieldError)
    assert isinstance(error, PromptwireError)
    assert not isinstance(error, (TypeError, AttributeError))
    assert error.field == field
    for part in reason_parts:
        assert part in error.reason
    assert str(error).startswith(f"{field}: ")
    return error


@pytest.mark.parametrize("info", [5, True, 1.5, {1, 2}])
@pytest.mark.parametrize("method", ["to_text", "to_messages"])
def test_c1_scalar_info_that_is_not_text(info: Any, method: str) -> None:
    prompt = AgentlyPrompt({"info": info, "input": "x"})
    raises_field_error(getattr(prompt, method), "info", type(info).__name__, "expected str instance")


def test_c1_custom_objects_and_text_info_render() -> None:
    class Shown:
        def __str__(self) -> str:
            return "shown"

    assert "[INFO]:\nshown\n" in AgentlyPrompt({"info": Shown()}).to_text()
    assert "[INFO]:\nplain\n" in AgentlyPrompt({"info": "plain"}).to_text()


@pytest.mark.parametrize(("part", "kind"), [({"type": "text"}, "NoneType"), ({"type": "text", "text": 123}, "int")])
def test_c2_history_text_part_without_string_text(part: dict[str, Any], kind: str) -> None:
    prompt = AgentlyPrompt({"chat_history": [{"role": "user", "content": ["ignored", part][1:]}], "input": "x"})
    raises_field_error(lambda: prompt.to_messages(rich_content=False), "chat_history[0].content[0].text", kind)
    # Agently prints these in to_text and keeps them in rich messages; so do we.
    assert "[user]:" in prompt.to_text()
    assert prompt.to_messages(rich_content=True)[0]["content"][0]["type"] == "text"


@pytest.mark.parametrize("titles", ["TITLES", 7, ["a"]])
def test_c3_title_mapping_that_is_not_a_dict(titles: Any) -> None:
    settings = {"prompt.prompt_title_mapping": titles}
    with_system = AgentlyPrompt({"system": "s", "input": "x"}, settings)
    raises_field_error(with_system.to_text, "prompt.prompt_title_mapping", type(titles).__name__)
    history = AgentlyPrompt({"chat_history": [{"role": "assistant", "content": "a"}], "input": "x"}, settings)
    raises_field_error(history.to_messages, "prompt.prompt_title_mapping")
    # Where Agently checks the type, the defaults are used and nothing fails.
    assert AgentlyPrompt({"input": "x"}, settings).to_text() == "user:\n[INPUT]:\nx\n\n[OUTPUT]:\nassistant:"


def test_c3_title_mapping_needed_by_a_slot_reference_in_messages() -> None:
    prompt = AgentlyPrompt({"input": "see ${info}"}, {"prompt.prompt_title_mapping": "x"})
    raises_field_error(prompt.to_messages, "prompt.prompt_title_mapping")
    assert AgentlyPrompt({"input": "no reference"}, {"prompt.prompt_title_mapping": "x"}).to_messages() == [
        {"role": "user", "content": "no reference"}
    ]


def test_c4_sets_in_json_export_name_their_path() -> None:
    prompt = AgentlyPrompt({"input": {"tags": [1, {"ids": {1, 2}}]}})
    raises_field_error(prompt.to_json_prompt, "input.tags[1].ids", "set", "not JSON serializable")
    assert "!!set" in prompt.to_yaml_prompt()


def test_c5_str_enum_members_in_yaml_export_and_yaml_sections() -> None:
    prompt = AgentlyPrompt({"input": {"level": Mixed.A}})
    raises_field_error(prompt.to_yaml_prompt, "input.level", "RepresenterError")
    assert '"level": "a"' in prompt.to_json_prompt()
    # Sections rewrite str subclasses to plain text (slot references); an IntEnum member survives.
    assert prompt.to_text() == "user:\n[INPUT]:\nlevel: a\n\n\n[OUTPUT]:\nassistant:"
    raises_field_error(AgentlyPrompt({"input": {"level": Level.HIGH}}).to_text, "input", "RepresenterError")


@pytest.mark.parametrize("output", [None, "text", str, 5])
def test_c6_output_model_needs_a_structure(output: Any) -> None:
    data = {"input": "x"} if output is None else {"input": "x", "output": output}
    raises_field_error(
        AgentlyPrompt(data).to_output_model,
        "output",
        "Unable to generator output model because the output is not a structure data.",
    )


def test_c7_uncastable_list_item_is_a_validation_error_not_a_raw_type_error() -> None:
    model = AgentlyPrompt({"output": {"numbers": [(int,)]}}).to_output_model()
    with pytest.raises(ValidationError) as caught:
        model.model_validate({"numbers": None})
    assert caught.value.errors()[0]["loc"] == ("numbers",)
    assert "cannot convert None to int" in str(caught.value)
    assert model.model_validate({"numbers": "5"}).model_dump() == {"numbers": [5]}


@pytest.mark.parametrize(
    ("history", "field"),
    [
        ([{"role": "user", "content": {"type": "text", "text": "x"}}], "chat_history[0].content"),
        ([{"role": "user", "content": 5}], "chat_history[0].content"),
        ([{"role": "user"}], "chat_history[0].content"),
        ({"role": 5, "content": "x"}, "chat_history.role"),
        ([{1: "x", "content": "y"}], "chat_history[0]"),
    ],
)
def test_c8_bad_chat_history_messages(history: Any, field: str) -> None:
    prompt = AgentlyPrompt({"chat_history": history, "input": "x"})
    for call in (prompt.to_text, prompt.to_messages, prompt.to_prompt_object):
        error = raises_field_error(call, field)
        assert error.reason


@pytest.mark.parametrize(
    ("tools", "field"),
    [
        ({"name": "t"}, "tools"),
        ([{"name": "t", "kwargs": {}}], "tools[0].desc"),
        ([{"name": "t", "desc": 5, "kwargs": {}}], "tools[0].desc"),
        ([{"name": "t", "desc": "d"}], "tools[0].kwargs"),
    ],
)
def test_c9_bad_tools(tools: Any, field: str) -> None:
    prompt = AgentlyPrompt({"tools": tools, "input": "x", "output": {"a": (str,)}})
    for call in (prompt.to_text, prompt.to_messages, prompt.to_output_model):
        raises_field_error(call, field, "ValidationError")


def test_bare_generics_and_model_arguments_that_agently_cannot_print() -> None:
    raises_field_error(AgentlyPrompt({"input": [List]}).to_text, "input", "no type arguments")  # noqa: UP006
    raises_field_error(AgentlyPrompt({"info": {"t": tuple[int, Small]}}).to_text, "info", "cannot be written as text")


def test_a_tool_that_cannot_be_printed_is_named_with_its_key() -> None:
    tools = [
        {"name": "a", "desc": "fine", "kwargs": {"x": (int, "x")}},
        {"name": "b", "desc": "fine", "kwargs": {"y": (int, "y")}, "returns": {"z": (List, "z")}},  # noqa: UP006
    ]
    raises_field_error(AgentlyPrompt({"tools": tools, "input": "x"}).to_text, "tools[1].returns", "no type arguments")


def test_role_mapped_to_none_cannot_be_merged() -> None:
    prompt = AgentlyPrompt({"chat_history": [{"role": "user", "content": "a"}], "input": "x"})
    raises_field_error(lambda: prompt.to_messages(role_mapping={"user": None}), "role_mapping", "IndexError")


def test_output_model_keys_pydantic_refuses() -> None:
    raises_field_error(AgentlyPrompt({"output": {"_private": (str,)}}).to_output_model, "output", "underscore")
    nested = AgentlyPrompt({"output": {"outer": {"_x": (int,)}}})
    raises_field_error(nested.to_output_model, "output.outer", "underscore")


def test_prompt_keys_and_dotted_paths() -> None:
    raises_field_error(lambda: AgentlyPrompt({1: "x"}).to_text(), "1", "must be strings")  # type: ignore[dict-item]
    raises_field_error(lambda: AgentlyPrompt({"input": "x", "input.a": 1}), "input.a", "'input' is not a dictionary")
    dotted = AgentlyPrompt({"info.user": "Ada", "info.plan": "pro"})
    assert dotted.to_text() == "user:\n[INFO]:\n- user: Ada\n- plan: pro\n\n[OUTPUT]:\nassistant:"


def test_long_content_conflict() -> None:
    prompt = AgentlyPrompt({"output": {"body": ("long_content", "essay", None, {"long_content": False})}})
    raises_field_error(prompt.to_text, "output", "conflicts")


def test_lax_flags_that_pydantic_refuses() -> None:
    raises_field_error(AgentlyPrompt({"input": "x", "ensure_all_keys": "maybe"}).to_text, "ensure_all_keys")
    raises_field_error(AgentlyPrompt({"input": "x", "options": 5}).to_text, "options")


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"tools": [{"name": "t", "desc": "d", "kwargs": {}}]},
        {"examples": ["e"], "system": "s"},
        {"input": [], "info": {}},
    ],
)
def test_empty_prompt_keeps_agentlys_key_error(data: dict[str, Any]) -> None:
    for call in (AgentlyPrompt(data).to_text, AgentlyPrompt(data).to_messages):
        with pytest.raises(KeyError) as caught:
            call()
        assert isinstance(caught.value, AgentlyEmptyPromptError)
        assert caught.value.args == (
            "Prompt requires at least one of 'input', 'info', 'instruct', 'output', 'attachment' "
            "or customize extra prompt keys to be provided.",
        )


def test_custom_keys_and_falsy_values_pass_the_empty_check() -> None:
    assert AgentlyPrompt({"custom": None}).to_text() == "user:\n[custom]:\nNone\n\n[OUTPUT]:\nassistant:"
    assert AgentlyPrompt({"input": 0}).to_text() == "user:\n[OUTPUT]:\nassistant:"
    assert AgentlyPrompt({"attachment": ""}).to_messages() == [{"role": "user", "content": ""}]


def test_bad_settings_and_prompt_containers() -> None:
    raises_field_error(
        lambda: AgentlyPrompt({"input": "x"}, {"prompt": 1, "prompt.role_mapping": {}}), "prompt.role_mapping"
    )
    raises_field_error(lambda: AgentlyPrompt(["input"]), "prompt")  # type: ignore[arg-type]
