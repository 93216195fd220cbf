"""JSON text exactly as Elixir's Jason 1.4 prints it (``Jason.encode!/1`` defaults).

Agens puts every list and map of a prompt through ``Jason.encode!``, so byte compatibility with
Agens needs Jason's spelling, which Python's ``json.dumps`` does not give: Jason escapes other
control characters as uppercase ``\\u00XX``, spells floats the Erlang way (``1.0e3``, never ``1e+03``)
and orders map keys by the BEAM's map order, not by insertion.

How Python values stand in for Elixir terms:

=====================================  ===========================================================
Python                                 Elixir term and its JSON
=====================================  ===========================================================
``str``                                binary (a string); a lone surrogate is invalid UTF-8 and
                                       raises, as Jason's ``EncodeError`` does
``int`` (not ``bool``)                 integer
``float``                              float, ``:erlang.float_to_binary(f, [:short])``; NaN and
                                       infinities do not exist on the BEAM and raise
``True`` / ``False`` / ``None``        the atoms ``true`` / ``false`` / ``nil`` (``nil`` -> ``null``)
``list``                               list -> array
any ``Mapping``                        map -> object
``date``, ``time``, ``datetime``       ``Date``, ``Time``, ``NaiveDateTime`` / ``DateTime`` ->
                                       ISO-8601 string (an aware ``datetime`` with a zero offset
                                       ends in ``Z``, like a UTC ``DateTime``)
=====================================  ===========================================================

Map keys: ``str`` as is; ``int`` and ``float`` through ``to_string``; ``True``, ``False`` and ``None``
are atoms and print as ``"true"``, ``"false"``, ``"nil"``. Keys are ordered as a BEAM map of up to 32
keys iterates: integers (numerically), floats (numerically), atoms (alphabetically, the OTP <= 25
order), then strings (bytewise). Larger maps iterate in hash order on the BEAM, which nobody can
reproduce; they are sorted the same way.

Everything else raises :class:`~promptwire.core.errors.FieldError` naming the path to the bad
value, where Jason would crash with ``Protocol.UndefinedError``: tuples (what Agens stores for a
failed tool call), sets, bytes (binary data, not text: decode it first), objects, and a
self-containing list or map. We refuse rather than guess, so a prompt never holds a Python repr.
The walk recurses one frame per level of nesting, inside ``core.nesting.nesting_room()``: values
nest up to ``MAX_DEPTH`` (1000) levels, as in every prompt, and a deeper or self-containing value is
refused with the prompt model's own words, at the path of the value, never as a ``RecursionError``.
Because the walk checks both as it goes, a raw Agens message needs no separate nesting check.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from operator import itemgetter
from typing import Any, cast

from ...core.errors import FieldError, field_path
from ...core.json_text import all_text
from ...core.nesting import MAX_DEPTH, nesting_room

__all__ = ["encode", "encode_float", "encode_key", "encode_string", "key_text"]

Path = Sequence[str | int]

_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_ESCAPES = {chr(code): _SHORT_ESCAPES.get(chr(code), f"\\u{code:04X}") for code in range(0x20)}
_ESCAPES.update(_SHORT_ESCAPES)
_NEEDS_ESCAPE = re.compile(r'[\x00-\x1f"\\]')
_SURROGATE = re.compile("[\ud800-\udfff]")
_SPECIAL = re.compile(r'[\x00-\x1f"\\\ud800-\udfff]')  # anything _quote must look at twice

_TWO_POW_53 = 1 << 53

CIRCULAR = "the value contains itself (a circular structure cannot be printed)"
NESTED_TOO_DEEP = f"the value is nested deeper than {MAX_DEPTH} levels"
"""The prompt model's own words (``core.nesting``), so a raw Agens message fails as a Prompt would."""

# Rank of a key's type in the BEAM's map order (integers < floats < atoms < binaries).
_INT_KEY, _FLOAT_KEY, _ATOM_KEY, _STRING_KEY = range(4)


