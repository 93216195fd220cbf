"""What each ``asrender`` sub-command does, given its flags as their record (:mod:`.flags`): read
the file, run or render it, and hand the result to :mod:`.show`. A handler returns the exit
status; a failure the user caused is raised (:class:`~.terminal.CliError`, a ``PromptwireError``)
for ``cli.main``'s error ladder to print as one line.

Each handler imports what it needs when it runs: ``check`` and ``parse`` load the language and
nothing of the prompt model, the run engine, the plugin host or :mod:`.show`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.errors import FieldError, PromptDrift, PromptwireError, ProviderError, SourceError
from ..agentscript.diagnostics import CheckError
from .flags import (
    BatchFlags,
    CheckFlags,
    LspFlags,
    PluginsFlags,
    ProgramFlags,
    RenderFlags,
    ServeFlags,
    SnapshotFlags,
    asks_a_model,
    batch_kind,
    batch_run_options,
    known,
    permissions,
    plugin_host,
    program_label,
    render_run_options,
    serve_options,
    snapshot_options,
)
from .terminal import (
    CliError,
    DebugStream,
    error_block,
    error_line,
    json_text,
    one_line,
    safe_json,
    usage_error,
    write_output,
)

if TYPE_CHECKING:
    from ...plugins.manager import PluginHost
    from ...runs.options import RunOptions
    from ...runs.run import RunResult
    from .display import RunShow

__all__ = ["COMMAND_LINE", "batch", "check", "lsp", "parse", "plugins", "render", "serve", "snapshot"]

COMMAND_LINE: list[str] = []
"""The arguments ``cli.main`` was given, for the command an interrupted batch prints to resume it."""


def plugins(flags: PluginsFlags) -> int:
    """Every plugin, loaded or not: one that failed to load is listed with why (exit 1)."""
    infos = plugin_host().plugins()
    status = 1 if any(info.error is not None for info in infos) else 0
    if flags.json:
        write_output(json_text([info.to_dict() for info in infos]) + "\n")
        return status
    from ...core.sdk import missing_sdk

    host = plugin_host()
    lines = []
    for info in infos:
        lines.append(f"{one_line(info.name)} {one_line(info.version or '(no version)')}")
        if info.error is not None:
            lines.append(f"  BROKEN, not loaded: {one_line(info.error)}")
        for kind, names in info.registers.items():
            if names:
                lines.append(f"  {kind.replace('_', ' ')}: {one_line(', '.join(names))}")
            for name in names if kind == "adapters" else ():
                missing = missing_sdk(host.load("adapters", name))
                if missing is not None:
                    lines.append(f"    {one_line(name)} cannot send: {one_line(missing)}")
    write_output("".join(line + "\n" for line in lines))
    return status


def render(flags: RenderFlags) -> int:
    """``asrender FILE``: a program run (a ``.as`` file, or one on standard input), else prompt data
    rendered, or asked of a model when a flag asks for the model's side (:func:`.flags.asks_a_model`)."""
    from .show import print_render, warn

    if flags.otel:
        _enable_telemetry()
    stdin_program, stdin_data = _read_stdin(flags.max_input_size) if flags.file == "-" else (None, None)
    if flags.file.endswith(".as") or stdin_program is not None:
        return _run_program(flags, stdin_program)
    program_only = flags.program_flags()
    if program_only:
        usage_error(f"{', '.join(program_only)} apply to .as programs only")
    host = plugin_host()
    label = program_label(flags.file)
    options = render_run_options(flags, program=False)
    known("readers", flags.reader, "--from")
    data = _load_data(flags.file, label, flags.max_input_size, text=stdin_data)
    renderer = host.renderer(flags.format)
    try:
        reader = host.reader(flags.reader)
        prompt = reader.read(data)
        if asks_a_model(flags):
            model = None
            field = getattr(reader, "model_field", None)
            if flags.model is None and field is not None:  # a provider's body names its model
                from ...runs.inputs import body_model

                prompt, model = body_model(prompt, flags.reader, field)
            return _run_prompt(flags, prompt, label, options, host, model)
        rendered = renderer.render(prompt, **options.options)
    except FieldError as exc:
        raise CliError(f"{label}: {exc}") from None
    warn(rendered.warnings)
    print_render(rendered, flags.output)
    return 0


