from __future__ import annotations

import json
import warnings

import pytest

import promptwire
from promptwire import PluginHost, Prompt
from promptwire.core.errors import FieldError, UnsupportedFieldsWarning
from promptwire.core.json_text import dumps
from promptwire.renderers.agentscript import shape_contract
from promptwire.renderers.parts import URL_FILE_REASON, url_file_paths

from corpus import layout_formats

HOST = PluginHost(entry_points=False)


def test_plain_string_content_without_parts() -> None:
    rendered = promptwire.render(
        {"identity": {"role": "Helper", "description": "Be brief."}, "instruction": "Hi."}, "messages", host=HOST
    )
    assert [m.to_dict() for m in rendered.messages] == [
        {"role": "system", "content": "You are Helper.\nBe brief."},
        {"role": "user", "content": "Instruction:\nHi."},
    ]


def test_history_goes_between_system_and_the_asked_turn() -> None:
    rendered = promptwire.render(
        {
            "system": "S",
            "history": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
            "instruction": "c",
        },
        "messages",
        host=HOST,
    )
    assert [(m.role, m.content) for m in rendered.messages] == [
        ("system", "S"),
        ("user", "a"),
        ("assistant", "b"),
        ("user", "Instruction:\nc"),
    ]


def test_a_conversation_with_nothing_asked_ends_with_its_last_turn() -> None:
    # A provider's body read with --from has turns and no instruction: the layout's user turn
    # would be empty text, which Anthropic refuses and no provider needs.
    history = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
        {"role": "user", "content": "c"},
    ]
    rendered = promptwire.render({"system": "S", "history": history}, "messages", host=HOST)
    assert [(m.role, m.content) for m in rendered.messages] == [
        ("system", "S"),
        ("user", "a"),
        ("assistant", "b"),
        ("user", "c"),
    ]
    request = promptwire.build_request({"system": "S", "history": history}, "anthropic", "claude-x", host=HOST)
    assert request.kwargs["messages"][-1] == {"role": "user", "content": "c"}


def test_a_prompt_with_nothing_asked_and_no_turns_keeps_its_one_user_turn() -> None:
    # A request must hold a message: the empty user turn stays where it is the only one.
    rendered = promptwire.render({"system": "S"}, "messages", host=HOST)
    assert [(m.role, m.content) for m in rendered.messages] == [("system", "S"), ("user", "")]


def test_attachments_become_openai_parts_after_the_text() -> None:
    rendered = promptwire.render(
        {
            "instruction": "Look.",
            "attachments": [
                {"type": "image", "url": "https://x/y.png", "detail": "low"},
                {"type": "image", "data": "AAAA", "media_type": "image/png"},
                {"type": "audio", "data": "BBBB", "format": "mp3"},
                {"type": "file", "data": "CCCC", "media_type": "application/pdf", "filename": "a.pdf"},
            ],
        },
        "messages",
        host=HOST,
    )
    assert rendered.user == [
        {"type": "text", "text": "Instruction:\nLook."},
        {"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "low"}},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
        {"type": "input_audio", "input_audio": {"data": "BBBB", "format": "mp3"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,CCCC", "filename": "a.pdf"}},
    ]
    assert rendered.warnings == ()


def test_a_file_given_by_url_is_shown_as_text_and_reported() -> None:
    # OpenAI chat file parts take file_data or file_id, never a URL (file_url is refused).
    prompt = {
        "instruction": "Read.",
        "attachments": [{"type": "file", "url": "https://x/doc.pdf", "filename": "doc.pdf"}],
        "history": [{"role": "user", "content": [{"type": "file", "url": "https://x/old.pdf"}]}],
    }
    with pytest.warns(UnsupportedFieldsWarning):
        rendered = promptwire.render(prompt, "messages", host=HOST)
    assert rendered.messages[0].content == [{"type": "text", "text": "[file: https://x/old.pdf]"}]
    assert rendered.user[-1] == {"type": "text", "text": "[file doc.pdf: https://x/doc.pdf]"}
    assert [(w.field, w.reason) for w in rendered.warnings] == [
        ("attachments[0]", URL_FILE_REASON),
        ("history[0].content[0]", URL_FILE_REASON),
    ]
    assert "file_url" not in json.dumps(rendered.to_dict())


@pytest.mark.parametrize("format_name", ["messages", "conversation"])
def test_the_turns_files_given_by_url_are_found_as_the_turns_are_written(format_name: str) -> None:
    # Both formats find them in the pass that writes the turns (a history may hold 100,000s), not
    # in a second walk of the prompt: the same places, in the same order, as url_file_paths says.
    prompt = Prompt.model_validate(
        {
            "attachments": [{"type": "file", "url": "https://x/a.pdf"}],
            "history": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "f", "arguments": {}}]},
                {
                    "role": "tool",
                    "content": [
                        {
                            "type": "tool_result",
                            "call_id": "c1",
                            "content": [{"type": "text", "text": "x"}, {"type": "file", "url": "https://x/b.pdf"}],
                        }
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "see"}, {"type": "file", "url": "https://x/c.pdf"}],
                },
                {"role": "user", "content": [{"type": "file", "data": "AAAA", "media_type": "application/pdf"}]},
            ],
        }
    )
    with pytest.warns(UnsupportedFieldsWarning):
        rendered = promptwire.render(prompt, format_name, host=HOST)
    found = [w.field for w in rendered.warnings if w.reason == URL_FILE_REASON]
    assert found == ["attachments[0]", "history[2].content[0].content[1]", "history[3].content[1]"]
    assert found == url_file_paths(prompt)


