"""promptwire as Agently's prompt generator, through Agently's own API, against agently 4.1.4.10.

Each scenario is built twice with Agently's real objects (agents, sessions, executions, settings):
once with Agently's ``AgentlyPromptGenerator`` active, once after ``activate()``. All seven
generator methods must give the same results (the output model: the same JSON Schema, and the same
verdict and values on sample answers), with the same warnings. The requesters (OpenAI chat,
Responses, Anthropic) are run over real HTTP against the local fake provider, and their request
bodies compared byte for byte.

Skipped unless agently==4.1.4.10 is importable.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import BaseModel, Field, ValidationError

import promptwire.renderers.agently as promptwire_agently
from promptwire.core.errors import PromptwireError
from promptwire.renderers.agently import AgentlyFieldError
from promptwire.renderers.agently.plugin import PromptwirePromptGenerator, is_active

agently = pytest.importorskip("agently")

from importlib.metadata import version  # noqa: E402

if version("agently") != "4.1.4.10":  # pragma: no cover - depends on env
    pytest.skip(f"the plugin targets agently 4.1.4.10, found {version('agently')}", allow_module_level=True)

import test_agently_conformance as conformance  # noqa: E402
from agently import Agently  # noqa: E402
from agently.types.data.judgment import Choice, OutputTemplate, Probability, Score  # noqa: E402
from agently.types.data.prompt import AttachmentMessageContent, ChatMessage, TextMessageContent  # noqa: E402
from agently.utils import StateData, TimeInfo  # noqa: E402

from promptwire.testing import provider_servers  # noqa: E402
from promptwire.testing.provider_servers import fake_provider  # noqa: E402

from hypothesis_profile import examples  # noqa: E402

pytestmark = pytest.mark.conformance


@pytest.fixture(autouse=True)
def _agently_alone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts and ends with Agently's own generator, and a fixed clock."""
    monkeypatch.setattr(TimeInfo, "get_current_time", staticmethod(lambda: "2024-01-01 00:00:00 Monday"))
    promptwire_agently.deactivate()
    yield
    promptwire_agently.deactivate()
    Agently.settings.set("prompt.add_current_time", False)


# --- comparing the seven methods --------------------------------------------------------------------

SAMPLE_ANSWERS: list[Any] = [
    {},
    {"p": 0.5, "c": "yes", "s": 1.0, "reply": "ok"},
    {"p": 1.5},
    {"p": "0.5"},
    {"p": 1},
    {"c": "maybe"},
    {"s": 2.5},
    {"s": -1.0},
    {"reply": None, "extra": 1},
    {"items": [{"p": 0.1}, {"p": 2}]},
    {"items": "not a list"},
    0.25,
    2.0,
    [0.1, 0.2],
    "yes",
]


def _verdict(model: type[BaseModel], answer: Any) -> Any:
    """Valid (with the values) or invalid (with where and why).

    Where Agently's model lets a raw exception escape (a ``TypeError`` converting a list item),
    promptwire's gives a ``ValidationError`` saying "cannot convert" (case C7 of docs/agently.md):
    both count as ``("raised",)``.
    """
    try:
        return ("valid", model.model_validate(answer).model_dump(mode="json"))
    except ValidationError as error:
        if any("cannot convert" in e["msg"] for e in error.errors()):
            return ("raised",)
        return ("invalid", [(e["loc"], e["type"]) for e in error.errors()])
    except Exception:
        return ("raised",)


def _output_model(prompt: Any) -> Any:
    results = []
    for strict in (None, True, False):
        model = prompt.to_output_model(strict_output=strict)
        results.append((model.__name__, model.model_json_schema(), [_verdict(model, a) for a in SAMPLE_ANSWERS]))
    return results


def _prompt_object(prompt: Any) -> Any:
    prompt_object = prompt.to_prompt_object()
    # repr: a judgment's annotation holds a fresh FieldInfo each time, and FieldInfo has no equality
    return repr((prompt_object.model_dump(), prompt_object.model_extra))


