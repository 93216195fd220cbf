"""What ``asrender`` prints of a render or a run: a prompt file's render, and a run's calls in the
output ``--output`` asks for (the display, JSON, the single-string text or a program's trace),
with the warnings of every render once each, what a replay answered that was not as recorded, and
how a run is watched as it goes (progress lines, a live display).

The display's own sections (a call's reply, the run's closing block, the live display) are
:mod:`.display`'s, progress lines :mod:`.progress`'s; this module chooses what is shown and writes
it. Their heavy imports (the run engine, the prompt model) wait until something is shown, so
``check`` and ``parse`` load none of it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ...core.errors import PromptwireError
from .terminal import CliError, error_block, error_line, finish_output, json_text, one_line, safe_json, write_output

if TYPE_CHECKING:
    from ...calls.counting import CallCount, NotCounted, TokenCounts
    from ...calls.recording import Recording
    from ...core.call import ModelCall
    from ...core.rendered import RenderedPrompt, RenderWarning
    from ...runs.options import RunOptions
    from ...runs.run import RunResult
    from .display import RunShow

__all__ = ["print_calls", "print_counts", "print_render", "print_run", "run_show", "shown_on_failure", "warn"]


def run_show(
    options: RunOptions, sent_as: tuple[str, Any], *, progress: bool | None, stream: bool | None, output: str
) -> RunShow:
    """How the run is watched: progress lines (``--progress``; by default when stderr is a terminal
    and a provider answers) and a live display (``--stream``; by default when stdout is a terminal,
    a provider answers and the output is the display)."""
    from ...runs.run import RunResult, call_block, shown
    from .display import RunShow
    from .terminal import is_terminal

    provider_answers = options.adapter != "offline" and not options.dry_run
    progress = progress if progress is not None else provider_answers and is_terminal(sys.stderr)
    stream = stream if stream is not None else provider_answers and is_terminal(sys.stdout)

    def block(call: ModelCall) -> str:
        return call_block(call, shown(RunResult(None, [], [call], sent_as), options, None)[0])

    live = block if stream and output == "display" else None
    return RunShow(options, sent_as, progress=bool(progress), live=live)


@contextmanager
def shown_on_failure(show: RunShow, options: RunOptions, output: str) -> Iterator[None]:
    """A failed run still shows every call it made, in the output asked for, before its error; an
    interrupted one (Ctrl-C) the calls that ended before it, and the one it cut short, then
    ``asrender: interrupted`` (``cli.main`` exits 130)."""
    try:
        yield
    except (PromptwireError, CliError, KeyboardInterrupt) as exc:
        from ...runs.run import RunResult

        print_calls(RunResult(None, [], show.log.calls, show.sent_as), options, output, show, failed=True)
        if isinstance(exc, KeyboardInterrupt):
            finish_output()  # what finished, on stdout, before the line that says why it stops
            error_line("interrupted")
        raise


def print_run(result: RunResult, options: RunOptions, output: str, show: RunShow) -> None:
    """A run's calls as ``--output`` asks (see :func:`print_calls`), then in the display the
    program's value and the run's summary."""
    from .display import closing_block

    if options.replay is not None:
        _report_replay(options.replay)
    if output == "trace":
        _print_trace(result)
        return
    print_calls(result, options, output, show)
    if output == "display":
        write_output(closing_block(result.to_dict()["value"], result.calls, show.seconds()))


def print_calls(result: RunResult, options: RunOptions, output: str, show: RunShow, *, failed: bool = False) -> None:
    """A run's calls as ``--output`` asks, each rendered in the display format now, after the run
    (a live display has shown them already); the warnings of every render first (each once). A
    failed run's trace output is its calls, as ``--output json`` prints them: the reference's trace
    has no form for a run that failed."""
    from ...runs.run import call_block, request_dict, shown
    from .display import call_facts, reply_sections

    if failed and not result.calls:
        return
    if options.dry_run and output == "json":
        requests = [request_dict(call, options.adapter) for call in result.calls]
        write_output(json_text(_with_cache_prefixes(requests, result.calls)) + "\n")
        return
    renders = shown(result, options, None)
    warn([warning for rendered in renders for warning in rendered.warnings])
    if show.live is not None:
        return
    if output in ("json", "trace"):
        shown_calls = [
            _call_dict(call, rendered) | call_facts(call, timed=show.timed)
            for call, rendered in zip(result.calls, renders, strict=True)
        ]
        write_output(json_text(_with_cache_prefixes(shown_calls, result.calls)) + "\n")
    elif output == "text":
        from ...runs.run import call_heading
        from .text_form import model_text

        texts = zip(result.calls, renders, strict=True)  # each call's text under its heading: where one ends
        write_output("".join(f"{call_heading(call)}\n{model_text(rendered)}" for call, rendered in texts))
    else:
        blocks = []
        for call, rendered in zip(result.calls, renders, strict=True):
            request = _request_block(request_dict(call, options.adapter)) if options.dry_run else ""
            blocks.append(call_block(call, rendered) + request + reply_sections(call))
        write_output("".join(blocks))


def print_counts(counts: TokenCounts, output: str) -> None:
    """``--count-tokens``: each call's input tokens as its provider counted them, each call its
    provider could not count with why, then the total; ``json``: the counts as data
    (:meth:`~promptwire.calls.counting.TokenCounts.to_dict`)."""
    if output == "json":
        write_output(json_text(counts.to_dict()) + "\n")
        return
    lines = []
    for call in counts.calls:
        left_out = f", without {', '.join(call.left_out)}" if call.left_out else ""
        lines.append(
            f"{_counted_where(call)} attempt {call.attempt}: {call.input_tokens} input tokens "
            f"({one_line(call.provider)} {one_line(str(call.model))}; {call.endpoint}{left_out})"
        )
    for uncounted in counts.not_counted:
        lines.append(
            f"{_counted_where(uncounted)} attempt {uncounted.attempt}: not counted "
            f"({one_line(uncounted.provider)} {one_line(str(uncounted.model))}: no token-count endpoint)"
        )
    noun = "call" if len(counts.calls) == 1 else "calls"
    left = f"; {not_counted_text(len(counts.not_counted))}" if counts.not_counted else ""
    lines.append(f"total: {counts.total} input tokens in {len(counts.calls)} {noun}{left}")
    write_output("".join(line + "\n" for line in lines))


def not_counted_text(calls: int) -> str:
    """How many calls a count total leaves out, for its line."""
    return f"{calls} call{'' if calls == 1 else 's'} not counted"


def not_counted_error(counts: TokenCounts) -> str:
    """The line on stderr for counts whose total leaves calls out: how many, and why (each
    provider that cannot count, once)."""
    reasons = dict.fromkeys(str(call.unavailable) for call in counts.not_counted)
    left = len(counts.not_counted)
    return f"{not_counted_text(left)}, so the total leaves {'it' if left == 1 else 'them'} out: {'; '.join(reasons)}"


def _counted_where(call: CallCount | NotCounted) -> str:
    site = call.site
    return "the prompt" if site is None else one_line(f"{site}{f' agent {site.agent}' if site.agent else ''}")


def print_render(rendered: Any, output: str) -> None:
    """A prompt file's render (no model asked) as ``--output`` asks."""
    if output == "json":
        write_output(json_text(rendered.to_dict()) + "\n")
    elif output == "text":
        from .text_form import model_text

        write_output(model_text(rendered))
    else:
        write_output(rendered.display())