def encode(value: object, path: Path = (), *, outer_levels: int = 0) -> str:
    """Compact JSON text of ``value``, byte for byte what ``Jason.encode!/1`` prints.

    ``path`` is where ``value`` sits in the caller's data; errors name the full path to the bad
    part (``tool_results.call_1[2]``) so the user can find it. ``outer_levels`` counts the lists or
    maps around the user's values that the format itself adds (Agens' list of tool definitions, its
    map of results): they do not count against the nesting limit.
    """
    out: list[str] = []
    try:
        with nesting_room():
            _write(value, out, _OpenPath(MAX_DEPTH + outer_levels))
    except _Unencodable as error:
        inner = [] if error.whole_value else reversed(error.reversed_path)
        raise FieldError([*path, *inner], error.reason) from None
    except RecursionError:  # a subclass's own recursion (a Mapping whose items() recurses, say)
        raise FieldError(field_path(path), NESTED_TOO_DEEP) from None
    return "".join(out)


def encode_string(text: str, path: Path = ()) -> str:
    """``text`` as a JSON string literal with Jason's escapes (``"``, ``\\``, C0 controls only)."""
    return encode(str.__str__(text), path)


def encode_float(number: float, path: Path = ()) -> str:
    """``:erlang.float_to_binary(number, [:short])``: shortest round-trip digits, Erlang layout.

    The decimal form is used when it is not longer than the scientific one (``1.0e3`` beats
    ``1000.0``, ``100.0`` ties ``1.0e2`` and wins); whole numbers from 2**53 up are always scientific.
    """
    return encode(float.__float__(number), path)


def encode_key(key: object, path: Path = ()) -> str:
    """A map key as the JSON string Jason writes for it (``1`` -> ``"1"``, ``None`` -> ``"nil"``)."""
    return encode_string(key_text(key, path), path)


def key_text(key: object, path: Path = ()) -> str:
    """A map key's text before quoting, Elixir's ``to_string`` of it (``1`` -> ``1``, ``None`` -> ``nil``)."""
    try:
        return _key_text(key)
    except _Unencodable as error:
        raise FieldError(field_path(path), error.reason) from None


def _escape_match(match: re.Match[str]) -> str:
    return _ESCAPES[match.group()]


def _finite_float_text(number: float) -> str:
    text = float.__repr__(number)
    if "e" not in text and not text.endswith(".0") and abs(number) >= 0.001:
        # A fraction with at most two zeros after the point: Python's repr is Erlang's decimal form.
        return text
    sign = "-" if math.copysign(1.0, number) < 0 else ""
    if number == 0:
        return sign + "0.0"
    digits, exponent = _shortest_digits(abs(number))
    if _prefers_decimal(digits, exponent):
        return sign + _decimal_form(digits, exponent)
    return sign + _scientific_form(digits, exponent)


