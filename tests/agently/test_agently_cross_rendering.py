"""The ``agently`` renderer on core Prompts from anywhere: nothing lost silently, nothing shown as a
Python repr, Agently's own warnings as records, hostile values and options refused by name.

``AgentlyPrompt`` (a user's own Agently dict) keeps Agently's bytes and warnings; these tests are
about a core ``Prompt`` mapped into Agently's layout, and about the reader (Agently data -> Prompt).
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from promptwire import Prompt
from promptwire.core import ContextItem, OutputContract, Section
from promptwire.core.errors import FieldError
from promptwire.core.prompt import ChatTurn, FilePart, ImagePart, TextPart, ToolDefinition
from promptwire.renderers.agently import AgentlyPrompt, AgentlyWarning
from promptwire.renderers.agently.reader import reader
from promptwire.renderers.agently.renderer import map_prompt, renderer


def _render(prompt: Prompt, **options: Any) -> Any:
    """Render, failing on any Python warning: the renderer reports on the result, it does not warn."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return renderer.render(prompt, **options)


def _fields(rendered: Any) -> list[str]:
    return [warning.field for warning in rendered.warnings]


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


# --- no silent loss ----------------------------------------------------------------------------


def test_a_repeated_label_takes_a_free_name_and_says_so() -> None:
    prompt = Prompt(
        context=[
            ContextItem(label="x", value="one"),
            ContextItem(label="x_2", value="two"),
            ContextItem(label="x", value="three"),
        ],
        instruction="go",
    )
    rendered = _render(prompt)
    assert "- x: one\n- x_2: two\n- x_3: three\n" in (rendered.text or "")
    assert [(w.field, w.reason) for w in rendered.warnings] == [
        ("context[2].label", "the label 'x' is already used by another context item; shown as 'x_3'")
    ]


@pytest.mark.parametrize(("instruction", "shown"), [(0, "0"), (False, "false"), ([], "[]\n"), ({}, "{}\n")])
def test_a_falsy_instruction_is_shown(instruction: Any, shown: str) -> None:
    rendered = _render(Prompt(instruction=instruction))
    assert f"[INPUT]:\n{shown}\n" in (rendered.text or "")


def test_any_prompt_renders_even_one_agently_would_refuse() -> None:
    prompt = Prompt(system="Be brief.", history=[ChatTurn(role="user", content="hi")])
    rendered = _render(prompt)
    assert rendered.text == "user:\n[SYSTEM]:\nBe brief.\n\n[CHAT HISTORY]:\n[user]:hi\n\n[OUTPUT]:\nassistant:"
    assert [m.role for m in rendered.messages] == ["system", "user", "user"]
    assert _render(Prompt()).text == "user:\n[OUTPUT]:\nassistant:"


# --- JSON or YAML, never a repr ----------------------------------------------------------------


def test_context_values_are_json_on_their_info_line() -> None:
    customer = {"id": 4711, "plan": "business", "vip": True, "note": None}
    rendered = _render(Prompt(context=[ContextItem(label="customer", value=customer)], instruction="go"))
    line = next(line for line in (rendered.text or "").splitlines() if line.startswith("- customer: "))
    assert json.loads(line.removeprefix("- customer: ")) == customer


def test_scalar_sections_and_results_print_as_json_scalars() -> None:
    prompt = Prompt(
        sections=[Section(kind="custom", key="flag", value=None), Section(kind="instruct", value=True)],
        tool_results=[{"content": 0}],
        instruction="go",
    )
    text = _render(prompt).text or ""
    assert "[ACTION RESULTS]:\n0\n" in text
    assert "[flag]:\nnull\n" in text
    assert "[INSTRUCT]:\ntrue\n" in text


def test_an_input_only_message_is_the_yaml_the_input_section_shows() -> None:
    rendered = _render(Prompt(instruction={"task": "write", "tags": ["a", "b"]}))
    assert rendered.messages[-1].content == "tags:\n- a\n- b\ntask: write\n"
    assert "[INPUT]:\ntags:\n- a\n- b\ntask: write\n" in (rendered.text or "")


def test_agently_prompt_keeps_agentlys_python_spelling_for_a_users_dict() -> None:
    text = AgentlyPrompt({"info": {"customer": {"id": 4711}}, "input": "go"}).to_text()
    assert "- customer: {'id': 4711}\n" in text


# --- Agently's warnings as records -------------------------------------------------------------


def test_parts_that_to_text_skips_are_reported_not_warned() -> None:
    prompt = Prompt(
        history=[ChatTurn(content=[TextPart(text="look"), ImagePart(url="https://x/cat.png")])],
        instruction="what is it?",
    )
    rendered = _render(prompt)
    assert _fields(rendered) == ["history[0].content[1]"]
    assert "unable to convert type 'image_url' to text" in rendered.warnings[0].reason
    plain = _render(Prompt(attachments=[ImagePart(url="https://x/cat.png")], instruction="x"), rich_content=False)
    assert _fields(plain) == ["attachments[0]"]


