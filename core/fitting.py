"""Fitting a value into a budget in any format: the generic half of clipping.

A budget bounds the text the model reads *in the format being rendered*, so the format supplies
its text form of a value (a :class:`TextForm`) and this module finds what fits. The rule is the one
AgentScript defined and every format shares: a string keeps its first ``limit`` units; a list keeps
its longest prefix of items, a mapping its longest prefix of entries, whose text fits (possibly
none); any other value, and anything nested, is shown whole. There is no "clipped" marker.

Why it is linear: the text of a prefix grows with its length, so a galloping search (prefixes of 1,
2, 4, ... items, then halving) finds the longest fitting prefix with O(log n) texts built, each no
larger than about twice what fits plus one item. The whole value's text is never built when it does
not fit. (AgentScript's own clipping, measured in UTF-16 units of JavaScript's JSON, has a faster
length-only walk of its own beside the agentscript renderer.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Fitted", "TextForm", "fit"]


@dataclass(frozen=True)
class TextForm:
    """How one format prints a value and counts the length of text.

    ``text`` gives a whole value's text as the format prints it; ``length`` counts a text in the
    units a budget counts (code points unless the format says otherwise); ``cut`` keeps the first
    ``n`` units of a string.
    """

    text: Callable[[Any], str]
    length: Callable[[str], int] = len
    cut: Callable[[str, int], str] = lambda text, units: text[:units]


@dataclass(frozen=True)
class Fitted:
    """What is shown of a value under a budget: the kept ``value``, its ``text``, whether anything was cut."""

    value: Any
    text: str
    clipped: bool


def fit(value: Any, limit: int | None, form: TextForm) -> Fitted:
    """The part of ``value`` whose text in ``form`` fits ``limit`` units (``None``: no limit)."""
    if isinstance(value, str):
        if limit is None or form.length(value) <= limit:
            return Fitted(value, form.text(value), False)
        kept = form.cut(value, limit)
        return Fitted(kept, form.text(kept), True)
    if limit is None or not isinstance(value, list | tuple | Mapping):
        return Fitted(value, form.text(value), False)
    items: list[Any] = list(value.items()) if isinstance(value, Mapping) else list(value)
    rebuild: Callable[[list[Any]], Any] = (
        dict if isinstance(value, Mapping) else list if isinstance(value, list) else tuple
    )

    def text_of(count: int) -> str:
        return form.text(rebuild(items[:count]))

    fits, fitting_text = 0, text_of(0)
    misfit = None  # the shortest prefix known not to fit
    step = 1
    while misfit is None and fits < len(items):
        probe = min(fits + step, len(items))
        text = text_of(probe)
        if form.length(text) <= limit:
            fits, fitting_text = probe, text
            step *= 2
        else:
            misfit = probe
    if misfit is None:
        return Fitted(value, fitting_text, False)
    while misfit - fits > 1:
        probe = (fits + misfit) // 2
        text = text_of(probe)
        if form.length(text) <= limit:
            fits, fitting_text = probe, text
        else:
            misfit = probe
    return Fitted(rebuild(items[:fits]), fitting_text, True)
