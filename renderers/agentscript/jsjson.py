"""JavaScript-compatible JSON text: exactly what ``JSON.stringify`` prints, and UTF-16 lengths.

AgentScript (a Node program) builds its prompts with ``JSON.stringify(value, null, 2)`` and measures
budgets in UTF-16 code units, so byte-exact prompts need JavaScript's rules, which differ from
Python's ``json`` module in four places:

* **Key order.** JS objects list *array-index* keys (``"0"``, ``"7"``, ``"10"``: canonical decimal
  integers below 2**32 - 1, no leading zero) first, in ascending numeric order, then every other key
  in insertion order. ``{"b": 1, "2": 2}`` prints ``"2"`` first.
* **Numbers** are IEEE doubles printed by ``Number#toString``: ``1.0`` -> ``1``, ``1e21`` -> ``1e+21``,
  ``1e16`` -> ``10000000000000000``, ``5e-7`` -> ``5e-7``, ``-0.0`` -> ``0``; NaN and the infinities
  become ``null`` in JSON.
* **Python ints are read as JS numbers (doubles).** Whatever an AgentScript program saw went through
  ``JSON.parse`` or a numeric literal, both of which produce doubles, so we print the double nearest to
  the int: ``2**53 + 1`` prints ``9007199254740992`` and ``10**21`` prints ``1e+21``; an int too large
  for a double is ``Infinity`` in JS and therefore ``null`` in JSON. Ints within +/-2**53 are exact.
* **Strings** escape only ``"``, ``\\``, ``\\b \\f \\n \\r \\t`` and the other C0 controls (as lowercase
  ``\\u00XX``); non-ASCII, U+2028/U+2029 and DEL stay raw; a *lone* surrogate prints as ``\\udXXX``
  (well-formed ``JSON.stringify``, ES2019).

**The string model.** A Python ``str`` stands for the JS string made of its UTF-16 encoding (lone
surrogate code points included, via ``surrogatepass``). A clip can split a surrogate pair; the half is
then a lone surrogate code point, which :func:`quote` escapes exactly as JS would. Two adjacent
surrogate code points that form a valid pair are one character to JS, and print as that character.

Accepted values: ``None``, ``bool``, ``int``, ``float``, ``str``, ``list`` and ``tuple`` (arrays),
and any ``Mapping`` (objects). Object keys should be strings; ``int``/``float``/``bool``/``None`` keys
are spelled the way JS spells a property key (``String(key)``), as ``json.dumps`` also tolerates them.
Anything else, and any cycle, raises ``TypeError`` / ``ValueError`` like ``JSON.stringify`` throws.
"""

from __future__ import annotations

import copy
import functools
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from json.encoder import encode_basestring as _encode_basestring  # the C escaper when available
from typing import Any

from ...core.json_text import all_text, escape_surrogates

__all__ = [
    "JsonEntries",
    "entry_lengths",
    "is_array_index",
    "js_number",
    "js_numbers",
    "number_to_string",
    "object_entries",
    "pretty",
    "pretty_length",
    "quote",
    "stringify",
    "utf16_len",
    "utf16_slice",
]

JsonEntries = list[tuple[str, object]]

_INDENT = "  "
_MAX_ARRAY_INDEX = 2**32 - 2  # 2**32 - 1 is not an array index in ECMAScript
_EXACT_INT = 2**53  # every int with |i| <= 2**53 is a double, printed without rounding
_DIGITS = frozenset("0123456789")
_UNBOUNDED = 1 << 62


# --------------------------------------------------------------------------------------------
# UTF-16 code units


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units, i.e. JavaScript's ``text.length``."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_slice(text: str, units: int) -> str:
    """The first ``units`` UTF-16 code units of ``text``: JavaScript's ``text.slice(0, units)``.

    A cut through a surrogate pair keeps the high half as a lone surrogate code point, as JS does.
    """
    if units <= 0:
        return ""
    head = text[:units]  # never fewer code units than code points, so this prefix is enough
    if head.isascii():
        return head
    encoded = head.encode("utf-16-le", "surrogatepass")
    if len(encoded) <= 2 * units:
        return head
    return encoded[: 2 * units].decode("utf-16-le", "surrogatepass")


# --------------------------------------------------------------------------------------------
# Scalars


