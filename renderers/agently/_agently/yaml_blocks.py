"""The YAML bodies of Agently's sections, exactly as ``yaml.safe_dump(value, allow_unicode=True)`` writes them.

PyYAML's pure-Python emitter costs more than the rest of a render put together, so the common shape
(dicts, lists and tuples of short, plain strings, ints, floats, bools and None) is written by a small
emitter here, which follows PyYAML's rules for that shape: sorted keys, block style, sequences not
indented under mapping keys, ``{}``/``[]`` for empty containers. Anything outside it (a string that
would need quotes or folding at width 80, a set, a line longer than 80 columns) goes to PyYAML.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import yaml
from yaml.resolver import Resolver

from .errors import Unrenderable
from .sanitize import sanitize
from .slots import replace_slots

_WIDTH = 80
_STR_TAG = "tag:yaml.org,2002:str"
_IMPLICIT = Resolver.yaml_implicit_resolvers
_WILDCARD = _IMPLICIT.get(None, [])
_FIRST_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
_INF = float("inf")


class _Fallback(Exception):
    """The value is outside the shape the fast emitter knows; let PyYAML write it."""


class _Shared(Exception):
    """The value holds a container in two places (only looked for when anchors are wanted)."""


def _enter(value: Any, seen: set[int] | None) -> None:
    if seen is not None:
        if id(value) in seen:
            raise _Shared
        seen.add(id(value))


def _resolves_to_str(text: str) -> bool:
    for tag, regexp in _IMPLICIT.get(text[0], []) + _WILDCARD:
        if regexp.match(text):
            return bool(tag == _STR_TAG)
    return True


def _is_plain_char(ch: str) -> bool:
    if " " <= ch <= "~" or "\ue000" <= ch <= "\ufffd":
        return ch != "\ufeff"
    return "\xa0" <= ch <= "\ud7ff" and ch != "\u2028" and ch != "\u2029"


def _plain(text: str) -> str:
    """``text`` as PyYAML writes it when that is a plain (unquoted) scalar; else fall back."""
    if (
        not text
        or text[0] == " "
        or text[-1] == " "
        or text[-1] == ":"
        or text[0] in _FIRST_INDICATORS
        or (text[0] in "?:-" and (len(text) == 1 or text[1] == " "))
        or text.startswith(("---", "..."))
        or ": " in text
        or " #" in text
        or "${" in text  # a slot reference: the raw value needs Agently's replacement first
        or not ((text.isascii() and text.isprintable()) or all(_is_plain_char(ch) for ch in text))
        or not _resolves_to_str(text)
    ):
        raise _Fallback
    return text


def _scalar(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return _plain(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    if kind is float:
        if value != value:
            return ".nan"
        if value == _INF:
            return ".inf"
        if value == -_INF:
            return "-.inf"
        text = repr(value).lower()
        if "." not in text and "e" in text:
            text = text.replace("e", ".0e", 1)
        return text
    raise _Fallback


def _line(text: str, lines: list[str]) -> None:
    if len(text) > _WIDTH:
        raise _Fallback
    lines.append(text)


_KEY_CACHE: dict[str, str] = {}
_KEY_CACHE_SIZE = 1024
_KEY_CACHE_LENGTH = 64  # entries x length bounds the cache's memory


def _plain_key(key: str) -> str:
    """``_plain`` for a mapping key; keys repeat across the items of a list, so short ones are cached."""
    cached = _KEY_CACHE.get(key)
    if cached is not None:
        return cached
    if type(key) is not str:
        raise _Fallback  # sanitize writes other keys with str(): the slow path does that
    text = _plain(key)
    if len(key) <= _KEY_CACHE_LENGTH and type(key) is str:
        if len(_KEY_CACHE) >= _KEY_CACHE_SIZE:
            _KEY_CACHE.clear()
        _KEY_CACHE[key] = text
    return text


def _mapping(value: dict[str, Any], indent: int, lead: str, lines: list[str], seen: set[int] | None) -> None:
    _enter(value, seen)
    pad = " " * indent
    # Keys are unique, so sorting the pairs compares keys only. The common scalars are written
    # here rather than through _value: this loop runs once per entry of every mapping.
    for key, item in sorted(value.items()):
        head = lead + _plain_key(key) + ":"
        lead = pad
        kind = type(item)
        if kind is str and item.isalnum() and item.isascii() and item[0].isalpha() and item not in _NOT_TEXT_WORDS:
            text = head + " " + item
        elif kind is int:
            text = head + " " + str(item)
        else:
            _value(item, indent, head, lines, seen)
            continue
        if len(text) > _WIDTH:
            raise _Fallback
        lines.append(text)


# A plain scalar PyYAML writes as it is, whatever its neighbours: ASCII word characters and single
# inner spaces, starting with a letter. Only a few such words resolve to something else than text.
_NOT_SIMPLE_CHAR = re.compile(r"[^A-Za-z0-9_./\- \n]")
_BAD_LINE_START = re.compile(r"^[^A-Za-z_]", re.MULTILINE)
_NOT_TEXT_WORDS = frozenset(
    [
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "null",
        "Null",
        "NULL",
    ]
)


def _simple_text(texts: list[str]) -> bool:
    joined = "\n".join(texts)
    return (
        joined.count("\n") == len(texts) - 1
        and _NOT_SIMPLE_CHAR.search(joined) is None
        and "  " not in joined
        and " \n" not in joined
        and not joined.endswith(" ")
        and _BAD_LINE_START.search(joined) is None
        and min(map(len, texts)) > 0
        and _NOT_TEXT_WORDS.isdisjoint(texts)
    )


def _simple_items(value: list[Any] | tuple[Any, ...], room: int) -> list[str] | None:
    """The items' texts when the whole sequence is plain words or ints that fit ``room`` columns.

    Long lists of short items are common in prompt data; checking them at C speed (one regular
    expression over the joined text, one set of the item types) keeps a render linear and cheap.
    """
    if not value:
        return None
    kinds = set(map(type, value))
    if kinds == {int}:
        texts = list(map(str, value))
    elif kinds == {str}:
        texts = list(value)
        if not _simple_text(texts):
            return None
    else:
        return None
    if max(map(len, texts)) > room:
        return None
    return texts


def _sequence(
    value: list[Any] | tuple[Any, ...], indent: int, lead: str, lines: list[str], seen: set[int] | None
) -> None:
    _enter(value, seen)
    pad = " " * indent
    # Every line of the sequence starts ``indent`` columns in (``lead`` is as long as the pad).
    simple = _simple_items(value, _WIDTH - indent - 2)
    if simple is not None:
        lines.append(lead + "- " + f"\n{pad}- ".join(simple))  # one entry, several lines
        return
    for item in value:
        head = lead + "- "
        lead = pad
        kind = type(item)
        if kind is dict and item:
            _mapping(item, indent + 2, head, lines, seen)
        elif (kind is list or kind is tuple) and item:
            _sequence(item, indent + 2, head, lines, seen)
        else:
            _line(head + _inline(item), lines)


def _inline(value: Any) -> str:
    kind = type(value)
    if kind is dict:
        return "{}"
    if kind is list or kind is tuple:
        return "[]"
    return _scalar(value)


def _value(value: Any, indent: int, head: str, lines: list[str], seen: set[int] | None) -> None:
    kind = type(value)
    if kind is dict and value:
        _line(head, lines)
        _mapping(value, indent + 2, " " * (indent + 2), lines, seen)
    elif (kind is list or kind is tuple) and value:
        _line(head, lines)
        _sequence(value, indent, " " * indent, lines, seen)
    else:
        _line(head + " " + _inline(value), lines)


def pyyaml_dump(value: Any) -> str:
    """PyYAML itself, with Agently's arguments; its refusals become :class:`Unrenderable`."""
    try:
        return yaml.safe_dump(value, allow_unicode=True)
    except yaml.representer.RepresenterError as error:
        culprit = error.args[1] if len(error.args) > 1 else None
        raise Unrenderable(
            f"YAML cannot represent {culprit!r} ({type(culprit).__name__}); "
            f"Agently 4.1.4.10 fails with: RepresenterError{error.args!r}"
        ) from None


