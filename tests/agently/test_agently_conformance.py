"""Differential conformance: promptwire's AgentlyPrompt against the real agently 4.1.4.10.

Hypothesis builds prompts from every kind of value Agently accepts (unicode and slot-reference
strings, nested dicts and lists, ``(type, desc[, ensure])`` tuples, classes, typing generics, Enums,
pydantic models, dates, sets, custom objects) plus settings and call options, and every method's
result is compared with Agently's byte for byte (warnings included). Where Agently raises, promptwire
must raise its documented error instead (AgentlyFieldError, or AgentlyEmptyPromptError for
Agently's KeyError).

Skipped unless agently==4.1.4.10 is importable. ``PROMPTWIRE_CONFORMANCE_EXAMPLES`` sets the
example count (by default one and a half times the Hypothesis profile's: 150 in ``ci``, about 15 s).
"""

from __future__ import annotations

import datetime
import decimal
import os
import re
import warnings
from collections import OrderedDict
from collections.abc import Callable
from enum import Enum, IntEnum
from typing import Annotated, Any, Literal, NamedTuple, Optional

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, RootModel

from promptwire.renderers.agently import AgentlyEmptyPromptError, AgentlyFieldError, AgentlyPrompt

from hypothesis_profile import examples

agently = pytest.importorskip("agently")
if getattr(agently, "__version__", None) not in (None, "4.1.4.10"):  # pragma: no cover - depends on env
    pytest.skip("conformance targets agently 4.1.4.10", allow_module_level=True)

from importlib.metadata import version  # noqa: E402

if version("agently") != "4.1.4.10":  # pragma: no cover - depends on env
    pytest.skip(f"conformance targets agently 4.1.4.10, found {version('agently')}", allow_module_level=True)

from agently import Agently  # noqa: E402
from agently.core import Prompt as AgentlyCorePrompt  # noqa: E402
from agently.utils import TimeInfo  # noqa: E402

pytestmark = pytest.mark.conformance

EXAMPLES = int(os.environ.get("PROMPTWIRE_CONFORMANCE_EXAMPLES", examples(1.5)))
CLOCK = "2024-01-01 00:00:00 Monday"


@pytest.fixture(scope="module", autouse=True)
def _agently_setup() -> Any:
    Agently.set_settings("plugins.PromptGenerator.activate", "AgentlyPromptGenerator")
    original = TimeInfo.__dict__["get_current_time"]
    TimeInfo.get_current_time = staticmethod(lambda: CLOCK)
    yield
    TimeInfo.get_current_time = original


def agently_prompt(data: dict[str, Any], prompt_settings: dict[str, Any] | None) -> Any:
    prompt = AgentlyCorePrompt(Agently.plugin_manager, Agently.settings)
    for key, value in data.items():
        prompt[key] = value
    for key, value in (prompt_settings or {}).items():
        prompt.settings.set(key, value)
    return prompt


# --- values of every kind -----------------------------------------------------------------------


class Color(Enum):
    RED = "red"
    BLUE = "blue"


class Level(IntEnum):
    LOW = 1
    HIGH = 2


class Mixed(str, Enum):  # noqa: UP042 - the str-mixin kind is what is tested
    A = "a"


class Item(BaseModel):
    name: str = Field(min_length=2, max_length=5, pattern=r"^[a-z]+$", description="item name")


class Ticket(BaseModel):
    title: str = Field(min_length=3, max_length=8, description="result title")
    priority: int = Field(ge=1, le=3, description="ticket priority")
    items: list[Item] = Field(min_length=1, max_length=2, description="action items")
    note: str | None = None
    identifier: str = Field(alias="ticket_id", min_length=1)
    status: Literal["open", "closed"] = "open"
    confidence: float = Field(default=0.5, gt=0, lt=1, multiple_of=0.1)


class Tags(RootModel[list[str]]):
    pass


class Plain:
    def __str__(self) -> str:
        return "plain-object"


class Point(NamedTuple):
    x: int
    y: str


TYPES: list[Any] = [
    str,
    int,
    float,
    bool,
    list,
    dict,
    type(None),
    Any,
    Optional[int],  # noqa: UP045 - the typing spelling is what is being tested
    int | None,
    Literal["a", 1],
    list[int],
    dict[str, int],
    tuple[int, ...],
    set[str],
    Annotated[str, Field(min_length=1)],
    Color,
    Level,
    Item,
]

