"""Pointing a run's model calls at one provider: retargeting its model, and dry runs.

A program names its model in ``import llm M from "openai://gpt-4o"``. ``--provider`` sends the
calls to another provider as the reference does (the model name travels, the protocol changes, and
the call's request notes say so) and ``--model`` replaces the name. Which part of a URI is the
model's name is for the adapter serving the URI's scheme to say (``ollama://HOST:PORT/MODEL`` names
a host too), so it is asked, and a scheme no adapter serves is an error at the call. A dry run
builds every request exactly as it would be sent (the adapters' ``build_request`` is pure: no SDK
is imported) and answers each call offline, so the program runs on and every request of every
attempt can be shown; a streamed dry run builds each request with the provider's stream flags, as
a streamed run sends it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any

from ...core import exchange
from ...core.contract import OutputContract
from ...core.generate import ModelAdapter, ProviderRequest, Reply
from ...core.model_uri import model_name, model_scheme
from ...core.prompt import GenerateConfig
from ...core.rendered import RenderedPrompt

if TYPE_CHECKING:
    from .routing import Routes

__all__ = ["Retargeted"]


class Retargeted:
    """``adapter`` (registered as ``name``) asked for the run's model, retargeted to it or replaced by
    ``model``; ``routes`` finds the adapter serving a URI's scheme. With ``answers`` (the offline
    adapter) it is a dry run: each request is built, then answered by ``answers`` instead of being
    sent. Each request names ``name`` as its provider. ``reach`` checks the program's model URI
    before each request to be sent is built (a host it names must be allowed: see :mod:`.model_reach`)."""

    def __init__(
        self,
        adapter: ModelAdapter,
        name: str,
        model: str | None,
        routes: Routes,
        answers: ModelAdapter | None = None,
        reach: Callable[[str | None], None] | None = None,
    ) -> None:
        self.adapter = adapter
        self.name = name
        self.model = model
        self.routes = routes
        self.answers = answers
        self.reach = reach
        self._answered: ProviderRequest | None = None

    def model_for(self, uri: str | None) -> str | None:
        """``--model``, else the program's model: a bare name or a URI of the provider's own protocol
        as it is, one of another as the adapter serving that protocol reads its model name
        (``model_name(uri)``)."""
        uri = self.model or uri
        scheme = model_scheme(uri)
        if scheme is None or self._own(scheme):
            return uri
        source = self.routes.serving(scheme)
        if source is None:
            raise self.routes.unserved(scheme)
        read = getattr(self.routes.reader(source), "model_name", None)
        name: str = read(uri) if read is not None else model_name(uri, scheme)
        return name

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        if self.reach is not None and self.model is None and self.answers is None:
            self.reach(model)  # the program's URI, not the user's --model; a dry run reaches nothing
        if self.answers is not None:
            self._answered = self.answers.build_request(rendered, config, contract, model)
        sent = self.model_for(model)
        request = self.adapter.build_request(rendered, config, contract, sent)
        scheme = model_scheme(model)
        notes = request.notes
        if scheme is not None and not self._own(scheme):
            shown = request.kwargs.get("model", sent)
            notes = (
                *notes,
                f"model {model} names the {scheme} provider: sent to {self.name} as {shown!r}, the provider asked for",
            )
        return dataclasses.replace(request, notes=notes, provider=self.name)

    def _own(self, scheme: str) -> bool:
        """Whether ``scheme://`` models are this provider's own (its protocol, or its name)."""
        return scheme in (getattr(self.adapter, "protocol", None), self.name)

    def streamed(self, request: ProviderRequest) -> ProviderRequest:
        # The adapter's own streamed request, as it made it: a wrapper (a recording) may know it by
        # its identity. It keeps the request's provider, unless the adapter is not on the skeleton.
        streamed = exchange.streamed_request(self.adapter, request)
        return streamed if streamed.provider == self.name else dataclasses.replace(streamed, provider=self.name)

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