def test_an_output_format_fallback_is_reported() -> None:
    contract = OutputContract(json_schema={"type": "string"}, dialect="agently", native=str, format="hybrid")
    rendered = _render(Prompt(instruction="x", output=contract))
    assert _fields(rendered) == ["output.format"]
    assert "Falling back to json" in rendered.warnings[0].reason


def test_agently_prompt_used_directly_still_warns_at_the_callers_line() -> None:
    prompt = AgentlyPrompt({"input": "x", "output": str, "output_format": "hybrid"})
    with pytest.warns(AgentlyWarning, match="Falling back to json") as record:
        prompt.to_text()
    assert {entry.filename for entry in record} == {__file__}


# --- enums, arrays, unknown formats ------------------------------------------------------------

PARAMETERS = {
    "type": "object",
    "properties": {
        "color": {"type": "string", "enum": ["red", "blue"], "description": "paint"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "size": {"type": ["integer", "null"]},
        "name": {"type": "string", "minLength": 2},
    },
    "required": ["color"],
}


def test_tool_enums_arrays_and_unions_are_shown() -> None:
    rendered = _render(Prompt(instruction="x", tools=[ToolDefinition(name="paint", parameters=PARAMETERS)]))
    text = rendered.text or ""
    assert '"color": <Literal[red, blue]>, // paint' in text
    assert '"tags": [\n      <str>,\n      ...\n    ],' in text
    assert '"size": <int | NoneType>,' in text
    assert [(w.field, w.reason) for w in rendered.warnings] == [
        (
            "tools[0].parameters.name",
            "Agently's tool description has no place for the schema keyword(s) minLength; left out",
        )
    ]


def test_output_enums_and_constraints_become_field_requirements() -> None:
    schema = {
        "type": "object",
        "properties": {
            "mood": {"type": "string", "enum": ["happy", "sad"]},
            "score": {"type": "number", "minimum": 0, "maximum": 10},
            "summary": {"type": "string"},
        },
        "required": ["mood", "summary"],
    }
    rendered = _render(Prompt(instruction="x", output=OutputContract(json_schema=schema)))
    text = rendered.text or ""
    assert '"mood": <Literal[happy, sad]>, //' in text
    assert '- mood: required; must not be null; allowed values: ["happy","sad"]' in text
    assert "- score: value: >= 0 and <= 10" in text
    assert "- summary: required key; null or empty values are allowed" in text
    assert rendered.warnings == ()


def test_an_unknown_output_format_still_shows_the_requirement() -> None:
    contract = OutputContract(
        json_schema={"type": "object", "properties": {"reply": {"type": "string"}}},
        dialect="agently",
        native={"reply": (str, "the reply")},
        format="telepathy",
    )
    rendered = _render(Prompt(instruction="x", output=contract))
    assert '[OUTPUT REQUIREMENT]:\nData Format: JSON\nData Structure:\n{\n  "reply": <str> // the reply\n}' in (
        rendered.text or ""
    )
    assert _fields(rendered) == ["output.format"]


# --- depth, cycles, big numbers ----------------------------------------------------------------


@pytest.mark.parametrize("where", ["context", "instruction", "section", "result"])
def test_values_nested_as_deep_as_a_prompt_allows_render(where: str) -> None:
    deep = _nested(999)
    prompt = {
        "context": Prompt(context=[ContextItem(label="v", value=deep)], instruction="go"),
        "instruction": Prompt(instruction=deep),
        "section": Prompt(sections=[Section(kind="custom", key="data", value=deep)], instruction="go"),
        "result": Prompt(tool_results=[{"name": "r", "content": deep}], instruction="go"),
    }[where]
    rendered = _render(prompt)
    assert "leaf" in (rendered.text or "")


def test_settings_nested_too_deep_are_refused_by_name() -> None:
    with pytest.raises(FieldError) as caught:
        _render(Prompt(instruction="x"), settings={"prompt.role_mapping": {"_": _nested(1001)}})
    assert caught.value.field == "settings"


def test_circular_and_too_deep_agently_data_is_a_field_error() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(FieldError, match="contains itself") as caught:
        AgentlyPrompt({"input": loop})
    assert caught.value.field == "input"
    # One limit for every format: as deep as a Prompt allows renders, deeper is refused by name.
    assert "leaf" in AgentlyPrompt({"info": {"a": _nested(990)}}).to_text()
    with pytest.raises(FieldError, match="deeper than 1000") as deep:
        AgentlyPrompt({"info": {"a": _nested(1500)}}).to_text()
    assert deep.value.field == "info"


def test_integers_too_long_to_print_are_field_errors() -> None:
    huge = 10**5000
    with pytest.raises(FieldError) as caught:
        _render(Prompt(context=[ContextItem(label="n", value=[huge])], instruction="x"))
    assert caught.value.field == "context[0].value"
    with pytest.raises(FieldError) as section:
        _render(Prompt(sections=[Section(kind="custom", key="n", value={"n": huge})], instruction="x"))
    assert section.value.field == "n"
    with pytest.raises(FieldError) as direct:
        AgentlyPrompt({"input": {"n": huge}}).to_text()
    assert direct.value.field == "input"


# --- budgets in Agently's own text -------------------------------------------------------------


def test_a_budget_bounds_the_json_the_model_reads() -> None:
    items = [{"id": n} for n in range(50)]
    rendered = _render(Prompt(context=[ContextItem(label="items", value=items, budget=100)], instruction="x"))
    line = next(line for line in (rendered.text or "").splitlines() if line.startswith("- items: "))
    shown = line.removeprefix("- items: ")
    kept = json.loads(shown)
    assert len(shown) <= 100 < len(json.dumps([*kept, items[len(kept)]], ensure_ascii=False))
    assert kept == items[: len(kept)]


def test_a_budget_counts_code_points_and_never_splits_a_character() -> None:
    rendered = _render(Prompt(context=[ContextItem(label="t", value="ab😀cd", budget=3)], instruction="x"))
    assert "- t: ab😀\n" in (rendered.text or "")


# --- the reader keeps what it is given ---------------------------------------------------------


def test_the_reader_keeps_inline_file_data_inline() -> None:
    data_url = "data:application/pdf;base64,JVBERi0="
    prompt = reader.read(
        {"input": "read it", "attachment": [{"type": "file", "file": {"file_data": data_url, "filename": "a.pdf"}}]}
    )
    part = prompt.attachments[0]
    assert isinstance(part, FilePart)
    assert (part.url, part.data, part.media_type, part.filename) == (None, "JVBERi0=", "application/pdf", "a.pdf")
    assert map_prompt(prompt).data["attachment"] == [
        {"type": "file", "file": {"file_data": data_url, "filename": "a.pdf"}}
    ]


# --- options are validated like prompt data ----------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("clock", 1),
        ("settings", ["prompt.add_current_time"]),
        ("role_mapping", {"user": 1}),
        ("rich_content", "yes"),
        ("strict_role_orders", "no"),
        ("strict", "no"),
    ],
)
def test_a_bad_option_is_refused_by_name(option: str, value: Any) -> None:
    with pytest.raises(FieldError) as caught:
        renderer.render(Prompt(instruction="x"), **{option: value})
    assert caught.value.field == option


