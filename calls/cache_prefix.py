"""How much of each request body repeats the previous call's: what a provider's prompt cache can reuse.

Providers cache a request's prefix: Anthropic up to each ``cache_control`` breakpoint, OpenAI the
leading part of the prompt on its own, Ollama the context it still holds. A call reuses what an
earlier call to the same provider and model began with, so one value that moves near the front of
the body (a timestamp in the system text, a tool added, a history turn rewritten) makes everything
after it new. Nothing in a reply says which change that was; this module says it.

For the calls of a run, in the order they were made, :class:`CachePrefixes` compares each request
body with the previous call's to the same provider and model: how many leading bytes they share
(``same_bytes``, of the body's ``of``) and the JSON path of the field where they part
(``first_difference``, ``messages[3].content[0].text``; ``None`` when the bodies are the same).
:func:`common_prefix` is that comparison, a pure function of two JSON values.

The body compared is the request as built (:attr:`promptwire.core.call.ModelCall.built`): the bytes
:func:`promptwire.core.json_text.to_bytes` writes, which are those the adapters' skeleton posts,
less a streamed call's stream flags. Those say how the reply travels, not what was asked, and
no provider's cache keys on them; left in, Ollama's ``"stream"`` (near the front of its body) would
report a broken prefix between a streamed and an unstreamed call that share every token.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..core.errors import field_path
from ..core.json_text import dumps, to_bytes
from ..core.nesting import with_nesting_room

if TYPE_CHECKING:
    from ..core.call import ModelCall

__all__ = ["CachePrefix", "CachePrefixes", "body_as_built", "cache_prefixes", "common_prefix"]


@dataclass(frozen=True, slots=True)
class CachePrefix:
    """A call's body against the previous one's to the same provider and model."""

    previous: Any
    """Which call that was, as the caller labelled it (its number in a run's list of calls)."""
    same_bytes: int
    """How many leading bytes of the two bodies are the same."""
    of: int
    """The length of this call's body, in bytes."""
    first_difference: str | None
    """The JSON path of the field where the bodies part (``None``: they are the same)."""

    def as_data(self) -> dict[str, Any]:
        """What ``--output json`` shows: ``previous_call``, ``same_bytes``, ``of``, ``first_difference``."""
        return {
            "previous_call": self.previous,
            "same_bytes": self.same_bytes,
            "of": self.of,
            "first_difference": self.first_difference,
        }


def body_as_built(call: ModelCall) -> Mapping[str, Any]:
    """The body ``call`` asked with: the request as built, before any stream flags."""
    request = call.request if call.built is None else call.built
    return request.kwargs


class CachePrefixes:
    """The previous body to each provider and model, told each call's body in the order the calls
    were made (a run's: ``asrender --output json`` compares a run's calls, ``asrender batch`` each
    row's)."""

    def __init__(self) -> None:
        self._last: dict[tuple[str | None, str], tuple[Any, Mapping[str, Any], bytes | None]] = {}

    def compare(self, label: Any, call: ModelCall) -> CachePrefix | None:
        """``call`` against the previous call to its provider and model (``None`` for the first);
        ``call`` is then the previous one, known by ``label``. A body is encoded only once a later
        call is compared with it (most rows of a batch make one call: nothing to encode)."""
        body = body_as_built(call)
        key = (call.provider, dumps(call.request.model_asked()))
        previous = self._last.get(key)
        if previous is None:
            self._last[key] = (label, body, None)
            return None
        encoded = with_nesting_room(to_bytes, body)  # a body may nest as deep as a prompt may
        self._last[key] = (label, body, encoded)
        earlier_label, earlier, earlier_encoded = previous
        if earlier_encoded is None:
            earlier_encoded = with_nesting_room(to_bytes, earlier)
        same, path = with_nesting_room(lambda bodies: _compare(*bodies), (earlier, body, earlier_encoded, encoded))
        return CachePrefix(earlier_label, same, len(encoded), path)


def cache_prefixes(calls: Iterable[ModelCall]) -> list[CachePrefix | None]:
    """Each call of a run against the previous one to its provider and model, calls numbered from 1."""
    prefixes = CachePrefixes()
    return [prefixes.compare(number, call) for number, call in enumerate(calls, 1)]


def common_prefix(before: Any, after: Any) -> tuple[int, str | None]:
    """How many leading bytes the bodies ``before`` and ``after`` share (as :func:`to_bytes`
    writes them), and the JSON path of the field where they part: the deepest member or item of
    ``after`` that holds their first differing byte (of ``before`` when only ``before`` has it,
    a member ``after`` left out); ``None`` when the bytes are the same."""
    return with_nesting_room(lambda pair: _compare(*pair, to_bytes(pair[0]), to_bytes(pair[1])), (before, after))


def _compare(before: Any, after: Any, before_bytes: bytes, after_bytes: bytes) -> tuple[int, str | None]:
    same = _shared_length(before_bytes, after_bytes)
    if same == len(before_bytes) == len(after_bytes):
        return same, None
    return same, field_path(_parting(before, after, same))


def _shared_length(first: bytes, second: bytes) -> int:
    """The length of the longest common prefix of two byte strings, found by halving the range
    (a slice comparison is one ``memcmp``; a loop over bytes would be slow on a long body)."""
    shortest = min(len(first), len(second))
    if first[:shortest] == second[:shortest]:
        return shortest
    same, differs = 0, shortest  # first[:same] == second[:same]; first[:differs] != second[:differs]
    while differs - same > 1:
        middle = (same + differs) // 2
        if first[same:middle] == second[same:middle]:
            same = middle
        else:
            differs = middle
    return same


def _parting(before: Any, after: Any, offset: int) -> list[str | int]:
    """The path down both values to the deepest member or item holding byte ``offset`` of their
    serialisations, the first that differs. Before it the two are written alike, so only the
    later body's members are measured on the way to it, and only the one there is compared;
    the work is at most the body's size times the path's depth."""
    path: list[str | int] = []
    start = 0  # where ``before`` and ``after`` are written in their bodies (the same place)
    while True:
        both_objects = isinstance(before, dict) and isinstance(after, dict)
        if not both_objects and not (isinstance(before, list | tuple) and isinstance(after, list | tuple)):
            return path  # scalars, or values of two kinds: the difference is the value itself
        olds = list(before.items()) if both_objects else list(enumerate(before))
        position = start + 1  # past ``{`` or ``[``
        for index, new in enumerate(_written(after)):
            position += 1 if index else 0  # the ``,`` before it
            end = position + len(new.key) + len(new.value)
            if end < offset:  # the ``,`` or ``}`` after it is written alike too: the same member in both
                position = end
                continue
            if index >= len(olds):  # a member ``before`` has not
                return [*path, new.name]
            old = _member(before, *olds[index])
            if old.key == new.key and old.value == new.value:  # they part right after it
                position = end
                continue
            if old.key != new.key:  # another member here
                return [*path, new.name]
            path.append(new.name)
            start = position + len(new.key)
            before, after = old.item, new.item
            break
        else:  # ``after`` ends where ``before`` has a member more
            return [*path, _member(before, *olds[len(after)]).name]


@dataclass(frozen=True, slots=True)
class _Member:
    """A member of an object (``key`` its ``"name":``) or an item of an array (``key`` empty), as written."""

    name: str | int
    key: bytes
    item: Any
    value: bytes


def _written(container: Any) -> Iterator[_Member]:
    """The members of ``container`` as written, one at a time (a caller may stop early)."""
    items = container.items() if isinstance(container, dict) else enumerate(container)
    return (_member(container, key, item) for key, item in items)


def _member(container: Any, key: Any, item: Any) -> _Member:
    if not isinstance(container, dict):
        return _Member(key, b"", item, to_bytes(item))
    key_text = to_bytes({key: None})[1:-5]  # ``"key":``, as the JSON writer spells any key
    name = key if isinstance(key, str) else json.loads(key_text[:-1])  # a key that is no text: as JSON spells it
    return _Member(name, key_text, item, to_bytes(item))
