"""``asrender``: see exactly what a prompt looks like in any format.

Every failure a user can cause ends as one line on stderr naming the file, the field and the reason,
with exit status 1 (2 for a bad command line); no traceback reaches the terminal. Heavy modules are
imported only by the sub-command that needs them, because start-up time is part of the product.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Callable, Coroutine, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ...core.errors import FieldError, PluginWarning, PromptDrift, PromptwireError, ProviderError, SourceError
from ...core.text_files import DEFAULT_MAX_BYTES, MAX_INPUT_SIZE
from ...core.timeout import DEFAULT_TIMEOUT, check_timeout
from ..agentscript.diagnostics import CheckError
from .terminal import (
    DebugStream,
    OutputError,
    error_block,
    error_line,
    finish_output,
    json_text,
    one_line,
    safe_json,
    warnings_as_lines,
    write_output,
)

if TYPE_CHECKING:
    from ...calls.recording import Recorder, Recording
    from ...core.call import ModelCall
    from ...core.permissions import Permissions
    from ...core.rendered import RenderedPrompt, RenderWarning
    from ...plugins.manager import PluginHost
    from ...runs.options import RunOptions
    from ...runs.run import RunResult
    from .display import RunShow

__all__ = ["console", "main"]

OUTPUTS = ("display", "json", "text", "trace")


class CliError(Exception):
    """A user-caused failure, already worded for the terminal."""


def console() -> int:
    """:func:`main` as a process of its own (the ``asrender`` script, ``python -m promptwire``), with
    the garbage collector set for a command that starts, prints and ends.

    Start-up allocates tens of thousands of objects (modules, the prompt model's classes) that live
    until the end, and the collector walks them for nothing: at every threshold of young objects
    while the modules load, and once more as the interpreter shuts down. So the youngest generation
    is collected after 50,000 allocations rather than 700 (garbage is still collected, in larger
    steps), and what is left when the command is done is frozen, so the shutdown does not walk it.
    Every file a command writes is closed before it returns; only cyclic garbage nobody will read is
    left to the operating system. On the README's example (benchmarks/cold_start.py, CPU time): 23
    ms of 72 beyond the floor. Called in-process, :func:`main` leaves the collector alone.
    """
    gc.set_threshold(50_000, *gc.get_threshold()[1:])
    try:
        return main()
    finally:
        gc.freeze()


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if (argv and argv[0] not in COMMANDS and not argv[0].startswith("-")) or argv[:1] == ["-"]:
        argv.insert(0, "render")  # ``asrender FILE`` is the main form
    if any("\x00" in arg for arg in argv):  # no shell can pass one; a Python caller can
        _usage_error("an argument holds a NUL byte, which no path, name or value may")
    args = _parser(argv[0] if argv and argv[0] in COMMANDS else None).parse_args(argv)
    try:
        with warnings_as_lines(PluginWarning):  # a plugin that failed to load: the rest goes on
            status = int(args.run(args))
        finish_output()
        return status
    except CliError as exc:
        return _fail(str(exc))
    except (SourceError, CheckError) as exc:  # located errors in a program: each line and a caret under it
        error_block(str(exc))
        return 1
    except PromptDrift as exc:  # a report of several lines
        error_block(f"asrender: {exc}")
        return 1
    except PromptwireError as exc:
        return _fail(str(exc))
    except OutputError as exc:
        return _fail(f"cannot write output: {exc}")
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except RecursionError:
        return _fail("the input is nested too deeply to process")
    except Exception as exc:  # a bug of ours must still not show a traceback
        return _fail(f"internal error: {type(exc).__name__}: {exc} (please report this)")


def _host() -> PluginHost:
    """The plugin host, loaded by the commands that use one (``check`` and ``parse`` do not)."""
    from ...plugins.manager import default_host

    return default_host()


def _known(kind: str, name: str, flag: str) -> None:
    """A name on the command line that no plugin registered is a bad command line (exit 2), as a
    bad ``--output`` is; a plugin that failed to load stays an error of its own (exit 1)."""
    from ...core.errors import UnknownNameError

    try:
        _host().get(kind, name)
    except UnknownNameError as exc:
        _usage_error(f"{flag}: {exc}")


def _fail(message: str) -> int:
    error_line(message)
    return 1


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad command line said as every other failure is: one ``asrender: error:``
    line (its arguments quoted as one line: an unrecognised argument may hold a newline or an
    escape sequence), exit status 2. argparse's own would print its usage and then the arguments
    raw."""

    def error(self, message: str) -> NoReturn:
        _usage_error(message)

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        # ``--agent=--`` hands argparse the value '--', which it drops as the end of the options,
        # leaving a list where a string belongs (``check --allow-read=--`` was an internal error).
        # The value of an option is what was written.
        if arg_strings == ["--"] and action.option_strings and action.nargs in (None, "?"):
            value = self._get_value(action, "--")
            self._check_value(action, value)  # a choice, as for any other value
            return value
        return super()._get_values(action, arg_strings)


class _Version(argparse.Action):
    """``--version``: promptwire's version, looked up only when asked (reading the installed
    package's metadata is no part of every start)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, argparse.SUPPRESS, nargs=0, help="print asrender's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, *args: Any) -> NoReturn:
        from ...plugins.manager import own_version

        write_output(f"asrender {own_version() or '(not installed: no version)'}\n")
        finish_output()
        raise SystemExit(0)


_FORMATS = "<the registered formats>"
"""Stands for the registered formats in a help text: :class:`_Help` fills them in."""


class _Help(argparse.HelpFormatter):
    """argparse's help, with the formats registered (built-in and plugins') named in place of
    :data:`_FORMATS`: the plugin host is loaded when help is printed, not at every start."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        if text is None or _FORMATS not in text:
            return text
        try:
            names = ", ".join(one_line(name) for name in _host().names("renderers"))
        except PromptwireError:  # a broken plugin: say where to look rather than fail the help
            names = "see asrender plugins"
        return text.replace(_FORMATS, names.replace("%", "%%"))  # help is %-formatted next


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line, with the sub-command ``command`` alone (every one when ``None``).

    A command's parse never looks at the other sub-commands, and building them all took 2 ms of
    every start (76 arguments, each asking the terminal's width, and the help texts of seven parsers
    looked up by gettext); ``asrender --help`` and a command line that names none build them all.
    """
    parser = _Parser(prog="asrender", description="Render prompts exactly as a language model receives them.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, add in _COMMANDS.items():
        if command is None or name == command:
            add(commands)
    return parser


def _plugins_parser(commands: Any) -> None:
    plugins = commands.add_parser("plugins", help="list the loaded plugins and what they register")
    plugins.add_argument("--json", action="store_true", help="print JSON instead of text")
    plugins.set_defaults(run=_cmd_plugins)


def _render_parser(commands: Any) -> None:
    render = commands.add_parser(
        "render",
        help="render a prompt file (JSON or YAML), or run a .as program and render its model calls",
        formatter_class=_Help,
    )
    render.add_argument(
        "file",
        metavar="FILE",
        help="a .as program or prompt data; '-' reads stdin: a program when its first word is import, main or "
        "agent, else prompt data",
    )
    render.add_argument(
        "--format",
        "-f",
        default="agentscript",
        help=f"the format to send and show calls in: {_FORMATS} (default: agentscript)",
    )
    render.add_argument(
        "--from",
        dest="reader",
        default="prompt",
        metavar="READER",
        help="the reader of the file: prompt (default), agens or agently",
    )
    render.add_argument(
        "--output",
        "-O",
        choices=OUTPUTS,
        default="display",
        help="display: messages as text (default); json: the whole render; text: the single-string form; "
        "trace: a program's value and trace",
    )
    given = render.add_mutually_exclusive_group()
    given.add_argument("--input", metavar="JSON", help="a program's input, a JSON object")
    given.add_argument("--input-file", metavar="FILE", help="a program's input, from a JSON file")
    _permission_flags(render)
    render.add_argument("--agent", help="the program's entry agent (default: its main agent)")
    render.add_argument("--function", help="the entry agent's function (default: its main func)")
    render.add_argument(
        "--responses",
        metavar="FILE",
        help="canned model replies, a JSON array used in order (then mock values), or a --record recording to replay",
    )
    render.add_argument(
        "--record", metavar="FILE", help="with --provider: write every reply to FILE, for --responses FILE to replay"
    )
    render.add_argument(
        "--accept-drift",
        action="store_true",
        help="replaying: answer a request that differs from the recorded one with its recorded reply (a warning)",
    )
    render.add_argument(
        "--provider",
        help="send the model calls of a program or prompt file to this adapter (openai, openai-responses, "
        "anthropic, ollama, or a plugin's; a call whose model names another gets a note), or 'auto': each "
        "call to the adapter its model URI's scheme names (openai://, anthropic://, ollama://, a plugin's); "
        "default offline",
    )
    _base_url_flag(render)
    render.add_argument("--model", help="the model to ask for (a program's own by default; a prompt file needs it)")
    render.add_argument(
        "--timeout", type=_seconds, metavar="SECONDS", help=f"per request (default {DEFAULT_TIMEOUT:g})"
    )
    render.add_argument(
        "--dry-run", action="store_true", help="with --provider: build every request, send nothing, answer offline"
    )
    render.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        help="a line on stderr as each model call is sent and as it ends (default: when stderr is a terminal "
        "and a provider answers)",
    )
    render.add_argument(
        "--stream",
        action=argparse.BooleanOptionalAction,
        help="print each reply as it arrives, its prompt first (default: when stdout is a terminal, a provider "
        "answers and the output is display)",
    )
    render.add_argument("--strict", action="store_true", help="fail when the format cannot express a field")
    render.add_argument(
        "--otel",
        action="store_true",
        help="make OpenTelemetry spans of the run and its model calls, for the process's tracer provider "
        "(needs promptwire[otel]; see docs/telemetry.md)",
    )
    render.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a renderer option; VALUE is read as JSON when it parses, else as text (repeatable)",
    )
    render.add_argument(
        "--max-input-size",
        type=_byte_size,
        default=DEFAULT_MAX_BYTES,
        metavar="BYTES",
        help=f"refuse prompt files larger than this (default {DEFAULT_MAX_BYTES // 2**20}M; suffixes K, M, G)",
    )
    render.set_defaults(run=_cmd_render, stdin_program=None)


def _snapshot_parser(commands: Any) -> None:
    snapshot = commands.add_parser(
        "snapshot",
        help="render every .as program under DIR and diff its prompts against the stored render (exit 1 on a change)",
        formatter_class=_Help,
    )
    snapshot.add_argument("directory", metavar="DIR", help="the folder of programs (searched recursively)")
    snapshot.add_argument(
        "--update", action="store_true", help="store the current renders in DIR/__prompts__ (and delete stale ones)"
    )
    snapshot.add_argument(
        "--format", "-f", default="agentscript", help=f"format name: {_FORMATS} (default: agentscript)"
    )
    snapshot.add_argument(
        "--option", "-o", action="append", default=[], metavar="KEY=VALUE", help="a renderer option (repeatable)"
    )
    snapshot.set_defaults(run=_cmd_snapshot, strict=False)


def _serve_parser(commands: Any) -> None:
    serve = commands.add_parser(
        "serve", help="serve a local page showing every model call of a program in every format (127.0.0.1)"
    )
    serve.add_argument("path", metavar="FILE.as|DIR", help="a program, or a folder of programs to pick from")
    serve.add_argument(
        "--port", type=int, default=7878, help="the port on 127.0.0.1 (default 7878; 0 picks a free one)"
    )
    serve.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a renderer option, for every format that takes it: -o template=PATH for the template tab (repeatable)",
    )
    serve.set_defaults(run=_cmd_serve)


def _check_parser(commands: Any) -> None:
    check = commands.add_parser("check", help="check an AgentScript program: every diagnostic, exit 1 on errors")
    check.add_argument(
        "--allow-read",
        action="append",
        metavar="PATH",
        help="the program may also import agents from this file or folder, as a run with the flag may (repeatable)",
    )
    check.set_defaults(allow_write=None, allow_env=None, allow_net=None, timeout=None)
    _language_arguments(check, _cmd_check)


def _parse_parser(commands: Any) -> None:
    parse = commands.add_parser("parse", help="print an AgentScript program's syntax tree as JSON")
    _language_arguments(parse, _cmd_parse)


def _lsp_parser(commands: Any) -> None:
    lsp = commands.add_parser("lsp", help="serve the AgentScript language server over stdio (needs promptwire[lsp])")
    lsp.set_defaults(run=_cmd_lsp)


def _cmd_lsp(args: argparse.Namespace) -> int:
    from ..lsp.command import run

    return run()


def _language_arguments(command: argparse.ArgumentParser, run: Callable[[argparse.Namespace], int]) -> None:
    """What ``check`` and ``parse`` both take."""
    command.add_argument("file", metavar="FILE.as", help="the program; '-' reads standard input")
    command.add_argument(
        "--label-rule",
        choices=("release", "late"),
        default="release",
        help="how a 'use ... as' label ends: the rest of the line (release, default) or one token (late)",
    )
    command.add_argument(
        "--max-input-size",
        type=_byte_size,
        default=DEFAULT_MAX_BYTES,
        metavar="BYTES",
        help=f"refuse a program (or an imported file) larger than this (default {DEFAULT_MAX_BYTES // 2**20}M)",
    )
    command.set_defaults(run=run)


def _permission_flags(parser: argparse.ArgumentParser) -> None:
    """What a program may touch besides its own folder (``render`` and ``batch`` take the same)."""
    parser.add_argument(
        "--allow-read",
        action="append",
        metavar="PATH",
        help="a program's imports and memories may also read this; file tools never leave its folder (repeatable)",
    )
    parser.add_argument(
        "--allow-write",
        action="append",
        nargs="?",
        const=_WORKSPACE,
        metavar="PATH",
        help="a program's tools and memory may write this file or folder (no PATH: the program's folder; repeatable)",
    )
    parser.add_argument(
        "--allow-env",
        action="append",
        type=_comma_list,
        metavar="NAME,...",
        help="a program may read these environment variables (none by default; secret-looking values are never traced)",
    )
    parser.add_argument(
        "--allow-net",
        action="append",
        nargs="?",
        type=_origins,
        const=[_ANY_ORIGIN],
        metavar="ORIGIN,...",
        help="a program's HTTP tools may reach these origins, scheme://host[:port] or host[:port] (no ORIGIN: any)",
    )


def _base_url_flag(parser: argparse.ArgumentParser) -> None:
    """``--base-url`` (``render`` and ``batch`` take the same)."""
    parser.add_argument(
        "--base-url",
        action="append",
        type=_base_url,
        metavar="[SCHEME=]URL",
        help="send the provider's requests to this server instead (a gateway, vLLM, llama.cpp's server); "
        "with --provider auto, one per scheme: ollama=http://... (repeatable)",
    )


def _batch_parser(commands: Any) -> None:
    batch = commands.add_parser(
        "batch",
        help="run a .as program on every row of a JSONL file (or ask each row's prompt), one result line per row",
        formatter_class=_Help,
    )
    batch.add_argument(
        "file", metavar="FILE", help="a .as program (with --inputs), or a JSONL file of prompt data, one prompt a line"
    )
    batch.add_argument("--inputs", metavar="ROWS.jsonl", help="the program's inputs, a JSON object a line")
    batch.add_argument(
        "--out", required=True, metavar="RESULTS.jsonl", help="the results, a line a row (rerun to resume it)"
    )
    batch.add_argument(
        "--from", dest="reader", default="prompt", metavar="READER", help="the reader of prompt rows (default: prompt)"
    )
    batch.add_argument(
        "--format",
        "-f",
        default="agentscript",
        help=f"the format of each call's prompt in the results: {_FORMATS} (default: agentscript)",
    )
    batch.add_argument(
        "--option", "-o", action="append", default=[], metavar="KEY=VALUE", help="a renderer option (repeatable)"
    )
    batch.add_argument("--strict", action="store_true", help="fail a row when the format cannot express a field")
    batch.add_argument(
        "--prompt",
        choices=("full", "digest"),
        default="full",
        help="each call's rendered prompt in full (default) or its sha256 digest",
    )
    batch.add_argument("--provider", help="send the calls to this adapter (default offline)")
    batch.add_argument("--model", help="the model to ask for (a prompt row names none)")
    batch.add_argument("--timeout", type=_seconds, metavar="SECONDS", help=f"per request (default {DEFAULT_TIMEOUT:g})")
    batch.add_argument(
        "--dry-run", action="store_true", help="with --provider: build every request, send nothing, answer offline"
    )
    batch.add_argument("--responses", metavar="FILE", help="canned model replies for every row, a JSON array")
    batch.add_argument(
        "--concurrency", type=_count, default=8, metavar="N", help="with --provider: rows in flight at once (default 8)"
    )
    batch.add_argument(
        "--jobs", type=_count, default=1, metavar="N", help="offline: processes to run rows in (default 1)"
    )
    batch.add_argument(
        "--max-wait",
        type=_seconds,
        default=300.0,
        metavar="SECONDS",
        help="how long one call may wait out a provider's rate limits in all (default 300)",
    )
    batch.add_argument(
        "--batch-file",
        nargs=2,
        metavar=("openai|anthropic", "FILE"),
        help="write each row's next call to FILE, the provider's batch input, instead of sending it",
    )
    batch.add_argument(
        "--resume-anyway",
        action="store_true",
        help="keep the results --out holds though another program, other rows or other options made them",
    )
    batch.add_argument(
        "--batch-results",
        action="append",
        metavar="FILE",
        help="the provider's results of every round so far (repeatable): rows they finish go to --out",
    )
    batch.add_argument(
        "--replay-writes",
        action="store_true",
        help="with --batch-file or --batch-results: allow --allow-write, though each round repeats the writes",
    )
    _permission_flags(batch)
    batch.add_argument("--agent", help="the program's entry agent (default: its main agent)")
    batch.add_argument("--function", help="the entry agent's function (default: its main func)")
    batch.add_argument(
        "--max-input-size",
        type=_byte_size,
        default=DEFAULT_MAX_BYTES,
        metavar="BYTES",
        help=f"refuse a program or replies file larger than this (default {DEFAULT_MAX_BYTES // 2**20}M)",
    )
    _base_url_flag(batch)
    # What a single run's display and recording flags would set: a batch writes results, not a display.
    batch.set_defaults(
        run=_cmd_batch,
        input=None,
        input_file=None,
        output="display",
        stream=None,
        progress=None,
        record=None,
        accept_drift=False,
    )


_COMMANDS: dict[str, Callable[[Any], None]] = {
    "plugins": _plugins_parser,
    "render": _render_parser,
    "batch": _batch_parser,
    "snapshot": _snapshot_parser,
    "serve": _serve_parser,
    "check": _check_parser,
    "parse": _parse_parser,
    "lsp": _lsp_parser,
}
"""Each sub-command's parser, in the order ``asrender --help`` lists them."""
COMMANDS = tuple(_COMMANDS)