def _enable_telemetry() -> None:
    """``--otel``: spans to the tracer provider the process has (:mod:`promptwire.calls.telemetry`)."""
    from ...calls import telemetry

    try:
        telemetry.enable()
    except telemetry.TelemetryUnavailable as exc:
        usage_error(f"--otel: {exc}")
    if not telemetry.tracer_provider_configured():
        error_line(f"warning: --otel: {telemetry.UNCONFIGURED}")


def _run_program(flags: RenderFlags, stdin_program: str | None) -> int:
    """A program's run: the file's, or ``stdin_program`` (``asrender -``, read already)."""
    from ...runs.inputs import program_input
    from ...runs.run import arun, run

    options = render_run_options(flags, program=True)  # the plugin host is loaded by what needs a registry, if any
    label, source = _read_program(flags.file, flags.max_input_size, stdin_program)
    input_value = program_input(flags.input, flags.input_file, flags.max_input_size)
    if flags.file != "-":  # NAME.input.json and NAME.responses.json, as snapshot and serve take them
        from .beside import open_siblings

        input_open = flags.input is None and flags.input_file is None
        replies_open = flags.responses is None and options.adapter == "offline"
        options, found, note = open_siblings(
            label, options, input_open=input_open, replies_open=replies_open, max_bytes=flags.max_input_size
        )
        input_value = input_value if found is None else found
        if note is not None:
            error_line(note)
    return _run_shown(
        flags,
        options,
        lambda shown: run(source, input_value, shown, path=label),
        lambda shown: arun(source, input_value, shown, path=label),
    )


def _run_prompt(
    flags: RenderFlags, prompt: Any, label: str, options: RunOptions, host: PluginHost, model: str | None
) -> int:
    """A prompt file asked of the model ``--model`` names, else of ``model``, the one its body names
    (a provider's body: the prompt's own, checked as a program's model URI is)."""
    from ...core.model_uri import model_scheme
    from ...runs.run import arun_prompt, run_prompt

    asked = flags.model or model
    if options.adapter != "offline" and asked is None:
        usage_error(f"--provider {options.adapter} needs --model for a prompt file (a prompt file names no model)")
    if options.adapter == "auto" and model_scheme(asked) is None:
        usage_error(f"--provider auto sends a call where its model's scheme says: give --model SCHEME://{asked}")
    return _run_shown(
        flags,
        options,
        lambda shown: run_prompt(prompt, label, shown, host=host, model=model),
        lambda shown: arun_prompt(prompt, label, shown, host=host, model=model),
    )


def _run_shown(
    flags: RenderFlags,
    options: RunOptions,
    synchronously: Callable[[RunOptions], RunResult],
    awaited: Callable[[RunOptions], Coroutine[Any, Any, RunResult]],
) -> int:
    """A run (a program's or a prompt file's) watched as the flags ask, made on an event loop when a
    provider answers it (:func:`_awaited`), then printed; a failed one shows its calls first."""
    from .show import not_counted_error, print_counts, print_run, run_show, shown_on_failure

    if options.count is not None:  # the counts alone: the calls are answered offline
        with _provider_errors(options.adapter):
            synchronously(options)
            counts = options.count.counts().whole()
        print_counts(counts, flags.output)
        if counts.not_counted:  # a total that leaves calls out must not pass for the whole
            error_line(not_counted_error(counts))
            return 1
        return 0
    sent_as = (options.format, options.options)
    show = run_show(options, sent_as, progress=flags.progress, stream=flags.stream, output=flags.output)
    with shown_on_failure(show, options, flags.output), _provider_errors(options.adapter):
        result = _interruptible(awaited(show.options), show) if _awaited(options) else synchronously(show.options)
    print_run(result, options, flags.output, show)
    return 0


