"""``run``: a program, its input and canned model replies in; its value, trace and model calls out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..core.generate import ModelCall
from ..core.prompt import Prompt
from ..core.rendered import RenderedPrompt
from ..plugins.manager import PluginHost, default_host
from .interpreter import Interpreter, Site, json_of
from .language import ensure_valid, parse
from .loader import with_imported_agents

__all__ = ["ProgramCall", "RunResult", "run"]


@dataclass(frozen=True)
class ProgramCall:
    """One model call of a run (each attempt of each generate, in order), rendered in the chosen format."""

    site: Site
    attempt: int
    prompt: Prompt
    rendered: RenderedPrompt

    def to_dict(self) -> dict[str, Any]:
        schema = self.prompt.output.json_schema if self.prompt.output is not None else None
        return {
            "site": str(self.site),
            "agent": self.site.agent,
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
    responses: Iterable[Any] | None = None,
    format: str = "agentscript",
    options: Mapping[str, Any] | None = None,
    agent: str | None = None,
    function: str | None = None,
    host: PluginHost | None = None,
    label_rule: str = "release",
    debug: IO[str] | None = None,
    path: str | None = None,
    workspace: str | Path | None = None,
) -> RunResult:
    """Parse, check and run a program offline (by default), recording every model call.

    ``source_or_path`` is a ``Path`` (read as UTF-8) or the program text (``path`` then names it in
    errors and locates its imports). ``responses`` are canned model replies used in order;
    ``options`` go to the chosen format's renderer for each call; tool and memory schemes work
    inside ``workspace`` (the current directory by default).
    """
    if isinstance(source_or_path, Path):
        path = str(source_or_path)
        source = source_or_path.read_text(encoding="utf-8")
    else:
        source = source_or_path
    host = host or default_host()
    program = ensure_valid(with_imported_agents(parse(source, path, label_rule=label_rule), label_rule=label_rule))
    model_adapter = host.adapter(adapter)
    if responses is not None:
        model_adapter = model_adapter.with_responses(responses)
    renderer = host.renderer(format)
    calls: list[ProgramCall] = []

    def record(site: Site, call: ModelCall) -> None:
        if format == "agentscript" and not options:
            rendered = call.rendered
        else:
            rendered = renderer.render(call.prompt, **(options or {}))
        calls.append(ProgramCall(site, call.attempt, call.prompt, rendered))

    interpreter = Interpreter(
        program,
        model_adapter,
        host.renderer("agentscript").render,
        on_call=record,
        debug=debug,
        tool_scheme=host.tool_scheme,
        workspace=Path.cwd() if workspace is None else Path(workspace),
    )
    value = interpreter.run(input, agent=agent, function=function)
    return RunResult(value, interpreter.trace, calls)
