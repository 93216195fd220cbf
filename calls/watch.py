"""Watching runs and model calls: one observer for the process, which sees nothing by default.

The generate loop tells the observer of each generate it starts, each attempt's request as it is
sent, its reply as it comes and whether the reply was rejected, and how the generate ended; a front
end tells it of a program's run, around the generates the run makes. What the observer does with
that is its own business: :mod:`.telemetry` makes OpenTelemetry spans of it. The classes here are
the observer that sees nothing, so the loop calls them unconditionally (a few empty calls a
generate) and neither the loop nor a front end knows whether anyone watches, or who.
"""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.call import GenerateResult, ProviderRequest, Reply
    from ..core.errors import ModelOutputError
    from ..core.prompt import Prompt
    from ..core.rendered import RenderedPrompt

__all__ = ["Observer", "Watch", "observer", "set_observer"]


class Watch:
    """One generate, watched: each attempt's request as it is sent and its reply as it comes, then
    the end. The attempt in flight when the generate ends (a failed call, a cancelled stream) ended
    with it."""

    def sending(self, attempt: int, rendered: RenderedPrompt, request: ProviderRequest) -> None:
        """Attempt number ``attempt`` is about to be sent: ``request``, built from ``rendered``."""

    def replied(self, reply: Reply) -> None:
        """The attempt's reply came; the loop checks it next."""

    def rejected(self, error: ModelOutputError) -> None:
        """The loop's checks rejected the reply that came last (the generate tries again, or ends
        with ``error`` when that was its last attempt)."""

    def ended(self, result: GenerateResult | None, error: BaseException | None) -> None:
        """The generate ended: with ``result``, or with ``error`` (the failed call's, a rejected
        reply's after the last attempt, or the cancellation that stopped it)."""


class Observer:
    """Sees a program's run (:meth:`run`, around its generates) and each generate (:meth:`generate`)."""

    def run(self, name: str) -> AbstractContextManager[None]:
        """A program's run, named by its file: the generates made inside it are part of it."""
        return contextlib.nullcontext()

    def generate(self, prompt: Prompt, provider: str, streaming: bool) -> Watch:
        """A generate of ``prompt`` starts, its calls going to the adapter named ``provider``."""
        return _UNWATCHED


_UNWATCHED = Watch()
_current = Observer()


def observer() -> Observer:
    """The process's observer (one that sees nothing unless :func:`set_observer` set another)."""
    return _current


def set_observer(new: Observer | None) -> None:
    """Make ``new`` the process's observer; ``None`` goes back to seeing nothing."""
    global _current
    _current = new or Observer()