WORDS = st.sampled_from(
    [
        "",
        " ",
        "Hello",
        "yes",
        "null",
        "123",
        "1.5",
        "a: b",
        "#tag",
        "- dash",
        " lead",
        "trail ",
        "multi\nline",
        "tab\tbed",
        "你好",
        "emoji 😀",
        "${INPUT.customer}",
        "see ${ Output_Requirement .a.b } and ${unknown} and ${instructions}",
        "${attachment}",
        "quote 'single' \"double\"",
        "word " * 20,
        "x" * 90,
        "str",
        "int",
        "number",
        "boolean",
        "long_content",
    ]
)
TEXT = st.one_of(WORDS, st.text(max_size=12))
KEYS = st.one_of(
    st.sampled_from(["a", "b", "reply", 'we"ird', "5", "Key With Space", "ключ"]),
    st.text("abcxyz_", min_size=1, max_size=6),
)
SCALARS = st.one_of(
    TEXT,
    st.integers(-5, 10**12),
    st.floats(allow_nan=False, width=32),
    st.booleans(),
    st.none(),
    st.sampled_from(
        [
            datetime.date(2024, 5, 6),
            datetime.datetime(2024, 1, 2, 3, 4, 5),
            datetime.time(1, 2),
            decimal.Decimal("1.50"),
            b"bytes",
            Color.RED,
            Level.HIGH,
            Mixed.A,
            Plain(),
            Item(name="ab"),
            Point(1, "p"),
            OrderedDict([("z", 1), ("a", 2)]),
            frozenset({1}),
            float("inf"),
            -0.0,
        ]
    ),
)
TYPE_VALUES = st.sampled_from(TYPES)


def _tuples(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple[Any, ...]]:
    head = st.one_of(TYPE_VALUES, TEXT, inner)
    desc = st.one_of(TEXT, st.none())
    ensure = st.sampled_from([True, False, 1, 0, "not_null", None, "maybe"])
    return st.one_of(
        st.tuples(head),
        st.tuples(head, desc),
        st.tuples(head, desc, ensure),
        st.just(()),
        st.just(("long_content", "write long")),
    )


VALUES = st.recursive(
    st.one_of(SCALARS, TYPE_VALUES),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(KEYS, inner, max_size=3),
        _tuples(inner),
        st.frozensets(st.integers(0, 3), max_size=2).map(set),
    ),
    max_leaves=8,
)

OUTPUT_SPEC = st.recursive(
    st.one_of(TYPE_VALUES, TEXT, _tuples(st.one_of(TYPE_VALUES, TEXT))),
    lambda inner: st.one_of(
        st.dictionaries(KEYS, inner, min_size=1, max_size=4),
        st.lists(inner, min_size=1, max_size=1),
        _tuples(inner),
    ),
    max_leaves=8,
)
OUTPUTS = st.one_of(
    st.dictionaries(KEYS, OUTPUT_SPEC, max_size=4),
    st.lists(OUTPUT_SPEC, max_size=1),
    OUTPUT_SPEC,
    st.sampled_from(
        [
            Ticket,
            Item,
            Tags,
            str,
            int,
            ("long_content", "essay"),
            Annotated[str, Field(json_schema_extra={"long_content": True})],
            {"body": (Annotated[str, Field(json_schema_extra={"long_content": True})], "long body", "not_null")},
            {"items": (list[Item], "items"), "maybe": (Optional[Ticket], "")},  # noqa: UP045
        ]
    ),
)

PART = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": TEXT}),
    st.fixed_dictionaries(
        {"type": st.just("image_url"), "image_url": st.sampled_from(["http://x/y.png", {"url": "u"}])}
    ),
    st.sampled_from(
        [
            {"type": "text"},
            {"type": "text", "text": 123},
            {"type": "input_audio"},
            {"type": "json"},
            {"text": "t", "type": "text"},
            {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}},
            {"type": "image_url", "image_url": {"url": "u"}, "detail": "low"},
            {"type": 5},
            "bare string part",
        ]
    ),
)
MESSAGE = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant", "system", "tool", "custom"]),
        "content": st.one_of(TEXT, st.lists(PART, max_size=3)),
    },
    optional={"name": st.just("n")},
)
HISTORY = st.one_of(st.lists(MESSAGE, max_size=4), MESSAGE, TEXT)
ATTACHMENT = st.one_of(st.lists(st.one_of(PART, TEXT, st.integers()), max_size=3), PART, TEXT)
TOOL = st.fixed_dictionaries(
    {"name": TEXT, "desc": TEXT, "kwargs": st.dictionaries(KEYS, OUTPUT_SPEC, max_size=3)},
    optional={"returns": OUTPUT_SPEC, "extra": TEXT},
).flatmap(lambda tool: st.permutations(list(tool.items())).map(dict))  # in ToolMeta's key order or not
FORMATS = st.sampled_from(
    [
        None,
        "json",
        "markdown",
        "text",
        "flat_markdown",
        "hybrid",
        "xml_field",
        "yaml_literal",
        "auto",
        "yaml",
        5,
        "AUTO",
    ]
)

FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "system": VALUES,
    "developer": VALUES,
    "chat_history": HISTORY,
    "info": st.one_of(
        st.dictionaries(KEYS, VALUES, max_size=3),
        # all text, written in one join unless a slot reference (a key's too) asks for each entry
        st.dictionaries(KEYS | st.integers(0, 9) | st.just("${input}"), TEXT, max_size=3),
        st.lists(VALUES, max_size=3),
        TEXT,
    ),
    "tools": st.lists(TOOL, max_size=2),
    "action_results": VALUES,
    "instruct": VALUES,
    "examples": VALUES,
    "input": VALUES,
    "attachment": ATTACHMENT,
    "output": OUTPUTS,
    "ensure_all_keys": st.sampled_from([True, False, "yes", 0]),
    "options": st.just({"temperature": 0.1}),
    "custom_block": VALUES,
    "user.name": TEXT,
}


@st.composite
def prompts(draw: st.DrawFn) -> dict[str, Any]:
    chosen = draw(st.lists(st.sampled_from(sorted(FIELDS)), unique=True, min_size=1, max_size=7))
    data = {name: draw(FIELDS[name]) for name in chosen}
    if "output" in data:
        output_format = draw(FORMATS)
        if output_format is not None:
            data["output_format"] = output_format
    return data


SETTINGS = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "prompt.role_mapping": st.sampled_from([{"user": "human"}, {"assistant": "ai", "_": "other"}, {}]),
            "prompt.prompt_title_mapping": st.sampled_from([{"input": "IN", "output": "OUT"}, {"info": "Facts"}]),
            "prompt.add_current_time": st.booleans(),
            "prompt.default_output_format": st.sampled_from(["json", "auto", None, "markdown"]),
        },
    ),
)


# --- comparing outcomes ------------------------------------------------------------------------


