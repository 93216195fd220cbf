"""Where the model call being made comes from: the call site a front end names, and the attempt.

An adapter sees a request and nothing else, but what it does with a call may need to say where the
call came from: a recording names each reply's call site and attempt
(:mod:`promptwire.core.recording`), and a reply that no longer matches its recording is reported at
its site. The front end sets the site around its ``generate`` (:func:`calling_from`), the attempt
loop sets the attempt (:func:`attempting`), and whoever wraps an adapter reads both
(:func:`call_origin`). A context variable, so concurrent runs on one event loop each see their own,
and a call :class:`promptwire.core.on_loop.OnLoop` hands to the loop sees its thread's
(``run_coroutine_threadsafe`` schedules it in a copy of the calling thread's context).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, replace

__all__ = ["CallOrigin", "attempting", "call_origin", "calling_from"]


@dataclass(frozen=True, slots=True)
class CallOrigin:
    """The site of a call (``main.as:12:9``, or ``None`` for a Python caller that named none) and
    its attempt (from 1; ``None`` outside ``generate``'s loop)."""

    site: str | None = None
    attempt: int | None = None


_NOWHERE = CallOrigin()
_ORIGIN: ContextVar[CallOrigin | None] = ContextVar("promptwire_call_origin", default=None)


def call_origin() -> CallOrigin:
    """Where the call being made comes from."""
    return _ORIGIN.get() or _NOWHERE


@contextlib.contextmanager
def calling_from(site: str | None) -> Iterator[None]:
    """The calls made inside come from ``site``."""
    token = _ORIGIN.set(CallOrigin(site))
    try:
        yield
    finally:
        _ORIGIN.reset(token)


@contextlib.contextmanager
def attempting(attempt: int) -> Iterator[None]:
    """The call made inside is attempt ``attempt`` of its site's."""
    token = _ORIGIN.set(replace(call_origin(), attempt=attempt))
    try:
        yield
    finally:
        # Set inside generate's attempt loop, a generator: one closed by the garbage collector
        # runs this in another context, where the variable was never set.
        with contextlib.suppress(ValueError):
            _ORIGIN.reset(token)