METHODS: dict[str, Callable[[Any], Any]] = {
    "to_text": lambda p: p.to_text(),
    "to_text(role_mapping)": lambda p: p.to_text(role_mapping={"user": "Human", "assistant": "AI"}),
    "to_messages": lambda p: p.to_messages(),
    "to_messages(rich)": lambda p: p.to_messages(rich_content=True, strict_role_orders=False),
    "to_messages(rich=None)": lambda p: p.to_messages(rich_content=None),
    "to_prompt_object": _prompt_object,
    "to_output_model": _output_model,
    "to_serializable_prompt_data": lambda p: p.to_serializable_prompt_data(),
    "to_serializable_prompt_data(inherit)": lambda p: p.to_serializable_prompt_data(inherit=True),
    "to_json_prompt": lambda p: p.to_json_prompt(inherit=True),
    "to_yaml_prompt": lambda p: p.to_yaml_prompt(inherit=True),
}


def _call(method: Callable[[Any], Any], prompt: Any) -> Any:
    """The method's result and warnings; where it raises, whether the error is a ``KeyError``.

    Where Agently crashes (a ``TypeError``, an ``AttributeError``...), promptwire raises an
    ``AgentlyFieldError`` naming the field (checked in :func:`assert_same_as_agently`); the empty
    prompt is a ``KeyError`` on both sides.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = method(prompt)
        except Exception as error:
            if is_active() and not isinstance(error, PromptwireError):
                raise
            result = ("raised", isinstance(error, KeyError))
    return result, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def _results(build: Callable[[], Any], methods: dict[str, Callable[[Any], Any]]) -> dict[str, Any]:
    prompt = build()
    return {name: _call(method, prompt) for name, method in methods.items()}


def assert_same_as_agently(build: Callable[[], Any], *, methods: dict[str, Callable[[Any], Any]] = METHODS) -> Any:
    """``build()`` makes an Agently prompt; every method answers the same with promptwire active."""
    assert not is_active()
    expected = _results(build, methods)
    promptwire_agently.activate()
    try:
        prompt = build()
        assert isinstance(prompt.prompt_generator, PromptwirePromptGenerator)
        actual = {name: _call(method, prompt) for name, method in methods.items()}
    finally:
        promptwire_agently.deactivate()
    for name in methods:
        assert actual[name] == expected[name], name
    return expected


def request_prompt(agent: Any) -> Any:
    """The prompt of the agent's next execution (a child of the agent's prompt)."""
    return agent.request.prompt


# --- switching ------------------------------------------------------------------------------------


def test_importing_promptwire_does_not_import_agently() -> None:
    code = "import sys, promptwire.renderers.agently as a; a.AgentlyPrompt({'input': 'x'}).to_text(); print('agently' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_activate_registers_the_generator_with_agently_and_deactivate_restores_agently_s() -> None:
    before = Agently.create_prompt()
    promptwire_agently.activate()
    promptwire_agently.activate()  # a second call changes nothing
    assert Agently.settings.get("plugins.PromptGenerator.activate") == "PromptwirePromptGenerator"
    assert "PromptwirePromptGenerator" in Agently.plugin_manager.get_plugin_list("PromptGenerator")
    during = Agently.create_prompt()
    agent_prompt = request_prompt(Agently.create_agent())
    promptwire_agently.deactivate()
    promptwire_agently.deactivate()  # and so does a second deactivate
    after = Agently.create_prompt()
    assert type(before.prompt_generator).__name__ == "AgentlyPromptGenerator"
    assert isinstance(during.prompt_generator, PromptwirePromptGenerator)
    assert isinstance(agent_prompt.prompt_generator, PromptwirePromptGenerator)
    assert type(after.prompt_generator).__name__ == "AgentlyPromptGenerator"
    assert Agently.settings.get("plugins.PromptGenerator.activate") == "AgentlyPromptGenerator"
    assert "PromptwirePromptGenerator" not in Agently.plugin_manager.get_plugin_list("PromptGenerator")


def test_activating_keeps_the_user_s_settings() -> None:
    """Agently's generator resets prompt.add_current_time when registered; promptwire's must not."""
    Agently.settings.set("prompt.add_current_time", True)
    promptwire_agently.activate()
    assert Agently.settings.get("prompt.add_current_time") is True


# --- sessions, inheritance, settings ------------------------------------------------------------------


def _session_agent() -> Any:
    agent = Agently.create_agent()
    agent.activate_session()
    agent.set_agent_prompt("system", "You remember things.")
    agent.set_chat_history(
        [
            {"role": "user", "content": "Remember my favorite city is Chengdu."},
            {"role": "assistant", "content": "OK"},
        ]
    )
    agent.add_chat_history({"role": "user", "content": [{"type": "text", "text": "And my dog is Rex."}]})
    agent.add_chat_history(ChatMessage(role="assistant", content="Noted."))
    agent.add_chat_history({"role": "tool", "content": "lookup: done"})
    return agent


def test_a_session_s_chat_messages_are_read_as_agently_reads_them() -> None:
    def build() -> Any:
        agent = _session_agent()
        assert all(isinstance(m, ChatMessage) for m in agent.agent_prompt.get("chat_history"))
        return request_prompt(agent.input("What is my favorite city?"))

    expected = assert_same_as_agently(build)
    messages, _ = expected["to_messages"]
    assert messages[1:4] == [
        {"role": "user", "content": "Remember my favorite city is Chengdu."},
        {"role": "assistant", "content": "OK"},
        {"role": "user", "content": "And my dog is Rex."},
    ]


def test_chat_message_models_with_parts_and_extras_and_a_lone_model() -> None:
    history = [
        ChatMessage(role="user", content=[TextMessageContent(type="text", text="look")], name="ada"),
        ChatMessage(
            role="user",
            content=[
                AttachmentMessageContent(type="image_url", image_url={"url": "https://example.com/a.png"}),
                {"type": "text", "text": "and this"},
            ],
        ),
        ChatMessage(role="assistant", content="seen"),
    ]

    def build() -> Any:
        prompt = Agently.create_prompt()
        prompt.set("chat_history", history)
        prompt.set("input", "next")
        return prompt

    assert_same_as_agently(build)

    def lone() -> Any:  # not in a list: Agently writes it as text
        prompt = Agently.create_prompt()
        prompt.set("chat_history", ChatMessage(role="assistant", content="alone"))
        prompt.set("input", "next")
        return prompt

    assert_same_as_agently(lone)


def test_an_execution_inherits_its_agent_s_prompt() -> None:
    def build() -> Any:
        agent = Agently.create_agent()
        agent.set_agent_prompt("system", "You are terse.")
        agent.set_agent_prompt("developer", {"style": "plain", "limits": ["no lists"]})
        agent.set_agent_prompt("info", {"user": "Ada", "city": "Chengdu"})
        agent.set_agent_prompt("instruct", ["answer", "cite ${INFO.city}"])
        agent.set_agent_prompt("examples", [{"q": "1+1", "a": 2}])
        agent.set_agent_prompt("output", {"reply": (str, "the reply")})
        return request_prompt(agent.input("Hi").info({"time": "noon"}).instruct("be kind"))

    expected = assert_same_as_agently(build)
    assert "Ada" in expected["to_text"][0] and "noon" in expected["to_text"][0]


def test_settings_changed_after_the_prompt_exists() -> None:
    def render_changing(prompt: Any) -> list[Any]:
        seen = [prompt.to_text(), prompt.to_messages()]
        Agently.settings.set("prompt.role_mapping", {"user": "human", "_": "other"})
        prompt.settings.set("prompt.prompt_title_mapping", {"input": "QUESTION", "output": "ANSWER"})
        prompt.settings.set("prompt.add_current_time", True)
        prompt.settings.set("prompt.default_output_format", "hybrid")
        seen += [prompt.to_text(), prompt.to_messages(rich_content=True)]
        Agently.settings.set("prompt.role_mapping", saved)  # the global change undone for the next run
        return seen

    def titles_not_a_mapping(prompt: Any) -> Any:  # Agently crashes: promptwire names the setting
        prompt.settings.set("prompt.prompt_title_mapping", "not a mapping")
        return prompt.to_messages()

    def build() -> Any:
        agent = Agently.create_agent()
        agent.set_agent_prompt("chat_history", [{"role": "critic", "content": "hm"}])
        return request_prompt(agent.input("Hi").output({"a": (str, "A"), "n": (int, "N")}))

    saved = Agently.settings.get("prompt.role_mapping")
    try:
        expected = assert_same_as_agently(
            build, methods={"changing": render_changing, "titles not a mapping": titles_not_a_mapping}
        )
    finally:
        Agently.settings.set("prompt.role_mapping", saved)
    texts, _ = expected["changing"]
    assert expected["titles not a mapping"][0] == ("raised", False)
    assert texts[0] != texts[2] and "QUESTION" in texts[2] and "[current time]" in texts[2]


def test_the_clock_is_agently_s() -> None:
    def build() -> Any:
        prompt = Agently.create_prompt()
        prompt.settings.set("prompt.add_current_time", True)
        prompt.set("input", {"q": "what time is it?"})
        prompt.set("attachment", [{"type": "image_url", "image_url": {"url": "https://example.com/x.png"}}])
        return prompt

    expected = assert_same_as_agently(build)
    assert "2024-01-01 00:00:00 Monday" in expected["to_text"][0]


def test_a_state_data_prompt_as_agently_s_jev_requester_passes_it() -> None:
    data = {"input": "Hi", "info": {"user": "Ada", "state": StateData({"mood": "good"})}, "output": Probability("P?")}
    settings = Agently.create_prompt().settings
    expected = {
        n: _call(m, agently.builtins.plugins.AgentlyPromptGenerator(StateData(data), settings))
        for n, m in METHODS.items()
    }
    actual = {n: _call(m, PromptwirePromptGenerator(StateData(data), settings)) for n, m in METHODS.items()}
    assert actual == expected
    assert "- state: {'mood': 'good'}" in expected["to_text"][0]


# --- judgments and output formats ---------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict(OutputTemplate):
    """A user's own judgment: Agently calls its to_schema()."""

    def to_schema(self) -> Any:
        return (Literal["pass", "fail"], f"{self.question} (pass or fail)", True, {"judgment": True})


