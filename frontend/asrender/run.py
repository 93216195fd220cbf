"""A run: a program (or a prompt file) and how to run it in; its value, trace and model calls out.

:class:`RunOptions` is the one record of how a run is made. Whoever starts a run builds it once (the
command line from its flags, ``asrender snapshot`` and the inspector from the defaults, Python
callers) and varies it with :func:`dataclasses.replace`. :func:`run` runs a program (:func:`arun`
on an event loop); :func:`run_prompt` asks one prompt, the one-``generate`` case of the same
machinery. All go through :func:`model_adapter`, send each call in the run's format (so what a
provider is sent is what is shown) and return every call as it was sent; whoever shows the calls
in another format renders them afterwards (:func:`shown`). With ``on_text`` the calls are
streamed, their text passed on as it arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...adapters.offline import OfflineAdapter
from ..agentscript.trace import ProgramCall, Site, SiteWatch, TextSink, notes_events
from .retarget import Retargeted

if TYPE_CHECKING:
    from ...core.generate import CallWatcher, GenerateResult, ModelAdapter
    from ...core.prompt import Prompt
    from ...core.recording import Recorder, Recording
    from ...core.rendered import RenderedPrompt
    from ...core.tools import ToolContext
    from ...plugins.manager import PluginHost

__all__ = [
    "ProgramCall",
    "RunOptions",
    "RunResult",
    "arun",
    "arun_prompt",
    "call_block",
    "call_heading",
    "model_adapter",
    "recorded_or_replayed",
    "request_dict",
    "run",
    "run_prompt",
    "shown",
]


@dataclass(frozen=True)
class RunOptions:
    """How a run is made: where its model calls go, what answers them offline, the format they are
    shown in, and for a program its entry point and what its tools may touch."""

    adapter: str = "offline"
    """The provider's adapter (``offline``: canned replies, then mock values), or ``auto``: each
    call to the adapter serving its model URI's scheme (see :mod:`.routing`)."""
    model: str | None = None
    """Replaces the model a program names (a prompt file names none)."""
    dry_run: bool = False
    """Build every request for ``adapter`` and answer it offline: nothing is sent."""
    timeout: float | None = None
    """Seconds per request (None: the adapter's default)."""
    responses: Sequence[Any] = ()
    """Canned model replies, used in order (offline and dry runs)."""
    format: str = "agentscript"
    """The format calls are sent in, and shown in: what a provider is sent is what is shown."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The format's renderer options."""
    agent: str | None = None
    """A program's entry agent (its main agent by default)."""
    function: str | None = None
    """The entry agent's function (its main func by default)."""
    tools: ToolContext | None = None
    """What a program may touch (by default: reading its folder, nothing else)."""
    label_rule: str = "release"
    """How a program's ``use ... as`` labels end (see :func:`..agentscript.parse`)."""
    debug: TextSink | None = None
    """Where the debug text of a ``generate`` with ``debug: true`` goes."""
    on_text: Callable[[str], None] | None = None
    """Receives each model call's reply text as it arrives: with it, every call is streamed (its
    request carries the provider's stream flags, a dry run's too, and shows them)."""
    record: Recorder | None = None
    """Writes every reply the provider sends (see :mod:`promptwire.core.recording`)."""
    replay: Recording | None = None
    """Answers every call from a recording instead of the provider (whose requests are still
    built, and compared with the recorded ones); the recording's adapter and model unless
    ``adapter`` and ``model`` name others."""
    watch: CallWatcher | None = None
    """Told of each model call as it is sent and as it ends, as a :class:`ProgramCall` (progress
    lines, a live display; see :class:`promptwire.core.generate.CallWatcher`)."""
    base_urls: Mapping[str, str] = field(default_factory=dict)
    """Where the providers' requests go instead of their base URLs: by the scheme of the models
    they serve (``{"ollama": "http://gpu:11434"}``), or under ``""`` for every provider."""


@dataclass
class RunResult:
    value: Any
    trace: list[dict[str, Any]]
    calls: list[ProgramCall] = field(default_factory=list)
    sent_as: tuple[str, Mapping[str, Any]] = ("agentscript", {})
    """The format (and its options) the calls were rendered in to be sent."""

    def to_dict(self) -> dict[str, Any]:
        """``{"value": ..., "trace": [...]}`` as the reference CLI prints it."""
        from ..agentscript.interpreter import json_of

        return {"value": json_of(self.value), "trace": self.trace}


def loaded(host: PluginHost | None) -> PluginHost:
    """``host``, or the process's default one, loaded now. A run asks for it where it needs a
    registry (a provider, a format other than AgentScript's own, a tool scheme), so an offline run
    in AgentScript's format never imports pluggy nor looks for installed plugins."""
    if host is not None:
        return host
    from ...plugins.manager import default_host

    return default_host()