def test_half_a_character_stays_in_the_message_and_its_json_escapes_it() -> None:
    # A budget of 3 UTF-16 units cuts the emoji in two; AgentScript sends that half as "\\ud83d".
    clipped = {"instruction": "x", "context": [{"value": "ab\U0001f600cd", "budget": 3}]}
    for fmt in layout_formats(HOST):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rendered = promptwire.render(clipped, fmt, host=HOST)
        for message in rendered.messages:
            text = dumps(message.to_dict())
            text.encode("utf-8")  # raises on a half character left raw
            assert "\ufffd" not in text
        if fmt in ("agentscript", "messages"):
            (user,) = rendered.messages
            assert "ab\ud83d\n" in user.content
            assert "ab\\ud83d\\n" in dumps(user.to_dict())
            assert "ab\ufffd\n" in rendered.display()  # shown to a person as a replacement character


def test_strict_must_be_a_bool_and_layout_a_known_format() -> None:
    with pytest.raises(FieldError, match="strict: must be true or false, got str 'no'"):
        promptwire.render({"instruction": "x"}, "messages", host=HOST, strict="no")
    with pytest.raises(FieldError, match="layout: must be a renderer"):
        HOST.renderer("messages").render(Prompt(instruction="x"), layout="agens")
    rendered = promptwire.render({"instruction": "x"}, "messages", host=HOST, layout="agens")
    assert rendered.user == "## Input\nThe following is the original input from the user:\n\nx\n"


def test_history_parts_are_converted_too() -> None:
    rendered = promptwire.render(
        {"history": [{"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image", "url": "u"}]}]},
        "messages",
        host=HOST,
    )
    assert rendered.messages[0].content == [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "u"}},
    ]


def test_attachments_without_a_user_turn_get_one() -> None:
    rendered = promptwire.render({"attachments": [{"type": "text", "text": "only"}]}, "messages", host=HOST)
    assert rendered.messages[-1].to_dict() == {"role": "user", "content": [{"type": "text", "text": "only"}]}


def test_developer_message_when_the_layout_has_no_place_for_it() -> None:
    rendered = promptwire.render({"system": "S", "developer": "D", "instruction": "x"}, "messages", host=HOST)
    assert [m.role for m in rendered.messages] == ["system", "developer", "user"]
    assert rendered.messages[1].content == "D"
    assert rendered.warnings == ()


def test_any_renderer_can_be_the_layout() -> None:
    prompt = Prompt(instruction="Summarize.", previous_result="prev", history=[{"role": "user", "content": "hi"}])
    rendered = HOST.renderer("messages").render(prompt, layout=HOST.renderer("agens"))
    roles = [m.role for m in rendered.messages]
    assert roles == ["system", "user", "user"]
    assert rendered.messages[-1].content.startswith("## Input\n")
    assert "## Previous Result" in rendered.messages[-1].content


