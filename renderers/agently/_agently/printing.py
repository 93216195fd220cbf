"""Values too large or too deep to print: one clear error naming the field, never a raw exception.

Agently prints values with ``str()``, PyYAML and recursive walks. Python refuses ``str()`` of an
integer over 4,300 digits with a ``ValueError``, and a value nested deeper than the interpreter's
stack (or one that contains itself) fails with ``RecursionError`` somewhere inside a walk. Agently
crashes there; promptwire raises :class:`AgentlyFieldError` naming the field, as for every other
crash case, and gives the walks room for the 1000 levels a core ``Prompt`` allows.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from ....core.errors import FieldError
from ....core.limits import check_nesting, nesting_room
from .errors import AgentlyFieldError, Unrenderable

__all__ = ["field_guard", "nesting_error", "printable"]


def _is_digit_limit(error: ValueError) -> bool:
    return not isinstance(error, FieldError) and "integer string conversion" in str(error)


def _digit_limit_reason() -> str:
    return (
        f"an integer has more than {sys.get_int_max_str_digits()} digits and cannot be printed "
        "(Agently 4.1.4.10 fails with ValueError)"
    )


@contextmanager
def field_guard(field: str) -> Iterator[None]:
    """Turn what printing one prompt field can fail with into :class:`AgentlyFieldError` for ``field``."""
    try:
        yield
    except Unrenderable as error:
        raise AgentlyFieldError(error.field(field), error.reason) from None
    except ValueError as error:
        if not _is_digit_limit(error):
            raise
        raise AgentlyFieldError(field, _digit_limit_reason()) from None


def nesting_error(values: Mapping[Any, Any]) -> AgentlyFieldError:
    """The error for a ``RecursionError`` while printing ``values``: the field that nests too deep."""
    for key, value in values.items():
        try:
            check_nesting(value, (str(key),))
        except FieldError as error:
            return AgentlyFieldError(error.field, error.reason)
    return AgentlyFieldError("prompt", "the prompt is nested too deeply to print")


@contextmanager
def printable(values: Mapping[Any, Any]) -> Iterator[None]:
    """Room for recursive walks over ``values`` (up to the 1000 levels a Prompt allows); deeper or
    circular values become :class:`AgentlyFieldError` naming the top-level key they are under."""
    with nesting_room():
        try:
            yield
        except RecursionError:
            raise nesting_error(values) from None
        except ValueError as error:
            if not _is_digit_limit(error):
                raise
            raise AgentlyFieldError("prompt", _digit_limit_reason()) from None