def model_adapter(host: PluginHost | None, options: RunOptions) -> ModelAdapter:
    """The adapter a run's calls go to: the offline one with the canned replies, the provider's
    (each call's, with ``auto``), retargeted to the model the run asks for and, in a dry run,
    answered offline; its replies recorded, or answered from a recording (:func:`recorded_or_replayed`).
    ``host`` (``None``: the default one) is loaded for a provider's run only."""
    answers = OfflineAdapter(options.responses)  # each run answers from a queue of its own
    name, model = options.adapter, options.model
    if options.replay is not None and name == "offline":
        name, model = options.replay.provider or name, model or options.replay.model
    if name == "offline":
        return recorded_or_replayed(answers, name, options)
    from .model_reach import model_reach
    from .routing import AUTO, Routed, Routes  # a provider's run only

    routes = Routes(loaded(host), options.base_urls)
    dry = answers if options.dry_run else None
    if name == AUTO:  # each provider's calls recorded, or replayed, under its own name
        if options.record is not None and options.replay is None and not options.dry_run:
            options.record.begin(AUTO, options.model)
        wrap = lambda adapter, each: recorded_or_replayed(adapter, each, options)  # noqa: E731
        return Routed(routes, model, dry, wrap, options.tools)
    sender = routes.sender(name)
    reach = model_reach(sender, options.tools)
    return Retargeted(recorded_or_replayed(sender, name, options), name, model, routes, dry, reach)


def recorded_or_replayed(adapter: ModelAdapter, name: str, options: RunOptions) -> ModelAdapter:
    """``adapter`` (registered as ``name``) with its replies recorded, or answered from a recording,
    as ``options`` ask (a dry run sends nothing, so nothing is recorded)."""
    if options.replay is not None:
        from ...core.recording import Replayed

        return Replayed(adapter, name, options.replay)
    if options.record is not None and not options.dry_run:
        from ...core.recording import Recorded

        options.record.begin(name, options.model)
        return Recorded(adapter, name, options.record)
    return adapter


def run(
    source_or_path: str | Path,
    input: Any = None,
    options: RunOptions | None = None,
    *,
    host: PluginHost | None = None,
    path: str | None = None,
    adapter: ModelAdapter | None = None,
) -> RunResult:
    """Parse, check and run a program, offline unless ``options`` say otherwise, keeping every call.

    ``source_or_path`` is a ``Path`` (its source read as every program's is:
    :func:`..agentscript.loader.read_source`) or the program text (``path`` then names it in errors
    and locates its imports). A failed run raises with its calls so far on the error
    (``error.calls``). ``adapter`` replaces the one the options name (:func:`model_adapter`), for
    a caller that wraps it (``asrender batch`` answers calls from a provider's batch results).
    """
    options = options or RunOptions()
    return _run(adapter or model_adapter(host, options), source_or_path, input, options, host, path)


async def arun(
    source_or_path: str | Path,
    input: Any = None,
    options: RunOptions | None = None,
    *,
    host: PluginHost | None = None,
    path: str | None = None,
    adapter: ModelAdapter | None = None,
) -> RunResult:
    """:func:`run`, awaited. The interpreter is synchronous, so the program runs in a thread of its
    own while each of its model calls is made on the caller's event loop with the provider SDK's
    async client (:class:`promptwire.core.on_loop.OnLoop`): many programs run at once on one loop
    and share its connections. ``options.on_text`` is called on the loop. Cancelling ``arun``
    cancels the model call in flight (its connection is closed) and stops the program at its next
    call; it returns once the program's thread has ended. ``adapter`` replaces the one the options
    name (:func:`model_adapter`), for a caller that wraps it (``asrender batch`` waits out rate
    limits) or shares one between runs.
    """
    import asyncio

    from ...core.on_loop import OnLoop

    options = options or RunOptions()
    loop = asyncio.get_running_loop()
    on_loop_adapter = OnLoop(adapter or model_adapter(host, options), loop)
    on_text = options.on_text
    if on_text is not None:

        def on_loop(text: str) -> None:
            loop.call_soon_threadsafe(on_text, text)

        options = replace(options, on_text=on_loop)
    return await on_loop_adapter.run(lambda: _run(on_loop_adapter, source_or_path, input, options, host, path))


def _run(
    adapter: ModelAdapter,
    source_or_path: str | Path,
    input: Any,
    options: RunOptions,
    host: PluginHost | None,
    path: str | None,
) -> RunResult:
    from ...core.observe import observer
    from ..agentscript import ensure_valid
    from ..agentscript.interpreter import Interpreter
    from ..agentscript.loader import default_permissions, load_program, read_source

    if isinstance(source_or_path, Path):
        path = str(source_or_path)
        source = read_source(path)
    else:
        source = source_or_path
    tools = options.tools or default_permissions(path)
    program = ensure_valid(load_program(source, path, label_rule=options.label_rule, permissions=tools))
    interpreter = Interpreter(
        program,
        adapter,
        debug=options.debug,
        tool_scheme=lambda name: loaded(host).tool_scheme(name),
        tool_context=tools,
        timeout=options.timeout,
        on_text=options.on_text,
        watch=options.watch,
        render=_sending_render(options, host),
    )
    with observer().run(Path(program.file_of().name).name):
        value = interpreter.run(input, agent=options.agent, function=options.function)
    return RunResult(value, interpreter.trace, interpreter.calls, (options.format, options.options))