def test_one_warning_naming_what_neither_layout_nor_chat_can_say() -> None:
    prompt = Prompt(instruction="x", sections=[{"kind": "custom", "key": "k", "value": 1}], history=[{"content": "h"}])
    with pytest.warns(UnsupportedFieldsWarning) as record:
        rendered = promptwire.render(prompt, "messages", host=HOST)
    assert [str(w.message) for w in record] == [
        "format 'messages' cannot express these prompt fields, which were left out: sections"
    ]
    assert [(w.format, w.field) for w in rendered.warnings] == [("messages", "sections")]


def test_tools_calls_and_results_reach_the_adapter() -> None:
    prompt = Prompt(
        instruction="What is the weather in Oslo?",
        tools=[
            {
                "name": "weather",
                "description": "Look up",
                "parameters": {"type": "object"},
                "returns": {"type": "string"},
            }
        ],
        tool_calls=[
            {"name": "weather", "arguments": {"city": "Oslo"}},
            {"name": "weather", "id": "b", "arguments": {}},
        ],
        tool_results=[{"content": {"temp": 3}}, {"call_id": "b", "content": "no city", "is_error": True}],
        output=shape_contract({"answer": "string"}),
    )
    rendered = HOST.renderer("messages").render(prompt, strict=True)
    assert [m.role for m in rendered.messages] == ["user", "assistant", "tool", "tool"]
    assistant, first, second = rendered.messages[1:]
    assert [(c.id, c.name, c.arguments) for c in assistant.tool_calls] == [
        ("call_0", "weather", {"city": "Oslo"}),
        ("b", "weather", {}),
    ]
    assert (first.tool_call_id, first.content, first.is_error) == ("call_0", '{\n  "temp": 3\n}', False)
    assert (second.tool_call_id, second.content, second.is_error) == ("b", "no city", True)
    assert rendered.tools == tuple(prompt.tools)
    assert rendered.output == prompt.output
    data = rendered.to_dict()
    assert data["messages"][1]["tool_calls"][0] == {"id": "call_0", "name": "weather", "arguments": {"city": "Oslo"}}
    assert data["messages"][3] == {"role": "tool", "content": "no city", "tool_call_id": "b", "is_error": True}
    assert data["tools"][0]["returns"] == {"type": "string"}
    assert data["output"]["schema"]["required"] == ["answer"]


def test_a_tool_result_that_is_not_json_names_its_field() -> None:
    import datetime

    prompt = Prompt(instruction="x", tool_results=[{"content": {"when": datetime.date(2026, 1, 1)}}])
    with pytest.raises(FieldError, match=r"tool_results\[0\]\.content|tool_results.0.content"):
        HOST.renderer("messages").render(prompt)


def test_fields_are_the_layout_fields_plus_chat_turns() -> None:
    fields = HOST.renderer("messages").fields
    assert {"history", "attachments", "developer"} <= fields
    assert HOST.renderer("agentscript").fields <= fields


def test_history_speaker_names_are_kept() -> None:
    rendered = promptwire.render(
        {"history": [{"role": "user", "name": "ada", "content": "hi"}], "instruction": "x"}, "messages", host=HOST
    )
    assert rendered.messages[0].to_dict() == {"role": "user", "content": "hi", "name": "ada"}
    assert rendered.display().startswith("--- user (ada) ---\nhi\n")
    assert rendered.warnings == ()


def test_a_str_valued_enum_member_prints_its_value_in_every_format() -> None:
    from enum import Enum

    class Color(str, Enum):  # noqa: UP042 (the mixin users write, not StrEnum)
        RED = "red"

    prompt = {
        "instruction": Color.RED,
        "system": Color.RED,
        "context": [{"value": Color.RED}, {"value": {"c": Color.RED}}],
    }
    for fmt in layout_formats(HOST):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            shown = promptwire.render(prompt, fmt, host=HOST).display()
        assert "Color" not in shown, fmt
        assert "red" in shown, fmt


