"""Properties of the Agently renderer that need no Agently installed.

* the fast YAML emitter writes exactly what ``yaml.safe_dump(value, allow_unicode=True)`` writes;
* rendering is pure: the caller's data is never changed and the same input gives the same bytes;
* a big tool list joined a thousand tools at a time reads as one joined at once;
* one AgentlyPrompt can be rendered from many threads at once;
* the clock is injectable and the default one has Agently's format.
"""

from __future__ import annotations

import copy
import datetime
import decimal
import re
from concurrent.futures import ThreadPoolExecutor
from enum import Enum
from typing import Any, Optional

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptwire.renderers.agently import AgentlyPrompt, AgentlyWarning
from promptwire.renderers.agently._agently import layout, yaml_blocks
from promptwire.renderers.agently._agently.prompt import agently_clock
from promptwire.renderers.agently._agently.sanitize import sanitize
from promptwire.renderers.agently._agently.slots import replace_slots

from hypothesis_profile import examples

# --- the YAML emitter --------------------------------------------------------------------------

# Strings of every kind PyYAML treats apart: indicators, quotes, line breaks of four kinds, spaces
# next to breaks, characters it escapes (control characters, U+FEFF, lone surrogates, U+10FFFF,
# astral ones in double quotes), words that resolve to other types, and long texts it folds at
# width 80 in each of its three styles.
TRICKY = " :#-?,[]{}&*!|>%@`'\"\n\t\r\x00\x07\x1b\x85\xa0\u2028\u2029\ufeff\ud800\U0010ffff\\é中😀yn10.e+~="
WORDS = st.sampled_from(["a", "bb", "word", "it's", "x" * 30, "é中", "😀", "tab\there", "-", "a:", "#x", "'"])
YAML_TEXT = st.one_of(
    st.text(max_size=20),
    st.text(alphabet=TRICKY, max_size=12),
    st.sampled_from(
        [
            "",
            "yes",
            "No",
            "null",
            "~",
            "1.5",
            "1e3",
            "0x1f",
            "2024-01-01",
            "=",
            "<<",
            "- a",
            "a: b",
            "a #b",
            "---x",
            "...",
            "é中",
            "a\u2028b",
            "\ufeffbom",
            "trailing:",
            "?x",
            "-x",
            ":x",
            "😀",
            "\ud83d",
        ]
    ),
    st.text(alphabet="abc de", min_size=60, max_size=120),
    # long texts: words and runs of spaces, with quotes, breaks and escaped characters among them
    st.lists(st.one_of(WORDS, st.sampled_from([" ", " ", " ", "  ", "\n", "\n\n", "\t", "\x01"])), max_size=60).map(
        "".join
    ),
    st.lists(WORDS, min_size=10, max_size=40).map(" ".join),
)
YAML_SCALARS = st.one_of(YAML_TEXT, st.integers(), st.floats(), st.booleans(), st.none())
YAML_VALUES = st.recursive(
    YAML_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(YAML_TEXT, inner, max_size=4),
    ),
    max_leaves=15,
)


def _nested(value: Any, path: list[bool]) -> Any:
    """``value`` under one mapping (True) or list (False) per step: deep enough, every line folds."""
    for in_mapping in reversed(path):
        value = {"k": value} if in_mapping else [value]
    return value


YAML_DOCUMENTS = st.one_of(
    st.dictionaries(YAML_TEXT, YAML_VALUES, max_size=5),
    st.lists(YAML_VALUES, max_size=5),
    st.builds(
        _nested,
        st.one_of(YAML_VALUES, st.lists(YAML_TEXT, min_size=1)),
        st.lists(st.booleans(), min_size=1, max_size=50),
    ),
)


def _complex_key(value: Any) -> bool:
    """Whether ``value`` has a key PyYAML writes as a ``?`` complex key (the fast emitter leaves those
    to it): empty, multi-line, or as long as 128 characters with its tag ``!!str``."""
    if isinstance(value, dict):
        return any(
            not key or len(key) > 122 or any(br in key for br in "\n\x85\u2028\u2029") or _complex_key(item)
            for key, item in value.items()
        )
    if isinstance(value, list | tuple):
        return any(_complex_key(item) for item in value)
    return False


