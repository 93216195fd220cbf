"""Quick fixes for the diagnostics that have one obvious fix: a misspelt name the language knows.

An unknown ``generate`` option, an unknown shape type and an unknown model each name a word that
may be one of a known set (the options and types the checks accept, the file's ``llm`` imports).
When exactly one known word is close to it (:func:`difflib.get_close_matches`), replacing it is
the fix; with none, or several, there is no obvious one and none is offered.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

__all__ = ["FIXABLE", "fix"]

FIXABLE = frozenset({"UNKNOWN_GENERATE_OPTION", "UNKNOWN_SHAPE_TYPE", "UNKNOWN_MODEL"})
_QUOTED = re.compile(r"'([^']*)'")


def fix(code: str, message: str, text: str, start: int, models: Iterable[str]) -> tuple[int, int, str] | None:
    """The edit that fixes the diagnostic ``code`` with ``message`` found at offset ``start`` of
    ``text``: the offsets of the misspelt word and its replacement; ``None`` when there is no
    single obvious fix. ``models`` are the names of the file's ``llm`` imports."""
    from ..agentscript.analyzer import SHAPE_TYPE_NAMES
    from .completion import GENERATE_OPTIONS

    quoted = _QUOTED.search(message)
    if code not in FIXABLE or quoted is None:
        return None
    word = quoted.group(1)
    if not word or text[start : start + len(word)] != word:
        return None
    known = {
        "UNKNOWN_GENERATE_OPTION": GENERATE_OPTIONS,
        "UNKNOWN_SHAPE_TYPE": sorted(SHAPE_TYPE_NAMES),
        "UNKNOWN_MODEL": sorted(models),
    }[code]
    close = difflib.get_close_matches(word, known, n=2, cutoff=0.7)
    if len(close) != 1:
        return None
    return start, start + len(word), close[0]