JUDGMENTS: dict[str, Any] = {
    "p": Probability("Will it rain tomorrow?"),
    "c": Choice("Which answer?", options={"yes": "agree", "no": {"why": "disagree"}, "maybe": None}),
    "s": Score("How good is it?", options=["bad", "fair", "good", ["great", "best"]]),
    "v": Verdict("Does it pass?", after_output="reply"),
}

OUTPUTS: dict[str, Any] = {
    "judgments": {**JUDGMENTS, "reply": (str, "the reply")},
    "judgments-nested": {"items": [{"p": Probability("P?")}], "detail": {"s": Score("S?", options=["a", "b"])}},
    "probability": Probability("P?"),
    "choice": Choice("C?", options={"a": "A"}),
    "score": Score("S?", options=["low", "high"]),
    "custom": Verdict("V?"),
    "plain": {"reply": (str, "the ${INPUT} reply", True), "n": (int,), "tags": [(str, "a tag")]},
    "described": {
        "title": (str, "a title"),
        "sections": [{"head": (str, "heading"), "body": ("long_content", "long text", "not_null")}],
        "meta": {"lang": (str, "language", True)},
    },
    "long_content": ("long_content", "the essay"),
    "str": str,
    "int": int,
    "list": [(int, "a number")],
}

FORMATS = [None, "json", "markdown", "text", "hybrid", "xml_field", "yaml_literal", "flat_markdown", "auto", "other"]