def _shortest_digits(number: float) -> tuple[str, int]:
    """Significant digits (no leading or trailing zeros) and exponent: ``number == int(d) * 10**e``.

    Python's ``repr`` gives the same shortest round-trip digits as Ryu, which Erlang uses.
    """
    mantissa, _, exp_text = float.__repr__(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    exponent = int(exp_text or "0") - len(fraction)
    significant = digits.rstrip("0")
    return significant, exponent + len(digits) - len(significant)


def _prefers_decimal(digits: str, exponent: int) -> bool:
    """Erlang's choice between the two layouts (``erts/emulator/ryu/to_chars.h``)."""
    length = len(digits)
    scientific_exponent = exponent + length - 1
    if length == 1:
        lower, upper = -4, 2
    elif scientific_exponent >= 10:
        lower, upper = -(length + 2), 2
    else:
        lower, upper = -(length + 2), 1
    if not lower <= exponent <= upper:
        return False
    return int(digits) * 10**exponent < _TWO_POW_53 if exponent >= 0 else True


def _decimal_form(digits: str, exponent: int) -> str:
    if exponent >= 0:
        return digits + "0" * exponent + ".0"
    whole = len(digits) + exponent
    if whole > 0:
        return digits[:whole] + "." + digits[whole:]
    return "0." + "0" * -whole + digits


def _scientific_form(digits: str, exponent: int) -> str:
    return f"{digits[0]}.{digits[1:] or '0'}e{exponent + len(digits) - 1}"


def _key_text(key: object) -> str:
    if isinstance(key, str):
        return str.__str__(key)
    if key is None or isinstance(key, bool):
        return "nil" if key is None else ("true" if key else "false")
    if isinstance(key, int):
        return _int_text(key)
    if isinstance(key, float):
        return _float_text(key)
    raise _Unencodable(f"a map key must be a str, int, float, bool or None, not {_kind(key)}")


def _key_rank(key: object) -> tuple[int, float | int | str]:
    """Where a (valid) key sorts in a BEAM map: integers < floats < atoms < binaries."""
    if isinstance(key, str):
        return (_STRING_KEY, key)  # code point order is UTF-8 byte order
    if key is None or isinstance(key, bool):
        return (_ATOM_KEY, "nil" if key is None else ("true" if key else "false"))
    if isinstance(key, int):
        return (_INT_KEY, key)
    assert isinstance(key, float)
    return (_FLOAT_KEY, key)


def _int_text(number: int) -> str:
    try:
        return int.__repr__(number)
    except ValueError:  # beyond sys.get_int_max_str_digits()
        raise _Unencodable("integer has too many digits to print") from None


def _float_text(number: float) -> str:
    if not math.isfinite(number):
        raise _Unencodable(f"{number!r} has no JSON form (the BEAM has no NaN or infinity)")
    return _finite_float_text(number)


def _kind(value: object) -> str:
    return type(value).__name__


def _datetime_text(value: dt.date | dt.time) -> str:
    if isinstance(value, dt.datetime):
        offset = value.utcoffset()
        text = value.replace(tzinfo=None).isoformat()
        if offset is None:
            return text
        if offset == dt.timedelta(0):
            return text + "Z"
        return text + value.isoformat()[len(text) :]
    if isinstance(value, dt.time) and value.utcoffset() is not None:
        raise _Unencodable("a time of day with a UTC offset has no Elixir form; use a datetime")
    return value.isoformat()


class _OpenPath(set[int]):
    """The ids of the lists and maps open on the path from the root (its size is the depth), and
    how deep that path may go."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit


class _Unencodable(Exception):
    """Raised deep inside a value; each enclosing list or map adds its key on the way out, so the
    path is only built when something is wrong. A problem of the whole value's shape (too deep,
    circular) names the value itself, as the prompt model does, not a path a thousand keys long."""

    def __init__(self, reason: str, *, whole_value: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.whole_value = whole_value
        self.reversed_path: list[str | int] = []


def _write(value: object, out: list[str], open_ids: _OpenPath) -> None:
    """Append ``value``'s JSON to ``out``.

    Nearly all of a big value is scalars, so the loops below look a scalar's writer up by its exact
    type and call it directly; containers recurse one frame per level. That is why the two loops
    repeat the list/dict dispatch instead of calling this function: going through it would spend two
    frames a level and halve the nesting depth that encodes (``test_deep_nesting`` pins 500).
    """
    writer = _SCALAR_WRITERS.get(type(value))
    if writer is not None:
        out.append(writer(value))
    elif isinstance(value, list):
        _write_list(value, out, open_ids)
    elif isinstance(value, Mapping):
        _write_map(value, out, open_ids)
    else:
        out.append(_scalar(value))


def _write_list(items: list[object], out: list[str], open_ids: _OpenPath) -> None:
    ident = _enter(items, open_ids)
    if len(items) > _FLAT_MIN and (
        (text := _flat_list_text(items)) is not None
        or (len(open_ids) < open_ids.limit and (text := _flat_rows_text(items)) is not None)
    ):
        out.append(text)
        open_ids.discard(ident)
        return
    out.append("[")
    for index, item in enumerate(items):
        if index:
            out.append(",")
        try:
            writer = _SCALAR_WRITERS.get(type(item))
            if writer is not None:
                out.append(writer(item))
            elif type(item) is list:
                _write_list(item, out, open_ids)
            elif type(item) is dict:
                _write_map(item, out, open_ids)
            else:
                _write(item, out, open_ids)
        except _Unencodable as error:
            error.reversed_path.append(index)
            raise
    out.append("]")
    open_ids.discard(ident)


def _write_map(mapping: Mapping[object, object], out: list[str], open_ids: _OpenPath) -> None:
    ident = _enter(mapping, open_ids)
    if len(mapping) > _FLAT_MIN and (text := _flat_map_text(mapping)) is not None:
        out.append(text)
        open_ids.discard(ident)
        return
    plan = _map_plan(mapping)
    if plan is None:
        out.append("{")
        for position, (text, item) in enumerate(_sorted_items(mapping)):
            if position:
                out.append(",")
            try:
                out.append(_quote(text) + ":")
                writer = _SCALAR_WRITERS.get(type(item))
                if writer is not None:
                    out.append(writer(item))
                elif type(item) is list:
                    _write_list(item, out, open_ids)
                elif type(item) is dict:
                    _write_map(item, out, open_ids)
                else:
                    _write(item, out, open_ids)
            except _Unencodable as error:
                error.reversed_path.append(text)
                raise
    else:
        out.append("{")
        for key, prefix in plan:
            out.append(prefix)
            item = mapping[key]
            try:
                writer = _SCALAR_WRITERS.get(type(item))
                if writer is not None:
                    out.append(writer(item))
                elif type(item) is list:
                    _write_list(item, out, open_ids)
                elif type(item) is dict:
                    _write_map(item, out, open_ids)
                else:
                    _write(item, out, open_ids)
            except _Unencodable as error:
                error.reversed_path.append(key)
                raise
    out.append("}")
    open_ids.discard(ident)


# A big list or map of plain strings (tags, an info table of names and facts) is printed in one
# join: the walk below spends most of a second per 100,000 entries on calls per string, over twice
# json.dumps (issue 28). It applies when nothing needs escaping, which one scan of all the text
# shows; anything else takes the walk.
_FLAT_MIN = 64
"""Smaller containers take the walk: checking their types costs about what it saves."""


def _flat_list_text(items: list[object]) -> str | None:
    """``items`` as JSON when every item is an exact ``str`` with nothing to escape, else None."""
    if set(map(type, items)) != {str}:
        return None
    strings = cast("list[str]", items)
    if _SPECIAL.search("".join(strings)) is not None:
        return None
    return '["' + '","'.join(strings) + '"]'


def _flat_map_text(mapping: Mapping[object, object]) -> str | None:
    """``mapping`` as JSON when it is a ``dict`` whose keys and values are all exact ``str`` with
    nothing to escape, else None. Keys sort by code point, as they do in the walk."""
    if type(mapping) is not dict or set(map(type, mapping)) != {str} or set(map(type, mapping.values())) != {str}:
        return None
    strings = cast("dict[str, str]", mapping)
    if _SPECIAL.search("".join(strings)) is not None or _SPECIAL.search("".join(strings.values())) is not None:
        return None
    return '{"' + '","'.join(map('":"'.join, sorted(strings.items()))) + '"}'


def _flat_rows_text(items: list[object]) -> str | None:
    """``items`` as JSON when every item is a ``dict`` of the same keys, in the same order, whose
    values are all exact ``str`` with nothing to escape (tool descriptions, rows of text), else
    None. Each row is written by one ``%`` format of its values in Jason's key order, the keys
    quoted once (the walk spent a few microseconds a row on calls per key and value). The caller
    makes sure a row one level down is within the depth limit, as the walk would."""
    if set(map(type, items)) != {dict}:
        return None
    rows = cast("list[dict[object, object]]", items)
    keys = tuple(rows[0])
    if not keys or set(map(tuple, rows)) != {keys}:
        return None
    plan = _map_plan(rows[0])
    values = list(chain.from_iterable(map(dict.values, rows)))
    if plan is None or set(map(type, values)) != {str}:
        return None
    if _SPECIAL.search("".join(cast("list[str]", values))) is not None:
        return None
    template = "{" + "".join(prefix.replace("%", "%%") + '"%s"' for _, prefix in plan) + "}"
    in_order = itemgetter(*(key for key, _ in plan))
    if len(plan) == 1:
        return "[" + ",".join([template % (in_order(row),) for row in rows]) + "]"
    return "[" + ",".join(map(template.__mod__, map(in_order, rows))) + "]"


# Maps in one value mostly share their keys (rows of a table): the sorted, quoted keys of each key
# set are worked out once. Bounded by key text, so users' keys cannot pin memory.
_MapPlan = tuple[tuple[str, str], ...]
_MAP_PLANS: dict[tuple[object, ...], _MapPlan] = {}
_MAP_PLAN_CHARS = 1 << 20
_MAP_PLAN_MAX_KEYS = 64
_map_plan_chars = 0


def _map_plan(mapping: Mapping[object, object]) -> _MapPlan | None:
    """Each key with the text written before its value (``,"key":``), in Jason's order; None when
    the keys are not all text, too many, or need an error's path (the plain loop handles those)."""
    global _map_plan_chars
    if len(mapping) > _MAP_PLAN_MAX_KEYS:
        return None
    keys = tuple(mapping)
    plan = _MAP_PLANS.get(keys)
    if plan is not None:
        return plan
    if not all(type(key) is str for key in keys):
        return None
    texts = cast("list[str]", sorted(keys))
    try:
        plan = tuple((key, ("," if index else "") + _quote(key) + ":") for index, key in enumerate(texts))
    except _Unencodable:
        return None
    chars = sum(map(len, texts))
    if chars <= _MAP_PLAN_CHARS // 1024:
        if _map_plan_chars + chars > _MAP_PLAN_CHARS:
            _MAP_PLANS.clear()
            _map_plan_chars = 0
        _MAP_PLANS[keys] = plan
        _map_plan_chars += chars
    return plan


