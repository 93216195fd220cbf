"""Pointing a program's model calls at a provider: retargeting its model, and dry runs.

A program names its model in ``import llm M from "openai://gpt-4o"``. ``--provider`` sends the
calls to another provider as the reference does (the model name travels, the protocol changes) and
``--model`` replaces the name. Which part of a URI is the model's name is for the adapter of the
URI's protocol to say (``ollama://HOST:PORT/MODEL`` names a host too), so it is asked. A dry run
builds every request exactly as it would be sent (the adapters' ``build_request`` is pure: no SDK
is imported) and answers each call offline, so the program runs on and every request of every
attempt can be shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.contract import OutputContract
from ...core.generate import ModelAdapter, ProviderRequest, Reply
from ...core.prompt import GenerateConfig
from ...core.rendered import RenderedPrompt

__all__ = ["DryRun", "Targeted"]


class Targeted:
    """``adapter`` asked for the program's model, retargeted to ``provider`` or replaced by ``model``;
    ``adapters`` finds the adapter registered under a name (``PluginHost.adapter``)."""

    def __init__(self, adapter: ModelAdapter, provider: str, model: str | None, adapters: Callable[[str], Any]) -> None:
        self.adapter = adapter
        self.name = provider
        self.model = model
        self.adapters = adapters

    def model_for(self, uri: str | None) -> str | None:
        """``--model``, else the program's model: a URI of the provider's own as it is, one of another
        protocol as that protocol's adapter reads its model name (``model_name(uri)``)."""
        if self.model is not None:
            return self.model
        if not uri or "://" not in uri:
            return uri
        source = self.adapters(uri.partition("://")[0])  # no adapter reads it: an unknown adapter
        read = getattr(source, "model_name", None)
        if source is self.adapter or read is None:
            return uri
        name: str = read(uri)
        return name

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        return self.adapter.build_request(rendered, config, contract, self.model_for(model))

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        return self.adapter.send(request, timeout)

    def parse_reply(self, raw: Any) -> Reply:
        return self.adapter.parse_reply(raw)


class DryRun:
    """Builds each request with ``target`` and answers it with ``answers`` (the offline adapter)."""

    def __init__(self, target: Targeted, answers: ModelAdapter) -> None:
        self.target = target
        self.answers = answers
        self.name = target.name
        self._offline: ProviderRequest | None = None

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        self._offline = self.answers.build_request(rendered, config, contract, model)
        return self.target.build_request(rendered, config, contract, model)

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        assert self._offline is not None
        return self.answers.send(self._offline, timeout)

    def parse_reply(self, raw: Any) -> Reply:
        return self.answers.parse_reply(raw)