@pytest.mark.parametrize("output_format", FORMATS)
@pytest.mark.parametrize("output", sorted(OUTPUTS))
def test_outputs_in_every_format(output: str, output_format: str | None) -> None:
    def build() -> Any:
        # A model request (what an agent's execution runs): an agent takes 0.4 s to create.
        prompt = Agently.create_request().input("Tell me.").output(OUTPUTS[output]).prompt
        if output_format is not None:
            prompt.set("output_format", output_format)
        return prompt

    assert_same_as_agently(build)


@pytest.mark.parametrize("ensure_all_keys", [True, False])
def test_judgments_with_ensure_all_keys_and_default_format_none(ensure_all_keys: bool) -> None:
    def build() -> Any:
        prompt = Agently.create_prompt()
        prompt.settings.set("prompt.default_output_format", None)
        prompt.set("input", "x")
        prompt.set("output", OUTPUTS["judgments"])
        prompt.set("ensure_all_keys", ensure_all_keys)
        return prompt

    assert_same_as_agently(build)


def test_a_judgment_s_output_model_has_agently_s_bounds() -> None:
    def build() -> Any:
        prompt = Agently.create_prompt()
        prompt.set("input", "x")
        prompt.set("output", {"p": Probability("P?")})
        return prompt

    expected = assert_same_as_agently(build)
    [(_, schema, _), *_] = expected["to_output_model"][0]
    assert schema["properties"]["p"]["minimum"] == 0 and schema["properties"]["p"]["maximum"] == 1
    assert schema["required"] == ["p"]