def _sending_render(options: RunOptions, host: PluginHost | None) -> Callable[[Prompt], RenderedPrompt] | None:
    """How a program's calls are rendered to be sent: in the run's format, so that what is shown is
    what is sent; ``None`` for AgentScript's own text, which the interpreter renders anyway."""
    if options.format == "agentscript" and not options.options:
        return None
    renderer = loaded(host).load("renderers", options.format)
    chosen = dict(options.options)
    return lambda prompt: renderer.render(prompt, **chosen)


def run_prompt(
    prompt: Prompt,
    label: str,
    options: RunOptions | None = None,
    *,
    host: PluginHost | None = None,
    adapter: ModelAdapter | None = None,
    line: int = 1,
) -> RunResult:
    """A prompt read from a prompt file, asked as one ``generate`` (its attempts, repair text and
    checks) through the adapter a program's calls would go to.

    As a program's, its calls are sent as ``options.format`` renders them. Its calls are all at
    ``label:line:1`` (a batch's prompt is a line of its file); the trace holds the ``notes``
    events. A failed call raises with the attempts made on the error (``error.calls``).
    ``adapter`` replaces the one the options name, as for :func:`run`.
    """
    from ...core.generate import generate
    from ...core.origin import calling_from

    options = options or RunOptions()
    site = Site(label, line, 1, "")
    with _calls_at(site), calling_from(str(site)):
        result = generate(prompt, **_generate_arguments(options, host, adapter, site))
    return _prompt_result(site, result, options)


async def arun_prompt(
    prompt: Prompt,
    label: str,
    options: RunOptions | None = None,
    *,
    host: PluginHost | None = None,
    adapter: ModelAdapter | None = None,
    line: int = 1,
) -> RunResult:
    """:func:`run_prompt`, awaited (its call made with the adapter's async client); ``adapter``
    replaces the one the options name, as for :func:`arun`."""
    from ...core.generate import agenerate
    from ...core.origin import calling_from

    options = options or RunOptions()
    site = Site(label, line, 1, "")
    with _calls_at(site), calling_from(str(site)):
        result = await agenerate(prompt, **_generate_arguments(options, host, adapter, site))
    return _prompt_result(site, result, options)


def _generate_arguments(
    options: RunOptions, host: PluginHost | None, adapter: ModelAdapter | None, site: Site
) -> dict[str, Any]:
    """What :func:`run_prompt` and :func:`arun_prompt` give ``generate``/``agenerate`` besides the prompt."""
    host = loaded(host)
    renderer = host.load("renderers", options.format)
    return {
        "render": lambda current: renderer.render(current, **options.options),
        "adapter": adapter or model_adapter(host, options),
        "timeout": options.timeout,
        "on_text": options.on_text,
        "watch": None if options.watch is None else SiteWatch(site, options.watch),
    }


@contextmanager
def _calls_at(site: Site) -> Iterator[None]:
    """A failed prompt's attempts (``error.calls``) as calls at ``site``."""
    from ...core.errors import PromptwireError

    try:
        yield
    except PromptwireError as exc:
        exc.calls = tuple(ProgramCall.at(site, call) for call in exc.calls)
        raise


def _prompt_result(site: Site, result: GenerateResult, options: RunOptions) -> RunResult:
    calls = [ProgramCall.at(site, call) for call in result.calls]
    return RunResult(result.value, notes_events(calls), calls, (options.format, options.options))


def shown(result: RunResult, options: RunOptions, host: PluginHost | None) -> list[RenderedPrompt]:
    """Each call of ``result`` in the display format (``options.format``, with its options): the
    render that was sent when that is the one asked for, else rendered now, after the run."""
    if (options.format, dict(options.options)) == (result.sent_as[0], dict(result.sent_as[1])):
        return [call.rendered for call in result.calls]
    render = loaded(host).load("renderers", options.format).render
    return [render(call.prompt, **options.options) for call in result.calls]


def call_heading(call: ProgramCall) -> str:
    """``=== SITE agent A attempt N ===``: where a call came from, as ``asrender`` heads its render."""
    agent = f" agent {call.site.agent}" if call.site.agent else ""
    return f"=== {call.site}{agent} attempt {call.attempt} ==="


def call_block(call: ProgramCall, rendered: RenderedPrompt) -> str:
    """The call as ``asrender`` shows it: its heading, then ``rendered`` (the call in the display format)."""
    return f"{call_heading(call)}\n{rendered.display()}"


def request_dict(call: ProgramCall, provider: str) -> dict[str, Any]:
    """The request of a dry run: what would be sent, where, and the notes."""
    return {
        "site": str(call.site),
        "agent": call.site.agent or None,
        "attempt": call.attempt,
        "provider": call.request.provider or provider,
        "model": call.request.kwargs.get("model"),
        "body": dict(call.request.kwargs),
        "notes": list(call.request.notes),
    }
