"""A run: a program (or a prompt file) and how to run it in; its value, trace and model calls out.

:class:`~.options.RunOptions` is the one record of how a run is made. :func:`run` runs a program
(:func:`arun` on an event loop); :func:`run_prompt` asks one prompt, the one-``generate`` case of
the same machinery. All send their calls as :func:`calls_for` says (the router that picks each
call's adapter, and the links each call passes through), in the run's format (so what a provider is
sent is what is shown), and return every call as it was sent; whoever shows the calls in another
format renders them afterwards (:func:`shown`). With ``on_text`` the calls are streamed, their text
passed on as it arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..adapters.offline import OfflineAdapter
from ..calls.links import Chain, DryRun, Link
from ..calls.targets import Direct, Router
from ..core.call import ModelCall, Site
from ..core.records import FACTORY, dataclass_record
from ..frontend.agentscript.trace import notes_events
from .options import RunOptions

if TYPE_CHECKING:
    from ..calls.watch import Watcher
    from ..core.call import GenerateResult, ModelAdapter
    from ..core.prompt import Prompt
    from ..core.rendered import RenderedPrompt
    from ..frontend.agentscript.syntax import Program
    from ..plugins.manager import PluginHost

__all__ = [
    "Calls",
    "RunOptions",
    "RunResult",
    "aclose_clients",
    "arun",
    "arun_prompt",
    "call_block",
    "call_heading",
    "calls_for",
    "calls_to",
    "load",
    "request_dict",
    "run",
    "run_prompt",
    "shown",
]


@dataclass_record()
class RunResult:
    """A run's outcome: the program's value, its trace events and every model call it made."""

    value: Any
    trace: list[dict[str, Any]]
    calls: list[ModelCall] = field(default_factory=list)
    sent_as: tuple[str, Mapping[str, Any]] = ("agentscript", {})
    """The format (and its options) the calls were rendered in to be sent."""

    def __init__(
        self,
        value: Any,
        trace: list[dict[str, Any]],
        calls: list[ModelCall] = FACTORY,
        sent_as: tuple[str, Mapping[str, Any]] = ("agentscript", {}),
    ) -> None:
        self.value = value
        self.trace = trace
        self.calls = list() if calls is FACTORY else calls
        self.sent_as = sent_as

    def to_dict(self) -> dict[str, Any]:
        """``{"value": ..., "trace": [...]}`` as the reference CLI prints it."""
        from ..frontend.agentscript.interpreter import json_of

        return {"value": json_of(self.value), "trace": self.trace}


@dataclass_record(frozen=True)
class Calls:
    """Where a run's model calls go (``router``) and the links each passes through (outermost first)."""

    router: Router
    links: tuple[Link, ...] = ()

    def __init__(self, router: Router, links: tuple[Link, ...] = ()) -> None:
        object.__setattr__(self, "router", router)
        object.__setattr__(self, "links", links)

    def around(self, *links: Link) -> Calls:
        """These calls with ``links`` outside the run's own (a batch's rate-limit waits, its answers)."""
        return replace(self, links=(*links, *self.links))

    def chain(self) -> Chain:
        return Chain(self.links)


def loaded(host: PluginHost | None) -> PluginHost:
    """``host``, or the process's default one, loaded now. A run asks for it where it needs a
    registry (a provider, a format other than AgentScript's own, a tool scheme), so an offline run
    in AgentScript's format never imports pluggy nor looks for installed plugins."""
    if host is not None:
        return host
    from ..plugins.manager import default_host

    return default_host()


def calls_for(host: PluginHost | None, options: RunOptions) -> Calls:
    """Where the calls of a run made with ``options`` go, and through which links: the offline
    adapter with the canned replies, or the provider's (each call's, with ``auto``), asked for the
    model the run asks for; in a dry run answered offline; their replies recorded, or answered from
    a recording. ``host`` (``None``: the default one) is loaded for a provider's run only."""
    answers = OfflineAdapter(options.responses)  # each run answers from a queue of its own
    name, model = options.adapter, options.model
    if options.replay is not None and name == "offline":
        name, model = options.replay.provider or name, model or options.replay.model
    links = _recorded_or_replayed(name, options)
    counted: tuple[Link, ...] = () if options.count is None else (options.count,)  # before anything answers
    if name == "offline":
        return Calls(Direct(answers), (*counted, *links))
    from ..calls.routing import Named, Routes  # a provider's run only

    routes = Routes(loaded(host), options.base_urls)
    router = Named(routes, name, model, permissions=options.tools, reach=not options.dry_run)
    answered: tuple[Link, ...] = (DryRun(answers),) if options.dry_run else ()
    return Calls(router, (*counted, *answered, *links))


def calls_to(adapter: ModelAdapter, options: RunOptions) -> Calls:
    """The calls of a run whose adapter is handed over (``promptwire.generate(adapter=...)``): that
    adapter for every call, recorded or replayed as ``options`` ask, answered offline in a dry run."""
    links = _recorded_or_replayed(adapter.name, options)
    if options.dry_run:
        links = (DryRun(OfflineAdapter(options.responses)), *links)
    return Calls(Direct(adapter), links)