def _interruptible(work: Coroutine[Any, Any, RunResult], show: RunShow) -> RunResult:
    """``asyncio.run(work)``, where Ctrl-C cancels the run as ``asyncio.run`` would, once ``show``
    is told (:meth:`~.display.RunShow.interrupt`): the call it cuts short is then shown as
    interrupted, not as what its cancellation raised on the way out (``CancelledError`` without a
    message, an SDK's error about a stream closed in the middle), and the run ends in
    ``KeyboardInterrupt`` however it wound down. A second Ctrl-C stops at once."""
    import asyncio
    import signal

    async def watched() -> RunResult:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()

        def on_interrupt() -> None:
            if show.interrupted:
                raise KeyboardInterrupt
            show.interrupt()
            if task is not None:
                task.cancel()

        try:
            loop.add_signal_handler(signal.SIGINT, on_interrupt)
        except (NotImplementedError, RuntimeError, ValueError):  # no signal handlers on this loop (Windows)
            return await work
        try:
            return await work
        finally:
            loop.remove_signal_handler(signal.SIGINT)

    try:
        result = asyncio.run(watched())
    except BaseException:
        if show.interrupted:
            raise KeyboardInterrupt from None
        raise
    if show.interrupted:  # the cancellation was swallowed on the way out
        raise KeyboardInterrupt
    return result


def _awaited(options: RunOptions) -> bool:
    """Whether the run's model calls are made on an event loop: when a provider answers them. An
    awaited call has one deadline in all, where the SDKs' synchronous timeouts are per read (a
    server trickling its answer would hold the call far past ``--timeout``); an offline run, a dry
    run and a replay send nothing, and start without asyncio."""
    return options.adapter != "offline" and not options.dry_run and options.replay is None


@contextmanager
def _provider_errors(provider: str) -> Iterator[None]:
    """A failed model call as one line: its class, the provider, the status and the reason."""
    try:
        yield
    except ProviderError as exc:
        status = f" {exc.status}" if exc.status is not None else ""
        sent = f" (it sent: {exc.body})" if exc.body and exc.body not in str(exc) else ""
        raise CliError(f"{type(exc).__name__} [{exc.provider or provider}{status}]: {exc}{sent}") from None


def batch(flags: BatchFlags) -> int:
    from ...runs.batch import Batch, Summary, options_for_batch, run_batch

    program = flags.file.endswith(".as")
    if program and flags.inputs is None:
        usage_error("a program's batch needs --inputs ROWS.jsonl")
    if not program:
        given = flags.program_flags()
        if given:
            usage_error(f"{', '.join(given)} apply to .as programs only (each line of {flags.file} is a prompt)")
    kind, flags = batch_kind(flags)
    host = plugin_host()
    options = batch_run_options(flags)
    if not program:
        known("readers", flags.reader, "--from")  # an unknown reader fails once, before any row
        names_a_model = getattr(host.reader(flags.reader), "model_field", None) is not None
        if options.adapter != "offline" and flags.model is None and not names_a_model:
            usage_error(f"--provider {options.adapter} needs --model for prompt rows (prompt data names no model)")
    label, source = _read_program(flags.file, flags.max_input_size) if program else (flags.file, None)
    rows = flags.inputs if program and flags.inputs is not None else flags.file
    batch = Batch(
        rows=rows,
        options=options_for_batch(options),
        program=source,
        program_path=label if program else None,
        reader=flags.reader,
        prompt=flags.prompt,
        max_wait=flags.max_wait,
        max_row_bytes=flags.max_input_size,
    )
    from ...core.written_files import refuse_same_file

    refuse_same_file(
        [("--out", flags.out), ("--batch-file", flags.batch_file[1] if flags.batch_file else None)],
        [
            ("the program" if program else "the rows file", flags.file),
            ("--inputs", flags.inputs),
            ("--responses", flags.responses),
            *(("--batch-results", path) for path in flags.batch_results or ()),
        ],
        usage_error,
    )
    if kind is not None:
        return _batch_round(flags, batch, kind, host)
    summary = Summary()
    try:
        run_batch(
            batch,
            flags.out,
            jobs=flags.jobs,
            concurrency=flags.concurrency,
            report=error_line,
            host=host,
            resume_anyway=flags.resume_anyway,
            summary=summary,
        )
    except KeyboardInterrupt:
        _batch_interrupted(batch, flags.out, summary)
        raise
    error_line(summary.line())
    return 0 if summary.complete else 1


