"""The command line's flags, read once into a typed record per sub-command, and turned into what
the library takes: a run's options (:class:`~promptwire.runs.options.RunOptions`), what a program
may touch (:class:`~promptwire.core.permissions.Permissions`), the base URLs, the replies that
answer a run and the recording it writes.

This is the only module that reads argparse's ``Namespace`` (:func:`read_flags`, once, before a
command runs); the commands read their record, whose fields mypy checks, and nothing changes it
(a command that derives a flag makes a new record). ``render`` and ``batch`` share the flags a run
is made from (:class:`RunFlags`), and each adds its own: a batch has no display to stream and
no recording to write, and no flag of the other's is made up for it. As in pandoc, the
application's options are not the library's: they are projected into the library's records here.

Every check says what is wrong with the command line before anything is read or run, as
``asrender: error: ...`` with exit status 2 (:func:`~.terminal.usage_error`), in the order the
flags were always checked (a command line with two faults names the same one first).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn, Self

from ...core.errors import PromptwireError
from ...core.text_files import MAX_INPUT_SIZE
from ...core.timeout import check_timeout
from .terminal import CliError, DebugStream, error_line, one_line, usage_error

if TYPE_CHECKING:
    from ...calls.recording import Recorder, Recording
    from ...core.permissions import Permissions
    from ...plugins.manager import PluginHost
    from ...runs.options import RunOptions

__all__ = [
    "ANY_ORIGIN",
    "CONVERSATION_READERS",
    "WORKSPACE",
    "BatchFlags",
    "CheckFlags",
    "PluginsFlags",
    "ProgramFlags",
    "RenderFlags",
    "RunFlags",
    "ServeFlags",
    "SnapshotFlags",
    "asks_a_model",
    "base_url",
    "batch_kind",
    "batch_run_options",
    "byte_size",
    "comma_list",
    "count",
    "known",
    "origins",
    "permissions",
    "plugin_host",
    "program_label",
    "read_flags",
    "render_options",
    "render_run_options",
    "seconds",
    "serve_options",
    "snapshot_options",
]


class _Flags:
    """A sub-command's flags as argparse made them, one attribute each, named by the class's
    annotations: set once by :func:`read_flags`, read-only after (:meth:`but` makes a changed
    copy). The constructor takes exactly the annotated names, so a flag without a field, or a field
    without a flag, fails every test of that command rather than going unnoticed.

    A plain class, not a dataclass: the eight records are made at every start, ``check``'s and
    ``parse``'s too, and ``@dataclass(frozen=True)`` compiles methods nothing here calls (a record
    of six fields took 0.9 ms against 0.08 for a plain class, best of 200 on a busy 2-core machine)."""

    def __init__(self, given: Mapping[str, Any]) -> None:
        names = {name for cls in type(self).__mro__ for name in vars(cls).get("__annotations__", {})}
        if set(given) != names:
            unread, unset = sorted(set(given) - names), sorted(names - set(given))
            raise TypeError(f"{type(self).__name__}: flags without a field {unread}, fields without a flag {unset}")
        self.__dict__.update(given)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"{type(self).__name__}.{name}: the flags are read-only (but() makes a changed copy)")

    def but(self, **changes: Any) -> Self:
        """These flags with ``changes``."""
        return type(self)({**vars(self), **changes})


class PluginsFlags(_Flags):
    """``asrender plugins``."""

    json: bool


class LspFlags(_Flags):
    """``asrender lsp``: the language server takes its settings from the editor, not flags."""


class ProgramFlags(_Flags):
    """``asrender parse``: a program read, never run."""

    file: str
    label_rule: str
    max_input_size: int


class CheckFlags(ProgramFlags):
    """``asrender check``: a program loaded as a run loads it, its imports read as ``--allow-read``
    lets a run read them."""

    allow_read: Sequence[str] | None


class ServeFlags(_Flags):
    """``asrender serve``."""

    path: str
    port: int
    option: Sequence[str]


class SnapshotFlags(_Flags):
    """``asrender snapshot``."""

    directory: str
    update: bool
    format: str
    option: Sequence[str]


class RunFlags(_Flags):
    """The flags a run is made from, which ``render`` and ``batch`` both take: the file, the format
    it is shown in, where its model calls go and what its program may touch. Each field is the
    flag as argparse gives it (``None``: not given)."""

    file: str
    reader: str
    format: str
    option: Sequence[str]
    strict: bool
    provider: str | None
    base_url: Sequence[tuple[str, str]] | None
    model: str | None
    timeout: float | None
    dry_run: bool
    responses: str | None
    agent: str | None
    function: str | None
    allow_read: Sequence[str] | None
    allow_write: Sequence[str] | None
    allow_env: Sequence[Sequence[str]] | None
    allow_net: Sequence[Sequence[object]] | None
    max_input_size: int

    def program_flags(self) -> list[str]:
        """The flags given that only a ``.as`` program takes."""
        program_only = [
            ("--agent", self.agent),
            ("--function", self.function),
            ("--allow-read", self.allow_read),
            ("--allow-write", self.allow_write),
            ("--allow-env", self.allow_env),
            ("--allow-net", self.allow_net),
        ]
        return [flag for flag, value in program_only if value is not None]


class RenderFlags(RunFlags):
    """``asrender FILE``: one run, shown as ``--output`` asks, or a prompt file rendered."""

    output: str
    input: str | None
    input_file: str | None
    record: str | None
    accept_drift: bool
    progress: bool | None
    stream: bool | None
    otel: bool
    count_tokens: bool

    def program_flags(self) -> list[str]:
        given = [
            flag for flag, value in (("--input", self.input), ("--input-file", self.input_file)) if value is not None
        ]
        return given + super().program_flags()


class BatchFlags(RunFlags):
    """``asrender batch``: a run per row, each written as a result line, or a round of a
    provider's batch API."""

    inputs: str | None
    out: str
    prompt: Literal["full", "digest"]
    concurrency: int
    jobs: int
    max_wait: float
    batch_file: Sequence[str] | None
    batch_results: Sequence[str] | None
    replay_writes: bool
    resume_anyway: bool
    count_tokens: bool

    def program_flags(self) -> list[str]:
        return (["--inputs"] if self.inputs is not None else []) + super().program_flags()