def _recorded_or_replayed(name: str, options: RunOptions) -> tuple[Link, ...]:
    """The link that records the run's replies, or answers them from a recording, as ``options``
    ask (a dry run sends nothing, so nothing is recorded)."""
    if options.replay is not None:
        from ..calls.recording import Replay

        return (Replay(options.replay),)
    if options.record is not None and not options.dry_run:
        from ..calls.recording import Record

        options.record.begin(name, options.model)
        return (Record(options.record),)
    return ()


async def aclose_clients(calls: Calls) -> None:
    """Close the async clients the calls opened on this event loop (each provider's the run sent to)."""
    for adapter in calls.router.senders():
        aclose = getattr(adapter, "aclose", None)
        if aclose is not None:
            await aclose()


def run(
    source_or_path: str | Path | Program,
    input: Any = None,
    options: RunOptions | None = None,
    *,
    host: PluginHost | None = None,
    path: str | None = None,
    calls: Calls | None = None,
) -> RunResult:
    """Parse, check and run a program, offline unless ``options`` say otherwise, keeping every call.

    ``source_or_path`` is a ``Path`` (its source read as every program's is:
    :func:`..frontend.agentscript.loader.read_source`) or the program text (``path`` then names it
    in errors and locates its imports), or a program :func:`load` made (a batch loads its program
    once for all its rows). A failed run raises with its calls so far on the error
    (``error.calls``). ``calls`` replaces the ones the options make (:func:`calls_for`), for a
    caller that shares them between runs or adds links (``asrender batch`` answers calls from a
    provider's batch results).
    """
    options = options or RunOptions()
    calls = calls or calls_for(host, options)
    return _run(calls.router, calls.chain(), source_or_path, input, options, host, path)


async def arun(
    source_or_path: str | Path | Program,
    input: Any = None,
    options: RunOptions | None = None,
    *,
    host: PluginHost | None = None,
    path: str | None = None,
    calls: Calls | None = None,
    on_loop_thread: bool = False,
) -> RunResult:
    """:func:`run`, awaited. The interpreter is synchronous, so the program runs in a thread of its
    own while each of its model calls is made on the caller's event loop with the provider SDK's
    async client (:class:`promptwire.calls.on_loop.OnLoop`): many programs run at once on one loop
    and share its connections. ``options.on_text`` is called on the loop. Cancelling ``arun``
    cancels the model call in flight (its connection is closed) and stops the program at its next
    call; it returns once the program's thread has ended. ``calls`` replaces the ones the options
    make, as for :func:`run` (``asrender batch`` shares them between rows and waits out rate limits).
    ``on_loop_thread`` runs the program on the loop's own thread instead, in a greenlet that switches
    to the loop for each call (:class:`promptwire.calls.in_greenlets.InGreenlets`): no thread, and no
    lock handed between threads, for a caller that runs many programs at once (``asrender batch``);
    its tools' work goes to worker threads, but a watcher or a long render holds the loop meanwhile.
    """
    import asyncio

    from ..calls.on_loop import OnLoop

    options = options or RunOptions()
    calls = calls or calls_for(host, options)
    loop = asyncio.get_running_loop()
    if on_loop_thread:
        from ..calls.in_greenlets import InGreenlets

        on_loop: OnLoop = InGreenlets(calls.chain(), loop, calls.router.name)
    else:
        on_loop = OnLoop(calls.chain(), loop, calls.router.name)
    on_text = options.on_text
    if on_text is not None:

        def on_loops(text: str) -> None:
            loop.call_soon_threadsafe(on_text, text)

        options = replace(options, on_text=on_loops)
    return await on_loop.run(lambda: _run(calls.router, Chain((on_loop,)), source_or_path, input, options, host, path))


def _run(
    router: Router,
    chain: Chain,
    source_or_path: str | Path | Program,
    input: Any,
    options: RunOptions,
    host: PluginHost | None,
    path: str | None,
) -> RunResult:
    from ..calls.watch import Watchers, observer
    from ..frontend.agentscript.interpreter import Interpreter
    from ..frontend.agentscript.loader import default_permissions

    program = load(source_or_path, options, path) if isinstance(source_or_path, str | Path) else source_or_path
    tools = options.tools or default_permissions(program.path)
    watchers = _watchers(options)
    interpreter = Interpreter(
        program,
        router,
        chain=chain,
        tool_scheme=lambda name: loaded(host).tool_scheme(name),
        tool_context=tools,
        timeout=options.timeout,
        stream=options.stream or options.on_text is not None,
        watchers=watchers,
        render=_sending_render(options, host),
    )
    with Watchers([observer(), *watchers]).run(Path(program.file_of().name).name):
        value = interpreter.run(input, agent=options.agent, function=options.function)
    return RunResult(value, interpreter.trace, interpreter.calls, (options.format, options.options))


