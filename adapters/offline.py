"""``offline``: the default adapter, which needs no key and no network.

It answers each call with the next canned response, if any (a string is the raw text a model
returned; any other value is returned as that JSON), and then with AgentScript's mock value: the
default of each field of the output contract (``""``, ``0``, ``true``, ``{}`` for any JSON, ``[]``
for a list, ``[default]`` for a typed list), or ``null`` without a contract. So every program runs,
and retries can be tested, offline.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..core.call import ProviderRequest, Reply
from ..core.contract import OutputContract
from ..core.model_uri import model_name
from ..core.nesting import with_nesting_room
from ..core.prompt import GenerateConfig
from ..core.rendered import RenderedPrompt

__all__ = ["OfflineAdapter", "adapter", "mock_value"]


class OfflineAdapter:
    name = "offline"
    description = "no network: canned responses in order, then mock values from the output contract"

    def __init__(self, responses: Iterable[Any] = ()) -> None:
        self._responses = list(responses)

    def model_name(self, uri: str | None) -> str:
        """``offline://NAME`` -> ``NAME`` (the adapter answers whatever model is asked)."""
        return model_name(uri, self.name)

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        """What would be sent: the messages, the schema and the options, as plain data."""
        kwargs = {
            "model": model,
            "messages": [message.to_dict() for message in rendered.messages],
            "schema": None if contract is None else contract.json_schema,
            "config": config.model_dump(mode="json"),
        }
        return ProviderRequest(kwargs)

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        if self._responses:
            return {"canned": self._responses.pop(0)}
        schema = request.kwargs.get("schema")
        return {"mock": None if schema is None else with_nesting_room(mock_value, schema)}

    async def asend(self, request: ProviderRequest, timeout: float | None) -> Any:
        """:meth:`send` on an event loop: nothing to wait for, so no worker thread."""
        return self.send(request, timeout)

    def parse_reply(self, raw: Any) -> Reply:
        if "canned" in raw and isinstance(raw["canned"], str):
            return Reply(text=raw["canned"], raw=raw)
        value = raw.get("canned", raw.get("mock"))
        return Reply(text=None, value=value, has_value=True, raw=raw)


def mock_value(schema: Mapping[str, Any] | bool) -> Any:
    """AgentScript's mock result for a schema: each type's default, a typed list holding one; of a
    list of types (``["string", "null"]``), the first that is not null; for a schema of no type
    (``{}``, and the boolean schemas ``true`` and ``false``), ``{}``."""
    if isinstance(schema, bool):
        return {}
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((name for name in kind if name != "null"), "null")
        if kind == "null":
            return None
    if kind == "object":
        return {name: mock_value(sub) for name, sub in (schema.get("properties") or {}).items()}
    if kind == "string":
        return ""
    if kind in ("number", "integer"):
        return 0
    if kind == "boolean":
        return True
    if kind == "array":
        items = schema.get("items")
        return [mock_value(items)] if isinstance(items, Mapping) else []
    return {}


adapter = OfflineAdapter()
