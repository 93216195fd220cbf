"""Properties every format holds, for any prompt data and any options (formats come from the host,
so a new format is covered without touching this file):

* rendering returns a RenderedPrompt or raises the project's own error, never anything else, and
  every message it returns can be sent (it encodes as UTF-8);
* a prompt saved and loaded again (as JSON or as Python data) renders the same bytes, the parts of a
  conversation's turns (tool calls, tool results, reasoning, cache breakpoints) included.

Each property counts what it reached: a strategy whose examples all fail validation proves nothing.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire import PluginHost, Prompt, PromptwireError, RenderedPrompt
from promptwire.renderers.prompt_data import reader

from corpus import layout_formats
from hypothesis_profile import examples

HOST = PluginHost(entry_points=False)
FORMATS = layout_formats(HOST)

TEXT = st.text(max_size=12) | st.sampled_from(["", "ab\U0001f600cd", "\u202e\x1b[2J", "${instruct}", "line\nnext"])
SCALAR = (
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False) | TEXT
)
VALUE = st.recursive(
    SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=10
)
BUDGET = st.none() | st.integers(-1, 40) | st.sampled_from(["1k", "0.01k", "2", "lots", "2K"])

CONTEXT_ITEM = st.fixed_dictionaries(
    {"value": VALUE},
    optional={"label": TEXT, "source": TEXT, "budget": BUDGET},
)
CACHE = st.sampled_from([{}, {"ttl": "5m"}, {"ttl": "1h"}])
MEDIA_PART = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": TEXT}, optional={"cache": CACHE}),
    st.sampled_from(
        [
            {"type": "image", "url": "https://x/a.png", "cache": {}},
            {"type": "image", "data": "QUJD", "media_type": "image/png"},
        ]
    ),
)
TURN_PART = st.one_of(
    MEDIA_PART,
    st.fixed_dictionaries(
        {"type": st.just("tool_call"), "name": TEXT},
        optional={
            "id": TEXT,
            "arguments": st.dictionaries(TEXT, VALUE, max_size=2) | st.none(),
            "arguments_text": TEXT,
            "cache": CACHE,
        },
    ),
    st.fixed_dictionaries(
        {"type": st.just("tool_result"), "call_id": TEXT, "content": TEXT | st.lists(MEDIA_PART, max_size=2)},
        optional={"name": TEXT, "is_error": st.booleans(), "cache": CACHE},
    ),
    st.fixed_dictionaries(
        {"type": st.just("reasoning")},
        optional={
            "text": TEXT,
            "summary": st.lists(TEXT, max_size=2),
            "signature": TEXT,
            "encrypted": TEXT,
            "redacted": st.booleans(),
            "provider": st.sampled_from(["anthropic", "openai-responses", "ollama"]),
            "id": TEXT,
        },
    ),
)
"""The parts of a conversation's turns: a saved and loaded prompt must render them the same."""
TURN = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "bot"]), "content": TEXT | st.lists(TURN_PART, max_size=3)},
    optional={"cache": CACHE},
)
TOOL = st.fixed_dictionaries(
    {"name": TEXT},
    optional={
        "description": TEXT,
        "parameters": st.just({"type": "object", "properties": {"q": {"type": "string", "enum": ["a", "b"]}}}),
        "returns": st.just({"type": "string"}),
    },
)
CALL = st.fixed_dictionaries(
    {"name": TEXT}, optional={"id": TEXT, "arguments": st.dictionaries(TEXT, VALUE, max_size=2)}
)
RESULT = st.fixed_dictionaries({"content": VALUE}, optional={"call_id": TEXT, "name": TEXT, "is_error": st.booleans()})
OUTPUT = st.just({"schema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}})
ATTACHMENT = st.sampled_from(
    [
        {"type": "image", "url": "https://x/a.png"},
        {"type": "file", "data": "QUJD", "media_type": "application/pdf", "filename": "a.pdf"},
        {"type": "file", "url": "https://x/a.pdf"},
        {"type": "audio", "data": "QUJD", "format": "mp3"},
    ]
)

PROMPT_DATA = st.fixed_dictionaries(
    {},
    optional={
        "identity": st.fixed_dictionaries({"role": TEXT}, optional={"description": TEXT}),
        "system": TEXT,
        "developer": TEXT,
        "context": st.lists(CONTEXT_ITEM, max_size=3),
        "instruction": VALUE,
        "history": st.lists(TURN, max_size=2),
        "attachments": st.lists(ATTACHMENT, max_size=2),
        "tools": st.lists(TOOL, max_size=2),
        "tool_calls": st.lists(CALL, max_size=2),
        "tool_results": st.lists(RESULT, max_size=2),
        "output": OUTPUT,
        "previous_result": VALUE,
        "retry": st.fixed_dictionaries({"reason": TEXT}, optional={"previous_output": VALUE}),
        "cache": st.fixed_dictionaries(
            {},
            optional={
                "system": CACHE,
                "tools": CACHE,
                "key": TEXT,
                "retention": st.sampled_from(["in_memory", "24h"]),
            },
        ),
    },
)

OPTIONS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "agentscript": st.fixed_dictionaries({}, optional={"strict": st.booleans() | st.just("no")}),
    "messages": st.fixed_dictionaries(
        {}, optional={"strict": st.booleans(), "layout": st.sampled_from([*FORMATS, "nope", 3])}
    ),
    "agens": st.fixed_dictionaries(
        {},
        optional={
            "order": st.sampled_from(["declared", "alphabetical", "sideways", 7]),
            "prefixes": st.sampled_from([{}, {"input": ["## In", "detail"]}, {"bogus": 1}, {10**5000: "x"}]),
        },
    ),
    "agently": st.fixed_dictionaries(
        {},
        optional={
            "settings": st.sampled_from(
                [{}, {"prompt.role_mapping": {"user": "human"}}, {"prompt.add_current_time": True}, "x"]
            ),
            "role_mapping": st.sampled_from([None, {"user": "human"}, {"user": 3}]),
            "rich_content": st.booleans(),
            "strict_role_orders": st.booleans(),
        },
    ),
}


def _options(fmt: str) -> st.SearchStrategy[dict[str, Any]]:
    return OPTIONS.get(fmt, st.just({}))


def _render(prompt: Prompt, fmt: str, options: dict[str, Any]) -> RenderedPrompt:
    options = dict(options)
    if isinstance(options.get("layout"), str):
        options["layout"] = HOST.renderer(options["layout"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result: RenderedPrompt = HOST.renderer(fmt).render(prompt, **options)
    return result


def _sendable(rendered: RenderedPrompt) -> None:
    for message in rendered.messages:
        json.dumps(message.to_dict(), ensure_ascii=False, default=str).encode("utf-8")


def test_every_format_renders_or_refuses_with_its_own_error() -> None:
    outcomes: Counter[str] = Counter()

    @settings(max_examples=examples(2.5))
    @given(data=PROMPT_DATA, fmt=st.sampled_from(FORMATS), choice=st.data())
    def check(data: dict[str, Any], fmt: str, choice: st.DataObject) -> None:
        options = choice.draw(_options(fmt))
        try:
            prompt = reader.read(data)
        except PromptwireError:
            outcomes["invalid prompt"] += 1
            return
        try:
            rendered = _render(prompt, fmt, options)
        except PromptwireError:
            outcomes["refused"] += 1
            return
        assert isinstance(rendered, RenderedPrompt)
        assert rendered.format == fmt
        _sendable(rendered)
        outcomes["rendered"] += 1

    check()
    # The property is about renderers: most examples must get that far, and most must render.
    assert outcomes["rendered"] > outcomes["invalid prompt"] + outcomes["refused"], outcomes


def test_a_prompt_saved_and_loaded_renders_the_same_in_every_format() -> None:
    reached: Counter[str] = Counter()

    @settings(max_examples=examples(1.5))
    @given(data=PROMPT_DATA)
    def check(data: dict[str, Any]) -> None:
        try:
            prompt = reader.read(data)
        except PromptwireError:
            return
        try:
            saved = prompt.model_dump_json()
        except ValueError:  # a lone surrogate has no JSON text in pydantic: nothing to replay
            return
        copies = (Prompt.model_validate_json(saved), Prompt(**prompt.model_dump()))
        for fmt in FORMATS:
            try:
                expected = _render(prompt, fmt, {})
            except PromptwireError as exc:
                for copy in copies:
                    try:
                        _render(copy, fmt, {})
                    except PromptwireError as again:
                        assert str(again) == str(exc)
                    else:
                        raise AssertionError(f"{fmt}: the copy renders where the original was refused")
                continue
            for copy in copies:
                again = _render(copy, fmt, {})
                assert again.messages == expected.messages, fmt
                assert again.text == expected.text, fmt
            reached[fmt] += 1

    check()
    assert all(reached[fmt] > examples(0.5) for fmt in FORMATS), reached  # a third of the examples
