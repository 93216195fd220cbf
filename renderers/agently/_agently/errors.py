"""How Agently 4.1.4.10's failures and warnings reach the caller: named errors, warnings or records.

Agently answers some inputs with a raw ``TypeError``/``AttributeError``/``ValidationError`` from
deep inside its generator; the user then has to guess which part of the prompt was wrong.
promptwire renders every input Agently renders, byte for byte, and for the others raises
:class:`AgentlyFieldError` naming the field and the reason. The one refusal Agently makes on
purpose (the empty prompt) keeps its exact message and stays catchable as ``KeyError``.

Printing is where the rest fails: Agently prints values with ``str()``, PyYAML and recursive walks.
Python refuses ``str()`` of an integer over 4,300 digits with a ``ValueError``, and a value nested
deeper than the interpreter's stack (or one that contains itself) fails with ``RecursionError``
somewhere inside a walk. :func:`printable` and :func:`field_guard` turn both into
:class:`AgentlyFieldError` and give the walks room for the 1000 levels a core ``Prompt`` allows.

Agently's own warnings go through :func:`notice`: ``AgentlyPrompt`` is a drop-in, so used directly
it warns as Agently does (a Python ``AgentlyWarning`` with Agently's text); the ``agently`` renderer
must emit no Python warning and collects them with :func:`collecting` into records instead. A
context variable, not a global, holds the collector, so renders in other threads are not affected.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ....core.errors import FieldError, PromptwireError, PromptwireWarning, field_path, warn
from ....core.nesting import check_nesting, nesting_room

if TYPE_CHECKING:
    from pydantic import ValidationError

EMPTY_PROMPT_MESSAGE = (
    "Prompt requires at least one of 'input', 'info', 'instruct', 'output', 'attachment' "
    "or customize extra prompt keys to be provided."
)


class AgentlyFieldError(FieldError):
    """A prompt (or settings) value Agently 4.1.4.10 cannot render: ``field`` says which, ``reason`` why."""


class AgentlyEmptyPromptError(PromptwireError, KeyError):
    """Agently's deliberate refusal of a prompt with nothing to say.

    ``args`` holds the message exactly as Agently raises it, so ``except KeyError`` code and
    ``pytest.raises(KeyError, match=...)`` keep working. ``str()`` is the bare message: a plain
    ``KeyError`` would wrap it in quotes.
    """

    def __init__(self, message: str = EMPTY_PROMPT_MESSAGE) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class AgentlyWarning(PromptwireWarning):
    """The warnings Agently emits (skipped content parts, output-format fallbacks), same texts."""


class Unrenderable(Exception):
    """Internal: a value deep inside a section cannot be rendered.

    Raised by helpers that do not know which prompt field they are working on; the section code
    catches it and raises :class:`AgentlyFieldError` with the field's name.
    """

    def __init__(self, reason: str, path: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path

    def field(self, root: str) -> str:
        return f"{root}{self.path}"


_UNION_TAGS = frozenset({"str", "int", "bool", "list", "dict", "TextMessageContent", "AttachmentMessageContent"})


def _field_parts(location: tuple[Any, ...]) -> list[str | int]:
    """Pydantic's error location without the union-branch tags (``str``, ``literal[...]``...)."""
    return [
        part
        for part in location
        if isinstance(part, int)
        or (isinstance(part, str) and part not in _UNION_TAGS and not any(c in part for c in "[(,"))
    ]


def validation_field_error(path: list[str | int], error: ValidationError) -> AgentlyFieldError:
    """One error naming the field, with every reason pydantic gives for it (one per union branch)."""
    details = error.errors()
    where = _field_parts(details[0]["loc"])
    reasons: list[str] = []
    for detail in details:
        if _field_parts(detail["loc"]) == where and detail["msg"] not in reasons:
            reasons.append(detail["msg"])
    reason = f"{'; '.join(reasons)} (Agently 4.1.4.10 raises a pydantic ValidationError here)"
    return AgentlyFieldError(field_path([*path, *where]), reason)