def _batch_interrupted(batch: Any, out: str, summary: Any) -> None:
    """Ctrl-C in a batch: its summary so far, the rows done and left, and the command that resumes
    it (the same command: the results file is resumed), before ``cli.main`` exits 130."""
    import shlex

    from ...runs.batch import results_in, rows_in

    error_line(summary.line())
    try:  # from the files, which the next run resumes from: a Ctrl-C may come between a write and its count
        done = results_in(out)
        left = f"{done} rows done, {max(rows_in(batch.rows, batch.max_row_bytes) - done, 0)} left"
    except (OSError, PromptwireError):  # a file that cannot be read again: say what the count knows
        left = f"{summary.skipped + summary.rows} rows done"
    error_line(f"batch interrupted: {left}; the results so far are in {out}")
    # The same command, a URL's user and password shown as ``***`` as in every message.
    shown = [_without_password(arg) for arg in COMMAND_LINE]
    error_line(f"resume with: {shlex.join(['asrender', *shown])}")


def _without_password(arg: str) -> str:
    """``arg`` with the user information of the URL it ends in (``--base-url [SCHEME=]URL``) masked."""
    from ...core.secrets import shown_url

    if "://" not in arg:
        return arg
    cut = arg[: arg.index("://")].rfind("=") + 1  # after SCHEME= or --base-url=, if any
    return arg[:cut] + shown_url(arg[cut:])


def _batch_round(flags: BatchFlags, batch: Any, kind: str, host: PluginHost) -> int:
    from ...runs.batch import Summary
    from ...runs.batch_rounds import run_round

    requests = flags.batch_file[1] if flags.batch_file is not None else None
    summary = Summary()
    try:
        _, waiting = run_round(
            batch,
            flags.out,
            kind=kind,
            requests=requests,
            results=flags.batch_results or (),
            report=error_line,
            host=host,
            resume_anyway=flags.resume_anyway,
            summary=summary,
        )
    except KeyboardInterrupt:  # the same command runs the round again, its batch file written anew
        _batch_interrupted(batch, flags.out, summary)
        raise
    if waiting:
        where = f"written to {requests}" if requests else "not written: give --batch-file"
        error_line(f"batch: {waiting} rows wait for another round, their next calls {where}")
    error_line(summary.line())
    return 0 if summary.complete else 1


def snapshot(flags: SnapshotFlags) -> int:
    from ...runs.options import RunOptions
    from ...runs.run import shown
    from .display import closing_block, shown_call
    from .snapshot import RenderFailed, StoreUnusable, review, run_beside, scratch_copy

    directory = Path(flags.directory)
    if not directory.is_dir():
        raise CliError(f"{flags.directory}: not a directory")
    host = plugin_host()
    # an unknown format or a malformed --option fails once, before any program runs
    options = RunOptions(format=flags.format, options=snapshot_options(flags), debug=DebugStream())

    def render(original: Path) -> str:
        """What ``cd DIR && asrender NAME.as`` prints, with the program's sibling input and replies,
        run in the scratch copy so that tools and memory neither write to DIR nor see past runs."""
        program = scratch / original.relative_to(directory)
        try:
            with _working_directory(program.parent):
                result = run_beside(Path(program.name), options, host, folder=scratch)
                renders = shown(result, options, host)
                calls = "".join(shown_call(c, r) for c, r in zip(result.calls, renders, strict=True))
                return calls + closing_block(result.to_dict()["value"], result.calls, None)
        except (SourceError, CheckError, PromptDrift) as exc:
            raise RenderFailed(f"{one_line(str(original))}: cannot render\n{exc}") from None
        except (CliError, PromptwireError, OSError) as exc:
            raise RenderFailed(one_line(f"{original}: cannot render: {exc}")) from None

    left_out: list[str] = []
    with scratch_copy(directory, "asrender-snapshot-", left_out) as scratch:
        for note in left_out:
            error_line(f"warning: {directory / note}")
        try:
            found = review(
                directory,
                render,
                format_name=flags.format,
                update=flags.update,
                write=write_output,
                report_failure=_report,
            )
        except StoreUnusable as exc:
            with suppress(OSError, ValueError):
                sys.stdout.flush()
            error_line(str(exc))
            return 2
    return found.status(flags.update)