@settings(max_examples=examples(6), suppress_health_check=list(HealthCheck))
@given(YAML_DOCUMENTS)
def test_fast_yaml_emitter_matches_pyyaml(value: Any) -> None:
    expected = yaml.safe_dump(value, allow_unicode=True)
    assert yaml_blocks.dump_yaml(value) == expected
    if value:
        # The fast emitter writes it all itself: PyYAML is left only the complex keys.
        try:
            fast = yaml_blocks._emit(value, None)
        except yaml_blocks._Fallback:
            assert _complex_key(value)
        else:
            assert fast == expected


class Size(Enum):
    LARGE = "large"


class Shown:
    """An object Agently prints with ``str()``."""

    def __str__(self) -> str:
        return "shown: ${INPUT.x} #1"


RAW_LEAVES = st.one_of(
    YAML_SCALARS,
    st.sampled_from(
        [
            "${INPUT.x}",
            "see ${ info .a} and ${unknown}: ok",
            "${instruct}" + " word" * 20,
            datetime.date(2024, 1, 2),
            datetime.datetime(2024, 1, 2, 3, 4, 5),
            decimal.Decimal("1.50"),
            int,
            Shown,
            Shown(),
            Size,
            Size.LARGE,
            Optional[int],  # noqa: UP045 - the typing spelling is what is printed
            list[str],
        ]
    ),
)
RAW_VALUES = st.recursive(
    RAW_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(YAML_TEXT, inner, max_size=4),
    ),
    max_leaves=12,
)


@settings(max_examples=examples(3), suppress_health_check=list(HealthCheck))
@given(st.one_of(st.dictionaries(YAML_TEXT, RAW_VALUES, min_size=1, max_size=4), st.lists(RAW_VALUES, min_size=1)))
def test_fast_yaml_emitter_writes_raw_values_as_the_rebuilding_walks_would(value: Any) -> None:
    """A section's value as given: slot references, dates, classes and objects are printed by the
    emitter itself, as Agently's ``sanitize(replace_slots(value))`` and PyYAML print them."""
    titles = {"input": "QUESTION"}
    expected = yaml.safe_dump(sanitize(replace_slots(value, titles)), allow_unicode=True)
    assert yaml_blocks.section_body(value, titles) == expected
    if not _complex_key(value):
        assert yaml_blocks._emit(value, None, titles) == expected


