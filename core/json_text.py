"""JSON text that any encoder can carry: half a character written as a ``\\udXXX`` escape.

A Python ``str`` may hold half of a surrogate pair: a budget counted in UTF-16 units cuts an emoji
in two (AgentScript keeps JavaScript's exact prompt), and JSON input may spell one (``"\\ud83d"``).
JavaScript's ``JSON.stringify`` writes such a half as an escape (well-formed JSON.stringify,
ES2019), so that is what the reference sends a provider. ``json.dumps(..., ensure_ascii=False)``
leaves the code point raw instead, which no UTF-8 encoder takes (the providers' SDKs fail with a
UnicodeEncodeError), and replacing it by U+FFFD would send other bytes than the reference does. Two
halves side by side that form a pair are one character to JavaScript, and are written as that
character.

Every JSON text promptwire writes goes through :func:`dumps`: request bodies (:func:`to_bytes`),
``asrender``'s JSON outputs, the inspector's replies, snapshot files. Text shown to a person (a
terminal display) is another matter: there half a character may show as U+FFFD.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["dumps", "escape_surrogates", "to_bytes"]

# A valid pair (one JS character) or a lone half (escaped as JSON.stringify escapes it).
_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def escape_surrogates(json_text: str) -> str:
    """``json_text`` (JSON, or the inside of a JSON string) with each lone surrogate written as a
    ``\\udXXX`` escape and each pair of surrogate code points joined into its character.

    Outside strings JSON is ASCII, so every surrogate is inside a string, where the escape means
    the same code unit.
    """
    if json_text.isascii() or _SURROGATES.search(json_text) is None:
        return json_text
    return _SURROGATES.sub(_fixed, json_text)


def _fixed(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) == 2:
        high, low = ord(found[0]), ord(found[1])
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    return f"\\u{ord(found):04x}"


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)``, with half characters escaped."""
    return escape_surrogates(json.dumps(value, ensure_ascii=False, **options))


def to_bytes(value: Any) -> bytes:
    """A request body: compact JSON in UTF-8, keys in the order given, as ``JSON.stringify(body)``
    writes its characters (and, as the providers' SDKs refuse them, no NaN or infinities)."""
    return dumps(value, separators=(",", ":"), allow_nan=False).encode("utf-8")
