"""Elixir's ``String.Chars`` (what ``"#{value}"`` interpolation prints), for the resource fields Agens interpolates.

Agens builds a resource block as ``"### #{uri}\\n\\n```\\n#{content}\\n```"``, so a ``nil`` uri prints as
``""``, a number as its digits and a list as the text it spells (chardata: code points and strings,
flattened). Maps, tuples and other terms have no ``String.Chars`` and crash Agens; here they raise
:class:`FieldError` naming the field.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ...core.errors import FieldError
from .jason import encode_float

__all__ = ["to_string"]

_MAX_CODE_POINT = 0x10FFFF


def to_string(value: object, path: Sequence[str | int]) -> str:
    """``to_string(value)`` as Elixir prints it; ``path`` names the field in errors."""
    if isinstance(value, str):
        return str.__str__(value)
    if value is None or isinstance(value, bool):
        return "" if value is None else ("true" if value else "false")
    if isinstance(value, int):
        if value.bit_length() > 14_000:  # Python refuses to print more than 4,300 digits
            raise FieldError(path, "integer has too many digits to print")
        return int.__repr__(value)
    if isinstance(value, float):
        return encode_float(value, path)  # Float.to_string: the same [:short] spelling as Jason
    if isinstance(value, list):
        return _chardata(value, path)
    raise FieldError(path, f"a {type(value).__name__} has no text form (Elixir's String.Chars refuses it)")


def _chardata(items: list[object], path: Sequence[str | int]) -> str:
    """``List.to_string``: code points and strings, nested lists flattened (walked without recursion)."""
    out: list[str] = []
    stack: list[Iterator[object]] = [iter(items)]
    while stack:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
        elif isinstance(item, str):
            out.append(item)
        elif isinstance(item, list):
            if len(stack) > 1000:
                raise FieldError(path, "the list is nested too deeply to print")
            stack.append(iter(item))
        elif isinstance(item, int) and not isinstance(item, bool) and _is_code_point(item):
            out.append(chr(item))
        else:
            raise FieldError(path, "a list prints as text only when it holds code points and strings")
    return "".join(out)


def _is_code_point(number: int) -> bool:
    return 0 <= number <= _MAX_CODE_POINT and not 0xD800 <= number <= 0xDFFF


_END = object()