class Ticket(BaseModel):
    title: Annotated[str, Field(min_length=3, description="a title")]
    priority: Literal["low", "high"] = "low"
    score: float | None = Field(None, ge=0, le=10)


@pytest.mark.parametrize("output_format", [None, "json", "hybrid", "xml_field", "yaml_literal", "flat_markdown"])
def test_a_pydantic_output_model(output_format: str | None) -> None:
    def build() -> Any:
        prompt = request_prompt(Agently.create_agent().input("x").output(Ticket))
        if output_format:
            prompt.set("output_format", output_format)
        return prompt

    assert_same_as_agently(build)


# --- content parts --------------------------------------------------------------------------------


ATTACHMENTS: dict[str, list[Any]] = {
    "models": [
        TextMessageContent(type="text", text="read ${INPUT}"),
        AttachmentMessageContent(type="image_url", image_url={"url": "https://example.com/a.png"}),
        AttachmentMessageContent(type="text", text=None),
        AttachmentMessageContent(type="text", text="an attachment-typed text"),
    ],
    "dicts": [{"type": "text", "text": "hi"}, {"type": "input_audio", "input_audio": {"data": "AAA", "format": "wav"}}],
    "scalars": ["a line", 3, None],
}


@pytest.mark.parametrize("with_input", [True, False])
@pytest.mark.parametrize("attachment", sorted(ATTACHMENTS))
def test_content_parts_in_attachment(attachment: str, with_input: bool) -> None:
    def build() -> Any:
        prompt = Agently.create_prompt()
        prompt.set("attachment", ATTACHMENTS[attachment])
        if with_input:
            prompt.set("input", "describe")
            prompt.set("instruct", "be brief")
        return prompt

    assert_same_as_agently(build)


# --- the sections issue 35 lists as unexercised by Agently's tests -------------------------------------


def test_developer_examples_roles_titles_and_tools() -> None:
    def build() -> Any:
        agent = Agently.create_agent()
        agent.set_settings("prompt.role_mapping", {"system": "sys", "developer": "dev", "user": "me", "_": "them"})
        agent.set_settings("prompt.prompt_title_mapping", {"info": "FACTS", "examples": "SAMPLES", "input": "Q"})
        agent.set_agent_prompt("developer", "Follow the house style.")
        agent.set_agent_prompt("chat_history", [{"role": "critic", "content": "hm"}, {"role": "user", "content": "go"}])
        execution = agent.input("Hi").examples([{"in": "a", "out": "b"}]).info(["one", "two"])
        prompt = request_prompt(execution)
        prompt.set(
            "tools",
            [
                {
                    "name": "search",
                    "desc": "Search ${INFO}",
                    "kwargs": {"q": (str, "query")},
                    "returns": {"hits": [(str,)]},
                }
            ],
        )
        prompt.set("action_results", {"search": ["r1", "r2"]})
        prompt.set("notes", {"b": 2, "a": "yes"})
        return prompt

    assert_same_as_agently(build)


# --- what promptwire refuses where Agently crashes --------------------------------------------------


def test_agently_crashes_are_field_errors_with_promptwire_active() -> None:
    promptwire_agently.activate()
    prompt = Agently.create_prompt()
    prompt.set("info", 42)
    with pytest.raises(AgentlyFieldError, match=r"^info: a single info value must be text"):
        prompt.to_text()
    prompt = Agently.create_prompt()
    prompt.set("input", "x")
    prompt.set("output", {"p": Probability("P?"), "when": {1, 2}})
    with pytest.raises(AgentlyFieldError, match=r"^output\.when: a set cannot be written as JSON"):
        prompt.to_json_prompt()


