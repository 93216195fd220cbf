"""What every adapter needs to write a conversation's parts, so that each says the same thing the
same way: which reasoning it may send back, tool-call ids a provider refuses, and the error for a
conversation whose turns break a provider's order rules.

The parts themselves arrive in a rendered message's content in promptwire's neutral form (see
:mod:`promptwire.renderers.parts`): ``tool_call``, ``tool_result``, ``reasoning``, and a ``cache``
mark on any part or message.
"""

from __future__ import annotations

import functools
import hashlib
import operator
import re
from typing import Any

from ..core.errors import BadRequestError

__all__ = ["CONVERSATION_KINDS", "ToolIds", "foreign_reasoning", "holds_conversation_parts", "turn_error"]

CONVERSATION_KINDS = frozenset({"tool_call", "tool_result", "reasoning"})
"""The part kinds that only a conversation's turns hold (the others are text and media)."""


def holds_conversation_parts(content: Any) -> bool:
    """Whether a rendered message's content holds a tool call, a tool result or reasoning (a
    message of text and media alone is written as it always was)."""
    return isinstance(content, list) and not CONVERSATION_KINDS.isdisjoint(map(_KIND, content))


_KIND = operator.methodcaller("get", "type")
"""A rendered part's kind, read in C (for each message of a history: a list of kinds cost a
comprehension's frame and a list each)."""


def foreign_reasoning(part: dict[str, Any], provider: str, index: int, position: int) -> str | None:
    """The note for a reasoning part ``provider`` may not take back (it came from another provider,
    or from none that said so), or ``None`` when it is ``provider``'s own. Reasoning is never sent
    as text: a model shown its own (or another's) thoughts as words imitates them."""
    source = part.get("provider")
    if source == provider:
        return None
    origin = f"from {source}" if source else "of unknown origin"
    return f"messages[{index}].content[{position}]: reasoning {origin} cannot be sent to {provider}; left out"


def turn_error(index: int, problem: str) -> BadRequestError:
    """The error for a conversation a provider would refuse for the order of its turns, naming the
    turn (``messages[3]``) before anything is sent."""
    return BadRequestError(f"messages[{index}]: {problem}")


class ToolIds:
    """Tool-call ids as a provider takes them: an id it accepts stays as it is; any other becomes
    the same safe id every time (its allowed characters, then a hash of the whole id), so a call
    and its result still match across the conversation. ``notes`` says each id changed."""

    def __init__(self, provider: str, allowed: str, limit: int) -> None:
        self.provider = provider
        self.allowed = allowed
        """The characters the provider takes, as a regular expression class body (``a-zA-Z0-9_-``)."""
        self.limit = limit
        self._valid, self._outside = _id_patterns(allowed, limit)
        self.accepts = self._valid.fullmatch
        """A match when the provider takes an id as it is (which :meth:`__call__` then gives back),
        told without a call of this object: a writer asks it first, for each call and result of a
        history."""
        self.changed: dict[str, str] = {}

    def __call__(self, call_id: str) -> str:
        if self._valid.fullmatch(call_id):
            return call_id
        if call_id not in self.changed:
            digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
            head = self._outside.sub("_", call_id)[: self.limit - len(digest) - 1]
            self.changed[call_id] = f"{head}_{digest}" if head else f"call_{digest}"[: self.limit]
        return self.changed[call_id]

    def original(self, sent: str) -> str:
        """The id ``sent`` stands for, as the conversation gave it (for an error to name)."""
        return next((original for original, changed in self.changed.items() if changed == sent), sent)

    def notes(self) -> list[str]:
        """One note per id changed on the way."""
        return [
            f"tool call id {original!r} sent as {sent!r}: {self.provider} takes ids of at most {self.limit} "
            f"characters from [{self.allowed}]"
            for original, sent in self.changed.items()
        ]


@functools.cache
def _id_patterns(allowed: str, limit: int) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """An id the provider takes (at most ``limit`` of the ``allowed`` characters), and a character
    it does not take: compiled once per provider, not for every request (``re.compile`` of an
    f-string made anew is a lookup in ``re``'s cache of some six thousand instructions, and most
    requests have no tool call at all)."""
    return re.compile(f"[{allowed}]{{1,{limit}}}"), re.compile(f"[^{allowed}]")
