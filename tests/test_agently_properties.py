"""Properties of the Agently renderer that need no Agently installed.

* the fast YAML emitter writes exactly what ``yaml.safe_dump(value, allow_unicode=True)`` writes;
* rendering is pure: the caller's data is never changed and the same input gives the same bytes;
* one AgentlyPrompt can be rendered from many threads at once;
* the clock is injectable and the default one has Agently's format.
"""

from __future__ import annotations

import copy
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptwire.renderers.agently import AgentlyPrompt
from promptwire.renderers.agently._agently import yaml_blocks
from promptwire.renderers.agently._agently.prompt import agently_clock

# --- the YAML emitter --------------------------------------------------------------------------

YAML_TEXT = st.one_of(
    st.text(max_size=20),
    st.text(alphabet="ab :#-?,'\"\n\tyn10.e+~!&*", max_size=10),
    st.sampled_from(
        [
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
            "😀",
        ]
    ),
    st.text(alphabet="abc de", min_size=60, max_size=120),
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


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.dictionaries(YAML_TEXT, YAML_VALUES, max_size=5), st.lists(YAML_VALUES, max_size=5)))
def test_fast_yaml_emitter_matches_pyyaml(value: Any) -> None:
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


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(PROMPTS)
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_rendering_does_not_touch_the_data_and_is_deterministic(data: dict[str, Any]) -> None:
    before = copy.deepcopy(data)
    prompt = AgentlyPrompt(data, {"prompt.add_current_time": True}, clock=lambda: "T")
    first = render_all(prompt)
    assert data == before
    assert render_all(AgentlyPrompt(copy.deepcopy(data), {"prompt.add_current_time": True}, clock=lambda: "T")) == first


def test_returned_messages_are_fresh_objects() -> None:
    prompt = AgentlyPrompt({"attachment": [{"type": "image_url", "image_url": {"url": "u"}}, "hi"]})
    first = prompt.to_messages(rich_content=True)
    first[0]["content"][0]["image_url"]["url"] = "changed"
    first[0]["content"].append("junk")
    assert prompt.to_messages(rich_content=True) == [
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}, {"type": "text", "text": "hi"}]}
    ]


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
