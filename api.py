"""The four front-door functions: render a prompt, build a provider's request, generate, list
the formats. ``promptwire`` re-exports them (``promptwire.render``...)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from .core import GenerateConfig, Prompt, RenderedPrompt
from .core.errors import FieldError as _FieldError
from .core.errors import UnsupportedFieldsWarning
from .core.generate import GenerateResult, ProviderRequest
from .core.generate import generate as _run_generate
from .core.rendered import warning_lines
from .core.validation import validate_model
from .plugins import PluginHost, default_host

__all__ = ["build_request", "generate", "render", "renderers_available"]


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
    format: str = "agentscript",
    host: PluginHost | None = None,
) -> ProviderRequest:
    """The request ``provider`` would send for ``prompt`` (rendered in ``format``), sending nothing.

    A :class:`RenderedPrompt` is used as it is, with default generation options and its own output
    contract. ``request.kwargs`` is the SDK call's keyword arguments; ``request.notes`` says what
    the adapter dropped or changed.
    """
    host = host or default_host()
    if isinstance(prompt, RenderedPrompt):
        direct: ProviderRequest = host.adapter(provider).build_request(prompt, GenerateConfig(), prompt.output, model)
        return direct
    model_prompt = validate_model(Prompt, prompt, root="prompt")
    rendered = host.renderer(format).render(model_prompt)
    request: ProviderRequest = host.adapter(provider).build_request(
        rendered, model_prompt.config, model_prompt.output, model
    )
    return request


def generate(
    prompt: Prompt | Mapping[str, Any],
    provider: str = "offline",
    model: str | None = None,
    *,
    format: str = "agentscript",
    host: PluginHost | None = None,
    timeout: float | None = None,
    responses: list[Any] | None = None,
    **config: Any,
) -> GenerateResult:
    """Ask ``provider`` for the prompt's output: attempts, the repair text, coercion and validation
    as an AgentScript ``generate`` does. ``config`` overrides the prompt's generation options
    (``attempts=3``, ``temperature=0.2``...); ``responses`` are canned replies for the offline
    adapter. The result holds the value and every attempt's request and reply; a failure is raised
    with the attempts made on it (``error.calls``). The adapter is chosen as ``asrender`` chooses a
    run's (:func:`promptwire.frontend.asrender.run.model_adapter`).
    """
    from .frontend.asrender.run import RunOptions, model_adapter

    host = host or default_host()
    model_prompt = validate_model(Prompt, prompt, root="prompt")
    if config:
        merged = {**model_prompt.config.model_dump(exclude_unset=True), **config}
        model_prompt = model_prompt.model_copy(update={"config": validate_model(GenerateConfig, merged, root="config")})
    if responses is not None and provider != "offline":
        raise _FieldError("responses", "canned replies are for the offline adapter")
    options = RunOptions(adapter=provider, model=model, timeout=timeout, responses=responses or ())
    adapter = model_adapter(host, options)
    renderer = host.load("renderers", format)
    return _run_generate(model_prompt, render=renderer.render, adapter=adapter, model=model, timeout=timeout)


def renderers_available(host: PluginHost | None = None) -> tuple[str, ...]:
    """Names of every registered format, built-in and plugin, in registration order."""
    return (host or default_host()).names("renderers")