def _cmd_batch(args: argparse.Namespace) -> int:
    from ...runs.batch import Batch, options_for_batch, run_batch

    program = args.file.endswith(".as")
    if program and args.inputs is None:
        _usage_error("a program's batch needs --inputs ROWS.jsonl")
    if not program:
        given = [flag for flag, value in _program_flags(args) if value is not None]
        if args.inputs is not None:
            given.insert(0, "--inputs")
        if given:
            _usage_error(f"{', '.join(given)} apply to .as programs only (each line of {args.file} is a prompt)")
    kind = _batch_kind(args)
    live = args.provider not in (None, "offline") and not args.dry_run and kind is None
    if live and args.jobs > 1:
        _usage_error("--jobs is for offline batches; a provider's batch runs --concurrency rows at once")
    host = _host()
    options = _run_options(args)
    if not program:
        _known("readers", args.reader, "--from")  # an unknown reader fails once, before any row
        if options.adapter != "offline" and args.model is None:
            _usage_error(f"--provider {options.adapter} needs --model for prompt rows (prompt data names no model)")
    label, source = _read_program(args) if program else (args.file, None)
    batch = Batch(
        rows=args.inputs if program else args.file,
        options=options_for_batch(options),
        program=source,
        program_path=label if program else None,
        reader=args.reader,
        prompt=args.prompt,
        max_wait=args.max_wait,
        max_row_bytes=args.max_input_size,
    )
    from ...core.written_files import refuse_same_file

    refuse_same_file(
        [("--out", args.out), ("--batch-file", args.batch_file[1] if args.batch_file else None)],
        [
            ("the program" if program else "the rows file", args.file),
            ("--inputs", args.inputs),
            ("--responses", args.responses),
            *(("--batch-results", path) for path in args.batch_results or ()),
        ],
        _usage_error,
    )
    if kind is not None:
        return _batch_round(args, batch, kind, host)
    summary = run_batch(
        batch,
        args.out,
        jobs=args.jobs,
        concurrency=args.concurrency,
        report=error_line,
        host=host,
        resume_anyway=args.resume_anyway,
    )
    error_line(summary.line())
    return 0 if summary.failed == summary.bad == 0 else 1


