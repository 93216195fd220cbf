"""``asrender``: see exactly what a prompt looks like in any format.

Every failure a user can cause ends as one line on stderr naming the file, the field and the reason,
with exit status 1 (2 for a bad command line); no traceback reaches the terminal. Heavy modules are
imported only by the sub-command that needs them, because start-up time is part of the product.

This module is the command line's grammar (argparse, each sub-command's parser built only when it
is asked for), the dispatch and the error ladder that turns every failure into that one line. The
flags are read into their record by :mod:`.flags`, the sub-commands' work is :mod:`.commands`',
and what they print is :mod:`.show`'s.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ...core.errors import PluginWarning, PromptDrift, PromptwireError, SourceError
from ...core.text_files import DEFAULT_MAX_BYTES
from ...core.timeout import DEFAULT_TIMEOUT
from ..agentscript.diagnostics import CheckError
from . import commands as handlers
from . import flags
from .terminal import (
    CliError,
    OutputError,
    error_block,
    error_line,
    finish_output,
    one_line,
    usage_error,
    warnings_as_lines,
    write_output,
)

__all__ = ["console", "main"]

OUTPUTS = ("display", "json", "text", "trace")


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


_OWN_FLAGS = frozenset({"-h", "--help", "--version"})
"""The flags of ``asrender`` itself; any other first argument is the main form's (``render``)."""


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and argv[0] not in _OWN_FLAGS:
        argv.insert(0, "render")  # ``asrender FILE`` is the main form, its flags before FILE or after
    if any("\x00" in arg for arg in argv):  # no shell can pass one; a Python caller can
        usage_error("an argument holds a NUL byte, which no path, name or value may")
    args = _parser(argv[0] if argv and argv[0] in COMMANDS else None).parse_args(argv)
    handlers.COMMAND_LINE[:] = argv  # an interrupted batch prints the command that resumes it
    try:
        with warnings_as_lines(PluginWarning):  # a plugin that failed to load: the rest goes on
            status = int(args.run(flags.read_flags(args)))  # its handler in commands.py, given its flags' record
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


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad command line said as every other failure is: one ``asrender: error:``
    line (its arguments quoted as one line: an unrecognised argument may hold a newline or an
    escape sequence), exit status 2. argparse's own would print its usage and then the arguments
    raw."""

    def error(self, message: str) -> NoReturn:
        usage_error(message)

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
_ADAPTERS = "<the registered adapters>"
"""Stands for the registered adapters (the offline one aside) in a help text, as :data:`_FORMATS`."""
_REGISTERED = {_FORMATS: "renderers", _ADAPTERS: "adapters"}


class _Help(argparse.HelpFormatter):
    """argparse's help, with the formats and adapters registered (built-in and plugins') named in
    place of :data:`_FORMATS` and :data:`_ADAPTERS`: the plugin host is loaded when help is
    printed, not at every start."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        for stand_in, kind in _REGISTERED.items():
            if text is not None and stand_in in text:
                text = text.replace(stand_in, _registered(kind).replace("%", "%%"))  # help is %-formatted next
        return text


def _registered(kind: str) -> str:
    try:
        return ", ".join(one_line(name) for name in flags.plugin_host().names(kind) if name != "offline")
    except PromptwireError:  # a broken plugin: say where to look rather than fail the help
        return "see asrender plugins"


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
    plugins.set_defaults(run=handlers.plugins, flags=flags.PluginsFlags)


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
        default=None,
        help=f"the format to send and show calls in: {_FORMATS} (default: agentscript; conversation for a "
        "provider's own body read with --from openai-chat, openai-responses, anthropic, ollama, gemini or bedrock)",
    )
    render.add_argument(
        "--from",
        dest="reader",
        default="prompt",
        metavar="READER",
        help="the reader of the file: prompt (default), agens, agently, or a provider's own request body: "
        "openai-chat, openai-responses, anthropic, ollama, gemini, bedrock",
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
        help=f"send the model calls of a program or prompt file to this adapter ({_ADAPTERS}; a call whose "
        "model names another gets a note), or 'auto': each call to the adapter its model URI's scheme names "
        "(openai://, anthropic://, gemini://, bedrock://, azure://, ollama://, a plugin's); default offline",
    )
    _base_url_flag(render)
    render.add_argument(
        "--model",
        help="the model to ask for (a program's own by default, or the one a --from provider body names; "
        "other prompt files need it)",
    )
    render.add_argument(
        "--timeout", type=flags.seconds, metavar="SECONDS", help=f"per request (default {DEFAULT_TIMEOUT:g})"
    )
    render.add_argument(
        "--dry-run", action="store_true", help="with --provider: build every request, send nothing, answer offline"
    )
    render.add_argument(
        "--count-tokens",
        action="store_true",
        help="with --provider: count each model call's input tokens with the provider's count endpoint, per "
        "call with a total (display or json); nothing else is sent, each call answered offline as in --dry-run",
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
    _option_flag(render, "a renderer option; VALUE is read as JSON when it parses, else as text (repeatable)")
    _max_input_size_flag(render, "refuse prompt files larger than this (default {}M; suffixes K, M, G)")
    render.set_defaults(run=handlers.render, flags=flags.RenderFlags)


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
    _option_flag(snapshot, "a renderer option (repeatable)")
    snapshot.set_defaults(run=handlers.snapshot, flags=flags.SnapshotFlags)


def _serve_parser(commands: Any) -> None:
    serve = commands.add_parser(
        "serve", help="serve a local page showing every model call of a program in every format (127.0.0.1)"
    )
    serve.add_argument("path", metavar="FILE.as|DIR", help="a program, or a folder of programs to pick from")
    serve.add_argument(
        "--port", type=int, default=7878, help="the port on 127.0.0.1 (default 7878; 0 picks a free one)"
    )
    _option_flag(
        serve, "a renderer option, for every format that takes it: -o template=PATH for the template tab (repeatable)"
    )
    serve.set_defaults(run=handlers.serve, flags=flags.ServeFlags)


def _check_parser(commands: Any) -> None:
    check = commands.add_parser("check", help="check an AgentScript program: every diagnostic, exit 1 on errors")
    check.add_argument(
        "--allow-read",
        action="append",
        metavar="PATH",
        help="the program may also import agents from this file or folder, as a run with the flag may (repeatable)",
    )
    _language_arguments(check, handlers.check, flags.CheckFlags)


def _parse_parser(commands: Any) -> None:
    parse = commands.add_parser("parse", help="print an AgentScript program's syntax tree as JSON")
    _language_arguments(parse, handlers.parse, flags.ProgramFlags)


def _language_arguments(
    command: argparse.ArgumentParser, run: Callable[[Any], int], record: type[flags.ProgramFlags]
) -> None:
    """What ``check`` and ``parse`` both take."""
    command.add_argument("file", metavar="FILE.as", help="the program; '-' reads standard input")
    command.add_argument(
        "--label-rule",
        choices=("release", "late"),
        default="release",
        help="how a 'use ... as' label ends: the rest of the line (release, default) or one token (late)",
    )
    _max_input_size_flag(command, "refuse a program (or an imported file) larger than this (default {}M)")
    command.set_defaults(run=run, flags=record)


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
        const=flags.WORKSPACE,
        metavar="PATH",
        help="a program's tools and memory may write this file or folder (no PATH: the program's folder; repeatable)",
    )
    parser.add_argument(
        "--allow-env",
        action="append",
        type=flags.comma_list,
        metavar="NAME,...",
        help="a program may read these environment variables (none by default; secret-looking values are never traced)",
    )
    parser.add_argument(
        "--allow-net",
        action="append",
        nargs="?",
        type=flags.origins,
        const=[flags.ANY_ORIGIN],
        metavar="ORIGIN,...",
        help="a program's HTTP tools may reach these origins, scheme://host[:port] or host[:port] (no ORIGIN: any)",
    )


