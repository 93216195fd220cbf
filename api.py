"""The front-door functions: read a prompt, render it, build a provider's request, generate (whole
or streamed, from synchronous code or on an event loop), run an AgentScript program, list the
formats. ``promptwire`` re-exports them (``promptwire.render``...)."""

from __future__ import annotations

import os
import warnings
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .calls import generate as _core
from .calls.generate import with_render_notes
from .calls.recording import Recorder, Recording
from .core import GenerateConfig, Prompt, RenderedPrompt
from .core.call import GenerateResult, ModelAdapter, ProviderRequest, TextCallback
from .core.errors import FieldError as _FieldError
from .core.errors import UnsupportedFieldsWarning
from .core.rendered import warning_lines
from .core.validation import validate_model
from .plugins import PluginHost, default_host

if TYPE_CHECKING:
    from .calls.counting import TokenCounts
    from .calls.targets import Target
    from .runs.options import RunOptions
    from .runs.run import Calls, RunResult

__all__ = [
    "acount_tokens",
    "agenerate",
    "arun",
    "astream",
    "build_request",
    "count_tokens",
    "generate",
    "read",
    "render",
    "renderers_available",
    "run",
    "stream",
]

DEFAULT_FORMAT = "messages"
"""The format ``build_request`` and ``generate`` send a prompt in: AgentScript's text (the same
bytes as the ``agentscript`` format for a prompt it can express) with the conversation around it
(history, attachments, tools, tool calls and results) as the provider's chat turns, which the
``agentscript`` format, a single system and user text, would leave out."""


def render(
    prompt: Prompt | Mapping[str, Any],
    format: str = "agentscript",
    *,
    host: PluginHost | None = None,
    **options: Any,
) -> RenderedPrompt:
    """Render ``prompt`` in the named format.

    ``prompt`` may be a :class:`Prompt` or plain data in its shape (validated; a bad field raises
    :class:`FieldError` naming it). ``options`` go to the renderer (e.g. ``strict=True`` turns the
    "fields this format cannot express" warning into an error).
    """
    model = validate_model(Prompt, prompt, root="prompt")
    host = host or default_host()
    renderer = host.renderer(format)
    if isinstance(options.get("layout"), str):  # a format name, as on the command line
        options["layout"] = host.renderer(options["layout"])
    result: RenderedPrompt = renderer.render(model, **options)
    if result.warnings:  # the usual render has none: no lines to group
        for line in warning_lines(result.warnings):
            warnings.warn(line, UnsupportedFieldsWarning, stacklevel=2)
    return result


def build_request(
    prompt: Prompt | RenderedPrompt | Mapping[str, Any],
    provider: str = "offline",
    model: str | None = None,
    *,
    format: str = DEFAULT_FORMAT,
    host: PluginHost | None = None,
    stream: bool = False,
) -> ProviderRequest:
    """The request ``provider`` would send for ``prompt`` (rendered in ``format``), sending nothing.
    ``provider`` is an adapter's name, or ``"auto"``: the one ``model``'s URI scheme names.

    A :class:`RenderedPrompt` is used as it is, with default generation options and its own output
    contract. ``request.kwargs`` is the SDK call's keyword arguments; ``request.notes`` says what
    the format left out of the prompt (each also a :class:`UnsupportedFieldsWarning` at the
    caller's line, when this call renders it) and what the adapter dropped or changed. With
    ``stream``, the request as a streamed call sends it: the same, with the provider's stream flags.
    """
    from .calls.links import streamed_request

    target, request = _targeted(prompt, provider, model, format, host)
    return streamed_request(target.adapter, request) if stream else request


def _targeted(
    prompt: Prompt | RenderedPrompt | Mapping[str, Any],
    provider: str,
    model: str | None,
    format: str,
    host: PluginHost | None,
) -> tuple[Target, ProviderRequest]:
    """Where ``prompt``'s call goes and the request it would send (:func:`build_request`)."""
    from .runs.options import RunOptions
    from .runs.run import calls_for

    host = host or default_host()
    router = calls_for(host, RunOptions(adapter=provider)).router  # as generate's: "auto" routes; no SDK is imported
    if isinstance(prompt, RenderedPrompt):  # its warnings were the render's to give
        rendered, config, contract = prompt, GenerateConfig(), prompt.output
    else:
        model_prompt = validate_model(Prompt, prompt, root="prompt")
        rendered = host.renderer(format).render(model_prompt)
        config, contract = model_prompt.config, model_prompt.output
        _warn(rendered, stacklevel=4)
    target = router.target(model)
    return target, with_render_notes(target.request(rendered, config, contract), rendered)