def _batch_kind(args: argparse.Namespace) -> str | None:
    """The provider batch API a batch writes for or reads from (None: a batch run here), its
    adapter checked and made the run's provider (the batch file's own by default)."""
    from ...adapters.batch_files import KINDS, check_adapter

    if args.batch_file is None and args.batch_results is None:
        if args.replay_writes:
            _usage_error("--replay-writes applies to --batch-file and --batch-results only")
        return None
    if args.batch_file is not None:
        kind = args.batch_file[0]
        if kind not in KINDS:
            _usage_error(f"--batch-file takes openai or anthropic, then the file; got {one_line(kind)!r}")
        args.provider = args.provider or kind
    else:
        kind = next((name for name, adapters in KINDS.items() if args.provider in adapters), None)
        if kind is None:
            _usage_error("--batch-results needs --provider openai, openai-responses or anthropic")
    try:
        check_adapter(kind, args.provider)
    except PromptwireError as exc:
        _usage_error(str(exc))
    if args.dry_run or args.jobs > 1:
        _usage_error("--batch-file and --batch-results take neither --dry-run nor --jobs")
    if args.allow_write and not args.replay_writes:
        _usage_error(
            "a program that may write (--allow-write) is run again each round, repeating its writes; "
            "add --replay-writes to allow it"
        )
    return str(kind)


