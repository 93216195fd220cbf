"""The ``agens`` options (``prefixes``, ``order``, ``strict``), checked like prompt data.

Options come from callers and from the command line (``-o order=...``), so a bad one is a
:class:`FieldError` naming the option, never a raw Python error. Error messages quote the bad value
only briefly: a value can be huge (an integer of 5,000 digits cannot even be turned into text).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.errors import FieldError
from .prefixes import DEFAULT_PREFIXES, ORDERS, Prefix

__all__ = ["check_strict", "prefix_table", "section_order", "shown"]

_SHOWN_CHARS = 40


def shown(value: object) -> str:
    """A short, safe description of an untrusted value for an error message: a brief repr of a
    string or small number, else its type name."""
    if isinstance(value, str):
        text = repr(value[:_SHOWN_CHARS])
        return text if len(value) <= _SHOWN_CHARS else text[:-1] + "...'"
    if value is None or isinstance(value, bool | float) or (isinstance(value, int) and value.bit_length() <= 64):
        return repr(value)
    return f"a value of type {type(value).__name__}"


def section_order(order: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The system and user keys in the order the ``order`` option names."""
    if isinstance(order, str) and order in ORDERS:
        return ORDERS[order]
    raise FieldError("order", f"must be 'declared' or 'alphabetical', not {shown(order)}")


def prefix_table(prefixes: object) -> dict[str, Prefix]:
    """The default prefixes with the ``prefixes`` option's replacements (keys: ``Agens.Prefixes`` fields)."""
    table = dict(DEFAULT_PREFIXES)
    if prefixes is None:
        return table
    if not isinstance(prefixes, Mapping):
        raise FieldError(
            "prefixes", f"must be a mapping of field name to (heading, detail), not {type(prefixes).__name__}"
        )
    for name, prefix in prefixes.items():
        if not isinstance(name, str) or name not in DEFAULT_PREFIXES:
            known = ", ".join(DEFAULT_PREFIXES)
            label = name if isinstance(name, str) and len(name) <= _SHOWN_CHARS else shown(name)
            raise FieldError(("prefixes", label), f"unknown Agens prefix (known: {known})")
        table[name] = _prefix(prefix, name)
    return table


def _prefix(prefix: Any, name: str) -> Prefix:
    if isinstance(prefix, tuple | list) and len(prefix) == 2 and all(isinstance(part, str) for part in prefix):
        return (prefix[0], prefix[1])
    raise FieldError(("prefixes", name), f"must be a (heading, detail) pair of strings, not {shown(prefix)}")


def check_strict(strict: object) -> bool:
    """``strict`` is a bool: a string such as ``"no"`` must not count as true."""
    if isinstance(strict, bool):
        return strict
    raise FieldError("strict", f"must be true or false, not {shown(strict)}")