def _option_flag(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--option``/``-o KEY=VALUE`` (``render``, ``batch``, ``snapshot`` and ``serve`` take it)."""
    parser.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE", help=help_text)


def _max_input_size_flag(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--max-input-size``, its help saying what it bounds, with ``{}`` for the default in MiB."""
    help_text = help_text.format(DEFAULT_MAX_BYTES // 2**20)
    parser.add_argument(
        "--max-input-size", type=flags.byte_size, default=DEFAULT_MAX_BYTES, metavar="BYTES", help=help_text
    )


def _base_url_flag(parser: argparse.ArgumentParser) -> None:
    """``--base-url`` (``render`` and ``batch`` take the same)."""
    parser.add_argument(
        "--base-url",
        action="append",
        type=flags.base_url,
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
        default=None,
        help=f"the format of each call's prompt in the results: {_FORMATS} (default: agentscript; conversation for "
        "rows read with --from openai-chat, openai-responses, anthropic, ollama, gemini or bedrock)",
    )
    _option_flag(batch, "a renderer option (repeatable)")
    batch.add_argument("--strict", action="store_true", help="fail a row when the format cannot express a field")
    batch.add_argument(
        "--prompt",
        choices=("full", "digest"),
        default="full",
        help="each call's rendered prompt in full (default) or its sha256 digest",
    )
    batch.add_argument(
        "--provider",
        help=f"send the calls to this adapter ({_ADAPTERS}), or 'auto' by each model's scheme (default offline)",
    )
    batch.add_argument(
        "--model",
        help="the model to ask for (each row's own when --from reads a provider's body; other rows name none)",
    )
    batch.add_argument(
        "--timeout", type=flags.seconds, metavar="SECONDS", help=f"per request (default {DEFAULT_TIMEOUT:g})"
    )
    batch.add_argument(
        "--dry-run", action="store_true", help="with --provider: build every request, send nothing, answer offline"
    )
    batch.add_argument(
        "--count-tokens",
        action="store_true",
        help="with --provider: count each row's model calls' input tokens with the provider's count endpoint "
        "(each row's line holds its counts, the summary the total); nothing else is sent, as in --dry-run",
    )
    batch.add_argument("--responses", metavar="FILE", help="canned model replies for every row, a JSON array")
    batch.add_argument(
        "--concurrency",
        type=flags.count,
        default=8,
        metavar="N",
        help="with --provider: rows in flight at once, in all processes (default 8)",
    )
    batch.add_argument(
        "--jobs",
        type=flags.count,
        default=1,
        metavar="N",
        help="processes to run rows in (default 1); live, each runs its share of --concurrency",
    )
    batch.add_argument(
        "--max-wait",
        type=flags.seconds,
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
    _max_input_size_flag(batch, "refuse a program or replies file larger than this (default {}M)")
    _base_url_flag(batch)
    batch.set_defaults(run=handlers.batch, flags=flags.BatchFlags)


def _lsp_parser(commands: Any) -> None:
    lsp = commands.add_parser("lsp", help="serve the AgentScript language server over stdio (needs promptwire[lsp])")
    lsp.set_defaults(run=handlers.lsp, flags=flags.LspFlags)


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


def _fail(message: str) -> int:
    error_line(message)
    return 1
