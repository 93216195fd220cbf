"""Agently's own warnings, said the way the caller needs them.

``AgentlyPrompt`` is a drop-in for Agently's generator, so used directly it warns as Agently does
(a Python ``AgentlyWarning`` with Agently's text). The ``agently`` renderer must not emit Python
warnings at all: it returns records on the ``RenderedPrompt``. The generator's modules therefore
call :func:`notice`, and the renderer collects what they say with :func:`collecting`. A context
variable, not a global, holds the collector, so renders in other threads are not affected.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from ....core.errors import warn
from .errors import AgentlyWarning

__all__ = ["Notice", "collecting", "notice"]


@dataclass(frozen=True, slots=True)
class Notice:
    """One warning of Agently's: the Agently prompt key it concerns (a path) and Agently's text."""

    field: str
    message: str


_COLLECTOR: ContextVar[list[Notice] | None] = ContextVar("agently_notices", default=None)


def notice(message: str, field: str, stacklevel: int) -> None:
    """Warn as Agently does, or hand the warning to the active collector.

    ``stacklevel`` counts from the caller of this function, as for ``warnings.warn``.
    """
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