def _emit(value: Any, seen: set[int] | None) -> str:
    """The fast emitter on a non-empty dict, list or tuple; raises _Fallback outside its shape."""
    lines: list[str] = []
    if type(value) is dict:
        _mapping(value, 0, "", lines, seen)
    else:
        _sequence(value, 0, "", lines, seen)
    lines.append("")
    return "\n".join(lines)


def dump_yaml(value: Any) -> str:
    """``yaml.safe_dump(value, allow_unicode=True)`` for sanitized data (a dict, list, tuple or set)."""
    kind = type(value)
    if kind is dict or kind is list or kind is tuple:
        if not value:
            return "{}\n" if kind is dict else "[]\n"
        try:
            return _emit(value, None)
        except _Fallback:
            pass
    return pyyaml_dump(value)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _as_is(value: Any, seen: dict[int, bool]) -> bool:
    """Whether slot replacement and sanitize would give back an equal value: plain JSON-like data
    with text keys and no ``${`` anywhere. Checked per container at C speed, so the common case
    skips two rebuilding walks. ``seen`` remembers each container's answer, so a container held in
    many places (YAML aliases) is looked at once; its length then exceeds the number of
    containers walked, which tells the caller the value shares parts."""
    kind = type(value)
    if kind is dict:
        if set(map(type, value)) != {str} and value:
            return False
        items: Any = value.values()
    elif kind is list or kind is tuple:
        items = value
    else:
        return kind in _SCALARS and (kind is not str or "${" not in value)
    known = seen.get(id(value))
    if known is not None:
        seen[_SHARED] = True
        return known
    kinds = set(map(type, items))
    answer = True
    if str in kinds:
        texts = [item for item in items if type(item) is str] if len(kinds) > 1 else items
        answer = "${" not in "\n".join(texts)
    if answer and not kinds <= _SCALARS:
        answer = all(_as_is(item, seen) for item in items if type(item) not in _SCALARS)
    seen[id(value)] = answer
    return answer


