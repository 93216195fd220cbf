"""calls/cache_prefix.py: how many leading bytes of a request body repeat the previous call's to the
same provider and model, and the field where they part; a pure function checked against the bytes
themselves, and the run's calls compared as built (a streamed call's stream flags left out) through
the real Ollama and OpenAI SDKs over real HTTP against the fake provider."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import promptwire
from promptwire.calls.cache_prefix import CachePrefix, CachePrefixes, cache_prefixes, common_prefix
from promptwire.core.call import ModelCall, ProviderRequest
from promptwire.core.json_text import to_bytes
from promptwire.core.prompt import Prompt
from promptwire.core.rendered import RenderedPrompt
from promptwire.renderers.agentscript import shape_contract
from promptwire.testing.provider_servers import fake_provider

from hypothesis_profile import examples


def _shared(first: bytes, second: bytes) -> int:
    """The common prefix's length, byte by byte: what the function's halving must agree with."""
    count = 0
    for one, other in zip(first, second, strict=False):
        if one != other:
            break
        count += 1
    return count


# --- examples --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 2]}, (17, None)),
        ({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3]}, (14, "b[1]")),
        ({"a": 1}, {"a": 1, "b": 2}, (6, "b")),  # a member added: the difference is the new member
        ({"a": 1, "b": 2}, {"a": 1}, (6, "b")),  # ...or the one left out
        ({"a": 1, "b": 2}, {"a": 1, "c": 2}, (8, "c")),  # another key: named as the later body has it
        ({"a": [1]}, {"a": [1, 2]}, (7, "a[1]")),
        ({"a": [1]}, {"a": [12]}, (7, "a[0]")),  # 1 is the beginning of 12: the item is the difference
        ({"a": {"b": 1}}, {"a": [1]}, (5, "a")),  # values of two kinds
        ({"a.b": {"": 1}}, {"a.b": {"": 2}}, (11, "a.b.")),  # keys spelt as paths spell them
        ({1: "x"}, {1: "y"}, (6, "1")),  # a key that is no text, as JSON writes it
        ({True: "x"}, {True: "y"}, (9, "true")),
        ("same", "same", (6, None)),
        ("a", "b", (1, "<root>")),
        (
            {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]},
            {"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "Ho"}]}]},
            (75, "messages[0].content[0].text"),
        ),
    ],
)
def test_common_prefix_counts_the_shared_bytes_and_names_where_they_part(
    before: Any, after: Any, expected: tuple[int, str | None]
) -> None:
    assert common_prefix(before, after) == expected
    assert expected[0] == _shared(to_bytes(before), to_bytes(after))


def test_half_characters_are_counted_as_the_body_writes_them() -> None:
    # A lone half is written as its six-byte escape, a pair as one four-byte character.
    before, after = {"t": "\ud83d\ude00a"}, {"t": "\ud83d\ude00b"}
    assert common_prefix(before, after) == (10, "t")
    assert common_prefix({"t": "\ud83d"}, {"t": "\ud83e"}) == (11, "t")


def test_values_as_deep_as_a_prompt_may_nest_are_compared() -> None:
    before: Any = "x"
    after: Any = "y"
    for _ in range(990):
        before, after = {"a": before}, {"a": after}
    assert common_prefix(before, after) == (990 * 5 + 1, ".".join(["a"] * 990))


# --- properties ------------------------------------------------------------------------------------

_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=6) | st.sampled_from(["", "a", "ab", "é"])
_KEYS = st.text('ab"\\\né\ud83d\ude00', min_size=1, max_size=3)  # no "." or "[": a path names one member
_SCALARS = (
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.floats(allow_nan=False, allow_infinity=False) | _TEXT
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


@st.composite
def _changed(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with one place changed, most often deep inside: a value replaced, a member added
    or taken out."""
    inside = draw(st.integers(0, 3)) > 0  # down into a member, three times in four
    if isinstance(value, dict) and value and inside:
        key = draw(st.sampled_from(list(value)))
        return {**value, key: draw(_changed(value[key]))}
    if isinstance(value, list) and value and inside:
        index = draw(st.integers(0, len(value) - 1))
        return [*value[:index], draw(_changed(value[index])), *value[index + 1 :]]
    if isinstance(value, dict) and draw(st.booleans()):
        if value and draw(st.booleans()):
            left_out = draw(st.sampled_from(list(value)))
            return {key: item for key, item in value.items() if key != left_out}
        return {**value, draw(_KEYS): draw(_JSON)}
    if isinstance(value, list) and draw(st.booleans()):
        return [*value, draw(_JSON)]
    return draw(_JSON)


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[Any, Any]:
    before = draw(_JSON)
    return before, draw(_changed(before) | _JSON)


_STEP = re.compile(r"\[(\d+)\]|\.?([^.\[\]]+)")


def _steps(path: str) -> list[str | int]:
    """The steps a path names (keys hold no ``.`` or ``[``)."""
    if path == "<root>":
        return []
    steps: list[str | int] = []
    for match in _STEP.finditer(path):
        index, key = match.groups()
        steps.append(int(index) if index is not None else key)
    return steps


def _member_span(value: Any, steps: list[str | int]) -> tuple[int, int, Any] | None:
    """Where the member or item at ``steps`` is written in ``to_bytes(value)``: from the ``,``
    before it (its first byte for a first member) to its last byte, its key included; ``None``
    when ``value`` has none there. Worked out from the serialisations of the parts alone. Third,
    the member's value."""
    span = (0, len(to_bytes(value)))
    begins = 0  # where ``value`` is written in the whole
    for step in steps:
        if isinstance(value, dict) and step in value:
            members = list(value.items())
            index = list(value).index(step)
        elif isinstance(value, list) and isinstance(step, int) and step < len(value):
            members = list(enumerate(value))
            index = step
        else:
            return None
        position = begins + 1 + sum(len(_member_bytes(value, *member)) + 1 for member in members[:index])
        member = _member_bytes(value, *members[index])
        item = members[index][1]
        span = (position - (1 if index else 0), position + len(member))
        begins = position + len(member) - len(to_bytes(item))
        value = item
    return (*span, value)


