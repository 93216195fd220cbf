"""Progress lines: one ``asrender:`` line on stderr when a model call is sent and one when it ends,
so a run that waits on a provider is not silence.

    asrender: t.as:7:9 agent A: openai gpt-4o-mini attempt 1 sent
    asrender: t.as:7:9 agent A: openai gpt-4o-mini attempt 1 done in 0.42 s, 12 tokens in, 3 out

An attempt whose reply was rejected ends ``rejected after ...: REASON``, a call the provider failed
``failed after ...: ERROR``, a call cut short by Ctrl-C ``interrupted after ...``. Each line goes through :func:`.terminal.error_line`, which keeps it one
line and escapes what a terminal would act on (a model name or a reason may hold anything).
"""

from __future__ import annotations

from ...calls.watch import Watcher
from ...core.call import ModelCall
from .terminal import error_line

__all__ = ["INTERRUPTED", "Progress", "model_of"]

INTERRUPTED = "interrupted"
"""The error of a call cut short by Ctrl-C, as every output shows it (:class:`.display.CallLog`
writes it in place of what the cancellation raised on its way out: ``CancelledError`` with no
message, or an SDK's own error about a stream closed in the middle)."""


class Progress(Watcher):
    """A run's watcher writing :mod:`progress lines <.progress>`; ``timed``: show seconds (not for
    offline replies, which take none worth showing)."""

    def __init__(self, *, timed: bool) -> None:
        self.timed = timed

    def call_started(self, call: ModelCall) -> None:
        error_line(f"{_who(call)} sent")

    def call_ended(self, call: ModelCall, error: BaseException | None) -> None:
        facts = []
        if self.timed and call.seconds is not None:
            facts.append(f"{call.seconds:.2f} s")
        usage = call.reply.usage if call.reply is not None else None
        if usage is not None and (usage.input is not None or usage.output is not None):
            facts.append(f"{_number(usage.input)} tokens in, {_number(usage.output)} out")
        cost = ", ".join(facts)
        if call.error is None:
            error_line(f"{_who(call)} done" + (f" in {cost}" if cost else ""))
            return
        if call.error == INTERRUPTED and call.reply is None:
            error_line(f"{_who(call)} interrupted" + (f" after {cost}" if cost else ""))
            return
        verb = "rejected" if call.reply is not None else "failed"
        error_line(f"{_who(call)} {verb}" + (f" after {cost}" if cost else "") + f": {call.error}")


def _who(call: ModelCall) -> str:
    """``SITE agent A: PROVIDER MODEL attempt N``."""
    site = call.site
    where = "" if site is None else f"{site}" + (f" agent {site.agent}" if site.agent else "") + ": "
    model = model_of(call)
    return f"{where}{call.provider or '?'}{'' if model is None else f' {model}'} attempt {call.attempt}"


def _number(count: int | None) -> str:
    return "?" if count is None else str(count)


def model_of(call: ModelCall) -> str | None:
    """The model the request asked for, as the adapter wrote it into the request."""
    model = call.request.model_asked()
    return None if model is None else str(model)