def _enter(container: object, open_ids: _OpenPath) -> int:
    """Open a list or map; ``open_ids`` holds the containers on the path from the root (its size is the depth)."""
    ident = id(container)
    if ident in open_ids:
        raise _Unencodable(CIRCULAR, whole_value=True)
    if len(open_ids) >= open_ids.limit:
        raise _Unencodable(NESTED_TOO_DEEP, whole_value=True)
    open_ids.add(ident)
    return ident


def _sorted_items(mapping: Mapping[object, object]) -> list[tuple[str, object]]:
    if all_text(mapping):  # the common case: one sort on the strings
        items = cast("list[tuple[str, object]]", list(mapping.items()))
        items.sort(key=itemgetter(0))
        return items
    ranked = []
    for key, item in mapping.items():
        text = _key_text(key)  # first: it refuses the keys _key_rank cannot rank
        ranked.append((_key_rank(key), text, item))
    ranked.sort(key=itemgetter(0))
    return [(text, item) for _, text, item in ranked]


def _quote(text: str) -> str:
    if _SPECIAL.search(text) is None:  # the common case: one scan, nothing to escape
        return '"' + text + '"'
    if _SURROGATE.search(text) is not None:
        raise _Unencodable("text holds a lone surrogate, which is not valid UTF-8")
    return '"' + _NEEDS_ESCAPE.sub(_escape_match, text) + '"'