def test_a_clock_must_return_text() -> None:
    with pytest.raises(FieldError) as caught:
        renderer.render(Prompt(instruction="x"), settings={"prompt.add_current_time": True}, clock=lambda: 12)
    assert caught.value.field == "clock"


# --- size: shared parts, long lists ------------------------------------------------------------


def _shared(levels: int) -> Any:
    """A value whose tree has 2**levels leaves but only ``levels`` distinct containers (YAML aliases)."""
    value: Any = ["leaf"]
    for _ in range(levels):
        value = [value, value]
    return value


def test_shared_parts_are_written_once_with_anchors() -> None:
    # As a tree this is 2**16 leaves; written once, with YAML anchors, it is small.
    rendered = _render(Prompt(sections=[Section(kind="custom", key="data", value=_shared(15))], instruction="go"))
    assert len(rendered.text or "") < 10_000
    assert "&id001" in (rendered.text or "")
    again = _render(reader.read({"input": _shared(15)}))
    assert len(again.text or "") < 10_000


def test_shared_parts_beyond_the_budget_are_refused_as_in_every_format() -> None:
    # 2**41 values as every other format prints them: the prompt is refused at validation, before
    # any format is chosen (core.nesting.MAX_REPEATED_VALUES), this one's anchors notwithstanding.
    with pytest.raises(ValueError, match=r"sections\[0\]\.value: parts used in several places print as more"):
        Prompt(sections=[Section(kind="custom", key="data", value=_shared(40))], instruction="go")
    with pytest.raises(ValueError, match=r"instruction: parts used in several places print as more"):
        reader.read({"input": _shared(40)})


def test_agently_prompt_copies_shared_parts_into_a_tree_as_agently_does() -> None:
    import yaml

    value = _shared(3)
    expanded = json.loads(json.dumps(value))  # the same data, nothing shared
    assert AgentlyPrompt({"input": value}).to_yaml_prompt() == AgentlyPrompt({"input": expanded}).to_yaml_prompt()
    assert "&id" not in AgentlyPrompt({"input": value}).to_text()
    assert yaml.safe_dump(expanded, allow_unicode=True) in AgentlyPrompt({"input": value}).to_text()


@pytest.mark.parametrize(
    "items",
    [
        ["alpha", "beta gamma", "x_1", "a.b/c-d"],
        ["yes", "word"],  # a word YAML reads as a boolean is quoted
        ["word", "a" * 78],
        ["a" * 79],  # too long for one line at width 80
        ["a  b", "c"],
        ["trailing ", "x"],
        ["", "x"],
        ["-dash", "x"],
        ["multi\nline", "x"],
        ["März", "x"],
        [1, 2, -3, 10**70],
    ],
)
def test_long_plain_lists_are_written_as_pyyaml_writes_them(items: list[Any]) -> None:
    import yaml

    from promptwire.renderers.agently._agently.yaml_blocks import dump_yaml

    for value in (items * 50, {"key": items * 3, "nested": {"deeper": items}}, [items, items[:1]]):
        assert dump_yaml(value) == yaml.safe_dump(value, allow_unicode=True)