_SHARED = -1  # no object has this id: the key under which _as_is notes a shared container

_ANCHORS: ContextVar[bool] = ContextVar("agently_yaml_anchors", default=False)


@contextmanager
def shared_parts_as_anchors() -> Iterator[None]:
    """Inside the block, a section whose value holds a container in several places is written with
    YAML anchors and aliases. Agently copies such a value into a tree first (so ``AgentlyPrompt``
    does not do this); the ``agently`` renderer does, so its time stays linear in the prompt."""
    token = _ANCHORS.set(True)
    try:
        yield
    finally:
        _ANCHORS.reset(token)


def section_body(value: Any, titles: Any) -> str:
    """The body of one YAML section: ``str()`` of a scalar, else the YAML dump (trailing newline kept)."""
    kind = type(value)
    if (kind is dict or kind is list or kind is tuple) and value:
        # Plain data with text keys and no slot reference is what sanitize and slot replacement
        # give back unchanged: write it as it is, and skip two walks that rebuild it.
        try:
            return _emit(value, set() if _ANCHORS.get() else None)
        except (_Fallback, TypeError):  # TypeError: keys of several types cannot be sorted
            pass
        except _Shared:
            if _as_is(value, {}):
                # Parts held in several places: PyYAML writes them once, with anchors and aliases,
                # where walking them as a tree would take time (and text) exponential in the sharing.
                return pyyaml_dump(value)
    if not _ANCHORS.get():
        sanitized = sanitize(replace_slots(value, titles))
        if isinstance(sanitized, (str, int, float, bool)) or sanitized is None:
            return str(sanitized)
        return dump_yaml(sanitized)
    # Rebuilt with memos, shared parts stay shared, and are written once with anchors.
    sanitized = sanitize(replace_slots(value, titles, {}), memo={})
    if isinstance(sanitized, (str, int, float, bool)) or sanitized is None:
        return str(sanitized)
    if type(sanitized) in (dict, list, tuple) and sanitized:
        try:
            return _emit(sanitized, set())
        except (_Fallback, _Shared, TypeError):
            return pyyaml_dump(sanitized)
    return dump_yaml(sanitized)