def warn(warnings: Sequence[RenderWarning]) -> None:
    """Each warning line once, on stderr."""
    from ...core.rendered import warning_lines

    seen: set[str] = set()
    for line in warning_lines(warnings):
        if line not in seen:
            seen.add(line)
            error_line(f"warning: {line}")


def _report_replay(replay: Recording) -> None:
    """What a replay answered that was not as recorded: each drift accepted, and the recorded
    calls the run did not make."""
    for report in replay.drifted:
        error_block(f"asrender: warning: {report}")
    unused = replay.unused()
    if unused:
        calls = ", ".join(f"call {record.call} at {record.where()}" for record in unused)
        error_line(f"warning: {replay.label}: {len(unused)} recorded call(s) not made by this run: {calls}")


def _print_trace(result: RunResult) -> None:
    """As the reference CLI prints it: ``JSON.stringify(result, null, 2)``."""
    from ...core.nesting import MAX_DEPTH, nesting_room
    from ...renderers.agentscript.jsjson import pretty

    try:
        with nesting_room():
            trace_text = pretty(result.to_dict())
    except RecursionError:
        raise CliError(f"the value or trace is nested deeper than {MAX_DEPTH} levels; it cannot be printed") from None
    write_output(safe_json(trace_text) + "\n")


def _call_dict(call: ModelCall, rendered: RenderedPrompt) -> dict[str, Any]:
    """A call for ``--output json``: where it came from, its output schema and its render."""
    schema = call.prompt.output.json_schema if call.prompt.output is not None else None
    where = {"site": str(call.site), "agent": call.agent or None, "attempt": call.attempt, "schema": schema}
    return {**where, **rendered.to_dict()}


def _with_cache_prefixes(shown_calls: list[dict[str, Any]], calls: Sequence[ModelCall]) -> list[dict[str, Any]]:
    """Each call as ``--output json`` shows it, with how much of its body repeats the previous
    call's to the same provider and model (``cache_prefix``, :mod:`promptwire.calls.cache_prefix`)."""
    from ...calls.cache_prefix import cache_prefixes

    prefixes = cache_prefixes(calls)
    return [
        shown | {"cache_prefix": None if prefix is None else prefix.as_data()}
        for shown, prefix in zip(shown_calls, prefixes, strict=True)
    ]


def _request_block(request: dict[str, Any]) -> str:
    """A dry run's request under its call: provider, model, body and the adapter's notes."""
    block = f"--- request: {request['provider']} {request['model']} ---\n{json_text(request['body'])}\n"
    return block + "".join(f"note: {note}\n" for note in request["notes"])
