"""Pointing a run's model calls at a provider: retargeting its model, and dry runs.

A program names its model in ``import llm M from "openai://gpt-4o"``. ``--provider`` sends the
calls to another provider as the reference does (the model name travels, the protocol changes) and
``--model`` replaces the name. Which part of a URI is the model's name is for the adapter of the
URI's protocol to say (``ollama://HOST:PORT/MODEL`` names a host too), so it is asked. A dry run
builds every request exactly as it would be sent (the adapters' ``build_request`` is pure: no SDK
is imported) and answers each call offline, so the program runs on and every request of every
attempt can be shown; a streamed dry run builds each request with the provider's stream flags, as
a streamed run sends it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from ...core import exchange
from ...core.contract import OutputContract
from ...core.generate import ModelAdapter, ProviderRequest, Reply
from ...core.prompt import GenerateConfig
from ...core.rendered import RenderedPrompt

__all__ = ["Retargeted"]


class Retargeted:
    """``adapter`` (registered as ``name``) asked for the run's model, retargeted to it or replaced by
    ``model``; ``adapters`` finds the adapter registered under a name (``PluginHost.adapter``). With
    ``answers`` (the offline adapter) it is a dry run: each request is built, then answered by
    ``answers`` instead of being sent."""

    def __init__(
        self,
        adapter: ModelAdapter,
        name: str,
        model: str | None,
        adapters: Callable[[str], Any],
        answers: ModelAdapter | None = None,
    ) -> None:
        self.adapter = adapter
        self.name = name
        self.model = model
        self.adapters = adapters
        self.answers = answers
        self._answered: ProviderRequest | None = None

    def model_for(self, uri: str | None) -> str | None:
        """``--model``, else the program's model: a URI of the provider's own as it is, one of another
        protocol as that protocol's adapter reads its model name (``model_name(uri)``)."""
        if self.model is not None:
            return self.model
        if not uri or "://" not in uri:
            return uri
        source = self.adapters(uri.partition("://")[0])  # no adapter reads it: an unknown adapter
        read = getattr(source, "model_name", None)
        if source is self.adapters(self.name) or read is None:  # the provider's own URI (or an alias's)
            return uri
        name: str = read(uri)
        return name

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        if self.answers is not None:
            self._answered = self.answers.build_request(rendered, config, contract, model)
        return self.adapter.build_request(rendered, config, contract, self.model_for(model))

    def streamed(self, request: ProviderRequest) -> ProviderRequest:
        return exchange.streamed_request(self.adapter, request)

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        adapter, request = self._target(request)
        return adapter.send(request, timeout)

    async def asend(self, request: ProviderRequest, timeout: float | None) -> Any:
        return await exchange.asend(*self._target(request), timeout)

    def stream(self, request: ProviderRequest, timeout: float | None) -> Iterator[Any]:
        return exchange.stream(*self._target(request), timeout)

    def astream(self, request: ProviderRequest, timeout: float | None) -> AsyncIterator[Any]:
        return exchange.astream(*self._target(request), timeout)

    def parse_reply(self, raw: Any) -> Reply:
        return (self.answers or self.adapter).parse_reply(raw)

    def _target(self, request: ProviderRequest) -> tuple[ModelAdapter, ProviderRequest]:
        """Who answers ``request``: the provider, or in a dry run the offline adapter (its own request)."""
        if self.answers is None:
            return self.adapter, request
        assert self._answered is not None
        return self.answers, self._answered