def count_tokens(
    prompt: Prompt | RenderedPrompt | Mapping[str, Any],
    provider: str,
    model: str | None = None,
    *,
    format: str = DEFAULT_FORMAT,
    host: PluginHost | None = None,
) -> TokenCounts:
    """How many input tokens ``provider`` counts in the request :func:`build_request` builds for
    ``prompt`` (the same arguments), asked of its count endpoint before anything is sent: OpenAI's
    Responses API and Anthropic's (and each adapter with one). The count body is the request's,
    with only the fields that endpoint accepts; each count says which it left out. A provider
    without a count endpoint (OpenAI's Chat Completions, Ollama, the offline adapter) raises
    :class:`~promptwire.core.errors.TokenCountUnavailable`: no count is guessed. A failed count
    raises the :class:`~promptwire.core.errors.ProviderError` a failed call would."""
    from .calls.counting import TokenCounts, count_call

    target, request = _targeted(prompt, provider, model, format, host)
    return TokenCounts((count_call(target.adapter, target.name, request),))


async def acount_tokens(
    prompt: Prompt | RenderedPrompt | Mapping[str, Any],
    provider: str,
    model: str | None = None,
    *,
    format: str = DEFAULT_FORMAT,
    host: PluginHost | None = None,
) -> TokenCounts:
    """:func:`count_tokens`, awaited: asked with the provider SDK's async client."""
    from .calls.counting import TokenCounts, acount_call

    target, request = _targeted(prompt, provider, model, format, host)
    return TokenCounts((await acount_call(target.adapter, target.name, request),))


def generate(
    prompt: Prompt | Mapping[str, Any],
    provider: str = "offline",
    model: str | None = None,
    *,
    format: str = DEFAULT_FORMAT,
    host: PluginHost | None = None,
    timeout: float | None = None,
    responses: list[Any] | None = None,
    on_text: TextCallback | None = None,
    record: Recorder | None = None,
    replay: Recording | None = None,
    adapter: ModelAdapter | None = None,
    **config: Any,
) -> GenerateResult:
    """Ask ``provider`` for the prompt's output: attempts, the repair text, coercion and validation
    as an AgentScript ``generate`` does. ``config`` overrides the prompt's generation options
    (``attempts=3``, ``temperature=0.2``...); ``responses`` are canned replies for the offline
    adapter. The result holds the value and every attempt's request and reply; a failure is raised
    with the attempts made on it (``error.calls``). The adapter is chosen as ``asrender`` chooses a
    run's (:func:`promptwire.runs.run.calls_for`). What the format leaves out of the prompt is
    a :class:`UnsupportedFieldsWarning` at the caller's line, from the first attempt's render.

    With ``on_text``, each call is streamed: the request carries the provider's stream flags (and
    nothing else changes), ``on_text`` receives the reply's text as it arrives, and the whole text
    is still read and checked at the end, so the result is the same. A provider that does not
    stream gives its whole text at once.

    ``record`` (a :class:`~promptwire.calls.recording.Recorder`) writes every reply the provider
    sends; ``replay`` (a :class:`~promptwire.calls.recording.Recording`) answers every call from one
    instead, with the provider (and model) it was recorded with unless ``provider`` names another,
    and raises :class:`~promptwire.core.errors.PromptDrift` for a request that was not recorded.

    ``adapter`` sends the calls instead of a named provider: an object with the
    :class:`~promptwire.core.call.ModelAdapter` methods, or
    :class:`~promptwire.adapters.function.FunctionAdapter` around a function of your framework's
    model (no plugin or :class:`PluginHost` needed); ``provider`` and ``responses`` are then left out.
    """
    prepared, render, calls = _prepared(
        prompt, provider, model, format, host, timeout, responses, config, record, replay, adapter
    )
    first = _FirstRender(render)
    try:
        return _core.generate(prepared, **first.arguments(calls), model=model, timeout=timeout, on_text=on_text)
    finally:
        first.warn(stacklevel=3)