def _batch_round(args: argparse.Namespace, batch: Any, kind: str, host: PluginHost) -> int:
    from ...runs.batch_rounds import run_round

    requests = args.batch_file[1] if args.batch_file is not None else None
    summary, waiting = run_round(
        batch,
        args.out,
        kind=kind,
        requests=requests,
        results=args.batch_results or (),
        report=error_line,
        host=host,
        resume_anyway=args.resume_anyway,
    )
    if waiting:
        where = f"written to {requests}" if requests else "not written: give --batch-file"
        error_line(f"batch: {waiting} rows wait for another round, their next calls {where}")
    error_line(summary.line())
    return 0 if summary.failed == summary.bad == 0 else 1


def _count(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 10_000:
        raise argparse.ArgumentTypeError(f"not a whole number from 1 to 10000: {one_line(text)!r}")
    return int(text)


def _cmd_plugins(args: argparse.Namespace) -> int:
    """Every plugin, loaded or not: one that failed to load is listed with why (exit 1)."""
    infos = _host().plugins()
    status = 1 if any(info.error is not None for info in infos) else 0
    if args.json:
        write_output(json_text([info.to_dict() for info in infos]) + "\n")
        return status
    from ...core.sdk import missing_sdk

    host = _host()
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


def _cmd_render(args: argparse.Namespace) -> int:
    if args.otel:
        _enable_telemetry()
    stdin_text = _read_stdin(args) if args.file == "-" else None
    if args.file.endswith(".as") or args.stdin_program is not None:
        return _run_program(args)
    program_only = [flag for flag, value in _program_flags(args) if value is not None]
    if program_only:
        _usage_error(f"{', '.join(program_only)} apply to .as programs only")
    host = _host()
    label = "<stdin>" if args.file == "-" else args.file
    options = _run_options(args)
    _known("readers", args.reader, "--from")
    data = _load_data(args.file, label, args.max_input_size, text=stdin_text)
    renderer = host.renderer(args.format)
    try:
        prompt = host.reader(args.reader).read(data)
        if _asks_a_model(args):
            return _run_prompt(args, prompt, label, options, host)
        rendered = renderer.render(prompt, **options.options)
    except FieldError as exc:
        raise CliError(f"{label}: {exc}") from None
    _warn(rendered.warnings)
    _print_render(rendered, args.output)
    return 0


def _enable_telemetry() -> None:
    """``--otel``: spans to the tracer provider the process has (:mod:`promptwire.calls.telemetry`)."""
    from ...calls import telemetry

    try:
        telemetry.enable()
    except telemetry.TelemetryUnavailable as exc:
        _usage_error(f"--otel: {exc}")
    if not telemetry.tracer_provider_configured():
        error_line(f"warning: --otel: {telemetry.UNCONFIGURED}")


def _run_program(args: argparse.Namespace) -> int:
    from ...runs.inputs import program_input
    from ...runs.run import arun, run

    options = _run_options(args)  # the plugin host is loaded by what needs a registry, if anything does
    label, source = _read_program(args)
    input_value = program_input(args.input, args.input_file, args.max_input_size)
    if args.file != "-":  # NAME.input.json and NAME.responses.json, as snapshot and serve take them
        from .beside import open_siblings

        input_open = args.input is None and args.input_file is None
        replies_open = args.responses is None and options.adapter == "offline"
        options, found, note = open_siblings(
            label, options, input_open=input_open, replies_open=replies_open, max_bytes=args.max_input_size
        )
        input_value = input_value if found is None else found
        if note is not None:
            error_line(note)
    return _run_shown(
        args,
        options,
        lambda shown: run(source, input_value, shown, path=label),
        lambda shown: arun(source, input_value, shown, path=label),
    )


def _run_shown(
    args: argparse.Namespace,
    options: RunOptions,
    synchronously: Callable[[RunOptions], RunResult],
    awaited: Callable[[RunOptions], Coroutine[Any, Any, RunResult]],
) -> int:
    """A run (a program's or a prompt file's) watched as the flags ask, made on an event loop when a
    provider answers it (:func:`_awaited`), then printed; a failed one shows its calls first."""
    show = _run_show(args, options, sent_as=(options.format, options.options))
    with _shown_on_failure(show, options, args.output), _provider_errors(options.adapter):
        if _awaited(options):
            import asyncio

            result = asyncio.run(awaited(show.options))
        else:
            result = synchronously(show.options)
    _print_run(result, options, args.output, show)
    return 0


def _awaited(options: RunOptions) -> bool:
    """Whether the run's model calls are made on an event loop: when a provider answers them. An
    awaited call has one deadline in all, where the SDKs' synchronous timeouts are per read (a
    server trickling its answer would hold the call far past ``--timeout``); an offline run, a dry
    run and a replay send nothing, and start without asyncio."""
    return options.adapter != "offline" and not options.dry_run and options.replay is None


def _asks_a_model(args: argparse.Namespace) -> bool:
    """A prompt file is only rendered unless a flag asks for the model's side of it."""
    model_flags = (
        args.provider,
        args.model,
        args.timeout,
        args.responses,
        args.record,
        args.dry_run or None,
        args.base_url,
    )
    return args.output == "trace" or any(value is not None for value in model_flags)


def _run_options(args: argparse.Namespace) -> RunOptions:
    """The flags of ``asrender FILE`` as the run's options, each checked before anything is read or
    run: the format's options, the provider, the canned replies, what tools may touch."""
    from ...runs.inputs import model_replies
    from ...runs.options import RunOptions

    label = "<stdin>" if args.file == "-" else args.file
    responses, replay = model_replies(args.responses, args.max_input_size, accept_drift=args.accept_drift)
    if args.accept_drift and replay is None:
        _usage_error("--accept-drift applies to a replay (--responses naming a recording)")
    for warning in replay.warnings if replay is not None else ():
        error_line(f"warning: {warning}")
    if args.stream and args.output != "display":
        _usage_error(f"--stream shows the display; --output {args.output} is printed once the run has ended")
    if args.stream and args.dry_run:
        _usage_error("--stream needs replies that arrive; a dry run answers offline")
    provider = _provider(args)
    return RunOptions(
        adapter=provider,
        base_urls=_base_urls(args.base_url, provider),
        model=args.model,
        dry_run=args.dry_run,
        timeout=args.timeout,
        responses=responses,
        format=args.format,
        options=_render_options(args),
        agent=args.agent,
        function=args.function,
        tools=_tool_context(args, label) if args.file.endswith(".as") or getattr(args, "stdin_program", None) else None,
        debug=DebugStream(),
        replay=replay,
        record=_recorder(args, replay),
    )


def _recorder(args: argparse.Namespace, replay: Recording | None) -> Recorder | None:
    """The recording ``--record`` asks for, its file made (or emptied) now, with its header: the last
    flag checked."""
    if args.record is None:
        return None
    if args.dry_run or replay is not None or args.provider in (None, "offline"):
        why = "--dry-run" if args.dry_run else "a replay" if replay is not None else "an offline run"
        _usage_error(f"--record records a real run (--provider P); {why} sends nothing")
    from ...calls.recording import Recorder
    from ...core.written_files import refuse_same_file

    inputs = [("the program" if args.file.endswith(".as") else "the prompt file", args.file)]
    inputs += [("--input-file", args.input_file), ("--responses", args.responses)]
    refuse_same_file([("--record", args.record)], inputs, _usage_error)
    recorder = Recorder(args.record)
    recorder.begin(args.provider, args.model)
    return recorder


def _render_options(args: argparse.Namespace) -> dict[str, Any]:
    """The ``-o`` options (and ``--strict``) for the format, checked against what it takes before
    anything is read or run."""
    if args.format != "agentscript":  # AgentScript's own format is always there: no plugins to load
        _known("renderers", args.format, "--format")
    options = _parse_options(args.option)
    if not isinstance(options.get("strict", False), bool):
        _usage_error(f"-o strict takes true or false, got {one_line(json.dumps(options['strict']))}")
    if args.strict:
        options["strict"] = True
    accepted = _host().renderer_options(args.format) if options else None
    unknown = [key for key in options if accepted is not None and key not in accepted]
    if unknown:
        names = ", ".join(repr(key) for key in unknown)
        takes = ", ".join(sorted((accepted or frozenset()) - _NOT_FROM_THE_COMMAND_LINE)) or "nothing"
        plural = "s" if len(unknown) > 1 else ""
        _usage_error(f"format {args.format!r} takes no option{plural} {names} (it takes: {takes})")
    if "layout" in options:
        _known("renderers", str(options["layout"]), "-o layout")
        options["layout"] = _host().renderer(str(options["layout"]))
    return options


def _run_prompt(args: argparse.Namespace, prompt: Any, label: str, options: RunOptions, host: PluginHost) -> int:
    from ...core.model_uri import model_scheme
    from ...runs.run import arun_prompt, run_prompt

    if options.adapter != "offline" and args.model is None:
        _usage_error(f"--provider {options.adapter} needs --model for a prompt file (a prompt file names no model)")
    if options.adapter == "auto" and model_scheme(args.model) is None:
        _usage_error(f"--provider auto sends a call where its model's scheme says: give --model SCHEME://{args.model}")
    return _run_shown(
        args,
        options,
        lambda shown: run_prompt(prompt, label, shown, host=host),
        lambda shown: arun_prompt(prompt, label, shown, host=host),
    )


def _print_render(rendered: Any, output: str) -> None:
    if output == "json":
        write_output(json_text(rendered.to_dict()) + "\n")
    elif output == "text":
        from .text_form import model_text

        write_output(model_text(rendered))
    else:
        write_output(rendered.display())


def _program_flags(args: argparse.Namespace) -> list[tuple[str, Any]]:
    return [
        ("--input", args.input),
        ("--input-file", args.input_file),
        ("--agent", args.agent),
        ("--function", args.function),
        ("--allow-read", args.allow_read),
        ("--allow-write", args.allow_write),
        ("--allow-env", args.allow_env),
        ("--allow-net", args.allow_net),
    ]


def _cmd_snapshot(args: argparse.Namespace) -> int:
    from ...runs.options import RunOptions
    from ...runs.run import shown
    from .display import closing_block, shown_call
    from .snapshot import RenderFailed, StoreUnusable, review, run_beside, scratch_copy

    directory = Path(args.directory)
    if not directory.is_dir():
        raise CliError(f"{args.directory}: not a directory")
    host = _host()
    _render_options(args)  # an unknown format or a malformed --option fails once, before any program runs
    args.option = [_from_here(option) for option in args.option]  # programs run from their own folder
    options = RunOptions(format=args.format, options=_render_options(args), debug=DebugStream())

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
                format_name=args.format,
                update=args.update,
                write=write_output,
                report_failure=_report,
            )
        except StoreUnusable as exc:
            with suppress(OSError, ValueError):
                sys.stdout.flush()
            error_line(str(exc))
            return 2
    return found.status(args.update)


