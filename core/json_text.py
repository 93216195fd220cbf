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

import functools
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .errors import FieldError

__all__ = [
    "check_json_data",
    "check_json_values",
    "dumps",
    "escape_surrogates",
    "json_object",
    "json_writer",
    "safe_json",
    "to_bytes",
    "too_many_digits",
]


@functools.cache
def _surrogates() -> re.Pattern[str]:
    """A valid pair (one JS character) or a lone half (escaped as JSON.stringify escapes it).
    Compiled when first asked for (see :func:`~promptwire.core.printable.unsafe`): only text that
    is not ASCII is searched."""
    return re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def escape_surrogates(json_text: str) -> str:
    """``json_text`` (JSON, or the inside of a JSON string) with each lone surrogate written as a
    ``\\udXXX`` escape and each pair of surrogate code points joined into its character.

    Outside strings JSON is ASCII, so every surrogate is inside a string, where the escape means
    the same code unit.
    """
    if json_text.isascii() or _surrogates().search(json_text) is None:
        return json_text
    return _surrogates().sub(_fixed, json_text)


def _fixed(match: re.Match[str]) -> str:
    found = match.group()
    if len(found) == 2:
        high, low = ord(found[0]), ord(found[1])
        return chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    return f"\\u{ord(found):04x}"


@functools.cache
def _unsafe_in_json() -> re.Pattern[str]:
    """What :func:`safe_json` escapes; compiled when first asked for (see
    :func:`~promptwire.core.printable.unsafe`): of ASCII it is DEL alone."""
    return re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def safe_json(text: str) -> str:
    """JSON text with what a terminal acts on written as ``\\uXXXX`` escapes (inside JSON strings,
    the only place such characters can be, that is the same data): what ``asrender`` prints and the
    results lines a batch writes."""
    if text.isascii() and "\x7f" not in text:
        return text
    return _unsafe_in_json().sub(lambda match: f"\\u{ord(match.group()):04x}", text)


_ONLY_TEXT = frozenset({str})


def all_text(values: Iterable[Any]) -> bool:
    """Whether every one of ``values`` (a mapping's keys, a history's roles) is exactly a ``str``,
    told in C: ``all(type(key) is str for key in ...)`` makes a generator a call, which cost more
    than the rest of the test for each of 50,000 small dicts."""
    return _ONLY_TEXT.issuperset(map(type, values))


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **options)``, with half characters escaped."""
    return escape_surrogates(json.dumps(value, ensure_ascii=False, **options))


def json_writer(*, separators: tuple[str, str] = (", ", ": "), allow_nan: bool = True) -> Callable[[Any], str]:
    """``json.dumps(value, ensure_ascii=False, separators=separators, allow_nan=allow_nan)`` as a
    function that does it for many values (a call's arguments, one per tool call of a
    conversation; a request body, one per call): ``json.dumps`` builds a new encoder for each call
    given an option, three quarters of the cost of a small value. The encoder is built once
    without the cycle check, whose marks would outlive a failed call; a value that ends in
    ``RecursionError`` is written again the checked way, which names a cycle as ``json.dumps``
    does (``ValueError``), so the text and every error are ``json.dumps``'s."""
    checked = json.JSONEncoder(ensure_ascii=False, separators=separators, allow_nan=allow_nan)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - an interpreter without the C module
        return checked.encode
    items, keys = separators
    encode = make(None, checked.default, json.encoder.encode_basestring, None, keys, items, False, False, allow_nan)

    def write(value: Any) -> str:
        try:
            return "".join(encode(value, 0))
        except RecursionError:
            return checked.encode(value)

    return write


def to_bytes(value: Any) -> bytes:
    """A request body: compact JSON in UTF-8, keys in the order given, as ``JSON.stringify(body)``
    writes its characters (and, as the providers' SDKs refuse them, no NaN or infinities)."""
    return escape_surrogates(_compact(value)).encode("utf-8")


_compact = json_writer(separators=(",", ":"), allow_nan=False)
"""``json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)`` with its C
encoder made once: ``json.JSONEncoder.encode`` builds one on every call (a fifth of the
instructions of the benchmark's request body, sent once per call)."""