def test_a_render_asks_pydantic_for_no_field_default(monkeypatch: pytest.MonkeyPatch) -> None:
    # get_default(call_default_factory=True) inspects the factory's signature on every call: six
    # fields a render took 380 of a 12-message prompt's 518 us (issue 28).
    from pydantic.fields import FieldInfo

    prompt = Prompt(
        system="S", developer="D", history=[{"role": "user", "content": "a"}], tools=[{"name": "t"}], instruction="b"
    )

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("pydantic's field machinery was asked during a render")

    monkeypatch.setattr(FieldInfo, "get_default", refuse)
    rendered = HOST.renderer("messages").render(prompt)
    assert [m.role for m in rendered.messages] == ["system", "developer", "user", "user"]


def test_a_layout_that_is_no_renderer_is_refused_even_when_false() -> None:
    with pytest.raises(FieldError, match="layout: must be a renderer, got str ''"):
        HOST.renderer("messages").render(Prompt(instruction="x"), layout="")


_EVERY_CHAT_FIELD = {
    "identity": {"role": "Helper", "description": "Be brief."},
    "system": "S",
    "developer": "D",
    "cache": {"system": {"ttl": "1h"}, "key": "k"},
    "context": [{"value": {"a": [1, 2]}, "label": "l", "source": "input.a"}],
    "history": [{"role": "user", "content": "hi", "cache": {}}, {"role": "assistant", "content": "ho", "name": "n"}],
    "attachments": [{"type": "image", "url": "https://x/y.png"}],
    "tools": [{"name": "t", "description": "d"}],
    "tool_calls": [{"name": "t", "arguments": {"q": 1}}],
    "tool_results": [{"content": {"r": 2}}],
    "sections": [{"kind": "custom", "key": "k", "value": 1}],
    "instruction": "x",
}


def test_the_default_layout_renders_as_agentscript_given_as_the_layout() -> None:
    # The default layout reads the prompt as it is (it reads only its own fields); a layout given
    # reads a copy without what this format shows itself. The two must not differ by a byte.
    prompt = Prompt.model_validate(_EVERY_CHAT_FIELD)
    messages = HOST.renderer("messages")
    by_default = messages.render(prompt)
    given = messages.render(prompt, layout=HOST.load("renderers", "agentscript"))
    assert by_default.to_dict() == given.to_dict()
    assert [(w.field, w.reason) for w in by_default.warnings] == [
        ("sections", "the format cannot express it; left out")
    ]
    assert [m.role for m in by_default.messages] == [
        "system",
        "developer",
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
    ]


def test_the_default_layout_reads_the_prompt_without_a_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    prompt = Prompt.model_validate(_EVERY_CHAT_FIELD)

    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("the prompt was copied for the default layout")

    monkeypatch.setattr(Prompt, "model_copy", refuse)
    assert HOST.renderer("messages").render(prompt).messages[0].content == "You are Helper.\nBe brief.\nS"


def test_agentscript_as_a_layout_reports_nothing_it_leaves_out() -> None:
    from promptwire.renderers.agentscript import renderer as agentscript

    prompt = Prompt.model_validate(_EVERY_CHAT_FIELD)
    laid_out = agentscript.render_layout(prompt)
    assert laid_out.warnings == ()
    assert {w.field for w in agentscript.render(prompt).warnings} >= {"history", "developer", "sections"}
    assert laid_out.messages == agentscript.render(prompt).messages


def test_a_text_turn_is_the_message_its_constructor_makes() -> None:
    """history_messages builds a text turn's message field by field: every field is set, as
    ``Message(role, content, name)`` sets it (a field added to Message and not set there fails)."""
    import dataclasses

    from promptwire.core.rendered import Message
    from promptwire.renderers.messages import history_messages

    prompt = Prompt.model_validate({"history": [{"role": "assistant", "content": "b", "name": "ann"}]})
    (message,) = history_messages(prompt)
    expected = Message("assistant", "b", "ann")
    for field in dataclasses.fields(Message):
        assert getattr(message, field.name) == getattr(expected, field.name), field.name
    assert message == expected and message.to_dict() == {"role": "assistant", "content": "b", "name": "ann"}