def number_to_string(number: float) -> str:
    """ECMAScript ``Number::toString(x)`` (radix 10) for a double.

    Python's ``repr`` yields the same shortest round-tripping digits as JS; only the layout differs
    (JS writes 1e-6 <= |x| < 1e21 without an exponent, and ``e+``/``e-`` exponents unpadded).
    """
    if number != number:
        return "NaN"
    if number == 0:
        return "0"  # also -0: JS prints "0"
    if number < 0:
        return "-" + number_to_string(-number)
    if math.isinf(number):
        return "Infinity"
    if number <= _EXACT_INT and number.is_integer():
        # Below 2**53 the shortest digits of an integral double are all its digits. Above it they
        # are not: 2**60 prints 1152921504606847000, so those take the general path.
        return str(int(number))
    digits, point = _shortest_digits(number)
    return _layout(digits, point)


def _shortest_digits(number: float) -> tuple[str, int]:
    """Shortest digits ``s`` and exponent ``n`` with ``number == 0.s * 10**n`` (no trailing zeros)."""
    mantissa, _, exponent = repr(number).partition("e")
    whole, _, fraction = mantissa.partition(".")
    raw = whole + fraction
    stripped = raw.lstrip("0")
    point = len(whole) - (len(raw) - len(stripped)) + int(exponent or "0")
    return stripped.rstrip("0"), point


def _layout(digits: str, point: int) -> str:
    """Steps 6-10 of Number::toString: ``digits`` is s (k digits), ``point`` is n."""
    k = len(digits)
    if k <= point <= 21:
        return digits + "0" * (point - k)
    if 0 < point <= 21:
        return digits[:point] + "." + digits[point:]
    if -6 < point <= 0:
        return "0." + "0" * -point + digits
    exponent = point - 1
    sign = "+" if exponent >= 0 else "-"
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{head}e{sign}{abs(exponent)}"


def _float_json(number: float) -> str:
    """A float as ``JSON.stringify`` prints it (non-finite -> ``null``), fast on common values."""
    if number - number != 0.0:  # NaN or an infinity
        return "null"
    if number.is_integer():
        if -_EXACT_INT <= number <= _EXACT_INT:
            return str(int(number))
        return number_to_string(number)
    text = repr(number)
    # Without an exponent, repr already is JS's text: same shortest digits, same plain layout.
    return text if "e" not in text else number_to_string(number)


def _int_json(number: int) -> str:
    """An int as the JS double nearest to it (module docstring): exact up to 2**53."""
    if -_EXACT_INT <= number <= _EXACT_INT:
        return str(int(number))
    try:
        return _float_json(float(number))  # nearest double, ties to even, as JSON.parse rounds
    except OverflowError:
        return "null"  # Infinity in JS


def quote(text: str) -> str:
    """``text`` as a JSON string literal, escaped exactly like ``JSON.stringify``."""
    return escape_surrogates(_encode_basestring(text))


def _scalar_json(value: object) -> str | None:
    """The JSON text of a scalar (subclasses included), or None when ``value`` is a container."""
    if isinstance(value, str):
        return quote(str.__str__(value))  # a str-valued Enum member prints its value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _int_json(int(value))
    if isinstance(value, float):
        return _float_json(float(value))
    if isinstance(value, list | tuple | Mapping):
        return None
    raise TypeError(f"{type(value).__name__} is not JSON serializable: {value!r:.80}")


# The hot path: exact built-in scalar types, looked up once per value (subclasses go through _emit).
_EXACT_SCALARS: dict[type, Callable[[Any], str]] = {
    str: quote,
    int: _int_json,
    float: _float_json,
    bool: lambda value: "true" if value else "false",
    type(None): lambda _: "null",
}


# --------------------------------------------------------------------------------------------
# Objects


def is_array_index(key: str) -> bool:
    """True when JS orders ``key`` numerically: a canonical decimal integer below 2**32 - 1."""
    if not key or key[0] not in _DIGITS:
        return False
    if len(key) > 1 and key[0] == "0":
        return False
    return len(key) <= 10 and key.isascii() and key.isdigit() and int(key) <= _MAX_ARRAY_INDEX


def object_entries(obj: Mapping[Any, object]) -> JsonEntries:
    """The entries of ``obj`` in JavaScript property order (array-index keys first, ascending)."""
    source = obj if all_text(obj) else _string_keyed(obj)
    return [(key, source[key]) for key, _, _ in _plan(source)]


def _string_keyed(obj: Mapping[Any, object]) -> dict[str, object]:
    """Spell non-string keys as JS property keys; a later duplicate overwrites in place, as in JS."""
    merged: dict[str, object] = {}
    for key, value in obj.items():
        merged[_key_text(key)] = value
    return merged


def _key_text(key: object) -> str:
    if isinstance(key, str):
        return str(key)
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int | float):
        return _number_key(key)
    raise TypeError(f"object keys must be strings, not {type(key).__name__} ({key!r})")