@pytest.mark.parametrize(
    "text",
    [
        "4",
        "yes: a dozen",
        "it's",
        "multi\nline\n",
        "a\n\n b",
        "tab\there",
        "bell\x07 and \ufeff",
        "\U0010ffff 😀",
        "word " * 30,
        "it's a " * 20 + "\nand more " * 5,
        "tab\t" + "word " * 30,
        "x" * 90 + " " + "y" * 90,
    ],
)
def test_fast_yaml_emitter_quotes_and_folds_as_pyyaml(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(value: Any) -> str:
        raise AssertionError("fell back to PyYAML")

    monkeypatch.setattr(yaml_blocks, "pyyaml_dump", refuse)
    key = text.replace("\n", " ")[:100]  # a key with a line break is a complex key: PyYAML's
    for value in ({"key": text}, {key: [text, {"deeper": text}]}, [[[[text]]]]):
        assert yaml_blocks.dump_yaml(value) == yaml.safe_dump(value, allow_unicode=True)


def test_fast_yaml_emitter_handles_the_common_shape_without_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(value: Any) -> str:
        raise AssertionError("fell back to PyYAML")

    monkeypatch.setattr(yaml_blocks, "pyyaml_dump", refuse)
    value = {"b": [1, 2.5, None, True, {"x": "y"}, [["deep"]]], "a": {"k": "plain text", "e": {}, "l": []}, "c": ()}
    expected = "a:\n  e: {}\n  k: plain text\n  l: []\nb:\n- 1\n- 2.5\n- null\n- true\n- x: y\n- - - deep\nc: []\n"
    assert yaml_blocks.dump_yaml(value) == expected == yaml.safe_dump(value, allow_unicode=True)


# --- purity and determinism --------------------------------------------------------------------

SPEC = st.recursive(
    st.sampled_from([str, int, bool, (str, "desc"), (int, "n", True), (str, "", "not_null")]),
    lambda inner: st.one_of(
        st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, min_size=1, max_size=3),
        st.lists(inner, min_size=1, max_size=1),
    ),
    max_leaves=6,
)
PLAIN = st.recursive(
    st.one_of(st.text(max_size=12), st.integers(), st.booleans(), st.none(), st.just("${input.x}")),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text("abc", max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
PROMPTS = st.fixed_dictionaries(
    {"input": PLAIN},
    optional={
        "system": PLAIN,
        "info": st.dictionaries(st.text("xyz", min_size=1, max_size=3), PLAIN, max_size=2),
        "instruct": PLAIN,
        "chat_history": st.lists(
            st.fixed_dictionaries(
                {
                    "role": st.sampled_from(["user", "assistant", "tool"]),
                    "content": st.one_of(
                        st.text(max_size=8),
                        st.just([{"type": "text", "text": "t"}, {"type": "image_url", "image_url": "u"}]),
                    ),
                }
            ),
            max_size=3,
        ),
        "attachment": st.just([{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "u"}}]),
        "output": SPEC,
        "output_format": st.sampled_from(["json", "hybrid", "xml_field", "yaml_literal", "flat_markdown", "auto"]),
        "custom": PLAIN,
    },
)


TOOLS = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.text(max_size=6) | st.just("${input.x}"),
            "desc": st.text(max_size=6),
            "kwargs": st.dictionaries(st.sampled_from(["a", "b"]), SPEC, max_size=2),
        },
        optional={"returns": SPEC},
    ),
    max_size=7,
)


@settings(max_examples=examples(1), suppress_health_check=list(HealthCheck))
@given(tools=TOOLS, at_once=st.integers(1, 3))
def test_tools_joined_a_few_at_a_time_read_as_all_joined_at_once(tools: list[Any], at_once: int) -> None:
    """The tools section is joined a thousand tools at a time (a big list is not held a string per
    tool): any number at a time gives the bytes of one join."""
    data = {"tools": tools, "input": "x"}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(layout, "_TOOLS_AT_ONCE", len(tools) + 1)
        whole = AgentlyPrompt(data).to_text()
        patch.setattr(layout, "_TOOLS_AT_ONCE", at_once)
        assert AgentlyPrompt(data).to_text() == whole


def render_all(prompt: AgentlyPrompt) -> list[Any]:
    results: list[Any] = []
    for call in (
        prompt.to_text,
        prompt.to_messages,
        lambda: prompt.to_messages(rich_content=True),
        lambda: prompt.to_messages(rich_content=None, strict_role_orders=False),
        prompt.to_serializable_prompt_data,
        prompt.to_yaml_prompt,
        prompt.to_json_prompt,
    ):
        try:
            results.append(call())
        except Exception as error:
            results.append(repr(error))
    return results


@settings(max_examples=examples(1.5), suppress_health_check=list(HealthCheck))
@given(PROMPTS)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_rendering_does_not_touch_the_data_and_is_deterministic(data: dict[str, Any]) -> None:
    before = copy.deepcopy(data)
    prompt = AgentlyPrompt(data, {"prompt.add_current_time": True}, clock=lambda: "T")
    first = render_all(prompt)
    assert data == before
    assert render_all(prompt) == first  # the second time from what the first call kept
    assert render_all(AgentlyPrompt(copy.deepcopy(data), {"prompt.add_current_time": True}, clock=lambda: "T")) == first


def test_returned_messages_are_fresh_objects() -> None:
    prompt = AgentlyPrompt({"attachment": [{"type": "image_url", "image_url": {"url": "u"}}, "hi"]})
    first = prompt.to_messages(rich_content=True)
    first[0]["content"][0]["image_url"]["url"] = "changed"
    first[0]["content"].append("junk")
    assert prompt.to_messages(rich_content=True) == [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}, {"type": "text", "text": "hi"}]}
    ]


