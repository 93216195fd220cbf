"""Whatever a Gemini server sends, whole or as stream chunks, is read into a Reply or told as one of
promptwire's errors (a malformed reply, a stream cut short, the provider's failure), never an
exception of the SDK, pydantic or Python; a reply of the right shape is read part for part."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire.adapters.base import Endpoint
from promptwire.adapters.gemini import GeminiAdapter, _generated
from promptwire.adapters.status import read_reply
from promptwire.core.errors import ProviderError
from tests.hypothesis_profile import examples

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _or_junk(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(strategy, strategy, strategy, JSON)


CALL = st.fixed_dictionaries(
    {},
    optional={
        "name": _or_junk(st.text(max_size=8)),
        "id": _or_junk(st.text(max_size=8)),
        "args": _or_junk(st.dictionaries(st.text(max_size=5), JSON, max_size=2)),
    },
)
PART = st.fixed_dictionaries(
    {},
    optional={
        "text": _or_junk(st.text(max_size=10)),
        "thought": _or_junk(st.booleans()),
        "thoughtSignature": _or_junk(st.sampled_from(["c2ln", "c2lnbmVk", "not base64!"])),
        "functionCall": _or_junk(CALL),
    },
)
CANDIDATE = st.fixed_dictionaries(
    {},
    optional={
        "content": _or_junk(
            st.fixed_dictionaries(
                {}, optional={"role": st.just("model"), "parts": _or_junk(st.lists(PART, max_size=4))}
            )
        ),
        "finishReason": _or_junk(st.sampled_from(["STOP", "MAX_TOKENS", "SAFETY", "SOMETHING_NEW"])),
    },
)
RESPONSE = st.fixed_dictionaries(
    {},
    optional={
        "candidates": _or_junk(st.lists(CANDIDATE, max_size=2)),
        "usageMetadata": _or_junk(
            st.fixed_dictionaries({}, optional={"promptTokenCount": _or_junk(st.integers(0, 99))})
        ),
        "promptFeedback": _or_junk(st.fixed_dictionaries({}, optional={"blockReason": st.just("SAFETY")})),
        "error": _or_junk(
            st.fixed_dictionaries({"code": st.sampled_from([400, 429, 500]), "message": st.text(max_size=5)})
        ),
    },
)
ADAPTER = GeminiAdapter()
WHERE = Endpoint("http://127.0.0.1:9/v1beta/models/m", "gm-test-key-0123456789")


@settings(max_examples=examples(2), deadline=None)
@given(_or_junk(RESPONSE))
def test_any_whole_reply_is_read_or_told(data: Any) -> None:
    try:
        with ADAPTER._told(WHERE, 5):
            raw = _generated(json.dumps(data))
        reply = ADAPTER.parse_reply(raw)
    except ProviderError:
        return
    assert reply.turn is not None and reply.turn.role == "assistant"
    assert all(call.id for call in reply.tool_calls)


@settings(max_examples=examples(2), deadline=None)
@given(st.lists(_or_junk(RESPONSE), max_size=4))
def test_any_stream_of_chunks_is_read_or_told(chunks: list[Any]) -> None:
    reader = ADAPTER.stream_reader()
    try:
        with ADAPTER._told(WHERE, 5):
            texts = [read_reply(reader.feed, chunk) for chunk in chunks]
            whole = reader.whole()
        reply = ADAPTER.parse_reply(whole)
    except ProviderError:
        return
    assert "".join(text for text in texts if text) == reply.text