def _number_key(key: int | float) -> str:
    """``String(key)`` for a numeric key: its JSON number text, but non-finite values are spelled."""
    if isinstance(key, int) and -_EXACT_INT <= key <= _EXACT_INT:
        return str(int(key))
    try:
        return number_to_string(float(key))
    except OverflowError:
        return "Infinity" if key > 0 else "-Infinity"


# A plan is an object's keys in JS order, each with its quoted text and that text's UTF-16 length.
# Objects in one value mostly share their keys (rows of a table, tool results), so plans are cached
# by the keys tuple: ordering and quoting are then paid once per shape instead of once per object.
_Plan = tuple[tuple[str, str, int], ...]
_PLANS: dict[tuple[str, ...], _Plan] = {}
_PLAN_CACHE_CHARS = 1 << 20
"""Key text (in characters) all cached plans may hold together; the cache starts over beyond it, so
its memory stays bounded whatever keys users send (4,095 one-megabyte keys once pinned 7.8 GB)."""
_PLAN_MAX_KEY_CHARS = 1024  # an object with more key text is its own shape: caching it only pins memory
_PLAN_CACHE_MAX_KEYS = 64
_cached_chars = 0


def _plan(obj: Mapping[str, object]) -> _Plan:
    """The plan of an object whose keys are all exact ``str`` (callers convert other keys first)."""
    global _cached_chars
    keys = tuple(obj)
    if len(keys) > _PLAN_CACHE_MAX_KEYS:
        return _make_plan(keys)
    plan = _PLANS.get(keys)
    if plan is None:
        plan = _make_plan(keys)
        chars = sum(map(len, keys))
        if chars > _PLAN_MAX_KEY_CHARS:
            return plan
        if _cached_chars + chars > _PLAN_CACHE_CHARS:
            _PLANS.clear()
            _cached_chars = 0
        _PLANS[keys] = plan
        _cached_chars += chars
    return plan


def _make_plan(keys: tuple[str, ...]) -> _Plan:
    indexed = sorted((key for key in keys if key[:1] in _DIGITS and is_array_index(key)), key=int)
    if indexed:
        chosen = set(indexed)
        keys = (*indexed, *(key for key in keys if key not in chosen))
    return tuple((key, quoted, utf16_len(quoted)) for key in keys for quoted in (quote(key),))


def _object_plan(obj: Mapping[Any, object]) -> tuple[Mapping[str, object], _Plan]:
    """The object to read values from, and its plan; non-string keys are converted (uncached)."""
    if all_text(obj):
        return obj, _plan(obj)
    converted = _string_keyed(obj)
    return converted, _make_plan(tuple(converted))


# --------------------------------------------------------------------------------------------
# Serialisation


def stringify(value: object) -> str:
    """``JSON.stringify(value)``: compact, no spaces."""
    out: list[str] = []
    _emit(value, out, None, set())
    return "".join(out)


def pretty(value: object, level: int = 0) -> str:
    """``JSON.stringify(value, null, 2)``; ``level`` > 0 gives the text as nested that deep.

    Nested text differs only in indentation: every line after the first is indented by
    ``2 * level`` more spaces, which is how a container prints its items.
    """
    out: list[str] = []
    _emit(value, out, "\n" + _INDENT * level, set())
    return "".join(out)


_REUSED: dict[str, tuple[object, str]] = {}
_REUSED_MAX = 256


def pretty_reused(value: object) -> str:
    """``pretty(value)`` for a value printed again and again (an output schema, once per call):
    the text is kept under the value's compact JSON (C speed, a fifth of the walk) and reused
    when a copy of the value also compares equal. Together the two pin the text exactly: the JSON
    tells ``true``, ``1`` and ``1.0`` apart and keeps key order, equality tells a key ``1.0`` from
    ``"1.0"``. A value ``json`` cannot print (a non-dict mapping, an object) is walked as usual."""
    try:
        key = _compact_json(value)
    except (TypeError, ValueError, RecursionError):
        return pretty(value)
    found = _REUSED.get(key)
    if found is not None and found[0] == value:
        return found[1]
    text = pretty(value)
    if len(_REUSED) >= _REUSED_MAX:
        _REUSED.clear()
    _REUSED[key] = (copy.deepcopy(value), text)
    return text


_make_encoder: Callable[..., Callable[[object, int], Any]] | None = getattr(json.encoder, "c_make_encoder", None)
"""CPython's C encoder (None elsewhere), kept: ``json.dumps`` builds a new one on every call."""


