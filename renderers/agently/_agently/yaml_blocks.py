"""The YAML bodies of Agently's sections, exactly as ``yaml.safe_dump(value, allow_unicode=True)`` writes them.

PyYAML's pure-Python emitter costs more than the rest of a render put together (it walks events
and analyses every scalar character by character), so the shape prompt data has (dicts, lists and
tuples of strings, ints, floats, bools and None) is written by a small emitter here, which follows
PyYAML's rules for it: sorted keys, block style, sequences not indented under mapping keys,
``{}``/``[]`` for empty containers, and for each string PyYAML's choice of style (plain,
single-quoted or double-quoted with escapes), folded at width 80 as PyYAML folds it. What stays
outside (a set, a key of another type, a key PyYAML writes as a ``?`` complex key, a container held
in two places, which PyYAML writes with anchors) goes to PyYAML itself.
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

_WIDTH = 80  # PyYAML's best_width
_STR_TAG = "tag:yaml.org,2002:str"
_IMPLICIT = Resolver.yaml_implicit_resolvers
_WILDCARD: list[tuple[str, re.Pattern[str]]] = _IMPLICIT.get(None) or []
_INF = float("inf")


class _Fallback(Exception):
    """The value is outside the shape the fast emitter knows; let PyYAML write it."""


class _Shared(Exception):
    """The value holds a container in two places (only looked for when anchors are wanted)."""


class _Writer:
    """What one emission collects: the lines and the containers met (when sharing must be detected).

    ``titles`` is set when the value is a raw prompt value: then each string has its slot
    references replaced and each other leaf is sanitized as it is written, which is what
    ``sanitize(replace_slots(value))`` does to them, without rebuilding the value twice first.
    """

    __slots__ = ("lines", "seen", "titles")

    def __init__(self, seen: set[int] | None, titles: Any) -> None:
        self.lines: list[str] = []
        self.seen = seen
        self.titles = titles

    def enter(self, value: Any) -> None:
        seen = self.seen
        if seen is not None:
            if id(value) in seen:
                raise _Shared
            seen.add(id(value))


# --- scalars: PyYAML's analyze_scalar, choose_scalar_style and writers, for block context ---------

_BREAKS = "\n\x85\u2028\u2029"
# The characters PyYAML writes as they are with allow_unicode: printable ASCII, and Unicode but
# for U+FEFF, surrogates, U+FFFE/U+FFFF and U+10FFFF (and the breaks, handled apart).
_KEPT = "\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010fffe"
# Something that rules out the plain style in block context: a leading or trailing space, an
# indicator where a reader would take it for syntax, a line break, or a character that needs an
# escape (a tab, a control character...).
_NOT_PLAIN = re.compile(r"^(?:[ #,\[\]{}&*!|>'\"%@`]|---|\.\.\.|[-?](?: |\Z))| \Z|:(?: |\Z)| #" + f"|[^{_KEPT}]")
# Something that rules out the single-quoted style: a character that needs an escape, or a space
# next to a line break.
_NOT_SINGLE = re.compile(f"[^\n\x85{_KEPT}\u2028\u2029]|[{_BREAKS}] | [{_BREAKS}]")
_SINGLE_TOKENS = re.compile(f"( +)|([{_BREAKS}]+)|[^ {_BREAKS}]+")
# What the double-quoted style escapes (it keeps fewer characters than the others: no astral ones).
_ESCAPED = re.compile('["\\\\\x85\u2028\u2029\ufeff]|[^\x20-\x7e\xa0-\ud7ff\ue000-\ufffd]')
_ESCAPES = {
    "\0": "0",
    "\x07": "a",
    "\x08": "b",
    "\x09": "t",
    "\x0a": "n",
    "\x0b": "v",
    "\x0c": "f",
    "\x0d": "r",
    "\x1b": "e",
    '"': '"',
    "\\": "\\",
    "\x85": "N",
    "\xa0": "_",
    "\u2028": "L",
    "\u2029": "P",
}


# PyYAML's implicit resolvers by first character (with the ones for any character after them).
_RESOLVERS = {first: [*resolvers, *_WILDCARD] for first, resolvers in _IMPLICIT.items() if first is not None}


def _resolves_to_str(text: str) -> bool:
    for tag, regexp in _RESOLVERS.get(text[0], _WILDCARD):
        if regexp.match(text):
            return bool(tag == _STR_TAG)
    return True


def _is_plain(text: str) -> bool:
    return bool(text) and _NOT_PLAIN.search(text) is None and _resolves_to_str(text)


def _escape(ch: str) -> str:
    named = _ESCAPES.get(ch)
    if named is not None:
        return "\\" + named
    if ch <= "\xff":
        return f"\\x{ord(ch):02X}"
    if ch <= "\uffff":
        return f"\\u{ord(ch):04X}"
    return f"\\U{ord(ch):08X}"


def _escape_match(match: re.Match[str]) -> str:
    return _escape(match.group())


def _fold_plain(text: str, column: int, indent: int) -> str:
    """PyYAML's write_plain: a single space after column 80 becomes a line break (no breaks inside)."""
    parts: list[str] = []
    pad = "\n" + " " * indent
    for number, chunk in enumerate(re.split("( +)", text)):
        if number % 2 and len(chunk) == 1 and column > _WIDTH:
            parts.append(pad)
            column = indent
        else:
            parts.append(chunk)
            column += len(chunk)
    return "".join(parts)


