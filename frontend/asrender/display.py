"""What ``asrender`` shows of a run besides its prompts: under each call's prompt the model's reply
(its text, and the JSON value the call gave the program) or why the attempt was rejected, and after
the last call the program's value and a summary of the run.

The same sections are written after the run (:func:`reply_sections`, :func:`closing_block`) and,
on a live display, as the run goes (:class:`LiveDisplay`: each call's prompt when it is sent, its
reply text as it arrives, the outcome when it ends), so a streamed run and the same run shown
afterwards print the same bytes. :class:`CallLog` keeps every call a run made, the one whose
provider failed too (``error.calls`` holds only the calls that came back), so a failed run shows
them all. Times are shown only for calls a provider answered: an offline reply takes no time worth
showing, and leaving it out keeps offline output the same from run to run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field, replace
from typing import TYPE_CHECKING, Any

from ...calls.generate import read_json
from ...calls.watch import Watcher
from ...core.call import ModelCall
from ...core.records import FACTORY, dataclass_record
from .progress import INTERRUPTED, model_of
from .terminal import finish_output, json_text, write_output

if TYPE_CHECKING:
    from ...core.call import ModelCall
    from ...core.rendered import RenderedPrompt
    from ...runs.options import RunOptions

__all__ = [
    "CallLog",
    "LiveDisplay",
    "RunShow",
    "call_facts",
    "closing_block",
    "outcome_section",
    "reply_sections",
    "reply_value",
    "shown_call",
    "summary",
]


def reply_value(call: ModelCall) -> Any:
    """The JSON value of a call's reply, when it has one: the value the program received for an
    accepted call with an output contract (or a reply that came as a value), else what could be
    read as JSON from a rejected reply (``None`` when nothing could)."""
    reply = call.reply
    if reply is None:
        return None
    if call.error is None:
        return call.value if call.prompt.output is not None or reply.has_value else None
    if reply.has_value:
        return reply.value
    try:
        return read_json(reply.text or "")
    except Exception:  # not JSON: the rejection says so
        return None


def call_facts(call: ModelCall, *, timed: bool) -> dict[str, Any]:
    """A call's reply and what it cost, for ``--output json``: ``provider``, ``model``, ``reply``
    (``text`` and ``value``; None when no reply came), ``usage`` (as the provider sent it),
    ``seconds`` (None unless ``timed``: an offline reply) and ``error`` (why the attempt was
    rejected, or the provider's failure)."""
    reply = call.reply
    return {
        "provider": call.provider,
        "model": model_of(call),
        "reply": None if reply is None else {"text": reply.text, "value": reply_value(call)},
        "usage": None if reply is None or reply.usage is None else reply.usage.as_data(),
        "seconds": round(call.seconds, 3) if timed and call.seconds is not None else None,
        "error": call.error,
    }


def _ended_with_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


REPLY_HEADING = "--- reply ---\n"


def reply_sections(call: ModelCall) -> str:
    """What follows a call's prompt: its reply text under ``--- reply ---`` (when it has text),
    then :func:`outcome_section`."""
    text = call.reply.text if call.reply is not None else None
    shown = REPLY_HEADING + _ended_with_newline(text) if text else ""
    return shown + outcome_section(call)


def outcome_section(call: ModelCall) -> str:
    """How a call ended: ``--- value ---`` and the JSON value the program received (for a call
    with an output contract or a reply that came as a value), ``--- rejected ---`` and the reason
    the attempt was retried or failed (after the reply, as JSON, when it came as a value and not
    as text), ``--- failed ---`` and the provider's failure, or ``--- interrupted ---`` for a call
    cut short by Ctrl-C."""
    reply = call.reply
    if reply is None and call.error == INTERRUPTED:
        return "--- interrupted ---\n"
    if reply is None:
        return f"--- failed ---\n{_ended_with_newline(call.error or '')}" if call.error else ""
    if call.error is None:
        shows_value = call.prompt.output is not None or reply.has_value
        return f"--- value ---\n{json_text(call.value)}\n" if shows_value else ""
    as_value = f"{REPLY_HEADING}{json_text(reply.value)}\n" if reply.text is None and reply.has_value else ""
    return f"{as_value}--- rejected ---\n{_ended_with_newline(call.error)}"


def closing_block(value: Any, calls: Sequence[ModelCall], seconds: float | None) -> str:
    """After the last call: the program's value (as JSON) and the run's summary line."""
    return f"=== value ===\n{json_text(value)}\n=== {summary(calls, seconds)} ===\n"


def summary(calls: Sequence[ModelCall], seconds: float | None) -> str:
    """``2 calls, 3 attempts, 36 tokens in, 9 out, 1.23 s``: the generates run (each call's first
    attempt starts one), every attempt, the tokens the providers counted (when any did) and the
    run's time (None: answered offline, which the line says instead)."""
    generates = sum(1 for call in calls if call.attempt == 1)
    parts = [_count(generates, "call"), _count(len(calls), "attempt")]
    counted = [(usage.input, usage.output) for call in calls if call.reply is not None and (usage := call.reply.usage)]
    if counted:
        parts.append(f"{sum(n or 0 for n, _ in counted)} tokens in")
        parts.append(f"{sum(n or 0 for _, n in counted)} out")
    parts.append("answered offline" if seconds is None else f"{seconds:.2f} s")
    return ", ".join(parts)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


@dataclass_record()
class CallLog(Watcher):
    """Every call of a run as it ended, the one whose provider failed too: what a failed run shows.

    A call cut short by Ctrl-C gets the error :data:`~.progress.INTERRUPTED`, whatever its
    cancellation raised on the way out: the run was ``interrupted`` (set on Ctrl-C, before the
    cancellation), or the call ended in what is no ``Exception`` (``KeyboardInterrupt``,
    ``CancelledError``). Told first, before the display and the progress lines, so they say so too."""

    calls: list[ModelCall] = field(default_factory=list)
    interrupted: bool = False

    def __init__(self, calls: list[ModelCall] = FACTORY, interrupted: bool = False) -> None:
        self.calls = list() if calls is FACTORY else calls
        self.interrupted = interrupted

    def call_ended(self, call: ModelCall, error: BaseException | None) -> None:
        if call.reply is None and error is not None and (self.interrupted or not isinstance(error, Exception)):
            call.error = INTERRUPTED
        self.calls.append(call)


class LiveDisplay(Watcher):
    """The display written as the run goes: each call's prompt (``block``) when it is sent, the
    reply text as it arrives (``text``: the run streams), how it ended when it ends; flushed
    at each step, so a person watching sees the model write."""

    def __init__(self, block: Callable[[ModelCall], str]) -> None:
        self._block = block
        self._heading_due = False
        self._open_line = False

    def call_started(self, call: ModelCall) -> None:
        self._write(self._block(call))
        self._heading_due = True
        self._open_line = False

    def text(self, call: ModelCall, piece: str) -> None:
        if not piece:
            return
        if self._heading_due:
            self._write(REPLY_HEADING)
            self._heading_due = False
        self._write(piece)
        self._open_line = not piece.endswith("\n")

    def call_ended(self, call: ModelCall, error: BaseException | None) -> None:
        self._write(("\n" if self._open_line else "") + outcome_section(call))
        self._heading_due = self._open_line = False

    @staticmethod
    def _write(text: str) -> None:
        if text:
            write_output(text)
            finish_output()


def shown_call(call: ModelCall, rendered: RenderedPrompt) -> str:
    """A call as a run's display shows it once it has ended: its heading and prompt, its reply."""
    from ...runs.run import call_block

    return call_block(call, rendered) + reply_sections(call)


class RunShow:
    """How ``asrender`` watches one run: every call logged (:class:`CallLog`), progress lines when
    asked, the raw reply of a ``debug: true`` generate, and with ``live`` the display written as
    the run goes (:class:`LiveDisplay`, rendering each call with ``block``). ``options`` is the
    run's options with these attached; ``seconds()`` the run's time so far when a provider
    answers it (None offline)."""

    def __init__(
        self,
        options: RunOptions,
        sent_as: tuple[str, Mapping[str, Any]],
        *,
        progress: bool,
        live: Callable[[ModelCall], str] | None,
    ) -> None:
        self.sent_as = sent_as
        """The format (and options) the run's calls are sent in."""
        self.log = CallLog()
        self.timed = options.adapter != "offline" and not options.dry_run
        self.live = None if live is None else LiveDisplay(live)
        watchers: list[Watcher] = [self.log]
        if self.live is not None:  # on a terminal: a call's lines on stderr come after what stdout showed of it
            watchers.append(self.live)
        if options.debug is not None:
            from ..agentscript.trace import DebugReplies

            watchers.append(DebugReplies(options.debug))
        if progress:
            from .progress import Progress

            watchers.append(Progress(timed=self.timed))
        self.options = replace(
            options, watchers=(*options.watchers, *watchers), stream=options.stream or self.live is not None
        )
        self._started = time.perf_counter()

    def seconds(self) -> float | None:
        return time.perf_counter() - self._started if self.timed else None

    def interrupt(self) -> None:
        """Ctrl-C, before the run is cancelled: the calls it cuts short are shown as interrupted."""
        self.log.interrupted = True

    @property
    def interrupted(self) -> bool:
        return self.log.interrupted
