"""The front-door functions: render a prompt, build a provider's request, generate (whole or
streamed, from synchronous code or on an event loop), list the formats. ``promptwire`` re-exports
them (``promptwire.render``...)."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

from .core import GenerateConfig, Prompt, RenderedPrompt
from .core import generate as _core
from .core.errors import FieldError as _FieldError
from .core.errors import UnsupportedFieldsWarning
from .core.generate import GenerateResult, ModelAdapter, ProviderRequest, TextCallback, with_render_notes
from .core.rendered import warning_lines
from .core.validation import validate_model
from .plugins import PluginHost, default_host

__all__ = ["agenerate", "astream", "build_request", "generate", "render", "renderers_available", "stream"]

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

    A :class:`RenderedPrompt` is used as it is, with default generation options and its own output
    contract. ``request.kwargs`` is the SDK call's keyword arguments; ``request.notes`` says what
    the format left out of the prompt (each also a :class:`UnsupportedFieldsWarning` at the
    caller's line, when this call renders it) and what the adapter dropped or changed. With
    ``stream``, the request as a streamed call sends it: the same, with the provider's stream flags.
    """
    from .core.exchange import streamed_request

    host = host or default_host()
    adapter = host.adapter(provider)  # a built-in's stand-in: the SDK stays unimported
    if isinstance(prompt, RenderedPrompt):  # its warnings were the render's to give
        rendered, config, contract = prompt, GenerateConfig(), prompt.output
    else:
        model_prompt = validate_model(Prompt, prompt, root="prompt")
        rendered = host.renderer(format).render(model_prompt)
        config, contract = model_prompt.config, model_prompt.output
        _warn(rendered, stacklevel=3)
    request = with_render_notes(adapter.build_request(rendered, config, contract, model), rendered)
    return streamed_request(adapter, request) if stream else request


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
    **config: Any,
) -> GenerateResult:
    """Ask ``provider`` for the prompt's output: attempts, the repair text, coercion and validation
    as an AgentScript ``generate`` does. ``config`` overrides the prompt's generation options
    (``attempts=3``, ``temperature=0.2``...); ``responses`` are canned replies for the offline
    adapter. The result holds the value and every attempt's request and reply; a failure is raised
    with the attempts made on it (``error.calls``). The adapter is chosen as ``asrender`` chooses a
    run's (:func:`promptwire.frontend.asrender.run.model_adapter`).

    With ``on_text``, each call is streamed: the request carries the provider's stream flags (and
    nothing else changes), ``on_text`` receives the reply's text as it arrives, and the whole text
    is still read and checked at the end, so the result is the same. A provider that does not
    stream gives its whole text at once.
    """
    prepared, render, adapter = _prepared(prompt, provider, model, format, host, timeout, responses, config)
    return _core.generate(prepared, render=render, adapter=adapter, model=model, timeout=timeout, on_text=on_text)


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
    **config: Any,
) -> GenerateResult:
    """:func:`generate`, awaited: each call is made with the provider SDK's async client (a plugin
    adapter without one sends from a worker thread), so many run at once on one event loop.
    Cancelling it cancels the call in flight: its connection is closed."""
    prepared, render, adapter = _prepared(prompt, provider, model, format, host, timeout, responses, config)
    return await _core.agenerate(
        prepared, render=render, adapter=adapter, model=model, timeout=timeout, on_text=on_text
    )


def stream(
    prompt: Prompt | Mapping[str, Any],
    provider: str = "offline",
    model: str | None = None,
    *,
    format: str = DEFAULT_FORMAT,
    host: PluginHost | None = None,
    timeout: float | None = None,
    responses: list[Any] | None = None,
    **config: Any,
) -> Iterator[str | GenerateResult]:
    """:func:`generate`, streamed, as an iterator: the text of each attempt's reply as it arrives
    (``str``), then the :class:`GenerateResult`, last. Closing the iterator early (leaving a ``for``
    loop) closes the call in flight."""
    prepared, render, adapter = _prepared(prompt, provider, model, format, host, timeout, responses, config)
    return _core.generate_stream(prepared, render=render, adapter=adapter, model=model, timeout=timeout)


def astream(
    prompt: Prompt | Mapping[str, Any],
    provider: str = "offline",
    model: str | None = None,
    *,
    format: str = DEFAULT_FORMAT,
    host: PluginHost | None = None,
    timeout: float | None = None,
    responses: list[Any] | None = None,
    **config: Any,
) -> AsyncIterator[str | GenerateResult]:
    """:func:`stream` on an event loop, as an async iterator (``async for``), with the SDK's async
    client."""
    prepared, render, adapter = _prepared(prompt, provider, model, format, host, timeout, responses, config)
    return _core.agenerate_stream(prepared, render=render, adapter=adapter, model=model, timeout=timeout)


def _prepared(
    prompt: Prompt | Mapping[str, Any],
    provider: str,
    model: str | None,
    format: str,
    host: PluginHost | None,
    timeout: float | None,
    responses: list[Any] | None,
    config: Mapping[str, Any],
) -> tuple[Prompt, Callable[[Prompt], RenderedPrompt], ModelAdapter]:
    """The prompt with ``config`` applied, the format's render and the adapter, as every
    ``generate`` above takes them."""
    from .frontend.asrender.run import RunOptions, model_adapter

    host = host or default_host()
    model_prompt = validate_model(Prompt, prompt, root="prompt")
    if config:
        merged = {**model_prompt.config.model_dump(exclude_unset=True), **config}
        model_prompt = model_prompt.model_copy(update={"config": validate_model(GenerateConfig, merged, root="config")})
    if responses is not None and provider != "offline":
        raise _FieldError("responses", "canned replies are for the offline adapter")
    options = RunOptions(adapter=provider, model=model, timeout=timeout, responses=responses or ())
    render = host.load("renderers", format).render
    _warn(render(model_prompt), stacklevel=4)  # at the caller's line, once (each request notes it too)
    return model_prompt, render, model_adapter(host, options)


def _warn(rendered: RenderedPrompt, stacklevel: int) -> None:
    """What the format left out of the prompt, as Python warnings at the line ``stacklevel`` frames
    up from the caller of this function (the caller of the public function)."""
    for line in warning_lines(rendered.warnings):
        warnings.warn(line, UnsupportedFieldsWarning, stacklevel=stacklevel)


def renderers_available(host: PluginHost | None = None) -> tuple[str, ...]:
    """Names of every registered format, built-in and plugin, in registration order."""
    return (host or default_host()).names("renderers")