def _report(block: str) -> None:
    """An error block on stderr, after whatever stdout holds so far: the two stay in order on a terminal."""
    with suppress(OSError, ValueError):
        sys.stdout.flush()
    error_block(block)


@contextmanager
def _working_directory(path: Path) -> Iterator[None]:
    """Run a program as from its own folder: its imports, inputs and tools see what they would."""
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def serve(flags: ServeFlags) -> int:
    from .inspector.server import serve as serve_on

    root = Path(flags.path)
    if not root.exists():
        raise CliError(f"{flags.path}: no such file or folder")
    if not (root.is_dir() or (root.is_file() and root.suffix == ".as")):
        raise CliError(f"{flags.path}: not a .as program or a folder")
    if not 0 <= flags.port <= 65535:
        usage_error(f"--port takes 0 to 65535, got {flags.port}")
    options = serve_options(flags)
    try:
        serve_on(root, flags.port, lambda url: error_line(f"serving {url} (read-only; Ctrl-C stops)"), options)
    except OSError as exc:
        raise CliError(f"cannot listen on 127.0.0.1:{flags.port}: {exc.strerror or exc}") from None
    return 0


def check(flags: CheckFlags) -> int:
    """The program loaded as a run loads it (its imported agents merged in, each imported file
    read through the same permissions, parsed and checked), then every diagnostic: a program that
    runs checks clean, and one whose imports fail (or are refused) fails here too, located in the
    file at fault."""
    from ..agentscript import check as check_program
    from ..agentscript.diagnostics import MAX_SHOWN_DIAGNOSTICS, format_diagnostics
    from ..agentscript.loader import load_program

    label, source = _read_program(flags.file, flags.max_input_size)
    # the files a run would read, and refuse, the same way
    reach = permissions(label, flags.max_input_size, read=flags.allow_read)
    diagnostics = check_program(load_program(source, label, label_rule=flags.label_rule, permissions=reach))
    if diagnostics:
        error_block(format_diagnostics(diagnostics, source, label, limit=MAX_SHOWN_DIAGNOSTICS))
        return 1
    write_output(f"{one_line(label)}: ok, no diagnostics\n")  # as a compiler's check says it passed
    return 0


def lsp(flags: LspFlags) -> int:
    """``asrender lsp``: the language server on standard input and output, until the editor exits."""
    from ..lsp.command import run

    return run()


def parse(flags: ProgramFlags) -> int:
    from ..agentscript import parse as parse_program
    from ..agentscript.syntax_json import write_json

    label, source = _read_program(flags.file, flags.max_input_size)
    tree = parse_program(source, label, label_rule=flags.label_rule)
    write_json(tree, lambda text: write_output(safe_json(text)))
    return 0


def _read_program(file: str, max_bytes: int, given: str | None = None) -> tuple[str, str]:
    """A program's label and source: ``given`` when ``asrender -`` read it already."""
    from ..agentscript.loader import read_source

    label = program_label(file)
    return label, given if given is not None else read_source(file, label, max_bytes)


def _read_stdin(max_bytes: int) -> tuple[str | None, str | None]:
    """``asrender -``: standard input, read once: ``(program, None)`` when its first word is one a
    program starts with, else ``(None, prompt data)``."""
    from ...core.text_files import read_text
    from ...runs.inputs import starts_a_program

    text = read_text("-", "<stdin>", max_bytes)
    return (text, None) if starts_a_program(text) else (None, text)


def _load_data(file: str, label: str, max_bytes: int, *, text: str | None = None) -> Any:
    from ...core.text_files import read_text
    from ...runs.inputs import parse_data

    notes: list[str] = []
    if text is None:
        text = read_text(file, label, max_bytes)
    loaded = parse_data(text, label, json_by_name=file.endswith(".json"), warnings=notes)
    for note in notes:
        error_line(f"warning: {note}")
    return loaded
