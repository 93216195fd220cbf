"""Where one model call goes, asked before its request is built: a :class:`Router` answers a
:class:`Target` (the adapter, its registered name, the model as that adapter reads it).

Every call asks, so this module is small and imports next to nothing; routing by a run's
``--provider`` (a registry of adapters, base URLs, model URIs retargeted from one provider to
another) is :mod:`.routing`, loaded by a provider's run only.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ..core.model_uri import model_scheme
from ..core.records import dataclass_record, field_setters

if TYPE_CHECKING:
    from ..core.call import ModelAdapter, ProviderRequest
    from ..core.contract import OutputContract
    from ..core.prompt import GenerateConfig
    from ..core.rendered import RenderedPrompt

__all__ = ["Direct", "Router", "Target", "router_of"]


@dataclass_record(frozen=True, slots=True)
class Target:
    """Where one call goes: ``adapter``, registered as ``name``, asked for ``model`` (the model name
    as that adapter reads it). ``asked`` is the program's model when it names another provider's
    scheme (the request's notes then say where it was sent instead); ``named`` says the run chose
    the provider by name, so each request names it (a dry run shows it)."""

    name: str
    adapter: ModelAdapter
    model: str | None
    asked: str | None = None
    named: bool = False

    def __init__(
        self,
        name: str,
        adapter: ModelAdapter,
        model: str | None,
        asked: str | None = None,
        named: bool = False,
    ) -> None:
        _name(self, name)
        _adapter(self, adapter)
        _model(self, model)
        _asked(self, asked)
        _named(self, named)

    def request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None
    ) -> ProviderRequest:
        """The adapter's request for the call, naming this target and noting a retargeted model."""
        request = self.adapter.build_request(rendered, config, contract, self.model)
        if not self.named:
            return request
        notes = request.notes
        if self.asked is not None:
            shown = request.kwargs.get("model", self.model)
            notes = (
                *notes,
                f"model {self.asked} names the {model_scheme(self.asked)} provider: sent to {self.name} as {shown!r}, "
                "the provider asked for",
            )
        return dataclasses.replace(request, notes=notes, provider=self.name)


_name, _adapter, _model, _asked, _named = field_setters(Target)
"""Each field's setter (:func:`~promptwire.core.records.field_setters`: every attempt makes a Target)."""


class Router:
    """Picks each call's :class:`Target` by the model it asks for; ``name`` is the run's provider
    (``auto`` for one that routes by scheme), what a failure before any call names."""

    name: str

    def target(self, model: str | None) -> Target:
        raise NotImplementedError

    def senders(self) -> list[ModelAdapter]:
        """The adapters the calls went to so far (for closing their clients)."""
        raise NotImplementedError


class Direct(Router):
    """Every call to ``adapter``, with the model as it is asked."""

    def __init__(self, adapter: ModelAdapter) -> None:
        self.adapter = adapter
        self.name = adapter.name

    def target(self, model: str | None) -> Target:
        return Target(self.name, self.adapter, model)

    def senders(self) -> list[ModelAdapter]:
        return [self.adapter]


def router_of(adapter: ModelAdapter | Router) -> Router:
    """``adapter`` as a router: a router as it is, an adapter as the one every call goes to."""
    return adapter if isinstance(adapter, Router) else Direct(adapter)
