"""Watching runs and model calls: one protocol, with a method for each moment and nothing done by
default, and the process's own watcher, which sees nothing unless telemetry is enabled.

The attempt loop tells the watchers it is given of each generate it starts (:meth:`Watcher.generate`,
which answers the watcher of that one generate: itself, or one that keeps what a generate needs,
a telemetry span), each attempt as it is sent (:meth:`~Watcher.call_started`), its text as it
streams (:meth:`~Watcher.text`), its reply as it comes (:meth:`~Watcher.call_replied`), how it
ended (:meth:`~Watcher.call_ended`: accepted, rejected or failed) and how the generate ended; a run
tells them of the program's run around its generates (:meth:`~Watcher.run`). The progress lines,
the live display, the call log, the debug text and telemetry are each a watcher; a run is given a
list of them, and the process's watcher (:func:`observer`, set by :mod:`.telemetry`) comes first.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.call import GenerateResult, ModelCall
    from ..core.prompt import Prompt

__all__ = ["Watcher", "Watchers", "observer", "set_observer", "text_to"]


class Watcher:
    """Told of a run's moments; each method does nothing unless a watcher says otherwise."""

    def run(self, name: str) -> AbstractContextManager[None]:
        """A program's run, named by its file: the generates made inside it are part of it."""
        return contextlib.nullcontext()

    def generate(self, prompt: Prompt, provider: str, streaming: bool) -> Watcher:
        """A generate of ``prompt`` starts, its calls going to ``provider``: the watcher of its
        attempts (this one, unless a watcher keeps something per generate)."""
        return self

    def call_started(self, call: ModelCall) -> None:
        """An attempt is about to be sent: ``call`` has its site, render and request, no reply yet."""

    def text(self, call: ModelCall, piece: str) -> None:
        """A piece of the streamed reply of ``call``, as it arrived."""

    def call_replied(self, call: ModelCall) -> None:
        """The reply of ``call`` came (``call.reply``); it is checked next."""

    def call_ended(self, call: ModelCall, error: BaseException | None) -> None:
        """``call`` ended: accepted (``error`` None, ``call.value`` set), its reply rejected by the
        checks (``error`` the :class:`ModelOutputError`, ``call.reply`` set) or the call failed
        (``error`` the failure, no reply); ``call.error`` says why, as a line."""

    def generate_ended(self, result: GenerateResult | None, error: BaseException | None) -> None:
        """The generate ended: with ``result``, or with ``error`` (the failed call's, a rejected
        reply's after the last attempt, or the cancellation that stopped it)."""


class Watchers(Watcher):
    """Several watchers, each told of every moment in turn, in order."""

    def __init__(self, watchers: Sequence[Watcher]) -> None:
        self.watchers = tuple(watchers)

    @contextlib.contextmanager
    def run(self, name: str) -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            for watcher in self.watchers:
                stack.enter_context(watcher.run(name))
            yield

    def generate(self, prompt: Prompt, provider: str, streaming: bool) -> Watcher:
        return Watchers([watcher.generate(prompt, provider, streaming) for watcher in self.watchers])

    def call_started(self, call: ModelCall) -> None:
        for watcher in self.watchers:
            watcher.call_started(call)

    def text(self, call: ModelCall, piece: str) -> None:
        for watcher in self.watchers:
            watcher.text(call, piece)

    def call_replied(self, call: ModelCall) -> None:
        for watcher in self.watchers:
            watcher.call_replied(call)

    def call_ended(self, call: ModelCall, error: BaseException | None) -> None:
        for watcher in self.watchers:
            watcher.call_ended(call, error)

    def generate_ended(self, result: GenerateResult | None, error: BaseException | None) -> None:
        for watcher in self.watchers:
            watcher.generate_ended(result, error)


class _TextTo(Watcher):
    def __init__(self, receive: Callable[[str], None]) -> None:
        self.receive = receive

    def text(self, call: ModelCall, piece: str) -> None:
        self.receive(piece)


def text_to(receive: Callable[[str], None]) -> Watcher:
    """The watcher that hands each streamed piece of text to ``receive`` (a Python caller's ``on_text``)."""
    return _TextTo(receive)


_current: Watcher = Watcher()


def observer() -> Watcher:
    """The process's watcher (one that sees nothing unless :func:`set_observer` set another)."""
    return _current


def set_observer(new: Watcher | None) -> None:
    """Make ``new`` the process's watcher; ``None`` goes back to seeing nothing."""
    global _current
    _current = new or Watcher()