def _single_quoted(text: str, column: int, indent: int) -> str:
    """PyYAML's write_single_quoted: quotes doubled, line breaks doubled, folded after column 80."""
    quoted = text.replace("'", "''")
    if column + len(quoted) + 2 <= _WIDTH and not any(br in text for br in _BREAKS):
        return "'" + quoted + "'"
    parts = ["'"]
    column += 1
    pad = " " * indent
    last = len(text)
    for match in _SINGLE_TOKENS.finditer(text):
        chunk = match.group()
        if match.group(1) is not None:
            if len(chunk) == 1 and column > _WIDTH and match.start() != 0 and match.end() != last:
                parts.append("\n" + pad)
                column = indent
                continue
        elif match.group(2) is not None:
            parts.append(("\n" if chunk[0] == "\n" else "") + chunk + pad)
            column = indent
            continue
        else:
            chunk = chunk.replace("'", "''")
        parts.append(chunk)
        column += len(chunk)
    parts.append("'")
    return "".join(parts)


def _double_quoted(text: str, column: int, indent: int, split: bool) -> str:
    """PyYAML's write_double_quoted: escapes, and past column 80 a ``\\`` line continuation."""
    escaped = _ESCAPED.sub(_escape_match, text)
    if not split or column + len(escaped) + 2 <= _WIDTH:
        return '"' + escaped + '"'
    # Folding depends on the column after every escape: PyYAML's loop, character by character.
    parts = ['"']
    column += 1
    pad = "\n" + " " * indent
    start = end = 0
    last = len(text)
    while end <= last:
        ch = text[end] if end < last else None
        if ch is None or _ESCAPED.match(ch):
            if start < end:
                parts.append(text[start:end])
                column += end - start
                start = end
            if ch is not None:
                data = _escape(ch)
                parts.append(data)
                column += len(data)
                start = end + 1
        if 0 < end < last - 1 and (ch == " " or start >= end) and column + (end - start) > _WIDTH:
            data = text[start:end] + "\\"
            if start < end:
                start = end
            parts.append(data)
            parts.append(pad)
            column = indent
            if text[start] == " ":
                parts.append("\\")
                column += 1
        end += 1
    parts.append('"')
    return "".join(parts)


def _text(text: str, column: int, indent: int) -> str:
    """A string value as PyYAML writes it when it starts at ``column``; folded lines start at ``indent``."""
    if _is_plain(text):
        if column + len(text) <= _WIDTH:
            return text
        return _fold_plain(text, column, indent)
    if _NOT_SINGLE.search(text) is None:
        return _single_quoted(text, column, indent)
    return _double_quoted(text, column, indent, True)


# PyYAML writes a key as a simple key while it and its tag (``!!str``) are under 128 characters.
_SIMPLE_KEY_LENGTH = 128 - len("!!str") - 1
_KEY_CACHE: dict[str, str] = {}
_KEY_CACHE_SIZE = 1024
_KEY_CACHE_LENGTH = 64  # entries x length bounds the cache's memory


