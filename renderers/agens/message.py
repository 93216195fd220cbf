"""The Agens input model: the fields of ``Agens.Message`` that feed the prompt, as Agens 0.2.0 accepts them.

It accepts what ``Agens.Prompt.build/3`` renders without complaint and refuses only what crashes
Agens itself (each with a :class:`FieldError` naming the field, through :meth:`AgensMessage.parse`):

* ``input``, ``node_objective``, ``job_description``: a string, a list, a map or ``None``
  (``prompt_field/1`` prints nothing else); ``input`` must be present (``@enforce_keys``) but may be
  ``None`` (only ``Message.send`` refuses that);
* ``previous_result``: a string or ``None``;
* ``tool_defs``, ``tool_calls`` (lists), ``tool_results`` (a map) and ``resources`` (a list) of another
  type are skipped, as Agens skips them; ``nil`` items inside the lists are kept;
* ``retries`` and ``retry_reason`` may be anything: a Retry section needs an integer ``retries`` > 0,
  and only then is ``retry_reason`` printed (and checked, by the reader).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ...core.errors import FieldError
from ...core.validation import validate_model

__all__ = ["IGNORED_MESSAGE_FIELDS", "AgensMessage", "AgensResource", "kind", "text_error"]

IGNORED_MESSAGE_FIELDS = frozenset(
    {
        "caller", "id", "run_id", "parent_run_id", "system", "user", "result", "agent_id",
        "serving_name", "job_id", "node_id", "outputs", "thread_id", "next",
    }
)  # fmt: skip
"""Fields of ``Agens.Message`` that never reach the prompt: accepted and ignored, so a whole
message (as JSON, say) can be passed in."""

_CONTAINERS = {"tool_defs": list, "tool_calls": list, "resources": list, "tool_results": Mapping}


def kind(value: object) -> str:
    """A value's type as error messages name it."""
    return "None" if value is None else type(value).__name__


def text_error(value: object) -> str | None:
    """Why ``prompt_field/1`` cannot print ``value`` (it has clauses for strings, lists and maps), or None."""
    if value is None or isinstance(value, str | list | Mapping):
        return None
    return f"must be a string, a list or a map, not {kind(value)} (Agens' prompt_field/1 crashes on anything else)"


class AgensResource(BaseModel):
    """``Agens.Resource``: ``uri`` and ``name`` must be given (``@enforce_keys``); ``content`` None
    means "not loaded" and leaves the resource out. ``uri`` and ``content`` print through
    ``String.Chars`` (a ``None`` uri as ``""``), so their type is checked when the reader prints them."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    uri: Any
    name: Any
    description: Any = None
    content: Any = None


class AgensMessage(BaseModel):
    """The fields of ``Agens.Message`` that feed the prompt (see the module docstring for what each takes).

    The other ``Agens.Message`` fields (``id``, ``caller``, ``result`` ...) are accepted and ignored;
    any other key is an error, so a misspelt field never vanishes silently. :meth:`parse` raises
    :class:`FieldError` naming the bad field; the constructor raises pydantic's ``ValidationError``,
    as any pydantic model does.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    input: Any
    node_objective: Any = None
    job_description: Any = None
    previous_result: str | None = None
    resources: list[AgensResource] | None = None
    tool_defs: list[Any] | None = None
    tool_calls: list[Any] | None = None
    tool_results: dict[Any, Any] | None = None
    retries: Any = 0
    retry_reason: Any = None

    @classmethod
    def parse(cls, data: AgensMessage | Mapping[str, Any]) -> AgensMessage:
        """Validate a message given as data; bad data raises :class:`FieldError` naming the field."""
        if isinstance(data, AgensMessage):
            return data
        if not isinstance(data, Mapping):
            raise FieldError("message", f"must be an AgensMessage or a mapping of its fields, not {kind(data)}")
        for key in data:
            if not isinstance(key, str):
                raise FieldError("message", f"field names must be strings, not {kind(key)}")
            if key == "context":
                raise FieldError("context", "is not a field of Agens.Message; pass it as the context argument")
        return validate_model(cls, data)

    @model_validator(mode="before")
    @classmethod
    def _as_agens_reads_it(cls, data: Any) -> Any:
        """Drop the fields that never reach the prompt, and the containers of a type Agens skips."""
        if not isinstance(data, Mapping):
            return data
        kept: dict[Any, Any] = {}
        for key, value in data.items():
            if key in IGNORED_MESSAGE_FIELDS:
                continue
            container = _CONTAINERS.get(key)
            if container is not None and not isinstance(value, container):
                continue  # Agens puts a section only for a list (a map for tool_results); others are skipped
            kept[key] = dict(value) if key == "tool_results" else value
        return kept

    @field_validator("input", "node_objective", "job_description", mode="before")
    @classmethod
    def _check_text(cls, value: Any) -> Any:
        reason = text_error(value)
        if reason is not None:
            raise PydanticCustomError("agens_text", reason)
        return dict(value) if isinstance(value, Mapping) and not isinstance(value, dict) else value

    @field_validator("previous_result", mode="before")
    @classmethod
    def _check_previous_result(cls, value: Any) -> Any:
        if value is None or isinstance(value, str):
            return value
        raise PydanticCustomError(
            "agens_type", "must be a string, not {kind} (Agens crashes on anything else)", {"kind": kind(value)}
        )