_PATH_OPTIONS = frozenset({"template"})
"""``--option`` keys whose value is a file path, read relative to where ``asrender`` was started."""


def _from_here(option: str) -> str:
    """``KEY=PATH`` with a relative path made absolute, for a key of :data:`_PATH_OPTIONS`."""
    key, _, value = option.partition("=")
    return f"{key}={os.path.abspath(value)}" if key in _PATH_OPTIONS and value else option


def _cmd_serve(args: argparse.Namespace) -> int:
    from .inspector.server import serve

    root = Path(args.path)
    if not root.exists():
        raise CliError(f"{args.path}: no such file or folder")
    if not (root.is_dir() or (root.is_file() and root.suffix == ".as")):
        raise CliError(f"{args.path}: not a .as program or a folder")
    if not 0 <= args.port <= 65535:
        _usage_error(f"--port takes 0 to 65535, got {args.port}")
    from .inspector.state import options_by_format

    try:
        options = options_by_format(_host(), _parse_options([_from_here(option) for option in args.option]))
    except ValueError as exc:
        _usage_error(f"-o: {exc}")
    try:
        serve(root, args.port, lambda url: error_line(f"serving {url} (read-only; Ctrl-C stops)"), options)
    except OSError as exc:
        raise CliError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}") from None
    return 0


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