async def agenerate(
    prompt: Prompt | Mapping[str, Any],
    provider: str = "offline",
    model: str | None = None,
    *,
    format: str = DEFAULT_FORMAT,
    host: PluginHost | None = None,
    timeout: float | None = None,
    responses: list[Any] | None = None,
    on_text: TextCallback | None = None,
    record: Recorder | None = None,
    replay: Recording | None = None,
    adapter: ModelAdapter | None = None,
    **config: Any,
) -> GenerateResult:
    """:func:`generate`, awaited: each call is made with the provider SDK's async client (a plugin
    adapter without one sends from a worker thread), so many run at once on one event loop.
    Cancelling it cancels the call in flight: its connection is closed."""
    prepared, render, calls = _prepared(
        prompt, provider, model, format, host, timeout, responses, config, record, replay, adapter
    )
    first = _FirstRender(render)
    try:
        return await _core.agenerate(prepared, **first.arguments(calls), model=model, timeout=timeout, on_text=on_text)
    finally:
        first.warn(stacklevel=3)


def stream(
    prompt: Prompt | Mapping[str, Any],
    provider: str = "offline",
    model: str | None = None,
    *,
    format: str = DEFAULT_FORMAT,
    host: PluginHost | None = None,
    timeout: float | None = None,
    responses: list[Any] | None = None,
    record: Recorder | None = None,
    replay: Recording | None = None,
    adapter: ModelAdapter | None = None,
    **config: Any,
) -> Iterator[str | GenerateResult]:
    """:func:`generate`, streamed, as an iterator: the text of each attempt's reply as it arrives
    (``str``), then the :class:`GenerateResult`, last. Closing the iterator early (leaving a ``for``
    loop) closes the call in flight."""
    prepared, render, calls = _prepared(
        prompt, provider, model, format, host, timeout, responses, config, record, replay, adapter
    )
    _warn(render(prepared), stacklevel=3)  # at the caller's line, before the first item comes
    return _core.generate_stream(
        prepared, render=render, adapter=calls.router, chain=calls.chain(), model=model, timeout=timeout
    )


def astream(
    prompt: Prompt | Mapping[str, Any],
    provider: str = "offline",
    model: str | None = None,
    *,
    format: str = DEFAULT_FORMAT,
    host: PluginHost | None = None,
    timeout: float | None = None,
    responses: list[Any] | None = None,
    record: Recorder | None = None,
    replay: Recording | None = None,
    adapter: ModelAdapter | None = None,
    **config: Any,
) -> AsyncIterator[str | GenerateResult]:
    """:func:`stream` on an event loop, as an async iterator (``async for``), with the SDK's async
    client."""
    prepared, render, calls = _prepared(
        prompt, provider, model, format, host, timeout, responses, config, record, replay, adapter
    )
    _warn(render(prepared), stacklevel=3)  # at the caller's line, before the first item comes
    return _core.agenerate_stream(
        prepared, render=render, adapter=calls.router, chain=calls.chain(), model=model, timeout=timeout
    )


def _prepared(
    prompt: Prompt | Mapping[str, Any],
    provider: str,
    model: str | None,
    format: str,
    host: PluginHost | None,
    timeout: float | None,
    responses: list[Any] | None,
    config: Mapping[str, Any],
    record: Recorder | None = None,
    replay: Recording | None = None,
    adapter: ModelAdapter | None = None,
) -> tuple[Prompt, Callable[[Prompt], RenderedPrompt], Calls]:
    """The prompt with ``config`` applied, the format's render and where its calls go (to
    ``adapter``, when one is handed over), as every ``generate`` above takes them."""
    from .runs.options import RunOptions
    from .runs.run import calls_for

    host = host or default_host()
    model_prompt = validate_model(Prompt, prompt, root="prompt")
    if config:
        merged = {**model_prompt.config.model_dump(exclude_unset=True), **config}
        model_prompt = model_prompt.model_copy(update={"config": validate_model(GenerateConfig, merged, root="config")})
    if responses is not None and provider != "offline":
        raise _FieldError("responses", "canned replies are for the offline adapter")
    if record is not None and replay is not None:
        raise _FieldError("record", "a replay sends nothing to record")
    options = RunOptions(
        adapter=provider, model=model, timeout=timeout, responses=responses or (), record=record, replay=replay
    )
    render = host.load("renderers", format).render
    if adapter is not None:
        return model_prompt, render, _handed(adapter, provider, responses, options)
    return model_prompt, render, calls_for(host, options)


