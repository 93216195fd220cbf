"""How a core ``Prompt``'s values are shown to the model in Agently's layout: JSON or YAML, never a repr.

Agently prints an ``info`` value, and a scalar section body, with Python's ``str()``: a dict comes
out as ``{'id': 4711}``, ``True`` as ``True``, ``None`` as ``None``. ``AgentlyPrompt`` keeps that
for a user's own Agently dict (it is Agently's behaviour), but a core ``Prompt`` mapped into Agently
is shown as a model reads data: one line of JSON where Agently prints a value inline (``- key:
value``), and YAML, Agently's own section form, where it prints a block. So the mapping hands
Agently text where it would print ``str()``; blocks of containers stay containers (YAML).
"""

from __future__ import annotations

import json
from typing import Any

from ._agently.errors import AgentlyFieldError, is_digit_limit
from ._agently.sanitize import sanitize

__all__ = ["inline_text", "scalar_text"]

_JSON_SCALARS = (bool, int, float)


def _set_items(value: Any) -> Any:
    if isinstance(value, set | frozenset):
        # A set has no order; sort its text forms so the bytes are the same on every run.
        return sorted(value, key=lambda item: (type(item).__name__, str(item)))
    if isinstance(value, tuple):
        return list(value)
    return str(value)


def _json(value: Any, field: str) -> str:
    try:
        try:
            return json.dumps(value, ensure_ascii=False)
        except TypeError:
            # Not plain JSON data (a date, a class, a tuple key, a set...): Agently's sanitize makes
            # it data; one that becomes text (a date's ISO form, a type's name) is shown as that text.
            sanitized = sanitize(value)
            if isinstance(sanitized, str):
                return sanitized
            return json.dumps(sanitized, ensure_ascii=False, default=_set_items)
    except ValueError as error:
        if is_digit_limit(error):
            raise AgentlyFieldError(field, "an integer has too many digits to be printed") from None
        raise AgentlyFieldError(field, f"cannot be printed as JSON: {error}") from None


def inline_text(value: Any, field: str) -> str:
    """The text Agently shows for ``value`` on one line (``- key: <text>``): text as is, else JSON."""
    if isinstance(value, str):
        return value
    return _json(value, field)


def scalar_text(value: Any, field: str) -> Any:
    """A scalar section body as JSON text (``true``, ``null``, ``0``); text and containers unchanged."""
    if value is None or (isinstance(value, _JSON_SCALARS) and not isinstance(value, str)):
        return _json(value, field)
    return value
