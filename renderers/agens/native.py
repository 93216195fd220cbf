"""What only Agens can say, kept in ``Prompt.native["agens"]``: the typed place for it, checked when read.

The core lists (``tools``, ``tool_calls``, ``tool_results``) carry Agens' tools and results, but three
things an Agens message can hold have no place there, and Agens prints them:

* ``tool_results: {}``: an empty results map, which Agens keeps and prints as ``{}`` (the core list
  cannot tell "no results" from "an empty map of results");
* ``tool_result_keys``: the keys of the results map when some are not strings (an integer key
  prints through ``to_string`` and sorts before the string keys), one per entry of ``tool_results``;
* ``null_tool_defs`` / ``null_tool_calls``: where a ``nil`` item sits in ``tool_defs`` / ``tool_calls``
  (Agens keeps it and prints ``null``; a core tool cannot be ``None``).

Other formats report ``native.agens`` as a field they cannot express; only the ``agens`` renderer reads it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr, field_validator

from ...core.errors import FieldError
from ...core.prompt import Prompt
from ...core.validation import validate_model

__all__ = ["AgensNative", "native_of"]

ResultKey = StrictStr | StrictInt | StrictFloat | StrictBool | None


class AgensNative(BaseModel):
    """The ``native["agens"]`` entry of a :class:`Prompt` (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool_results: dict[str, Any] | None = None
    tool_result_keys: list[ResultKey] | None = None
    null_tool_defs: list[StrictInt] = Field(default_factory=list)
    null_tool_calls: list[StrictInt] = Field(default_factory=list)

    @field_validator("tool_results")
    @classmethod
    def _empty_map_only(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value:
            raise ValueError("only the empty map {} goes here; results belong in the prompt's tool_results")
        return value


def native_of(prompt: Prompt) -> AgensNative:
    """The prompt's Agens entry, validated (a bad entry raises ``FieldError`` at ``native.agens...``),
    and checked against the lists it describes."""
    entry = validate_model(AgensNative, prompt.native.get("agens", {}), root="native.agens")
    for field, positions, size in (
        ("null_tool_defs", entry.null_tool_defs, len(prompt.tools)),
        ("null_tool_calls", entry.null_tool_calls, len(prompt.tool_calls)),
    ):
        if any(not 0 <= position < size for position in positions):
            raise FieldError(("native.agens", field), f"a position is outside the list (it has {size} items)")
    keys = entry.tool_result_keys
    if keys is not None and len(keys) != len(prompt.tool_results):
        raise FieldError(
            "native.agens.tool_result_keys", f"has {len(keys)} keys for {len(prompt.tool_results)} tool results"
        )
    return entry
