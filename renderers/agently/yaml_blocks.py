"""The YAML bodies of Agently's sections, exactly as ``yaml.safe_dump(value, allow_unicode=True)`` writes them.

PyYAML's pure-Python emitter costs more than the rest of a render put together, so the common shape
(dicts, lists and tuples of short, plain strings, ints, floats, bools and None) is written by a small
emitter here, which follows PyYAML's rules for that shape: sorted keys, block style, sequences not
indented under mapping keys, ``{}``/``[]`` for empty containers. Anything outside it (a string that
would need quotes or folding at width 80, a set, a line longer than 80 columns) goes to PyYAML.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.resolver import Resolver

from .errors import Unrenderable
from .sanitize import sanitize
from .slots import replace_slots

__all__ = ["dump_yaml", "pyyaml_dump", "section_body"]

_WIDTH = 80
_STR_TAG = "tag:yaml.org,2002:str"
_IMPLICIT = Resolver.yaml_implicit_resolvers
_WILDCARD = _IMPLICIT.get(None, [])
_FIRST_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
_INF = float("inf")


class _Fallback(Exception):
    """The value is outside the shape the fast emitter knows; let PyYAML write it."""


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


def _mapping(value: dict[str, Any], indent: int, lead: str, lines: list[str]) -> None:
    pad = " " * indent
    for key, item in sorted(value.items(), key=_first):
        head = lead + _plain(key) + ":"
        lead = pad
        _value(item, indent, head, lines, in_mapping=True)


def _first(item: tuple[str, Any]) -> str:
    return item[0]


def _sequence(value: list[Any] | tuple[Any, ...], indent: int, lead: str, lines: list[str]) -> None:
    pad = " " * indent
    for item in value:
        head = lead + "- "
        lead = pad
        kind = type(item)
        if kind is dict and item:
            _mapping(item, indent + 2, head, lines)
        elif (kind is list or kind is tuple) and item:
            _sequence(item, indent + 2, head, lines)
        else:
            _line(head + _inline(item), lines)


def _inline(value: Any) -> str:
    kind = type(value)
    if kind is dict:
        return "{}"
    if kind is list or kind is tuple:
        return "[]"
    return _scalar(value)


def _value(value: Any, indent: int, head: str, lines: list[str], *, in_mapping: bool) -> None:
    kind = type(value)
    if kind is dict and value:
        _line(head, lines)
        _mapping(value, indent + 2, " " * (indent + 2), lines)
    elif (kind is list or kind is tuple) and value:
        _line(head, lines)
        _sequence(value, indent, " " * indent, lines)
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


def dump_yaml(value: Any) -> str:
    """``yaml.safe_dump(value, allow_unicode=True)`` for sanitized data (a dict, list, tuple or set)."""
    kind = type(value)
    lines: list[str] = []
    try:
        if kind is dict:
            if not value:
                return "{}\n"
            _mapping(value, 0, "", lines)
        elif kind is list or kind is tuple:
            if not value:
                return "[]\n"
            _sequence(value, 0, "", lines)
        else:
            raise _Fallback
    except _Fallback:
        return pyyaml_dump(value)
    lines.append("")
    return "\n".join(lines)


def section_body(value: Any, titles: Any) -> str:
    """The body of one YAML section: ``str()`` of a scalar, else the YAML dump (trailing newline kept)."""
    sanitized = sanitize(replace_slots(value, titles))
    if isinstance(sanitized, (str, int, float, bool)) or sanitized is None:
        return str(sanitized)
    return dump_yaml(sanitized)
