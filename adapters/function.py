"""An adapter made of one function: your framework's model sends, promptwire does the rest.

Give ``generate`` (or ``run``) ``adapter=FunctionAdapter(ask)`` and each attempt's rendered messages
and output schema go to ``ask``; what it returns is the model's reply, checked as any provider's
(attempts, the repair text of a rejected reply, coercion). No plugin, no :class:`PluginHost`: those
are for adapters to be named (``provider="..."``) and installed. An object with the
:class:`~promptwire.core.call.ModelAdapter` methods (``name``, ``build_request``, ``send``,
``parse_reply``) can be handed to ``adapter=`` the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.call import ProviderRequest, Reply
from ..core.contract import OutputContract
from ..core.prompt import GenerateConfig
from ..core.rendered import RenderedPrompt

__all__ = ["Ask", "FunctionAdapter"]

Ask = Callable[[list[dict[str, Any]], dict[str, Any] | None], Any]
"""``ask(messages, schema)``: the rendered messages as chat dictionaries (``{"role": ...,
"content": ...}``, what OpenAI-style clients and LangChain take), and the output contract's JSON
schema (``None`` when the prompt asks for no shape). It returns the model's text (``str``) or a
value already parsed (a framework's structured output)."""


class FunctionAdapter:
    """A :class:`~promptwire.core.call.ModelAdapter` whose call is ``ask`` (see :data:`Ask`).
    ``name`` is what the result's calls and errors name it."""

    def __init__(self, ask: Ask, *, name: str = "function") -> None:
        self.ask = ask
        self.name = name

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        """What ``ask`` is given: the messages and the schema (and the model asked for, if any)."""
        kwargs = {
            "model": model,
            "messages": [message.to_dict() for message in rendered.messages],
            "schema": None if contract is None else dict(contract.json_schema),
        }
        return ProviderRequest(kwargs, provider=self.name)

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        return self.ask(list(request.kwargs["messages"]), request.kwargs["schema"])

    def parse_reply(self, raw: Any) -> Reply:
        if isinstance(raw, str):
            return Reply(text=raw, raw=raw)
        return Reply(text=None, value=raw, has_value=True, raw=raw)