class _FirstRender:
    """The format's render, keeping the first one it makes: :func:`generate` warns from the first
    attempt's render, at the caller's line, instead of rendering the prompt once more for it."""

    def __init__(self, render: Callable[[Prompt], RenderedPrompt]) -> None:
        self._render = render
        self.first: RenderedPrompt | None = None

    def render(self, prompt: Prompt) -> RenderedPrompt:
        rendered = self._render(prompt)
        if self.first is None:
            self.first = rendered
        return rendered

    def arguments(self, calls: Calls) -> dict[str, Any]:
        return {"render": self.render, "adapter": calls.router, "chain": calls.chain()}

    def warn(self, stacklevel: int) -> None:
        if self.first is not None:
            _warn(self.first, stacklevel + 1)


def _handed(adapter: Any, provider: str, responses: Sequence[Any] | None, options: RunOptions) -> Calls:
    """The calls to an adapter handed to ``adapter=``, checked (it replaces ``provider`` and
    ``responses``), recorded or replayed as ``options`` ask."""
    from .runs.run import calls_to

    if provider != "offline" or responses is not None:
        raise _FieldError("adapter", "an adapter handed over sends the calls: give it without provider or responses")
    missing = [name for name in ("build_request", "send", "parse_reply") if not callable(getattr(adapter, name, None))]
    if missing or not isinstance(getattr(adapter, "name", None), str):
        needs = ", ".join(missing + ([] if isinstance(getattr(adapter, "name", None), str) else ["a name"]))
        raise _FieldError("adapter", f"{type(adapter).__name__} is no model adapter: it lacks {needs}")
    checked: ModelAdapter = adapter
    return calls_to(checked, options)


def _warn(rendered: RenderedPrompt, stacklevel: int) -> None:
    """What the format left out of the prompt, as Python warnings at the line ``stacklevel`` frames
    up from the caller of this function (the caller of the public function)."""
    for line in warning_lines(rendered.warnings):
        warnings.warn(line, UnsupportedFieldsWarning, stacklevel=stacklevel)


def run(
    program: str | os.PathLike[str],
    input: Any = None,
    provider: str = "offline",
    model: str | None = None,
    *,
    format: str = "agentscript",
    host: PluginHost | None = None,
    timeout: float | None = None,
    responses: Sequence[Any] | None = None,
    on_text: TextCallback | None = None,
    dry_run: bool = False,
    base_url: str | Mapping[str, str] | None = None,
    agent: str | None = None,
    function: str | None = None,
    path: str | None = None,
    record: Recorder | None = None,
    replay: Recording | None = None,
    adapter: ModelAdapter | None = None,
) -> RunResult:
    """Run an AgentScript program as ``asrender`` does: parsed, checked, its model calls made
    offline (canned ``responses``, then mock values) unless ``provider`` names one, or ``"auto"``
    (each call to the provider its model URI's scheme names). ``program`` is a path
    (``pathlib.Path``) or the program's text (``path`` then names it in errors and locates its
    imports). ``model`` replaces the program's model; each call is sent in ``format`` (AgentScript's
    text by default); ``base_url`` is a server of your own for the provider (with ``"auto"``, one
    per scheme: ``{"ollama": "http://gpu:11434"}``); a ``dry_run`` builds every request for
    ``provider`` and answers it offline. The result holds the program's ``value``, the reference's
    ``trace`` and every model call (``calls``: prompt, render, request, reply); a failure is raised
    with the calls made before it (``error.calls``). ``record`` and ``replay`` record the run's
    replies or answer them from a recording, as they do for :func:`generate`; ``adapter`` sends
    every call instead of a named provider, as it does for :func:`generate`."""
    from .runs.run import run as run_program

    host = host or default_host()
    options, source = _run_options(
        program, provider, model, format, timeout, responses, on_text, dry_run, base_url, host
    )
    if record is not None and replay is not None:
        raise _FieldError("record", "a replay sends nothing to record")
    options = replace(options, agent=agent, function=function, record=record, replay=replay)
    handed = None if adapter is None else _handed(adapter, provider, responses, options)
    return run_program(source, input, options, host=host, path=path, calls=handed)


