"""The ``agently`` format: Agently dicts <-> core Prompt, the registered renderer and the reader."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from test_agently_properties import PROMPTS
from test_agently_snapshots import CORPUS

from promptwire import PluginHost, Prompt, hookimpl
from promptwire.core import ContextItem, Identity, Section
from promptwire.core.errors import FieldError, UnsupportedFieldsError
from promptwire.renderers.agently import AgentlyEmptyPromptError, AgentlyPrompt
from promptwire.renderers.agently.reader import read_agently as to_prompt
from promptwire.renderers.agently.reader import reader
from promptwire.renderers.agently.renderer import map_prompt, renderer
from promptwire.renderers.agentscript.shape import shape_contract
from promptwire.renderers.base import Renderer

from hypothesis_profile import examples

# Where the trip through the core Prompt shows the model something else than Agently itself shows,
# on purpose: Agently prints an info value or a scalar section with Python's str() (``['pro', 3]``,
# ``None``), a core Prompt is shown as JSON/YAML; and an output format Agently does not know makes
# Agently show no output requirement, while the renderer shows it in the default format and warns.
NOT_VERBATIM = {"every_section", "format_unknown", "yaml_blocks", "values_of_every_kind"}
ROUND_TRIP = [name for name, case in CORPUS.items() if not name.startswith("output_model")]


def _quiet(call: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call()
        except Exception as error:
            return f"{type(error).__name__}: {error}"


def _trip(data: dict[str, Any], settings: dict[str, Any] | None = None) -> AgentlyPrompt:
    return AgentlyPrompt(map_prompt(to_prompt(data, settings)).data, settings, clock=lambda: "T")


@pytest.mark.parametrize("name", [name for name in ROUND_TRIP if name not in NOT_VERBATIM])
def test_agently_dict_survives_the_core_prompt(name: str) -> None:
    case = CORPUS[name]
    original = AgentlyPrompt(case.data, case.settings, clock=lambda: "T")
    again = _trip(case.data, case.settings)
    assert _quiet(again.to_text) == _quiet(original.to_text)
    assert _quiet(again.to_messages) == _quiet(original.to_messages)
    assert _quiet(lambda: again.to_output_model().model_json_schema()) == _quiet(
        lambda: original.to_output_model().model_json_schema()
    )


@pytest.mark.parametrize("name", ROUND_TRIP)
def test_reading_back_what_the_renderer_wrote_changes_nothing(name: str) -> None:
    """After one trip the Agently dict is a fixed point: the core Prompt loses nothing to the mapping."""
    case = CORPUS[name]
    once = map_prompt(to_prompt(case.data, case.settings)).data
    twice = map_prompt(to_prompt(once, case.settings)).data
    first = AgentlyPrompt(once, case.settings, clock=lambda: "T")
    second = AgentlyPrompt(twice, case.settings, clock=lambda: "T")
    assert _quiet(second.to_text) == _quiet(first.to_text)
    assert _quiet(second.to_messages) == _quiet(first.to_messages)


def _shown_verbatim(data: dict[str, Any]) -> bool:
    """Whether Agently itself shows every value of ``data`` the way a core Prompt is shown: text where
    it prints str(), containers that are not empty (Agently hides an empty input; the core shows it)."""

    def text_only(value: Any) -> bool:
        return isinstance(value, str)

    info = data.get("info", {})
    return all(text_only(value) for value in info.values()) and all(
        text_only(data[key]) or (isinstance(data[key], list | dict) and data[key])
        for key in ("input", "system", "instruct", "custom")
        # Agently hides a None input, system or instruct, but prints a custom key's None as "None".
        if key in data and (data[key] is not None or key == "custom")
    )


@settings(max_examples=examples(1.5), suppress_health_check=list(HealthCheck))
@given(PROMPTS)
def test_generated_agently_dicts_survive_the_core_prompt(data: dict[str, Any]) -> None:
    original = AgentlyPrompt(data, clock=lambda: "T")
    again = _trip(data)
    twice = AgentlyPrompt(map_prompt(to_prompt(map_prompt(to_prompt(data)).data)).data, clock=lambda: "T")
    assert _quiet(twice.to_text) == _quiet(again.to_text)
    assert _quiet(twice.to_messages) == _quiet(again.to_messages)
    if _shown_verbatim(data):
        assert _quiet(again.to_text) == _quiet(original.to_text)
        assert _quiet(again.to_messages) == _quiet(original.to_messages)


def test_round_trip_normalises_image_parts_to_the_openai_shape() -> None:
    data = {"attachment": [{"type": "image_url", "image_url": "http://x/a.png"}], "input": "look"}
    back = map_prompt(to_prompt(data)).data
    assert back["attachment"] == [{"type": "image_url", "image_url": {"url": "http://x/a.png"}}]


def test_mapping_field_by_field() -> None:
    prompt = to_prompt(
        {
            "system": {"rules": ["a"]},
            "developer": "dev",
            "chat_history": [{"role": "tool", "content": [{"type": "text", "text": "42"}]}],
            "info": {"user": "Ada"},
            "persona": "terse",
            "instruct": "do it",
            "examples": ["e"],
            "input": "go",
            "tools": [{"name": "t", "desc": "d", "kwargs": {"q": (str, "query")}}],
            "action_results": {"t": "done"},
            "output": {"reply": (str, "the reply", True)},
            "output_format": "hybrid",
            "ensure_all_keys": True,
            "options": {"temperature": 0.2},
        }
    )
    assert prompt.system == "rules:\n- a\n"
    assert prompt.developer == "dev"
    assert [turn.role for turn in prompt.history] == ["tool"]
    assert [part.model_dump() for part in prompt.history[0].content] == [{"type": "text", "text": "42"}]
    assert [(s.kind, s.key, s.value) for s in prompt.sections] == [
        ("info", None, {"user": "Ada"}),
        ("custom", "persona", "terse"),
        ("instruct", None, "do it"),
        ("examples", None, ["e"]),
    ]
    assert prompt.instruction == "go"
    assert prompt.tools[0].parameters == {
        "type": "object",
        "properties": {"q": {"type": "string", "description": "query"}},
        "additionalProperties": True,
    }
    assert [(r.name, r.content) for r in prompt.tool_results] == [("t", "done")]
    assert prompt.output is not None
    assert prompt.output.format == "hybrid"
    assert prompt.output.dialect == "agently"
    assert prompt.output.json_schema["required"] == ["reply"]
    assert prompt.output.json_schema["additionalProperties"] is False
    assert prompt.config.strict is True
    assert prompt.config.temperature == 0.2


def test_any_core_prompt_renders_in_agentlys_layout() -> None:
    prompt = Prompt(
        identity=Identity(role="analyst"),
        system="Be exact.",
        context=[ContextItem(label="notes", value="x" * 50, budget=10), ContextItem(source="user.name", value="Ada")],
        instruction="Summarise.",
        sections=[Section(kind="instruct", key="node_objective", value="one line")],
    )
    rendered = renderer.render(prompt)
    assert [w.field for w in rendered.warnings] == ["identity", "context.source"]
    assert rendered.format == "agently"
    assert rendered.text == (
        "user:\n[SYSTEM]:\nBe exact.\n\n[INFO]:\n- notes: xxxxxxxxxx\n- user.name: Ada\n\n"
        "[INSTRUCT]:\none line\n\n[INPUT]:\nSummarise.\n\n[OUTPUT]:\nassistant:"
    )
    assert [message.role for message in rendered.messages] == ["system", "user"]
    assert (
        rendered.messages[1].content
        == "[INFO]:\n- notes: xxxxxxxxxx\n- user.name: Ada\n\n[INSTRUCT]:\none line\n\n[INPUT]:\nSummarise.\n\n[OUTPUT]:"
    )
    with pytest.raises(UnsupportedFieldsError):
        renderer.render(prompt, strict=True)


def test_render_options_reach_agently() -> None:
    prompt = to_prompt({"chat_history": [{"role": "assistant", "content": "hi"}], "input": {"q": 1}})
    plain = renderer.render(prompt)
    assert [m.role for m in plain.messages] == ["assistant", "user"]
    assert plain.messages[-1].content == "q: 1\n"  # the input-only message, as the [INPUT] section shows it
    strict = renderer.render(
        prompt,
        strict_role_orders=True,
        rich_content=True,
        settings={"prompt.add_current_time": True},
        clock=lambda: "T",
    )
    assert [m.role for m in strict.messages] == ["user", "assistant", "user"]
    assert strict.messages[0].content == [{"type": "text", "text": "[CHAT HISTORY]"}]
    assert strict.messages[-1].content == "[current time]: T\n\nq: 1\n"
    assert strict.text is not None and strict.text.startswith("user:\n[current time]: T\n\n")


def test_output_from_another_dialect_becomes_an_agently_declaration() -> None:

    contract = shape_contract({"title": "string", "scores": "list[number]"})
    data = map_prompt(Prompt(instruction="rate", output=contract)).data
    assert data["output"] == {"title": (str, "", True), "scores": ([float], "", True)}
    assert '"title": <str>, //' in AgentlyPrompt(data).to_text()


def test_reader_reads_the_json_export() -> None:
    data = {"input": "x", "output": {"ready": (bool, "whether", True), "items": [(str, "tag")]}}
    exported = json.loads(AgentlyPrompt(data).to_json_prompt())
    prompt = reader.read(exported)
    assert AgentlyPrompt(map_prompt(prompt).data).to_text() == AgentlyPrompt(data).to_text()
    with pytest.raises(FieldError):
        reader.read(["not", "a", "mapping"])


def test_unknown_part_types_and_clashing_sections_are_errors() -> None:
    with pytest.raises(FieldError, match=r"attachment\[0\]"):
        to_prompt({"attachment": [{"type": "something", "something": 1}]})
    with pytest.raises(FieldError, match="clash"):
        map_prompt(Prompt(sections=[Section(kind="custom", key="input", value=1)]))


def test_registers_like_a_third_party_plugin() -> None:
    class AgentlyPlugin:
        @hookimpl
        def register_renderers(self, register: Any) -> None:
            register(renderer, aliases=("agently-test",))

        @hookimpl
        def register_readers(self, register: Any) -> None:
            register(reader, aliases=("agently-test",))

    host = PluginHost(builtins=False, entry_points=False, plugins=[AgentlyPlugin()])
    assert isinstance(renderer, Renderer)
    rendered = host.renderer("agently-test").render(to_prompt({"input": "hi"}))
    assert rendered.text == "user:\n[INPUT]:\nhi\n\n[OUTPUT]:\nassistant:"
    assert host.reader("agently-test").read({"input": "hi"}).instruction == "hi"


def test_context_never_overwrites_an_info_key() -> None:
    from promptwire import Prompt

    prompt = Prompt(
        sections=[{"kind": "info", "value": {"city": "Lisbon"}}],
        context=[{"label": "city", "value": "Porto"}],
        instruction="x",
    )
    data = map_prompt(prompt).data
    assert data["info"] == {"city": "Lisbon"}
    assert data["context"] == {"city": "Porto"}


def test_failed_tool_results_stay_visible() -> None:
    from promptwire import Prompt

    prompt = Prompt(
        instruction="x",
        tool_results=[
            {"call_id": "a", "name": "echo", "content": "ok"},
            {"call_id": "b", "name": "echo", "content": "timeout", "is_error": True},
        ],
    )
    assert map_prompt(prompt).data["action_results"] == {"a": "ok", "b": {"error": "timeout"}}


def test_type_names_from_serialized_prompts_keep_their_json_type() -> None:
    from promptwire.renderers.agently._agently.declarations import output_json_schema

    schema = output_json_schema({"reply": ("str", "your reply"), "n": ("int",), "odd": ("Widget", "x")})
    assert schema["properties"] == {
        "reply": {"type": "string", "description": "your reply"},
        "n": {"type": "integer"},
        "odd": {"description": "x"},
    }


# --- the renderer's own path against the drop-in API's ---------------------------------------------

_TEXT = st.text(max_size=8) | st.sampled_from(["", "${input}", "a\nb", "ü 😀"])
_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
)
_PART = st.sampled_from([{"type": "text", "text": "part"}, {"type": "image", "url": "https://x/a.png"}])
_CORE_PROMPTS = st.fixed_dictionaries(
    {"instruction": _TEXT | _VALUE},
    optional={
        "system": _TEXT,
        "developer": _TEXT,
        "history": st.lists(
            st.fixed_dictionaries(
                {"role": st.sampled_from(["user", "assistant", "tool", "system"]), "content": _TEXT | st.lists(_PART)}
            ),
            max_size=4,
        ),
        "tools": st.lists(
            st.fixed_dictionaries(
                {"name": _TEXT},
                optional={
                    "description": _TEXT,
                    "parameters": st.just({"type": "object", "properties": {"q": {"type": "string"}}}),
                    "returns": st.just({"type": "string"}),
                },
            ),
            max_size=3,
        ),
        "context": st.lists(st.fixed_dictionaries({"value": _VALUE}, optional={"label": _TEXT}), max_size=2),
        "sections": st.lists(
            st.fixed_dictionaries(
                {"kind": st.sampled_from(["info", "instruct", "custom"]), "value": _VALUE}, optional={"key": _TEXT}
            ),
            max_size=2,
        ),
        "attachments": st.lists(_PART, max_size=2),
    },
)
_OPTIONS = st.fixed_dictionaries(
    {
        "rich_content": st.booleans(),
        "strict_role_orders": st.booleans(),
        "role_mapping": st.none() | st.just({"user": "human", "assistant": "bot", "_": "other"}),
        "settings": st.none() | st.just({"prompt.add_current_time": True}),
    }
)


def _outcome(call: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", call()
        except AgentlyEmptyPromptError:
            return "refused", None
        except FieldError as error:
            return "error", error.field


@settings(max_examples=examples(2), suppress_health_check=list(HealthCheck))
@given(data=_CORE_PROMPTS, options=_OPTIONS)
def test_the_renderer_shows_what_agently_prompt_shows_for_the_mapped_dict(
    data: dict[str, Any], options: dict[str, Any]
) -> None:
    """The renderer reads the history message by message, makes its messages directly and shares one
    main prompt between text and messages; AgentlyPrompt, checked against the real Agently, reads the
    whole mapped dict: both must give the same bytes."""
    try:
        prompt = Prompt.model_validate(data)
    except ValidationError:
        assume(False)
    role_mapping = options["role_mapping"]
    rich, strict = options["rich_content"], options["strict_role_orders"]
    rendered = _outcome(lambda: renderer.render(prompt, clock=lambda: "T", **options))
    mapped = _outcome(lambda: map_prompt(prompt).data)
    assume(mapped[0] == "ok")
    agently = AgentlyPrompt(mapped[1], options["settings"], clock=lambda: "T")
    text = _outcome(lambda: agently.to_text(role_mapping))
    messages = _outcome(lambda: agently.to_messages(role_mapping, rich, strict))
    if text[0] == "refused":
        event("refused by Agently")
        return  # Agently refuses a prompt with nothing to ask; the renderer renders it
    if rendered[0] != "ok":
        event("the same error")
        assert rendered in (text, messages)
        return
    assert (rendered[1].text, "ok") == (text[1], text[0])
    if isinstance(mapped[1].get("input"), list | dict):
        event("text compared")
        return  # an input-only message holds the [INPUT] section's text, Agently passes the value on
    event(f"text and messages compared, {'with' if prompt.history else 'no'} history")
    assert messages[0] == "ok"
    assert [message.to_dict() for message in rendered[1].messages] == messages[1]
