"""Pointing a program's model calls at a provider: retargeting its model, and dry runs.

A program names its model in ``import llm M from "openai://gpt-4o"``. ``--provider`` sends the
calls to another provider as the reference does (the model name travels, the protocol changes) and
``--model`` replaces the name. A dry run builds every request exactly as it would be sent (the
adapters' ``build_request`` is pure: no SDK is imported) and answers each call offline, so the
program runs on and every request of every attempt can be shown.
"""

from __future__ import annotations

from typing import Any

from ..core.contract import OutputContract
from ..core.generate import ModelAdapter, ProviderRequest, Reply
from ..core.prompt import GenerateConfig
from ..core.rendered import RenderedPrompt

__all__ = ["DryRun", "Targeted"]


class Targeted:
    """``adapter`` asked for the program's model, retargeted to ``provider`` or replaced by ``model``."""

    def __init__(self, adapter: ModelAdapter, provider: str, model: str | None = None) -> None:
        self.adapter = adapter
        self.name = provider
        self.model = model

    def model_for(self, uri: str | None) -> str | None:
        if self.model is not None:
            return self.model
        if uri and "://" in uri:
            protocol, _, rest = uri.partition("://")
            if protocol != self.name:
                # ollama://HOST:PORT/MODEL keeps its model; openai://NAME and anthropic://NAME their name.
                return rest.split("/", 1)[1] if protocol == "ollama" and "/" in rest else rest
        return uri

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