def _member_bytes(container: Any, key: Any, item: Any) -> bytes:
    return to_bytes({key: item})[1:-1] if isinstance(container, dict) else to_bytes(item)


@settings(max_examples=examples(2))
@given(_pairs())
@example(({"a": {"b": [1]}}, {"a": {"b": [2]}}))
@example(({"a": [12, 3]}, {"a": [1, 3]}))  # the later body's item ends where the bodies part
@example(({"n": 12, "m": 1}, {"n": 1, "m": 1}))
@example(({"s": {"a": 1, "b": 2, "c": 3}}, {"s": {"a": 1, "c": 3}}))
@example(({"m": [{"r": "u", "c": [{"t": "x"}]}]}, {"m": [{"r": "u", "c": [{"t": "x"}, {"t": "y"}]}]}))
@example(({"m": [{"r": "u", "c": "x"}], "z": 1}, {"m": [{"r": "u", "c": "x"}, {"r": "a"}], "z": 1}))
def test_the_shared_length_is_the_bodies_common_prefix_and_the_path_holds_their_first_difference(
    pair: tuple[Any, Any],
) -> None:
    before, after = pair
    before_bytes, after_bytes = to_bytes(before), to_bytes(after)
    same, path = common_prefix(before, after)
    assert same == _shared(before_bytes, after_bytes)
    assert (path is None) == (before_bytes == after_bytes)
    if path is None:
        return
    # The path names a member of one of the two (the later body's where it has one) whose written
    # form, key and leading comma included, holds the first differing byte...
    in_after, in_before = _member_span(after, _steps(path)), _member_span(before, _steps(path))
    span = in_after or in_before
    assert span is not None, f"{path} names nothing in either body"
    start, end, _ = span
    assert start <= same <= end
    # ...and the deepest: where both have that member in the same place, it is not two objects or
    # two arrays (the difference would be in one of their members).
    if in_after is not None and in_before is not None and in_after[0] == in_before[0]:
        kinds = {type(in_after[2]), type(in_before[2])}
        assert kinds not in ({dict}, {list}), f"{path} holds a member that differs"


# --- calls -----------------------------------------------------------------------------------------


def _call(body: dict[str, Any], provider: str = "openai", *, built: dict[str, Any] | None = None) -> ModelCall:
    request = ProviderRequest(body)
    return ModelCall(
        1,
        Prompt(instruction="x"),
        RenderedPrompt(format="messages", messages=[]),
        request,
        provider=provider,
        built=None if built is None else ProviderRequest(built),
    )


def test_each_call_is_compared_with_the_previous_to_its_provider_and_model() -> None:
    calls = [
        _call({"model": "a", "text": "one"}),
        _call({"model": "b", "text": "one"}),  # another model: a cache of its own
        _call({"model": "a", "text": "one"}, "anthropic"),  # another provider
        _call({"model": "a", "text": "two"}),
        _call({"model": "a", "text": "two"}),
    ]
    assert cache_prefixes(calls) == [
        None,
        None,
        None,
        CachePrefix(1, 21, 26, "text"),
        CachePrefix(4, 26, 26, None),
    ]


def test_a_label_names_the_previous_call_as_its_caller_chose() -> None:
    prefixes = CachePrefixes()
    assert prefixes.compare(("row-1", 1), _call({"model": "a"})) is None
    compared = prefixes.compare(("row-2", 1), _call({"model": "a", "x": 1}))
    assert compared is not None
    assert compared.as_data() == {"previous_call": ("row-1", 1), "same_bytes": 12, "of": 19, "first_difference": "x"}


def test_the_body_compared_is_the_one_built_before_the_stream_flags() -> None:
    built = {"model": "a", "stream": False, "messages": []}
    sent = {"model": "a", "stream": True, "messages": []}
    assert cache_prefixes([_call(built), _call(sent, built=built)])[1] == CachePrefix(1, 42, 42, None)


def test_a_streamed_and_an_unstreamed_call_over_http_share_their_whole_body(monkeypatch: pytest.MonkeyPatch) -> None:
    # Ollama sets its stream flag in place, near the front: as sent, the bodies part at "stream".
    prompt = Prompt(instruction="Check.", output=shape_contract({"ok": "boolean"}))
    with fake_provider() as server:
        monkeypatch.setenv("OLLAMA_HOST", server.base_url.removesuffix("/v1"))
        whole = promptwire.generate(prompt, provider="ollama", model="ok")
        streamed = promptwire.generate(prompt, provider="ollama", model="ok", on_text=lambda piece: None)
        changed = promptwire.generate(
            prompt.model_copy(update={"instruction": "Check again."}), provider="ollama", model="ok"
        )
    sent_whole, sent_streamed, sent_changed = server.raw_bodies
    assert common_prefix(server.requests[0], server.requests[1])[1] == "stream"
    assert sent_whole == to_bytes(whole.calls[0].request.kwargs)
    assert sent_streamed == to_bytes(streamed.calls[0].request.kwargs)
    first, second, third = cache_prefixes([*whole.calls, *streamed.calls, *changed.calls])
    assert first is None
    assert second == CachePrefix(1, len(sent_whole), len(sent_whole), None)
    assert third is not None
    assert (third.same_bytes, third.of) == (_shared(sent_whole, sent_changed), len(sent_changed))
    assert third.first_difference == "messages[0].content"