def load(source_or_path: str | Path, options: RunOptions, path: str | None = None) -> Program:
    """The program a run of ``source_or_path`` (a ``Path``, or the program text named ``path``)
    with ``options`` executes: parsed, its imported agents merged in (read with the run's
    permissions) and checked. It depends on nothing a run's input brings, so a caller running the
    program many times (``asrender batch``, a row at a time) loads it once and hands it to
    :func:`run` or :func:`arun`. Raises what a run of the text would (a ``ParseError``, a
    ``CheckError``, an unreadable import)."""
    from ..frontend.agentscript import ensure_valid
    from ..frontend.agentscript.loader import default_permissions, load_program, read_source

    if isinstance(source_or_path, Path):
        path = str(source_or_path)
        source = read_source(path)
    else:
        source = source_or_path
    tools = options.tools or default_permissions(path)
    return ensure_valid(load_program(source, path, label_rule=options.label_rule, permissions=tools))


def _watchers(options: RunOptions) -> list[Watcher]:
    """The run's watchers: its debug text first (as the reference writes it, before anything else
    is said of a call), then the caller's, then its ``on_text``."""
    from ..calls.watch import text_to
    from ..frontend.agentscript.trace import DebugText

    debug = [] if options.debug is None else [DebugText(options.debug)]
    text = [] if options.on_text is None else [text_to(options.on_text)]
    return [*debug, *options.watchers, *text]


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
    calls: Calls | None = None,
    line: int = 1,
    model: str | None = None,
) -> RunResult:
    """A prompt read from a prompt file, asked as one ``generate`` (its attempts, repair text and
    checks) through the calls a program's would make.

    As a program's, its calls are sent as ``options.format`` renders them. Its calls are all at
    ``label:line:1`` (a batch's prompt is a line of its file); the trace holds the ``notes``
    events. A failed call raises with the attempts made on the error (``error.calls``).
    ``calls`` replaces the ones the options make, as for :func:`run`. ``model`` is the prompt's
    own model, as a program's call names one (the model a provider's body names:
    :func:`.inputs.body_model`): asked for unless ``options.model`` replaces it.
    """
    from ..calls.generate import generate

    options = options or RunOptions()
    site = Site(label, line, 1, "")
    result = generate(prompt, model=model, **_generate_arguments(options, host, calls, site))
    return _prompt_result(result, options)


async def arun_prompt(
    prompt: Prompt,
    label: str,
    options: RunOptions | None = None,
    *,
    host: PluginHost | None = None,
    calls: Calls | None = None,
    line: int = 1,
    model: str | None = None,
) -> RunResult:
    """:func:`run_prompt`, awaited (its call made with the adapter's async client); ``calls``
    replaces the ones the options make, as for :func:`arun`, and ``model`` is the prompt's own."""
    from ..calls.generate import agenerate

    options = options or RunOptions()
    site = Site(label, line, 1, "")
    result = await agenerate(prompt, model=model, **_generate_arguments(options, host, calls, site))
    return _prompt_result(result, options)


def _generate_arguments(
    options: RunOptions, host: PluginHost | None, calls: Calls | None, site: Site
) -> dict[str, Any]:
    """What :func:`run_prompt` and :func:`arun_prompt` give ``generate``/``agenerate`` besides the prompt."""
    host = loaded(host)
    renderer = host.load("renderers", options.format)
    calls = calls or calls_for(host, options)
    return {
        "render": lambda current: renderer.render(current, **options.options),
        "adapter": calls.router,
        "chain": calls.chain(),
        "timeout": options.timeout,
        "stream": options.stream or options.on_text is not None,
        "watchers": _watchers(options),
        "site": site,
    }


def _prompt_result(result: GenerateResult, options: RunOptions) -> RunResult:
    return RunResult(result.value, notes_events(result.calls), result.calls, (options.format, options.options))


def shown(result: RunResult, options: RunOptions, host: PluginHost | None) -> list[RenderedPrompt]:
    """Each call of ``result`` in the display format (``options.format``, with its options): the
    render that was sent when that is the one asked for, else rendered now, after the run."""
    if (options.format, dict(options.options)) == (result.sent_as[0], dict(result.sent_as[1])):
        return [call.rendered for call in result.calls]
    render = loaded(host).load("renderers", options.format).render
    return [render(call.prompt, **options.options) for call in result.calls]


def call_heading(call: ModelCall) -> str:
    """``=== SITE agent A attempt N ===``: where a call came from, as ``asrender`` heads its render."""
    agent = f" agent {call.agent}" if call.agent else ""
    return f"=== {call.site}{agent} attempt {call.attempt} ==="


def call_block(call: ModelCall, rendered: RenderedPrompt) -> str:
    """The call as ``asrender`` shows it: its heading, then ``rendered`` (the call in the display format)."""
    return f"{call_heading(call)}\n{rendered.display()}"


def request_dict(call: ModelCall, provider: str) -> dict[str, Any]:
    """The request of a dry run: what would be sent, where, and the notes."""
    return {
        "site": str(call.site),
        "agent": call.agent or None,
        "attempt": call.attempt,
        "provider": call.request.provider or provider,
        "model": call.request.model_asked(),
        "body": dict(call.request.kwargs),
        "notes": list(call.request.notes),
    }