def _refuse(value: object) -> object:
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _c_encoder(item_separator: str) -> Callable[[object], str]:
    """Python's JSON text of a value with these separators, at C speed; without the C module,
    ``json.dumps``. No cycle check: a cycle ends in ``RecursionError``."""
    if _make_encoder is None:  # pragma: no cover - an interpreter without the C module
        return functools.partial(json.dumps, separators=(item_separator, ": "), ensure_ascii=False)
    encoder = _make_encoder(None, _refuse, _encode_basestring, None, ": ", item_separator, False, False, True)
    return lambda value: "".join(encoder(value, 0))


_compact_json = _c_encoder(", ")


def _emit(value: object, out: list[str], newline: str | None, active: set[int]) -> None:
    """Append the text of ``value``; ``newline`` is ``\\n`` + current indent, or None for compact.

    Exact built-in scalars inside containers go through ``_EXACT_SCALARS`` in the container loops
    (the hot path): this function is entered once per container and for other values.
    """
    kind = type(value)
    if kind is list or kind is tuple:
        _emit_array(value, out, newline, active)  # type: ignore[arg-type]
    elif kind is dict or isinstance(value, Mapping):
        _emit_object(value, out, newline, active)  # type: ignore[arg-type]
    elif isinstance(value, list | tuple):
        _emit_array(value, out, newline, active)
    else:
        text = _scalar_json(value)
        assert text is not None  # containers were handled above
        out.append(text)


def _enter(container: object, active: set[int]) -> int:
    marker = id(container)
    if marker in active:
        raise ValueError("cannot convert a circular structure to JSON")
    active.add(marker)
    return marker


def _emit_array(items: Sequence[object], out: list[str], newline: str | None, active: set[int]) -> None:
    if not items:
        out.append("[]")
        return
    inner = None if newline is None else newline + _INDENT
    separator = "," if inner is None else "," + inner
    scalars = _scalar_run(items, separator)
    if scalars is not None:  # no containers inside: one join, and nothing can be circular
        out.append(("[" if inner is None else "[" + inner) + scalars)
        out.append("]" if newline is None else newline + "]")
        return
    marker = _enter(items, active)
    append = out.append
    append("[" if inner is None else "[" + inner)
    first = True
    for item in items:
        if first:
            first = False
        else:
            append(separator)
        writer = _EXACT_SCALARS.get(type(item))
        if writer is not None:
            append(writer(item))
        else:
            _emit(item, out, inner, active)
    append("]" if newline is None else newline + "]")
    active.discard(marker)


def _scalar_run(items: Sequence[Any], separator: str) -> str | None:
    """The items' texts joined by ``separator`` when all are exact built-in scalars of one type
    (rows of numbers, lists of names: the common arrays, printed at C speed), else None."""
    kind = type(items[0])
    writer = _EXACT_SCALARS.get(kind)
    if writer is None or set(map(type, items)) != {kind}:
        return None
    if kind is int and min(items) >= -_EXACT_INT and max(items) <= _EXACT_INT:
        return _run_encoder(separator)(items)[1:-1]  # Python's digits are JS's here
    return separator.join(map(writer, items))


_run_encoder = functools.lru_cache(maxsize=64)(_c_encoder)
"""An encoder per separator (one per nesting level in use)."""


def _emit_object(obj: Mapping[Any, object], out: list[str], newline: str | None, active: set[int]) -> None:
    if not obj:
        out.append("{}")
        return
    marker = _enter(obj, active)
    source, plan = _object_plan(obj)
    inner = None if newline is None else newline + _INDENT
    append = out.append
    append("{" if inner is None else "{" + inner)
    separator = "," if inner is None else "," + inner
    colon = ":" if inner is None else ": "
    first = True
    for key, quoted, _ in plan:
        if first:
            first = False
        else:
            append(separator)
        append(quoted)
        append(colon)
        item = source[key]
        writer = _EXACT_SCALARS.get(type(item))
        if writer is not None:
            append(writer(item))
        else:
            _emit(item, out, inner, active)
    append("}" if newline is None else newline + "}")
    active.discard(marker)


# --------------------------------------------------------------------------------------------
# Lengths without building the text


def pretty_length(value: object, level: int = 0, cap: int | None = None) -> int:
    """UTF-16 length of ``pretty(value, level)``, computed without building the text.

    With ``cap`` the walk stops as soon as the length is known to exceed it and returns some number
    greater than ``cap`` (not the exact length): clipping asks "does this fit?" about values that
    may be huge, and must not pay for more than the budget it is checking.
    """
    return _measure(value, level, _UNBOUNDED if cap is None else cap, set())