def _key(key: Any) -> str:
    """A mapping key as PyYAML writes a simple key (never folded); keys repeat across the items of
    a list, so short ones are cached."""
    cached = _KEY_CACHE.get(key) if type(key) is str else None
    if cached is not None:
        return cached
    if type(key) is not str:
        raise _Fallback  # sanitize writes other keys with str(): the slow path does that
    if not key or len(key) > _SIMPLE_KEY_LENGTH or any(br in key for br in _BREAKS):
        raise _Fallback  # PyYAML writes it as a complex key (``? key``)
    if _is_plain(key):
        text = key
    elif _NOT_SINGLE.search(key) is None:
        text = "'" + key.replace("'", "''") + "'"
    else:
        text = _double_quoted(key, 0, 0, False)
    if len(key) <= _KEY_CACHE_LENGTH:
        if len(_KEY_CACHE) >= _KEY_CACHE_SIZE:
            _KEY_CACHE.clear()
        _KEY_CACHE[key] = text
    return text


def _raw_text(text: str, column: int, indent: int, out: _Writer) -> str:
    """A string of the value as given: its slot references replaced first (raw values only)."""
    if out.titles is not None and "${" in text:
        text = replace_slots(text, out.titles)
    return _text(text, column, indent)


_EXACT_SCALARS = frozenset({str, int, float, bool, type(None)})


def _leaf(value: Any, out: _Writer) -> Any:
    """What Agently prints for a leaf of another type (a date, a class, an object): in a raw value,
    ``sanitize(replace_slots(leaf))`` when that is a plain scalar; anything else is PyYAML's."""
    if out.titles is None:
        raise _Fallback
    try:
        printed = sanitize(replace_slots(value, out.titles))
    except Exception:
        raise _Fallback from None  # the slow path raises it, in the order Agently meets it
    if type(printed) not in _EXACT_SCALARS:
        raise _Fallback
    return printed


def _scalar(value: Any, column: int, indent: int, out: _Writer) -> str:
    kind = type(value)
    if kind is str:
        return _raw_text(value, column, indent, out)
    if kind not in _EXACT_SCALARS:
        value = _leaf(value, out)
        kind = type(value)
        if kind is str:
            return _text(value, column, indent)
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
    raise _Fallback  # pragma: no cover - every exact scalar type is handled above


# --- containers ------------------------------------------------------------------------------------


def _mapping(value: dict[str, Any], indent: int, lead: str, out: _Writer) -> None:
    """A block mapping whose keys start at column ``indent`` (the first line starts with ``lead``)."""
    out.enter(value)
    lines = out.lines
    pad = " " * indent
    # Keys are unique, so sorting the pairs compares keys only. The common scalars are written
    # here rather than through _value: this loop runs once per entry of every mapping.
    for key, item in sorted(value.items()):
        head = lead + _key(key) + ":"
        lead = pad
        kind = type(item)
        if kind is str:
            if item.isalnum() and item.isascii() and item[0].isalpha() and item not in _NOT_TEXT_WORDS:
                lines.append(head + " " + item)
            else:
                lines.append(head + " " + _raw_text(item, len(head) + 1, indent + 2, out))
        elif kind is int:
            lines.append(head + " " + str(item))
        elif (kind is dict or kind is list or kind is tuple) and item:
            lines.append(head)
            if kind is dict:
                _mapping(item, indent + 2, pad + "  ", out)
            else:
                _sequence(item, indent, pad, out)  # not indented under the key
        else:
            lines.append(head + " " + _inline(item, len(head) + 1, indent + 2, out))


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


def _sequence(value: list[Any] | tuple[Any, ...], indent: int, lead: str, out: _Writer) -> None:
    """A block sequence whose dashes are at column ``indent`` (the first line starts with ``lead``)."""
    out.enter(value)
    lines = out.lines
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
            _mapping(item, indent + 2, head, out)
        elif (kind is list or kind is tuple) and item:
            _sequence(item, indent + 2, head, out)
        else:
            lines.append(head + _inline(item, indent + 2, indent + 2, out))


def _inline(value: Any, column: int, indent: int, out: _Writer) -> str:
    kind = type(value)
    if kind is dict:
        return "{}"
    if kind is list or kind is tuple:
        return "[]"
    return _scalar(value, column, indent, out)


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


def _emit(value: Any, seen: set[int] | None, titles: Any = None) -> str:
    """The fast emitter on a non-empty dict, list or tuple; raises _Fallback outside its shape.

    ``titles`` (the title mapping) when the value is a raw prompt value (see :class:`_Writer`).
    """
    out = _Writer(seen, titles)
    if type(value) is dict:
        _mapping(value, 0, "", out)
    else:
        _sequence(value, 0, "", out)
    out.lines.append("")
    return "\n".join(out.lines)


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
            return _emit(value, set() if _ANCHORS.get() else None, titles)
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
