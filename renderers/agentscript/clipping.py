"""Context budgets: cutting a value's text to a UTF-16 limit exactly as AgentScript 0.1.5 does.

The rules: a value's text is the string itself, or ``JSON.stringify(value,
null, 2)`` for anything else. Without a limit (``None`` or ``0``), or when the text fits, nothing
changes. Otherwise a string keeps its first ``limit`` UTF-16 units (possibly half a surrogate pair); a
list keeps its longest prefix of items whose text fits, an object its longest prefix of entries in JS
key order (either may end up empty, printing ``[]``/``{}`` even past the limit); numbers, booleans and
null are never cut, and nothing is ever cut *inside* a nested value. There is no "clipped" marker.

Why it is fast on huge values: the pretty text of a prefix of *n* items is ``"[\\n"`` + the items
indented one level + ``"\\n]"``, so its length is a sum over the items. We measure items one by one,
each with a length-only walk that gives up once over budget, and stop at the first item that does not
fit: the work is proportional to the limit, not to the value. Upstream binary-searches the prefix
length; the length grows strictly with *n*, so the first misfit gives the same answer.

The one number that needs the whole value is ``original_size`` of a clipped value. It is computed on
first access (one length-only walk, no text built) and cached, so rendering never pays for it; a trace
that records it pays once (see ``benchmarks/clip_large.py`` for the figures).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from functools import cached_property
from typing import Any

from ...core.records import dataclass_record
from .jsjson import entry_lengths, pretty, pretty_length, utf16_len, utf16_slice

__all__ = ["Clip", "clip", "value_text"]


def value_text(value: object) -> str:
    """The text of a context value or instruction: a string as itself, anything else as pretty JSON."""
    if isinstance(value, str):
        return value
    return pretty(value)


@dataclass_record(frozen=True)
class Clip:
    """The outcome of clipping one value: what is shown, and how much was cut.

    ``value`` is the clipped value (a shorter string, a list or object prefix, or the value itself)
    and ``text`` its text. Sizes are UTF-16 code units. ``original_size`` is a lazy property, not a
    field: for a clipped value it needs one walk over the whole original (see the module docstring).
    """

    value: object
    text: str
    clipped: bool
    clipped_size: int
    original: object = field(repr=False, compare=False)
    known_original_size: int | None = field(default=None, repr=False, compare=False)

    def __init__(
        self,
        value: object,
        text: str,
        clipped: bool,
        clipped_size: int,
        original: object,
        known_original_size: int | None = None,
    ) -> None:
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "clipped", clipped)
        object.__setattr__(self, "clipped_size", clipped_size)
        object.__setattr__(self, "original", original)
        object.__setattr__(self, "known_original_size", known_original_size)

    @cached_property
    def original_size(self) -> int:
        """UTF-16 length of the unclipped text (computed on first access when the value was cut)."""
        if self.known_original_size is not None:
            return self.known_original_size
        if isinstance(self.original, str):
            return utf16_len(self.original)
        return pretty_length(self.original)


def clip(value: object, limit: int | None) -> Clip:
    """Clip ``value``'s text to ``limit`` UTF-16 units; ``None`` or ``0`` means no limit.

    Raises ``ValueError`` for a negative limit (budgets are positive; upstream never sees one).
    """
    if limit is not None and limit < 0:
        raise ValueError(f"a clipping limit cannot be negative (got {limit})")
    if isinstance(value, str):
        return _clip_string(value, limit or 0)
    if limit and isinstance(value, list | tuple):
        return _clip_array(value, limit)
    if limit and isinstance(value, Mapping):
        return _clip_object(value, limit)
    return _whole(value, value_text(value))


def _whole(value: object, text: str) -> Clip:
    size = utf16_len(text)
    return Clip(value, text, False, size, value, size)


def _clip_string(value: str, limit: int) -> Clip:
    # len() counts code points, never more than UTF-16 units: above the limit it surely must be cut.
    if not limit or (len(value) <= limit and utf16_len(value) <= limit):
        return _whole(value, value)
    text = utf16_slice(value, limit)
    return Clip(text, text, True, utf16_len(text), value)


def _clip_array(items: list[object] | tuple[object, ...], limit: int) -> Clip:
    """Longest prefix whose pretty text fits: ``2 + sum(len(item at level 1) + 4)`` (AgentScript's own rule)."""
    total = 2  # "[]"; each item adds its text, its indent, and a newline or comma-newline
    kept = 0
    for item in items:
        grown = total + 4 + pretty_length(item, 1, limit - total - 4)
        if grown > limit:
            break
        total = grown
        kept += 1
    else:
        return _whole(items, pretty(items))
    prefix = items[:kept]
    return Clip(prefix, pretty(prefix), True, total, items)


def _clip_object(obj: Mapping[Any, object], limit: int) -> Clip:
    """Longest prefix of the entries in JS key order: ``2 + sum(len('"key": value') + 4)``."""
    total = 2
    kept: dict[str, object] = {}
    for key, item, length in entry_lengths(obj, 0, limit):
        grown = total + 4 + length
        if grown > limit:
            break
        total = grown
        kept[key] = item
    else:
        return _whole(obj, pretty(obj))
    return Clip(kept, pretty(kept), True, total, obj)