# --- printing ------------------------------------------------------------------------------------


def is_digit_limit(error: ValueError) -> bool:
    """Whether ``error`` is Python refusing to print an integer of more than 4,300 digits."""
    return not isinstance(error, FieldError) and "integer string conversion" in str(error)


def _digit_limit_reason() -> str:
    return (
        f"an integer has more than {sys.get_int_max_str_digits()} digits and cannot be printed "
        "(Agently 4.1.4.10 fails with ValueError)"
    )


def field_guard(field: str | Callable[[], str]) -> FieldGuard:
    """Turn what printing one prompt field can fail with into :class:`AgentlyFieldError` for ``field``
    (or the field a function names, asked only on failure: for a loop over many fields)."""
    return FieldGuard(field)


class FieldGuard:
    """The context manager of :func:`field_guard`: a class, not a generator-based manager, because
    a render enters one per section and the generator kind costs four times as much."""

    __slots__ = ("_field",)

    def __init__(self, field: str | Callable[[], str]) -> None:
        self._field = field

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: Any) -> None:
        if isinstance(error, Unrenderable) or (isinstance(error, ValueError) and is_digit_limit(error)):
            field = self._field if isinstance(self._field, str) else self._field()
            if isinstance(error, Unrenderable):
                raise AgentlyFieldError(error.field(field), error.reason) from None
            raise AgentlyFieldError(field, _digit_limit_reason()) from None


def _nesting_error(values: Mapping[Any, Any]) -> AgentlyFieldError:
    """The error for a ``RecursionError`` while printing ``values``: the field that nests too deep."""
    for key, value in values.items():
        try:
            check_nesting(value, (str(key),))
        except FieldError as error:
            return AgentlyFieldError(error.field, error.reason)
    return AgentlyFieldError("prompt", "the prompt is nested too deeply to print")


def printable(values: Mapping[Any, Any]) -> Printable:
    """Room for recursive walks over ``values`` (up to the 1000 levels a Prompt allows); deeper or
    circular values become :class:`AgentlyFieldError` naming the top-level key they are under."""
    return Printable(values)


class Printable:
    """The context manager of :func:`printable` (a class, for the cost: every call enters one)."""

    __slots__ = ("_room", "_values")

    def __init__(self, values: Mapping[Any, Any]) -> None:
        self._values = values
        self._room = nesting_room()

    def __enter__(self) -> None:
        self._room.__enter__()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, traceback: Any) -> None:
        try:
            if isinstance(error, RecursionError):
                found = _nesting_error(self._values)
            elif isinstance(error, ValueError) and is_digit_limit(error):
                found = AgentlyFieldError("prompt", _digit_limit_reason())
            else:
                return
        finally:
            self._room.__exit__(kind, error, traceback)
        raise found from None


# --- Agently's warnings --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Notice:
    """One warning of Agently's: the Agently prompt key it concerns (a path) and Agently's text."""

    field: str
    message: str


_COLLECTOR: ContextVar[list[Notice] | None] = ContextVar("agently_notices", default=None)


_issued = 0


def notices_issued() -> int:
    """How many notices have been issued, in any thread: a step that leaves it unchanged issued none."""
    return _issued


def notice(message: str, field: str, stacklevel: int) -> None:
    """Warn as Agently does, or hand the warning to the active collector.

    ``stacklevel`` counts from the caller of this function, as for ``warnings.warn``.
    """
    global _issued
    _issued += 1
    collector = _COLLECTOR.get()
    if collector is None:
        warn(message, AgentlyWarning, stacklevel=stacklevel + 2)
    else:
        collector.append(Notice(field, message))


@contextmanager
def collecting() -> Iterator[list[Notice]]:
    """Collect the notices raised inside the block instead of warning; yields the list they go to."""
    collected: list[Notice] = []
    token = _COLLECTOR.set(collected)
    try:
        yield collected
    finally:
        _COLLECTOR.reset(token)