# --- the requesters over HTTP ---------------------------------------------------------------------------

REQUESTERS = ["OpenAICompatible", "OpenAIResponsesCompatible", "AnthropicCompatible"]


def _conversation(base_url: str, requester: str) -> None:
    """Three turns of a session, the last with judgments and an attachment, as an Agently app runs them."""
    agent = Agently.create_agent()
    agent.set_settings("plugins.ModelRequester.activate", requester)
    agent.set_settings(
        requester, {"base_url": base_url, "model": "ok", "auth": "key", "request_retry": {"max_attempts": 1}}
    )
    agent.activate_session()
    agent.set_agent_prompt("system", "You remember things.")
    agent.set_agent_prompt("info", {"user": "Ada"})
    agent.input("Remember my favorite city is Chengdu.").get_text()
    agent.input("Which city?").instruct("answer in one word").get_text()
    agent.input("How sure are you?").attachment(
        [{"type": "image_url", "image_url": {"url": "https://example.com/city.png"}}]
    ).output(
        {"sure": Probability("How sure?"), "city": Choice("Which?", options={"chengdu": None, "other": None})}
    ).get_data()


ANSWER = '{"sure": 0.75, "city": "chengdu"}'
"""What the fake provider answers every turn: the judgments of the last turn need valid values."""


