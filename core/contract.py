"""Output contracts: what the model must return, as one JSON Schema every renderer and adapter reads.

Each dialect declares outputs its own way (AgentScript shapes, Agently output dicts, Python types);
its front end or renderer package converts them to JSON Schema once (AgentScript's in
``renderers/agentscript/shape.py``) and keeps the native declaration next to it so the
dialect's own renderer can still print it byte for byte.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["OutputContract"]


class OutputContract(BaseModel):
    """The JSON Schema of the expected output, plus the declaration it came from.

    ``native`` holds the dialect's own declaration (an AgentScript shape, an Agently output value)
    and ``dialect`` says whose it is; ``format`` carries a dialect's layout hint (Agently's
    ``output_format``). Renderers of other dialects read only ``json_schema``.
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    json_schema: dict[str, Any] = Field(alias="schema")
    name: str | None = None
    dialect: str | None = None
    native: Any = None
    format: str | None = None