_NO_JSON_FORM = {
    "set": "a set has no JSON form; use a list",
    "frozenset": "a set has no JSON form; use a list",
    "bytes": "bytes have no JSON form; give text (base64 for binary data)",
    "date": "a date has no JSON form; give it as text",
    "datetime": "a date has no JSON form; give it as text",
    "time": "a time has no JSON form; give it as text",
}


def too_many_digits(number: int) -> bool:
    """Whether ``number`` has more digits than Python converts to text (``str()`` and every JSON
    writer would raise ``ValueError``), told without converting it."""
    limit = sys.get_int_max_str_digits()
    return limit > 0 and number.bit_length() > 3 * limit and abs(number) >= 10**limit


def check_json_data(value: Any, path: Sequence[str | int]) -> None:
    """Refuse, naming the place under ``path``, anything in ``value`` that is not JSON data: a
    set, bytes, a date (YAML's ``!!set``, ``!!binary``, ``!!timestamp``), any other object, a
    mapping key that is not text, NaN or an infinity, an integer longer than Python prints
    (``sys.get_int_max_str_digits()``). For the fields that are JSON by definition (a tool's
    parameter schema, a call's arguments, the output schema): every format and every request
    prints them as JSON. A walk with a stack, not recursion: they may nest as deep as any value."""
    if _plainly_json(value):
        return
    stack: list[tuple[tuple[str | int, ...], Any]] = [(tuple(path), value)]
    while stack:
        where, node = stack.pop()
        kind = type(node)
        if kind is str or kind is bool or node is None:
            continue
        if kind is int:
            if too_many_digits(node):
                raise FieldError(
                    where, f"an integer of more than {sys.get_int_max_str_digits()} digits; give it as text"
                )
            continue
        if kind is float:
            if not math.isfinite(node):
                raise FieldError(where, f"{node} has no JSON form")
            continue
        if isinstance(node, Mapping):
            for key, item in node.items():
                if not isinstance(key, str):
                    raise FieldError(where, f"the key {key!r} is not text (a JSON key is text)")
                stack.append(((*where, key), item))
        elif isinstance(node, list | tuple):
            stack.extend(((*where, index), item) for index, item in enumerate(node))
        elif isinstance(node, str | int | float):  # a subclass (an Enum's str or int member) prints as its value
            continue
        else:
            name = kind.__name__
            raise FieldError(where, _NO_JSON_FORM.get(name, f"a {name} is not JSON data"))


def check_json_values(values: Sequence[tuple[Sequence[str | int], Any]]) -> None:
    """:func:`check_json_data` for each value at its path: values of plain JSON data (the usual
    ones: a tool call's arguments, one per turn of a conversation) are told so in one pass over
    them all; when any is not, each is checked in turn, and the first refused is named."""
    if _plainly_json([value for _, value in values]):
        return
    for path, value in values:
        check_json_data(value, path)


def _plainly_json(value: Any) -> bool:
    """Whether ``value`` is JSON data made of the plain types only (dict, list, tuple, str, int,
    float, bool, None), told without the paths :func:`check_json_data` keeps for its message: a
    tool's schema or a call's arguments is checked in one pass that builds nothing. ``False`` sends
    the value to the walk that names the place, which has the last word (an ``Enum`` member or a
    ``Mapping`` that is not a dict is data too)."""
    stack = [value]
    while stack:
        node = stack.pop()
        kind = node.__class__
        if kind is str or kind is bool or node is None:
            continue
        if kind is dict:
            if not _ONLY_TEXT.issuperset(map(type, node)):  # all_text's test, without its call
                return False
            stack.extend(node.values())
        elif kind is list or kind is tuple:
            stack.extend(node)
        elif kind is int:
            if node.bit_length() > 64 and too_many_digits(node):  # Python prints at least 640 digits
                return False
        elif kind is not float or not math.isfinite(node):
            return False
    return True


def json_object(text: str) -> dict[str, Any] | None:
    """A tool call's argument text (a provider's JSON string) read as its object; ``None`` when the
    text is not a JSON object (a model's broken JSON stays as its text, in ``arguments_text``)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