class Ticker:
    """An object whose text changes each time it is printed (a clock, a counter...)."""

    def __init__(self) -> None:
        self.count = 0

    def __str__(self) -> str:
        self.count += 1
        return f"tick {self.count}"


def test_an_object_whose_text_changes_is_printed_anew_by_every_call() -> None:
    prompt = AgentlyPrompt({"input": "x", "info": {"seen": Ticker()}, "output": {"reply": (str, "d")}})
    assert "- seen: tick 1" in prompt.to_text()
    assert "- seen: tick 2" in prompt.to_messages()[0]["content"]
    assert "- seen: tick 3" in prompt.to_text()


def test_text_and_messages_of_a_fixed_prompt_share_one_main_prompt(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[object] = []
    main_prompt = layout.main_prompt

    def counted(*args: Any) -> str:
        built.append(args)
        return main_prompt(*args)

    monkeypatch.setattr(layout, "main_prompt", counted)
    # text, numbers, classes and Enum members print the same every time
    data = {"input": "x", "info": {"a": "b"}, "output": {"reply": (str, "d")}, "custom": [int, Size.LARGE, 1.5]}
    prompt = AgentlyPrompt(data)
    text = prompt.to_text()
    messages = prompt.to_messages()
    assert len(built) == 1
    assert (text, messages) == (AgentlyPrompt(data).to_text(), AgentlyPrompt(data).to_messages())
    assert len(built) == 3


def test_a_fallback_warning_comes_with_every_call() -> None:
    prompt = AgentlyPrompt({"input": "x", "output": str, "output_format": "hybrid"})
    for _ in range(2):
        with pytest.warns(AgentlyWarning, match="Falling back to json"):
            prompt.to_text()
        with pytest.warns(AgentlyWarning, match="Falling back to json"):
            prompt.to_messages()


# --- threads -----------------------------------------------------------------------------------

THREAD_PROMPTS = [
    {"input": {"q": "x", "n": [1, 2]}, "info": {"a": "b"}, "output": {"r": (str, "reply"), "k": [(int, "n", True)]}},
    {
        "chat_history": [{"role": "assistant", "content": "hi"}],
        "input": "y",
        "output": {"a": (str,)},
        "output_format": "hybrid",
    },
    {"attachment": ["t", {"type": "image_url", "image_url": "u"}], "instruct": "${input}", "system": {"s": 1}},
]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_one_prompt_renders_from_many_threads() -> None:
    prompts = [AgentlyPrompt(data, {"prompt.add_current_time": True}, clock=lambda: "T") for data in THREAD_PROMPTS]
    expected = [render_all(prompt) for prompt in prompts]

    def work(index: int) -> list[Any]:
        return render_all(prompts[index % len(prompts)])

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(work, range(240)))
    for index, result in enumerate(results):
        assert result == expected[index % len(prompts)]


# --- the clock ---------------------------------------------------------------------------------


def test_clock_is_injected_and_only_read_when_asked() -> None:
    calls: list[int] = []

    def clock() -> str:
        calls.append(1)
        return "2024-01-01 00:00:00 Monday"

    with_time = AgentlyPrompt({"input": "x"}, {"prompt.add_current_time": True}, clock=clock)
    assert with_time.to_text() == (
        "user:\n[current time]: 2024-01-01 00:00:00 Monday\n\n[INPUT]:\nx\n\n[OUTPUT]:\nassistant:"
    )
    assert with_time.to_messages() == [{"role": "user", "content": "[current time]: 2024-01-01 00:00:00 Monday\n\nx"}]
    assert len(calls) == 2
    AgentlyPrompt({"input": "x"}, clock=clock).to_text()
    AgentlyPrompt({"input": "x"}, {"prompt.add_current_time": "yes"}, clock=clock).to_text()
    assert len(calls) == 2  # only the literal True turns it on, as in Agently


def test_default_clock_has_agentlys_format() -> None:
    assert re.fullmatch(
        r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} (Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)",
        agently_clock(),
    )