async def arun(
    program: str | os.PathLike[str],
    input: Any = None,
    provider: str = "offline",
    model: str | None = None,
    *,
    format: str = "agentscript",
    host: PluginHost | None = None,
    timeout: float | None = None,
    responses: Sequence[Any] | None = None,
    on_text: TextCallback | None = None,
    dry_run: bool = False,
    base_url: str | Mapping[str, str] | None = None,
    agent: str | None = None,
    function: str | None = None,
    path: str | None = None,
    record: Recorder | None = None,
    replay: Recording | None = None,
    adapter: ModelAdapter | None = None,
    on_loop_thread: bool = False,
) -> RunResult:
    """:func:`run`, awaited: the program runs in a thread of its own and each of its model calls is
    made on the caller's event loop with the provider SDK's async client; ``on_text`` is called on
    the loop. Cancelling it cancels the call in flight and stops the program at its next call.
    ``on_loop_thread`` runs the program on the loop's own thread instead, in a greenlet that
    switches to the loop at each call, for a caller running many programs at once (as ``asrender
    batch`` does): its tools' work goes to worker threads, but its own work between calls holds the
    loop."""
    from .runs.run import arun as arun_program

    host = host or default_host()
    options, source = _run_options(
        program, provider, model, format, timeout, responses, on_text, dry_run, base_url, host
    )
    if record is not None and replay is not None:
        raise _FieldError("record", "a replay sends nothing to record")
    options = replace(options, agent=agent, function=function, record=record, replay=replay)
    handed = None if adapter is None else _handed(adapter, provider, responses, options)
    return await arun_program(source, input, options, host=host, path=path, calls=handed, on_loop_thread=on_loop_thread)


def _run_options(
    program: str | os.PathLike[str],
    provider: str,
    model: str | None,
    format: str,
    timeout: float | None,
    responses: Sequence[Any] | None,
    on_text: TextCallback | None,
    dry_run: bool,
    base_url: str | Mapping[str, str] | None,
    host: PluginHost,
) -> tuple[RunOptions, str | Path]:
    """The run's options as :func:`run` takes them, each base URL checked as ``asrender`` checks
    ``--base-url``, and the program (a path read, or its text)."""
    from .calls.routing import EVERY_PROVIDER, Routes, check_base_urls, check_url
    from .runs.options import RunOptions

    base_urls = {EVERY_PROVIDER: base_url} if isinstance(base_url, str) else dict(base_url or {})
    for url in base_urls.values():
        try:
            check_url(url)
        except ValueError as exc:
            raise _FieldError("base_url", str(exc)) from None
    check_base_urls(Routes(host), provider, base_urls)
    from .calls.base_url_credentials import credential_note

    for key, url in base_urls.items():
        note = credential_note(url, key or provider)
        if note is not None:
            warnings.warn(note, UserWarning, stacklevel=4)
    options = RunOptions(
        adapter=provider,
        model=model,
        dry_run=dry_run,
        timeout=timeout,
        responses=tuple(responses or ()),
        format=format,
        on_text=on_text,
        base_urls=base_urls,
    )
    return options, Path(program) if isinstance(program, os.PathLike) else program


def read(data: Any, format: str = "prompt", *, host: PluginHost | None = None) -> Prompt:
    """``data`` (parsed JSON or YAML) read as a :class:`Prompt` by the named reader: ``prompt`` (the
    model's own shape), ``agens`` (an Agens message), ``agently`` (an Agently prompt dict),
    ``openai-chat``, ``openai-responses``, ``anthropic`` or ``ollama`` (that provider's request body,
    or a list of its messages: the conversation in ``history``, what has no place in the model
    under ``native[<reader>]``), or a plugin's. Bad data raises :class:`FieldError` naming the
    field (for a body, its path in the body)."""
    prompt: Prompt = (host or default_host()).reader(format).read(data)
    return prompt


def renderers_available(host: PluginHost | None = None) -> tuple[str, ...]:
    """Names of every registered format, built-in and plugin, in registration order."""
    return (host or default_host()).names("renderers")