def outcome(call: Callable[[], Any]) -> tuple[str, Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: tuple[str, Any] = ("ok", call())
        except Exception as error:
            result = ("error", error)
    return result[0], result[1], [str(warning.message) for warning in caught]


_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def same(expected: Any, actual: Any) -> bool:
    """Equal, or (for typing objects that are equal in meaning but not in identity) equal reprs."""
    if type(expected) is not type(actual):
        return False
    if expected == actual:
        return True
    return _ADDRESS.sub("", repr(expected)) == _ADDRESS.sub("", repr(actual))


def assert_conforms(
    call: Callable[[Any], Any], data: dict[str, Any], prompt_settings: Any, label: str
) -> tuple[str, Any, list[str]]:
    expected = outcome(lambda: call(agently_prompt(data, prompt_settings)))
    actual = outcome(lambda: call(AgentlyPrompt(data, prompt_settings, clock=lambda: CLOCK)))
    if expected[0] == "ok":
        assert actual[0] == "ok", f"{label}: Agently rendered, promptwire raised {actual[1]!r}"
        assert same(expected[1], actual[1]), f"{label}: output differs"
        assert expected[2] == actual[2], f"{label}: warnings differ"
        return expected
    error = expected[1]
    assert actual[0] == "error", f"{label}: Agently raised {error!r}, promptwire returned {actual[1]!r}"
    if isinstance(error, KeyError) and "Prompt requires" in str(error):
        assert isinstance(actual[1], AgentlyEmptyPromptError)
        assert actual[1].args == error.args
    else:
        assert isinstance(actual[1], AgentlyFieldError), f"{label}: Agently raised {error!r}, we {actual[1]!r}"
    return expected


def check_all(data: dict[str, Any], prompt_settings: Any, calls: list[tuple[str, Callable[[Any], Any]]]) -> None:
    for label, call in calls:
        result = assert_conforms(call, data, prompt_settings, label)
        if label in ("to_text", "to_output_model schema"):
            event(f"{label}: {'rendered' if result[0] == 'ok' else type(result[1]).__name__}")


def _schema(model: Any) -> Any:
    return model.model_json_schema()


PROBES: list[Any] = [{}, {"a": "1"}, {"a": None, "b": [1]}, {"reply": "x", "list": ["2"]}, ["456"], [{"a": 1}]]


def _validations(model: Any) -> list[Any]:
    results = []
    for probe in PROBES:
        try:
            results.append(repr(model.model_validate(probe).model_dump()))
        except Exception as error:
            # C7: where Agently lets a raw TypeError escape validation (None cast to int),
            # promptwire's model reports a ValidationError for the field instead.
            name = type(error).__name__
            results.append("ValidationError" if name == "TypeError" else name)
    return results


CALLS: list[tuple[str, Callable[[Any], Any]]] = [
    ("to_text", lambda p: p.to_text()),
    ("to_text(role_mapping)", lambda p: p.to_text(role_mapping={"user": "human", "tool": "robot"})),
    ("to_messages", lambda p: p.to_messages()),
    ("to_messages(rich)", lambda p: p.to_messages(rich_content=True)),
    ("to_messages(rich=None)", lambda p: p.to_messages(rich_content=None)),
    ("to_messages(not strict)", lambda p: p.to_messages(strict_role_orders=False)),
    (
        "to_messages(rich, not strict, roles)",
        lambda p: p.to_messages(role_mapping={"user": "human"}, rich_content=True, strict_role_orders=False),
    ),
    ("to_prompt_object", lambda p: p.to_prompt_object().model_dump()),
    ("to_serializable_prompt_data", lambda p: p.to_serializable_prompt_data()),
    ("to_json_prompt", lambda p: p.to_json_prompt()),
    ("to_yaml_prompt", lambda p: p.to_yaml_prompt()),
    ("to_output_model schema", lambda p: _schema(p.to_output_model())),
    ("to_output_model validation", lambda p: _validations(p.to_output_model())),
    ("to_output_model(strict) validation", lambda p: _validations(p.to_output_model(strict_output=True))),
]


@settings(max_examples=EXAMPLES, suppress_health_check=list(HealthCheck))
@given(data=prompts(), prompt_settings=SETTINGS)
def test_every_method_matches_agently(data: dict[str, Any], prompt_settings: Any) -> None:
    check_all(data, prompt_settings, CALLS)


@settings(max_examples=EXAMPLES, suppress_health_check=list(HealthCheck))
@given(
    output=OUTPUTS,
    output_format=FORMATS,
    extra=st.fixed_dictionaries({}, optional={"ensure_all_keys": st.booleans(), "input": TEXT}),
    prompt_settings=SETTINGS,
)
def test_output_declarations_match_agently(
    output: Any, output_format: Any, extra: dict[str, Any], prompt_settings: Any
) -> None:
    data = {"output": output, **extra}
    if output_format is not None:
        data["output_format"] = output_format
    check_all(data, prompt_settings, CALLS)


@settings(max_examples=max(EXAMPLES // 3, 20), suppress_health_check=list(HealthCheck))
@given(
    value=VALUES,
    titles=st.sampled_from([{"input": "IN"}, "not a dict", None, 0]),
    field=st.sampled_from(["input", "info", "instruct", "system", "chat_history"]),
)
def test_odd_title_settings_match_agently(value: Any, titles: Any, field: str) -> None:
    data = {field: value, "input": "hello ${input}"} if field != "input" else {field: value}
    check_all(data, {"prompt.prompt_title_mapping": titles}, CALLS[:7])


def test_the_comparison_detects_a_difference() -> None:
    """The harness itself must fail on a real difference (guards against a test that cannot fail)."""
    with pytest.raises(AssertionError):
        assert_conforms(
            lambda p: p.to_text() if isinstance(p, AgentlyPrompt) else p.to_text() + "x",
            {"input": "hi"},
            None,
            "to_text",
        )


def test_snapshot_corpus_matches_agently() -> None:
    """Every stored snapshot's bytes, rendered by the real Agently (how the snapshots were checked)."""
    from test_agently_snapshots import CASE_CALLS, CORPUS, promptwire_prompt, render_case

    for param in CASE_CALLS:
        name, call = param.values
        expected = render_case(agently_prompt, CORPUS[name], call)
        assert render_case(promptwire_prompt, CORPUS[name], call) == expected, f"{name}-{call}"