Flags = PluginsFlags | LspFlags | ProgramFlags | ServeFlags | SnapshotFlags | RunFlags
_NOT_FLAGS = frozenset({"command", "run", "flags"})
"""What the parser keeps in the ``Namespace`` besides the flags: the sub-command's name, its
handler and the record its flags are read into."""


CONVERSATION_READERS = frozenset({"openai-chat", "openai-responses", "anthropic", "ollama", "gemini", "bedrock"})
"""The readers of a provider's own request body: what they read is a conversation, shown and sent
as it is (format ``conversation``) unless ``--format`` asks for another. Each names the body's
field that names its model (its ``model_field``), which a run asks for."""


def read_flags(args: argparse.Namespace) -> Flags:
    """The sub-command's flags as its record (the parser names the record, ``flags``). A format not
    given is the reader's: ``conversation`` for a provider's body, else ``agentscript``."""
    record: type[Flags] = args.flags
    given = {name: value for name, value in vars(args).items() if name not in _NOT_FLAGS}
    if "format" in given and given["format"] is None:
        given["format"] = "conversation" if given.get("reader") in CONVERSATION_READERS else "agentscript"
    return record(given)


def plugin_host() -> PluginHost:
    """The plugin host, loaded by the commands that use one (``check`` and ``parse`` do not)."""
    from ...plugins.manager import default_host

    return default_host()