def _bool_text(value: bool) -> str:
    return "true" if value else "false"


def _null_text(_: None) -> str:
    return "null"


_SCALAR_WRITERS: dict[type, Callable[[Any], str]] = {
    str: _quote,
    int: _int_text,
    float: _float_text,
    bool: _bool_text,
    type(None): _null_text,
}
"""Writers by exact type; subclasses (an ``IntEnum``, a ``str`` subclass) take the isinstance path."""


def _scalar(value: object) -> str:
    if isinstance(value, str):
        return _quote(value)
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    if isinstance(value, int):
        return _int_text(value)
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, dt.date | dt.time):
        return _quote(_datetime_text(value))
    raise _Unencodable(_unencodable_reason(value))


def _unencodable_reason(value: object) -> str:
    if isinstance(value, tuple):
        return "a tuple has no JSON form (Jason raises on tuples); use a list"
    if isinstance(value, bytes | bytearray):
        return "bytes are binary data, not text; decode them to str first"
    if isinstance(value, set | frozenset):
        return f"a {_kind(value)} has no JSON form; use a list"
    if isinstance(value, BaseException):
        return f"an exception ({_kind(value)}) has no JSON form; turn it into a string"
    return f"a {_kind(value)} has no JSON form (only str, int, float, bool, None, list, mappings and dates do)"