@pytest.mark.parametrize("requester", REQUESTERS)
def test_request_bodies_are_byte_identical(requester: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(provider_servers, "_text", lambda body: ANSWER)
    bodies: list[list[bytes]] = []
    for active in (False, True):
        if active:
            promptwire_agently.activate()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with fake_provider() as fake:
                _conversation(fake.base_url, requester)
        bodies.append(list(fake.raw_bodies))
        promptwire_agently.deactivate()
    agently_alone, with_promptwire = bodies
    assert len(agently_alone) >= 3
    assert with_promptwire == agently_alone
    assert b"Chengdu" in agently_alone[-1] and b"How sure?" in agently_alone[-1]


@dataclass(frozen=True)
class Broken(OutputTemplate):
    """A user's judgment whose to_schema() fails."""

    def to_schema(self) -> Any:
        raise RuntimeError("no schema yet")


@pytest.mark.parametrize("method", ["to_text", "to_messages", "to_prompt_object", "to_output_model", "to_json_prompt"])
def test_a_judgment_that_gives_no_schema_is_a_field_error(method: str) -> None:
    promptwire_agently.activate()
    prompt = Agently.create_prompt()
    prompt.set("input", "x")
    prompt.set("output", {"ok": Broken("Is it ok?")})
    top = Agently.create_prompt()
    top.set("input", "x")
    top.set("output", Broken("Is it ok?"))
    for broken in (prompt, top):
        with pytest.raises(AgentlyFieldError) as caught:
            getattr(broken, method)()
        assert str(caught.value) == (
            "output: the judgment Broken (question 'Is it ok?') gives no schema: "
            "its to_schema() raised RuntimeError: no schema yet"
        )


# --- generated prompts: the plugin's own reading of Agently's prompt and settings -----------------------


@settings(max_examples=examples(0.5), suppress_health_check=list(HealthCheck))
@given(data=conformance.prompts(), prompt_settings=conformance.SETTINGS)
def test_generated_prompts_render_the_same_through_the_plugin(data: dict[str, Any], prompt_settings: Any) -> None:
    """The conformance suite's prompts, stored in Agently's ``Prompt`` with the settings set on it:
    promptwire's generator over that prompt answers as Agently's generator over the same prompt."""
    prompt = conformance.agently_prompt(data, prompt_settings)
    ours = PromptwirePromptGenerator(prompt, prompt.settings)
    for label, call in conformance.CALLS:
        expected = conformance.outcome(lambda call=call: call(prompt))
        actual = conformance.outcome(lambda call=call: call(ours))
        if expected[0] == "ok":
            assert actual[0] == "ok", f"{label}: Agently rendered, promptwire raised {actual[1]!r}"
            assert conformance.same(expected[1], actual[1]), f"{label}: output differs"
            assert expected[2] == actual[2], f"{label}: warnings differ"
        else:
            assert actual[0] == "error", f"{label}: Agently raised {expected[1]!r}, promptwire returned {actual[1]!r}"
            assert isinstance(actual[1], PromptwireError), f"{label}: Agently raised {expected[1]!r}, we {actual[1]!r}"


def test_a_dotted_key_given_to_prompt_s_constructor_is_read_as_a_path() -> None:
    """Only ``Prompt(prompt_dict=...)`` stores a dotted key as it is; ``dict(prompt)`` reads it as a path."""
    from agently.core import Prompt as AgentlyCorePrompt

    def build() -> Any:
        return AgentlyCorePrompt(
            Agently.plugin_manager,
            Agently.settings,
            prompt_dict={"input": "x", "info": {"user": "Ada"}, "info.user": "ignored", "notes.a": 1},
        )

    expected = assert_same_as_agently(build)
    assert "[info.user]:\nAda" in expected["to_text"][0] and "[notes.a]:\nNone" in expected["to_text"][0]


# --- Agently's objects given to AgentlyPrompt and to the reader directly --------------------------------


def _session_data() -> dict[str, Any]:
    agent = _session_agent()
    return {
        "chat_history": agent.agent_prompt.get("chat_history"),
        "attachment": ATTACHMENTS["models"],
        "input": "Where?",
        "output": {**JUDGMENTS, "state": (str, "from ${INFO}")},
        "info": {"memory": StateData({"city": "Chengdu"})},
    }


def test_agently_prompt_reads_agently_s_objects_given_to_it() -> None:
    """Issue 35's report: ``AgentlyPrompt`` wrote a session's ChatMessage models as their repr."""
    from promptwire.renderers.agently import AgentlyPrompt

    data = _session_data()
    prompt = Agently.create_prompt()
    for key, value in data.items():
        prompt.set(key, value)
    ours = AgentlyPrompt(data, clock=lambda: "2024-01-01 00:00:00 Monday")
    for name, method in METHODS.items():
        if name.endswith("(inherit)") or name in ("to_json_prompt", "to_yaml_prompt"):
            continue  # inherit= is Agently's; AgentlyPrompt has no parent
        assert _call(method, ours) == _call(method, prompt), name
    with pytest.warns(UserWarning, match="Skipped content"):  # the image part, as Agently warns
        first = ours.to_messages()[0]
    assert first == {"role": "user", "content": "Remember my favorite city is Chengdu."}


def test_the_reader_reads_agently_s_objects() -> None:
    """``read_agently`` (``asrender render --from agently``): a session's models are its history, a
    judgment an output contract with Agently's bounds, and the render is Agently's bytes."""
    from promptwire import render
    from promptwire.core.prompt import ImagePart, TextPart
    from promptwire.renderers.agently import AgentlyPrompt
    from promptwire.renderers.agently.reader import read_agently

    # info as text: through a core Prompt an info value is JSON, not Python's str() (docs/agently.md)
    data = {**_session_data(), "attachment": ATTACHMENTS["models"][:2], "info": {"memory": "Chengdu"}}
    read = read_agently(data)
    assert [(turn.role, turn.content) for turn in read.history[:2]] == [
        ("user", "Remember my favorite city is Chengdu."),
        ("assistant", "OK"),
    ]
    assert isinstance(read.attachments[0], TextPart) and isinstance(read.attachments[1], ImagePart)
    assert read.output is not None
    probability = read.output.json_schema["properties"]["p"]
    assert (probability["type"], probability["minimum"], probability["maximum"]) == ("number", 0, 1)
    assert read.output.json_schema["properties"]["c"]["enum"] == ["yes", "no", "maybe"]
    expected = AgentlyPrompt(data).to_text()
    assert render(read, "agently").text == expected


def test_the_reader_refuses_a_text_part_model_without_text_naming_it() -> None:
    """A core Prompt's text part has text: Agently's attachment-typed text part without one is refused."""
    from promptwire.core.errors import FieldError
    from promptwire.renderers.agently.reader import read_agently

    with pytest.raises(FieldError, match=r"^attachment\[2\]: a text part needs a string 'text'"):
        read_agently({"input": "x", "attachment": ATTACHMENTS["models"]})
