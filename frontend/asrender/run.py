"""``run``: a program, its input and canned model replies in; its value, trace and model calls out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ...adapters.offline import OfflineAdapter
from ...core.generate import ModelAdapter, ModelCall, ProviderRequest, generate
from ...core.prompt import Prompt
from ...core.rendered import RenderedPrompt
from ...core.tools import ToolContext
from ...plugins.manager import PluginHost, default_host
from ..agentscript import ensure_valid
from ..agentscript.interpreter import Interpreter, Site, json_of, record_notes
from ..agentscript.loader import load_program, program_folder
from .retarget import DryRun, Targeted

__all__ = ["ProgramCall", "RunResult", "run", "run_prompt"]


@dataclass(frozen=True)
class ProgramCall:
    """One model call of a run (each attempt of each generate, in order), rendered in the chosen format."""

    site: Site
    attempt: int
    prompt: Prompt
    rendered: RenderedPrompt
    provider: str = "offline"
    request: ProviderRequest | None = None

    def display(self) -> str:
        """The call as ``asrender`` shows it: a ``=== site agent A attempt N ===`` line, then the render."""
        agent = f" agent {self.site.agent}" if self.site.agent else ""
        return f"=== {self.site}{agent} attempt {self.attempt} ===\n{self.rendered.display()}"

    def request_dict(self) -> dict[str, Any]:
        """The request of a dry run: what would be sent, where, and the notes."""
        request = self.request or ProviderRequest({})
        return {
            "site": str(self.site),
            "agent": self.site.agent or None,
            "attempt": self.attempt,
            "provider": self.provider,
            "model": request.kwargs.get("model"),
            "body": dict(request.kwargs),
            "notes": list(request.notes),
        }

    def to_dict(self) -> dict[str, Any]:
        schema = self.prompt.output.json_schema if self.prompt.output is not None else None
        return {
            "site": str(self.site),
            "agent": self.site.agent or None,
            "attempt": self.attempt,
            "schema": schema,
            **self.rendered.to_dict(),
        }


@dataclass
class RunResult:
    value: Any
    trace: list[dict[str, Any]]
    calls: list[ProgramCall] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``{"value": ..., "trace": [...]}`` as the reference CLI prints it."""
        return {"value": json_of(self.value), "trace": self.trace}


def run(
    source_or_path: str | Path,
    input: Any = None,
    *,
    adapter: str = "offline",
    model: str | None = None,
    dry_run: bool = False,
    timeout: float | None = None,
    responses: Iterable[Any] | None = None,
    format: str = "agentscript",
    options: Mapping[str, Any] | None = None,
    agent: str | None = None,
    function: str | None = None,
    host: PluginHost | None = None,
    label_rule: str = "release",
    debug: IO[str] | None = None,
    path: str | None = None,
    tools: ToolContext | None = None,
) -> RunResult:
    """Parse, check and run a program offline (by default), recording every model call.

    ``source_or_path`` is a ``Path`` (read as UTF-8) or the program text (``path`` then names it in
    errors and locates its imports). ``adapter`` names the provider (``model`` replaces the program's
    model name); with ``dry_run`` every request is built but answered offline. ``responses`` are
    canned model replies used in order (offline and dry runs);
    ``options`` go to the chosen format's renderer for each call; ``tools`` says what tool and memory
    schemes may touch (by default: the folder of the program, which is where tool paths start, and
    any environment variable).
    """
    if isinstance(source_or_path, Path):
        path = str(source_or_path)
        source = source_or_path.read_text(encoding="utf-8")
    else:
        source = source_or_path
    host = host or default_host()
    program = ensure_valid(load_program(source, path, label_rule=label_rule))
    model_adapter = _model_adapter(host, adapter, model, dry_run, responses)
    renderer = host.renderer(format)
    calls: list[ProgramCall] = []

    def record(site: Site, call: ModelCall) -> None:
        if format == "agentscript" and not options:
            rendered = call.rendered
        else:
            rendered = renderer.render(call.prompt, **(options or {}))
        calls.append(ProgramCall(site, call.attempt, call.prompt, rendered, adapter, call.request))

    interpreter = Interpreter(
        program,
        model_adapter,
        host.renderer("agentscript").render,
        on_call=record,
        debug=debug,
        tool_scheme=host.tool_scheme,
        tool_context=tools or ToolContext(program_folder(path)),
        timeout=timeout,
    )
    value = interpreter.run(input, agent=agent, function=function)
    return RunResult(value, interpreter.trace, calls)


def run_prompt(
    prompt: Prompt,
    *,
    label: str,
    adapter: str = "offline",
    model: str | None = None,
    dry_run: bool = False,
    timeout: float | None = None,
    responses: Iterable[Any] | None = None,
    format: str = "agentscript",
    options: Mapping[str, Any] | None = None,
    host: PluginHost | None = None,
    debug: IO[str] | None = None,
) -> RunResult:
    """A prompt read from a prompt file, asked of a provider as one ``generate`` (its attempts,
    repair text and checks), with the plumbing of a program's calls: retargeting, dry runs, notes.

    Unlike a program, whose calls are sent in AgentScript's own text, a prompt file is sent as
    ``format`` renders it: the file is the prompt, and the format is how the user wants it sent.
    Its calls are all at ``label:1:1``; the trace holds the ``notes`` events.
    """
    host = host or default_host()
    model_adapter = _model_adapter(host, adapter, model, dry_run, responses)
    renderer = host.renderer(format)
    site = Site(label, 1, 1, "")
    calls: list[ProgramCall] = []
    trace: list[dict[str, Any]] = []

    def record(call: ModelCall) -> None:
        record_notes(trace, site, call, debug)
        calls.append(ProgramCall(site, call.attempt, call.prompt, call.rendered, adapter, call.request))

    result = generate(
        prompt,
        render=lambda current: renderer.render(current, **(options or {})),
        adapter=model_adapter,
        on_call=record,
        debug=debug,
        agent=label,
        timeout=timeout,
    )
    return RunResult(result.value, trace, calls)


def _model_adapter(
    host: PluginHost, adapter: str, model: str | None, dry_run: bool, responses: Iterable[Any] | None
) -> ModelAdapter:
    """The adapter a run asks: offline (with canned replies), a provider's, or a dry run of one."""
    offline = OfflineAdapter(responses or ())  # each run answers from a queue of its own
    if adapter == "offline":
        return offline
    target = Targeted(host.adapter(adapter), adapter, model, host.adapter)
    return DryRun(target, offline) if dry_run else target
