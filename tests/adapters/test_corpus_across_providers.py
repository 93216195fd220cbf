"""A corpus conversation written to one provider and read back from that provider's request loses
nothing the provider's notes do not name (issue 34: "converting any corpus conversation from any
provider's format to any other and back ... loses nothing the table does not list").

The conversation before and after is compared as what it says, turn by turn: each text with its
speaker, each tool call (id, name, arguments), each tool result (call id, content, error flag), each
reasoning part with its provider's proof, each image, audio clip and file. Forms that mean the same
differ freely: a provider's own argument text, Anthropic's user turn that holds the tool results,
text as a string or as one text part, a default image detail. Where the provider's request gave no
note beyond the required ``max_tokens``, the two must say the same; the conversations with notes
are the fidelity table's rows, each note a loss it lists.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import promptwire
from promptwire import Prompt
from promptwire.core.errors import BadRequestError, UnsupportedFieldsWarning
from promptwire.testing.conformance.check import MODEL
from promptwire.testing.conformance.corpus import conversations

READERS = {
    "openai": "openai-chat",
    "openai-responses": "openai-responses",
    "anthropic": "anthropic",
    "ollama": "ollama",
}
QUIET = ("max_tokens 1024:", "format 'conversation' cannot express")
"""Notes that name no part of the conversation: Anthropic's required output limit, the reader's
``native`` leftovers (the model's name)."""


def _said(prompt: Prompt) -> list[tuple[Any, ...]]:
    """What the conversation says, in order (see the module docstring)."""
    said: list[tuple[Any, ...]] = [("text", "system", text) for text in (prompt.system, prompt.developer) if text]
    for turn in prompt.history:
        parts = (
            [{"type": "text", "text": turn.content}]
            if isinstance(turn.content, str)
            else [part.model_dump(exclude_none=True) for part in turn.content]
        )
        speaker = "system" if turn.role in ("system", "developer") else turn.role
        for part in parts:
            said.extend(_part(speaker, part))
    if "instruction" in prompt.model_fields_set and isinstance(prompt.instruction, str):
        said.append(("text", "user", prompt.instruction))  # the conversation format's last user turn
    said.extend(("media", "user", _media(part.model_dump(exclude_none=True))) for part in prompt.attachments)
    return said


def _part(speaker: str, part: dict[str, Any]) -> list[tuple[Any, ...]]:
    kind = part["type"]
    if kind == "text":
        return [("text", speaker, part["text"])] if part["text"] else []
    if kind == "tool_call":
        return [("call", part.get("id"), part["name"], part.get("arguments"))]
    if kind == "tool_result":
        content = part["content"]
        shown = [content] if isinstance(content, str) else [_media(item) for item in content]
        return [("result", part["call_id"], shown, part.get("is_error", False))]
    if kind == "reasoning":
        proof = part.get("signature") or part.get("encrypted")
        return [("reasoning", part.get("provider"), part.get("text"), proof, part.get("redacted", False))]
    return [("media", speaker, _media(part))]


def _media(part: dict[str, Any]) -> Any:
    if part["type"] == "text":
        return part["text"]
    return {key: value for key, value in part.items() if key not in ("cache", "detail") or value != "auto"}


def _written(conversation: Any, adapter: str) -> Any:
    """The request ``adapter`` builds for the conversation, or ``None`` when it refuses it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedFieldsWarning)  # native.<reader>: the model's name
        try:
            return promptwire.build_request(conversation.prompt, adapter, MODEL, format="conversation")
        except BadRequestError:
            return None


WHOLE = [
    (conversation, adapter)
    for conversation in conversations()
    if conversation.refused is None
    for adapter in READERS
    if (request := _written(conversation, adapter)) is not None
    and not [note for note in request.notes if not note.startswith(QUIET)]
]
"""The conversations each provider takes whole (its request notes nothing it changed): the others
are the fidelity table's rows, each note or refusal a loss it lists."""


def test_most_of_the_corpus_goes_whole_to_some_provider() -> None:
    # The property below holds for these only: it must keep covering every kind of part.
    assert len(WHOLE) >= 20
    kinds = {part[0] for conversation, _ in WHOLE for part in _said(Prompt.model_validate(conversation.prompt))}
    assert kinds == {"text", "call", "result", "reasoning", "media"}


@pytest.mark.parametrize(
    ("conversation", "adapter"), [pytest.param(*case, id=f"{case[0].name}-{case[1]}") for case in WHOLE]
)
def test_a_conversation_a_provider_takes_whole_comes_back_from_it_saying_the_same(
    conversation: Any, adapter: str
) -> None:
    request = _written(conversation, adapter)
    back = promptwire.read(dict(request.kwargs), READERS[adapter])
    original = Prompt.model_validate(conversation.prompt)
    assert _said(back) == _said(original)
    assert [tool.model_dump() for tool in back.tools] == [tool.model_dump() for tool in original.tools]
