"""Every request the conformance corpus expects of a built-in adapter, read back with that
provider's reader and written again by the same adapter, is the same JSON value (issue 34:
"converting a conversation to its own provider's format gives the same JSON value it was read
from"), and the second writing adds no note: nothing of the body is lost on the way through the
prompt model. The corpus's bodies hold every conversation feature, so this covers each part kind
in each provider's own form."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import promptwire
from promptwire.core.errors import UnsupportedFieldsWarning
from promptwire.testing.conformance.check import MODEL

EXPECTED = Path(promptwire.__file__).parent / "testing" / "conformance" / "expected"
READERS = {
    "openai": "openai-chat",
    "openai-responses": "openai-responses",
    "anthropic": "anthropic",
    "ollama": "ollama",
}
"""The reader of each built-in adapter's requests."""


RENOTED = {
    ("ollama", "tool-result-without-call"): "Ollama has no call ids: the first writing left the result's "
    "id out and said so, so the reader cannot know it, and the second writing says the same of no id",
}
"""The bodies whose second writing repeats the first's note in other words (the body itself is the
same JSON value), each with why."""


def _bodies() -> list[Any]:
    cases = []
    for adapter, reader in READERS.items():
        for path in sorted((EXPECTED / adapter).glob("*.json")):
            expected = json.loads(path.read_text(encoding="utf-8"))
            if "body" in expected:  # a refused conversation has none
                notes = None if (adapter, path.stem) in RENOTED else expected["notes"]
                case = (adapter, reader, expected["body"], notes)
                cases.append(pytest.param(*case, id=f"{adapter}-{path.stem}"))
    return cases


@pytest.mark.parametrize(("adapter", "reader", "body", "first_notes"), _bodies())
def test_a_corpus_body_read_and_written_by_its_own_provider_is_the_same_json_value(
    adapter: str, reader: str, body: dict[str, Any], first_notes: list[str] | None
) -> None:
    prompt = promptwire.read(body, reader)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedFieldsWarning)  # native.<reader>: the model name
        request = promptwire.build_request(prompt, adapter, MODEL, format="conversation")
    assert request.kwargs == body
    # Nothing new is lost: a note the second writing gives, the first gave too (a tool result that
    # answers no call is one still, and says so again).
    written = [note for note in request.notes if not note.startswith("format 'conversation' cannot express")]
    if first_notes is not None:
        assert [note for note in written if note not in first_notes] == []
