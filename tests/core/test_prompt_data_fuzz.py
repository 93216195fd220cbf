"""Untrusted prompt data: whatever arrives, the reader returns a Prompt or a FieldError, nothing else."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire import FieldError, Prompt
from promptwire.renderers.prompt_data import reader

from hypothesis_profile import examples

FIELDS = [*Prompt.model_fields, "bogus"]
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
JSONISH = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "url", "data", "value", "label", "role", "content", "name", "x"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)
PROMPT_DATA = st.dictionaries(st.sampled_from(FIELDS), JSONISH, max_size=5)


@settings(max_examples=examples(3))
@given(PROMPT_DATA | JSONISH)
def test_reader_returns_prompt_or_names_a_field(data: Any) -> None:
    try:
        prompt = reader.read(data)
    except FieldError as exc:
        assert exc.field
        assert exc.reason
        assert str(exc) == f"{exc.field}: {exc.reason}"
        if isinstance(data, dict) and exc.field != "<root>":
            assert exc.field.split(".")[0].split("[")[0] in data
    else:
        assert isinstance(prompt, Prompt)