def _tool_context(args: argparse.Namespace, program: str) -> Permissions:
    """What a program may touch: reading its own folder (its workspace, where its tool paths start,
    from whatever folder ``asrender`` is run), and what the ``--allow-*`` flags add (their paths are
    the user's, from where ``asrender`` is run; a bare ``--allow-write`` is the workspace);
    ``--timeout`` bounds each network tool call."""
    from ...core.permissions import ANY_ORIGIN, DEFAULT_TOOL_TIMEOUT, Permissions
    from ..agentscript.loader import program_folder

    folder = program_folder(program)
    return Permissions(
        folder,
        program_folder=folder,
        read=tuple(Path(os.path.abspath(path)) for path in args.allow_read or ()),
        write=tuple(folder if path == _WORKSPACE else Path(os.path.abspath(path)) for path in args.allow_write or ()),
        env=frozenset(name for names in args.allow_env or () for name in names),
        net=frozenset(
            ANY_ORIGIN if origin is _ANY_ORIGIN else origin for origins in args.allow_net or () for origin in origins
        ),
        timeout=DEFAULT_TOOL_TIMEOUT if args.timeout is None else args.timeout,
        max_read_bytes=args.max_input_size,
    )


_WORKSPACE = ""
"""What a bare ``--allow-write`` stands for: the program's folder."""
_ANY_ORIGIN = object()
"""What a bare ``--allow-net`` stands for: any origin (``core.permissions.ANY_ORIGIN``, which
``check`` and ``parse`` need not import)."""


