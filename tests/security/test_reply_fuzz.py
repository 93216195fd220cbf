"""Model replies fuzzed through ``promptwire.generate``, offline with canned replies: whatever a
model answers, over one to three attempts, against output contracts of every shape (AgentScript
shapes, JSON Schemas, none; strict and lenient), the result is the accepted value or a
:class:`PromptwireError` (``NotJsonError``, ``ResultError``: what the contract refuses); never
another exception, never past the alarm. Each attempt after the first renders the repair text,
which quotes the refused reply, so every reply also goes through a renderer.

The replies: any text, JSON built from the contract's own field names with values of every kind
(mostly the right one), the same cut short or fenced or wrapped in prose, hostile numbers and
nesting, and non-text values (a canned reply that is JSON data).
``PROMPTWIRE_FUZZ_EXAMPLES`` sets the count for a volume run.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

from fuzz_data import JSONISH, SCHEMAS, TEXT, made, one_in
from hypothesis import event, given, settings
from hypothesis import strategies as st

import promptwire
from promptwire.core.errors import PromptwireError, UnsupportedFieldsWarning
from promptwire.renderers.agentscript import shape_contract

from fuzzing import SECONDS, within
from hypothesis_profile import fuzz_examples

FIELDS = ["answer", "score", "ok", "tags", "items", "data"]
SHAPE_TYPES = ["string", "number", "boolean", "json", "list", "list[string]", "list[number]", "list[json]"]
SHAPES = st.dictionaries(st.sampled_from(FIELDS), st.sampled_from(SHAPE_TYPES), min_size=1, max_size=4)
CONTRACTS = st.one_of(
    st.none(),
    SHAPES.map(lambda shape: {"schema": shape_contract(shape).json_schema}),
    SCHEMAS.filter(lambda schema: isinstance(schema, dict)).map(lambda schema: {"schema": schema}),
)
HOSTILE = [
    "", " ", "null", "{", "}", "[" * 5000 + "]" * 5000, "{" * 3000, '{"answer": ' + "9" * 5000 + "}", "1e999",
    "NaN", "Infinity", '{"answer": NaN}', "```json\n{}\n```", "```\n```", "```json\n{\"a\": 1", '"\\ud800"',
    '{"answer": "\\ud800"}', '{"a": 1, "a": 2}', "\x00\x1b[2J", "\u202e{}", "{}" * 1000,
]  # fmt: skip


@st.composite
def replies(draw: st.DrawFn, schema: dict[str, Any] | None) -> Any:
    """One model reply: a text (what a model writes), or now and then JSON data given as is."""
    names = list((schema or {}).get("properties") or {}) or FIELDS
    value = draw(
        st.dictionaries(st.sampled_from(names), st.one_of(TEXT, st.booleans(), st.floats(), JSONISH), max_size=5)
    )
    if one_in(draw, 8):
        return made(value)  # a canned reply that is JSON data, not text
    kind = draw(st.sampled_from(["json", "json", "cut", "fenced", "prose", "text", "hostile"]))
    if kind == "text":
        return draw(st.text())
    if kind == "hostile":
        return HOSTILE[draw(st.integers(0, len(HOSTILE) - 1))]  # by index: Hypothesis shows a strategy's values
    try:
        text = json.dumps(made(value, shared=False), default=repr)
    except ValueError:  # a 5000-digit integer: JSON's writer refuses it, a model need not
        text = '{"answer": ' + "9" * 5000 + "}"
    if kind == "cut":
        return text[: draw(st.integers(0, len(text)))]
    if kind == "fenced":
        return f"Here it is:\n```json\n{text}\n```\nDone."
    if kind == "prose":
        return f"{draw(TEXT)} {text} {draw(TEXT)}"
    return text


@st.composite
def calls(draw: st.DrawFn) -> tuple[dict[str, Any], list[Any], int, bool]:
    """A prompt with its contract, the replies, the attempts and whether the contract is strict."""
    contract = draw(CONTRACTS)
    attempts = draw(st.integers(1, 3))
    answers = draw(st.lists(replies(None if contract is None else contract["schema"]), min_size=1, max_size=attempts))
    prompt: dict[str, Any] = {"instruction": "Answer."}
    if contract is not None:
        prompt["output"] = contract
    return prompt, answers, attempts, draw(st.booleans())


@settings(max_examples=fuzz_examples(4), deadline=None)
@given(calls(), st.sampled_from(["agentscript", "messages", "agens", "agently"]))
def test_any_model_reply_is_a_value_or_a_promptwire_error(call: tuple[Any, ...], format_name: str) -> None:
    prompt, answers, attempts, strict = call
    try:
        # What a format leaves out of a generated contract is a warning by design; the property is the reply's.
        with within(SECONDS, call), warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsupportedFieldsWarning)
            result = promptwire.generate(
                prompt, "offline", format=format_name, responses=answers, attempts=attempts, strict=strict
            )
    except PromptwireError as refused:
        event(f"refused: {type(refused).__name__}")
    else:
        event(f"accepted after {len(result.calls)} attempt(s)")