def _string_length(text: str) -> int:
    quoted = quote(text)
    return len(quoted) if quoted.isascii() else utf16_len(quoted)


def _measure(value: object, level: int, cap: int, active: set[int]) -> int:
    kind = type(value)
    if kind is list or kind is tuple:
        return _measure_array(value, level, cap, active)  # type: ignore[arg-type]
    if kind is dict or isinstance(value, Mapping):
        return _measure_object(value, level, cap, active)  # type: ignore[arg-type]
    if isinstance(value, list | tuple):
        return _measure_array(value, level, cap, active)
    text = _scalar_json(value)
    assert text is not None  # containers were handled above
    return len(text) if text.isascii() else utf16_len(text)


def _measure_array(items: Sequence[object], level: int, cap: int, active: set[int]) -> int:
    # "[" + ("\n" + indent(level + 1) + item) joined by "," + "\n" + indent(level) + "]"
    if not items:
        return 2
    marker = _enter(items, active)
    per_item = 2 * level + 4  # newline, indent(level + 1), and the comma or the closing newline
    total = 2 * level + 2
    for item in items:
        kind = type(item)
        if kind is str:
            total += per_item + _string_length(item)  # type: ignore[arg-type]
        elif kind is int:
            total += per_item + len(_int_json(item))  # type: ignore[arg-type]
        elif kind is float:
            total += per_item + len(_float_json(item))  # type: ignore[arg-type]
        elif item is None or item is True:
            total += per_item + 4
        elif item is False:
            total += per_item + 5
        else:
            total += per_item + _measure(item, level + 1, cap - total - per_item, active)
        if total > cap:
            break
    active.discard(marker)
    return total


def _measure_object(obj: Mapping[Any, object], level: int, cap: int, active: set[int]) -> int:
    if not obj:
        return 2
    marker = _enter(obj, active)
    source, plan = _object_plan(obj)
    per_entry = 2 * level + 6  # as for arrays, plus ": "
    total = 2 * level + 2
    for key, _, key_length in plan:
        total += per_entry + key_length
        item = source[key]
        kind = type(item)
        if kind is str:
            total += _string_length(item)  # type: ignore[arg-type]
        elif kind is int:
            total += len(_int_json(item))  # type: ignore[arg-type]
        elif kind is float:
            total += len(_float_json(item))  # type: ignore[arg-type]
        elif item is None or item is True:
            total += 4
        elif item is False:
            total += 5
        else:
            total += _measure(item, level + 1, cap - total, active)
        if total > cap:
            break
    active.discard(marker)
    return total


def entry_lengths(obj: Mapping[Any, object], level: int, cap: int) -> Iterator[tuple[str, object, int]]:
    """Each entry of ``obj`` in JS order with the UTF-16 length of its ``"key": value`` text.

    The text is taken nested at ``level + 1`` (as the object at ``level`` prints it); a length above
    ``cap`` may be reported as any number above ``cap``. Lets clipping find the longest fitting
    prefix without measuring past the first misfit, reusing the cached key plan.
    """
    source, plan = _object_plan(obj)
    for key, _, key_length in plan:
        item = source[key]
        yield key, item, key_length + 2 + _measure(item, level + 1, cap - key_length - 2, set())


# --------------------------------------------------------------------------------------------
# Numbers as JavaScript holds them


def js_number(number: int | float | str) -> int | float:
    """The number JavaScript holds for ``number``: every JS number is a double, so an integer (an
    ``int``, or unsigned integer digits as ``Number`` reads them) within +/-2**53 is exact
    and stays an ``int``; one past that is the nearest double, infinity past the largest (no length
    of digits meets Python's ``int()`` limit). A float already is a double.

    This is the one place the 2**53 rule is written: replies, inputs, literals and counts of an
    AgentScript program all go through it."""
    if isinstance(number, float):
        return number
    if isinstance(number, str):
        value = float(number)  # first: a double past 2**53 holds no more than float() reads
        if not -_EXACT_INT <= value <= _EXACT_INT:
            return value
        return js_number(int(number.lstrip("0") or "0"))  # leading zeros count towards int()'s limit
    if -_EXACT_INT <= number <= _EXACT_INT:
        return number
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def js_numbers(value: Any) -> Any:
    """JSON data as JavaScript's ``JSON.parse`` gives it: each number made a :func:`js_number`."""
    if isinstance(value, bool) or not isinstance(value, int | list | dict):
        return value
    if isinstance(value, int):
        return js_number(value)
    if isinstance(value, list):
        return [js_numbers(item) for item in value]
    return {key: js_numbers(item) for key, item in value.items()}