def _comma_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _origins(value: str) -> list[str]:
    from ...core.permissions import parse_origin

    origins = _comma_list(value)
    for origin in origins:
        try:
            parse_origin(origin)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return origins


def _provider(args: argparse.Namespace) -> str:
    """The adapter asked (offline unless --provider names one, or auto), known to the host."""
    provider = args.provider or "offline"
    if args.dry_run and provider == "offline":
        _usage_error("--dry-run needs --provider (auto, openai, openai-responses, anthropic, ollama, or a plugin's)")
    try:
        if provider not in ("auto", "offline"):  # the offline adapter is no plugin's: always there
            _known("adapters", provider, "--provider")
            from ...core.sdk import missing_sdk

            # A dry run only builds requests: it needs no SDK.
            missing = None if args.dry_run else missing_sdk(_host().load("adapters", provider))
            if missing is not None:
                _usage_error(f"--provider {provider}: {missing}")
    except PromptwireError as exc:
        raise CliError(str(exc)) from None
    return str(provider)


def _base_url(text: str) -> tuple[str, str]:
    from ...calls.routing import base_url_entry

    try:
        return base_url_entry(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _base_urls(given: list[tuple[str, str]] | None, provider: str) -> dict[str, str]:
    """The ``--base-url`` flags by scheme (``""``: the one provider's), each used by the run."""
    if not given:
        return {}
    from ...calls.routing import Routes, check_base_urls

    base_urls: dict[str, str] = {}
    for key, url in given:
        if key in base_urls:
            _usage_error(f"--base-url is given twice for {key or provider}")
        base_urls[key] = url
    try:
        check_base_urls(Routes(_host()), provider, base_urls)
    except PromptwireError as exc:
        _usage_error(str(exc))
    from ...calls.base_url_credentials import credential_note

    for key, url in base_urls.items():
        note = credential_note(url, key or provider)
        if note is not None:
            error_line(f"warning: {note}")
    return base_urls


@contextmanager
def _provider_errors(provider: str) -> Iterator[None]:
    """A failed model call as one line: its class, the provider, the status and the reason."""
    try:
        yield
    except ProviderError as exc:
        status = f" {exc.status}" if exc.status is not None else ""
        sent = f" (it sent: {exc.body})" if exc.body and exc.body not in str(exc) else ""
        raise CliError(f"{type(exc).__name__} [{exc.provider or provider}{status}]: {exc}{sent}") from None


def _run_show(args: argparse.Namespace, options: RunOptions, sent_as: tuple[str, Any]) -> RunShow:
    """How the run is watched: progress lines (``--progress``; by default when stderr is a terminal
    and a provider answers) and a live display (``--stream``; by default when stdout is a terminal,
    a provider answers and the output is the display)."""
    from ...runs.run import RunResult, call_block, shown
    from .display import RunShow
    from .terminal import is_terminal

    provider_answers = options.adapter != "offline" and not options.dry_run
    progress = args.progress if args.progress is not None else provider_answers and is_terminal(sys.stderr)
    stream = args.stream if args.stream is not None else provider_answers and is_terminal(sys.stdout)

    def block(call: ModelCall) -> str:
        return call_block(call, shown(RunResult(None, [], [call], sent_as), options, None)[0])

    live = block if stream and args.output == "display" else None
    return RunShow(options, sent_as, progress=bool(progress), live=live)


@contextmanager
def _shown_on_failure(show: RunShow, options: RunOptions, output: str) -> Iterator[None]:
    """A failed run still shows every call it made, in the output asked for, before its error."""
    try:
        yield
    except (PromptwireError, CliError):
        from ...runs.run import RunResult

        _print_calls(RunResult(None, [], show.log.calls, show.sent_as), options, output, show, failed=True)
        raise


def _print_run(result: RunResult, options: RunOptions, output: str, show: RunShow) -> None:
    """A run's calls as ``--output`` asks (see :func:`_print_calls`), then in the display the
    program's value and the run's summary."""
    from .display import closing_block

    if options.replay is not None:
        _report_replay(options.replay)
    if output == "trace":
        _print_trace(result)
        return
    _print_calls(result, options, output, show)
    if output == "display":
        write_output(closing_block(result.to_dict()["value"], result.calls, show.seconds()))


def _print_calls(result: RunResult, options: RunOptions, output: str, show: RunShow, *, failed: bool = False) -> None:
    """A run's calls as ``--output`` asks, each rendered in the display format now, after the run
    (a live display has shown them already); the warnings of every render first (each once). A
    failed run's trace output is its calls, as ``--output json`` prints them: the reference's trace
    has no form for a run that failed."""
    from ...runs.run import call_block, request_dict, shown
    from .display import call_facts, reply_sections

    if failed and not result.calls:
        return
    if options.dry_run and output == "json":
        write_output(json_text([request_dict(call, options.adapter) for call in result.calls]) + "\n")
        return
    renders = shown(result, options, None)
    _warn([warning for rendered in renders for warning in rendered.warnings])
    if show.live is not None:
        return
    if output in ("json", "trace"):
        write_output(
            json_text(
                [
                    _call_dict(call, rendered) | call_facts(call, timed=show.timed)
                    for call, rendered in zip(result.calls, renders, strict=True)
                ]
            )
            + "\n"
        )
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


def _request_block(request: dict[str, Any]) -> str:
    """A dry run's request under its call: provider, model, body and the adapter's notes."""
    block = f"--- request: {request['provider']} {request['model']} ---\n{json_text(request['body'])}\n"
    return block + "".join(f"note: {note}\n" for note in request["notes"])


def _warn(warnings: Sequence[RenderWarning]) -> None:
    """Each warning line once, on stderr."""
    from ...core.rendered import warning_lines

    seen: set[str] = set()
    for line in warning_lines(warnings):
        if line not in seen:
            seen.add(line)
            error_line(f"warning: {line}")


def _cmd_check(args: argparse.Namespace) -> int:
    """The program loaded as a run loads it (its imported agents merged in, each imported file
    read through the same permissions, parsed and checked), then every diagnostic: a program that
    runs checks clean, and one whose imports fail (or are refused) fails here too, located in the
    file at fault."""
    from ..agentscript import check
    from ..agentscript.diagnostics import MAX_SHOWN_DIAGNOSTICS, format_diagnostics
    from ..agentscript.loader import load_program

    label, source = _read_program(args)
    permissions = _tool_context(args, label)  # the files a run would read, and refuse, the same way
    diagnostics = check(load_program(source, label, label_rule=args.label_rule, permissions=permissions))
    if diagnostics:
        error_block(format_diagnostics(diagnostics, source, label, limit=MAX_SHOWN_DIAGNOSTICS))
        return 1
    write_output(f"{one_line(label)}: ok, no diagnostics\n")  # as a compiler's check says it passed
    return 0


def _cmd_parse(args: argparse.Namespace) -> int:
    from ..agentscript import parse
    from ..agentscript.syntax_json import write_json

    label, source = _read_program(args)
    tree = parse(source, label, label_rule=args.label_rule)
    write_json(tree, lambda text: write_output(safe_json(text)))
    return 0


def _read_program(args: argparse.Namespace) -> tuple[str, str]:
    from ..agentscript.loader import read_source

    label = "<stdin>" if args.file == "-" else args.file
    given = getattr(args, "stdin_program", None)  # ``asrender -`` read it already
    return label, given if given is not None else read_source(args.file, label, args.max_input_size)


def _read_stdin(args: argparse.Namespace) -> str | None:
    """``asrender -``: standard input, read once; a program (``args.stdin_program``, ``None`` returned)
    when its first word is one a program starts with, else prompt data (returned)."""
    from ...core.text_files import read_text
    from ...runs.inputs import starts_a_program

    text = read_text("-", "<stdin>", args.max_input_size)
    if starts_a_program(text):
        args.stdin_program = text
        return None
    return text


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


def _parse_options(raw: Sequence[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        if not sep or not key:
            _usage_error(f"--option takes KEY=VALUE, got {item!r}")
        if key in _NOT_FROM_THE_COMMAND_LINE:
            _usage_error(f"option {key!r} takes a Python value and cannot be given on the command line")
        try:
            options[key] = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            options[key] = value
    return options


_NOT_FROM_THE_COMMAND_LINE = frozenset({"clock"})
"""Options whose only valid values are Python objects (a clock is a function)."""


def _byte_size(text: str) -> int:
    units = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
    number, unit = (text[:-1], text[-1].upper()) if text[-1:].isalpha() else (text, "")
    if unit not in units or not number.isdigit():
        raise argparse.ArgumentTypeError(f"not a size in bytes (such as 1000, 64M or 2G): {one_line(text)!r}")
    size = int(number) * units[unit]
    if size > MAX_INPUT_SIZE:
        raise argparse.ArgumentTypeError(f"at most {MAX_INPUT_SIZE // 2**30}G, got {one_line(text)!r}")
    return size


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
        check_timeout(seconds)
    except ValueError as exc:  # FieldError is one
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {one_line(text)!r}") from exc
    return seconds


def _usage_error(message: str) -> NoReturn:
    error_line(f"error: {message}")
    raise SystemExit(2)