def known(kind: str, name: str, flag: str) -> None:
    """A name on the command line that no plugin registered is a bad command line (exit 2), as a
    bad ``--output`` is; a plugin that failed to load stays an error of its own (exit 1)."""
    from ...core.errors import UnknownNameError

    try:
        plugin_host().get(kind, name)
    except UnknownNameError as exc:
        usage_error(f"{flag}: {exc}")


def program_label(file: str) -> str:
    """How a file is named in messages: ``-`` is ``<stdin>``."""
    return "<stdin>" if file == "-" else file


WORKSPACE = ""
"""What a bare ``--allow-write`` stands for: the program's folder."""
ANY_ORIGIN = object()
"""What a bare ``--allow-net`` stands for: any origin (``core.permissions.ANY_ORIGIN``, which
``check`` and ``parse`` need not import)."""


def comma_list(value: str) -> list[str]:
    """A flag's ``NAME,...`` value (argparse's ``type=``, as the functions below: a bad value is
    argparse's usage error)."""
    return [item.strip() for item in value.split(",") if item.strip()]


def origins(value: str) -> list[str]:
    from ...core.permissions import parse_origin

    listed = comma_list(value)
    for origin in listed:
        try:
            parse_origin(origin)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return listed


def base_url(text: str) -> tuple[str, str]:
    from ...calls.routing import base_url_entry

    try:
        return base_url_entry(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def byte_size(text: str) -> int:
    units = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
    number, unit = (text[:-1], text[-1].upper()) if text[-1:].isalpha() else (text, "")
    if unit not in units or not number.isdigit():
        raise argparse.ArgumentTypeError(f"not a size in bytes (such as 1000, 64M or 2G): {one_line(text)!r}")
    size = int(number) * units[unit]
    if size > MAX_INPUT_SIZE:
        raise argparse.ArgumentTypeError(f"at most {MAX_INPUT_SIZE // 2**30}G, got {one_line(text)!r}")
    return size


def seconds(text: str) -> float:
    try:
        value = float(text)
        check_timeout(value)
    except ValueError as exc:  # FieldError is one
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {one_line(text)!r}") from exc
    return value


def count(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 10_000:
        raise argparse.ArgumentTypeError(f"not a whole number from 1 to 10000: {one_line(text)!r}")
    return int(text)


def render_run_options(flags: RenderFlags, *, program: bool) -> RunOptions:
    """The flags of ``asrender FILE`` as the run's options, each checked before anything is read or
    run: the canned replies or the replay, the display's, then those of every run
    (:func:`_run_options`), and last the recording (which makes its file). ``program``: the file
    is a program (a ``.as`` file, or one on standard input), whose tools get permissions."""
    from ...runs.inputs import model_replies

    responses, replay = model_replies(flags.responses, flags.max_input_size, accept_drift=flags.accept_drift)
    if flags.accept_drift and replay is None:
        usage_error("--accept-drift applies to a replay (--responses naming a recording)")
    _replay_warnings(replay)
    if flags.stream and flags.output != "display":
        usage_error(f"--stream shows the display; --output {flags.output} is printed once the run has ended")
    if flags.stream and flags.dry_run:
        usage_error("--stream needs replies that arrive; a dry run answers offline")
    options = _run_options(flags, responses, replay, program=program)
    if flags.count_tokens:
        return _counting(flags, options)
    return replace(options, record=_recorder(flags, replay))


def _counting(flags: RenderFlags, options: RunOptions) -> RunOptions:
    """``--count-tokens``: the run's calls each counted by its provider's count endpoint, then
    answered offline (a dry run); a provider named that has no count endpoint is refused now."""
    if flags.output not in ("display", "json"):
        usage_error(f"--count-tokens prints the counts as display or json, not --output {flags.output}")
    for flag, given in (("--record", flags.record), ("--stream", flags.stream)):
        if given:
            usage_error(f"--count-tokens sends nothing but the counts: it takes no {flag}")
    return _counted_options(flags, options)


def _counted_options(flags: RunFlags, options: RunOptions) -> RunOptions:
    """The options of a run (or of every row of a batch) whose calls are counted, then answered
    offline: what both commands' ``--count-tokens`` refuse, and the provider checked now."""
    if options.adapter == "offline":
        usage_error("--count-tokens needs --provider: the provider that counts (or auto)")
    if options.replay:
        usage_error("--count-tokens sends nothing but the counts: it replays no recording")
    if flags.timeout is not None:  # a count is asked within the adapter's default timeout
        usage_error("--count-tokens asks each count within the provider's default timeout: it takes no --timeout")
    from ...calls.counting import Count, counter

    if options.adapter != "auto":
        try:
            counter(plugin_host().load("adapters", options.adapter), options.adapter)
        except PromptwireError as exc:
            raise CliError(str(exc)) from None
    return replace(options, dry_run=True, count=Count())


def batch_run_options(flags: BatchFlags) -> RunOptions:
    """The flags of ``asrender batch`` as the options every row is run with: a batch has no display
    and records nothing."""
    from ...runs.inputs import model_replies

    responses, replay = model_replies(flags.responses, flags.max_input_size)
    _replay_warnings(replay)
    options = _run_options(flags, responses, replay, program=flags.file.endswith(".as"))
    if flags.count_tokens:
        if flags.batch_file is not None or flags.batch_results is not None:
            usage_error("--count-tokens counts a batch run here, not a round of a provider's batch API")
        return _counted_options(flags, options)
    return options


def _run_options(flags: RunFlags, responses: Sequence[Any], replay: Recording | None, *, program: bool) -> RunOptions:
    """What every run's options are made of: the provider, its base URLs, the format's options and
    what a program's tools may touch."""
    from ...runs.options import RunOptions

    provider = _provider(flags.provider, flags.dry_run)
    return RunOptions(
        adapter=provider,
        base_urls=_base_urls(flags.base_url, provider),
        model=flags.model,
        dry_run=flags.dry_run,
        timeout=flags.timeout,
        responses=responses,
        format=flags.format,
        options=render_options(flags.format, flags.option, strict=flags.strict),
        agent=flags.agent,
        function=flags.function,
        tools=_run_permissions(flags) if program else None,
        debug=DebugStream(),
        replay=replay,
    )


def _replay_warnings(replay: Recording | None) -> None:
    for warning in replay.warnings if replay is not None else ():
        error_line(f"warning: {warning}")


def _recorder(flags: RenderFlags, replay: Recording | None) -> Recorder | None:
    """The recording ``--record`` asks for, its file made (or emptied) now, with its header: the last
    flag checked."""
    if flags.record is None:
        return None
    if flags.dry_run or replay is not None or flags.provider in (None, "offline"):
        why = "--dry-run" if flags.dry_run else "a replay" if replay is not None else "an offline run"
        usage_error(f"--record records a real run (--provider P); {why} sends nothing")
    from ...calls.recording import Recorder
    from ...core.written_files import refuse_same_file

    inputs: list[tuple[str, str | None]] = [
        ("the program" if flags.file.endswith(".as") else "the prompt file", flags.file)
    ]
    inputs += [("--input-file", flags.input_file), ("--responses", flags.responses)]
    refuse_same_file([("--record", flags.record)], inputs, usage_error)
    recorder = Recorder(flags.record)
    recorder.begin(flags.provider, flags.model)
    return recorder


def _provider(given: str | None, dry_run: bool) -> str:
    """The adapter asked (offline unless --provider names one, or auto), known to the host."""
    provider = given or "offline"
    if dry_run and provider == "offline":
        from ...plugins.builtins import ADAPTERS

        sending = ", ".join(name for name in ADAPTERS if name != "offline")
        usage_error(f"--dry-run needs --provider (auto, {sending}, or a plugin's)")
    try:
        if provider not in ("auto", "offline"):  # the offline adapter is no plugin's: always there
            known("adapters", provider, "--provider")
            from ...core.sdk import missing_sdk

            # A dry run only builds requests: it needs no SDK.
            missing = None if dry_run else missing_sdk(plugin_host().load("adapters", provider))
            if missing is not None:
                usage_error(f"--provider {provider}: {missing}")
    except PromptwireError as exc:
        raise CliError(str(exc)) from None
    return str(provider)


def _base_urls(given: Sequence[tuple[str, str]] | None, provider: str) -> dict[str, str]:
    """The ``--base-url`` flags by scheme (``""``: the one provider's), each used by the run."""
    if not given:
        return {}
    from ...calls.routing import Routes, check_base_urls

    base_urls: dict[str, str] = {}
    for key, url in given:
        if key in base_urls:
            usage_error(f"--base-url is given twice for {key or provider}")
        base_urls[key] = url
    try:
        check_base_urls(Routes(plugin_host()), provider, base_urls)
    except PromptwireError as exc:
        usage_error(str(exc))
    from ...calls.base_url_credentials import credential_note

    for key, url in base_urls.items():
        note = credential_note(url, key or provider)
        if note is not None:
            error_line(f"warning: {note}")
    return base_urls


def render_options(format_name: str, given: Sequence[str], *, strict: bool) -> dict[str, Any]:
    """The ``-o`` options (and ``--strict``) for the format, checked against what it takes before
    anything is read or run."""
    if format_name != "agentscript":  # AgentScript's own format is always there: no plugins to load
        known("renderers", format_name, "--format")
    options = _parse_options(given)
    if not isinstance(options.get("strict", False), bool):
        usage_error(f"-o strict takes true or false, got {one_line(json.dumps(options['strict']))}")
    if strict:
        options["strict"] = True
    accepted = plugin_host().renderer_options(format_name) if options else None
    unknown = [key for key in options if accepted is not None and key not in accepted]
    if unknown:
        names = ", ".join(repr(key) for key in unknown)
        takes = ", ".join(sorted((accepted or frozenset()) - _NOT_FROM_THE_COMMAND_LINE)) or "nothing"
        plural = "s" if len(unknown) > 1 else ""
        usage_error(f"format {format_name!r} takes no option{plural} {names} (it takes: {takes})")
    if "layout" in options:
        known("renderers", str(options["layout"]), "-o layout")
        options["layout"] = plugin_host().renderer(str(options["layout"]))
    return options


def snapshot_options(flags: SnapshotFlags) -> dict[str, Any]:
    """The format's options for ``asrender snapshot``, whose programs run from their own folders:
    a path-valued option (:data:`_PATH_OPTIONS`) is made absolute from where ``asrender`` was
    started."""
    return render_options(flags.format, [_from_here(option) for option in flags.option], strict=False)


def serve_options(flags: ServeFlags) -> dict[str, dict[str, Any]]:
    """``asrender serve -o KEY=VALUE``, by format: each option for every format that takes it
    (paths made absolute, as for :func:`snapshot_options`)."""
    from .inspector.state import options_by_format

    try:
        return options_by_format(plugin_host(), _parse_options([_from_here(option) for option in flags.option]))
    except ValueError as exc:
        usage_error(f"-o: {exc}")


_PATH_OPTIONS = frozenset({"template"})
"""``--option`` keys whose value is a file path, read relative to where ``asrender`` was started."""


def _from_here(option: str) -> str:
    """``KEY=PATH`` with a relative path made absolute, for a key of :data:`_PATH_OPTIONS`."""
    key, _, value = option.partition("=")
    return f"{key}={os.path.abspath(value)}" if key in _PATH_OPTIONS and value else option


def _parse_options(raw: Sequence[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        if not sep or not key:
            usage_error(f"--option takes KEY=VALUE, got {item!r}")
        if key in _NOT_FROM_THE_COMMAND_LINE:
            usage_error(f"option {key!r} takes a Python value and cannot be given on the command line")
        try:
            options[key] = json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            options[key] = value
    return options


_NOT_FROM_THE_COMMAND_LINE = frozenset({"clock"})
"""Options whose only valid values are Python objects (a clock is a function)."""


def _run_permissions(flags: RunFlags) -> Permissions:
    return permissions(
        program_label(flags.file),
        flags.max_input_size,
        read=flags.allow_read,
        write=flags.allow_write,
        env=flags.allow_env,
        net=flags.allow_net,
        timeout=flags.timeout,
    )


def permissions(
    program: str,
    max_read_bytes: int,
    *,
    read: Sequence[str] | None,
    write: Sequence[str] | None = None,
    env: Sequence[Sequence[str]] | None = None,
    net: Sequence[Sequence[object]] | None = None,
    timeout: float | None = None,
) -> Permissions:
    """What a program may touch: reading its own folder (its workspace, where its tool paths start,
    from whatever folder ``asrender`` is run), and what the ``--allow-*`` flags add (their paths are
    the user's, from where ``asrender`` is run; a bare ``--allow-write`` is the workspace);
    ``--timeout`` bounds each network tool call. ``check`` takes ``--allow-read`` alone: it reads
    a program's imports as a run would, and writes and reaches nothing."""
    from ...core.permissions import ANY_ORIGIN as ANY
    from ...core.permissions import DEFAULT_TOOL_TIMEOUT, Permissions
    from ..agentscript.loader import program_folder

    folder = program_folder(program)
    return Permissions(
        folder,
        program_folder=folder,
        read=tuple(Path(os.path.abspath(path)) for path in read or ()),
        write=tuple(folder if path == WORKSPACE else Path(os.path.abspath(path)) for path in write or ()),
        env=frozenset(name for names in env or () for name in names),
        net=frozenset(ANY if origin is ANY_ORIGIN else str(origin) for listed in net or () for origin in listed),
        timeout=DEFAULT_TOOL_TIMEOUT if timeout is None else timeout,
        max_read_bytes=max_read_bytes,
    )


def asks_a_model(flags: RenderFlags) -> bool:
    """A prompt file is only rendered unless a flag asks for the model's side of it."""
    model_flags = (
        flags.provider,
        flags.model,
        flags.timeout,
        flags.responses,
        flags.record,
        flags.dry_run or None,
        flags.base_url,
    )
    return flags.output == "trace" or any(value is not None for value in model_flags)


def batch_kind(flags: BatchFlags) -> tuple[str | None, BatchFlags]:
    """The provider batch API a batch writes for or reads from (None: a batch run here), its
    adapter checked, and the flags with it as the provider when ``--provider`` names none (the
    batch file's own)."""
    from ...adapters.batch_files import KINDS, check_adapter

    if flags.batch_file is None and flags.batch_results is None:
        if flags.replay_writes:
            usage_error("--replay-writes applies to --batch-file and --batch-results only")
        return None, flags
    if flags.batch_file is not None:
        kind = flags.batch_file[0]
        if kind not in KINDS:
            usage_error(f"--batch-file takes openai or anthropic, then the file; got {one_line(kind)!r}")
        flags = flags.but(provider=flags.provider or kind)
    else:
        found = next((name for name, adapters in KINDS.items() if flags.provider in adapters), None)
        if found is None:
            usage_error("--batch-results needs --provider openai, openai-responses or anthropic")
        kind = found
    try:  # the provider is set by now: the batch file's, or one of the kind's adapters
        check_adapter(kind, flags.provider or kind)
    except PromptwireError as exc:
        usage_error(str(exc))
    if flags.dry_run or flags.jobs > 1:
        usage_error("--batch-file and --batch-results take neither --dry-run nor --jobs")
    if flags.allow_write and not flags.replay_writes:
        usage_error(
            "a program that may write (--allow-write) is run again each round, repeating its writes; "
            "add --replay-writes to allow it"
        )
    return str(kind), flags
