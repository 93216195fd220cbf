"""The Agens reader: an Agens message (and ``build/3``'s ``context`` argument) into a core :class:`Prompt`.

Rendering the result with the ``agens`` renderer gives Agens' own bytes; other renderers get the
same content in their layout. What only Agens can say goes to ``Prompt.native["agens"]``
(:mod:`.native`). The mapping is in ``docs/agens.md``.

Where Agens upstream crashes, the reader raises :class:`FieldError` naming the message field: a
non-string ``context``, a map ``previous_result``, a value ``prompt_field/1`` cannot print, a value
Jason cannot encode. A failed tool call stored as an error (an exception, or the ``("error",
reason)`` pair Agens stores as ``{:error, reason}``) becomes the text ``error: reason`` instead of
crashing the next prompt, as upstream does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...core.errors import FieldError
from ...core.prompt import Prompt, Resource, Retry, Section, ToolCall, ToolDefinition, ToolResult
from . import jason
from .chars import to_string
from .message import AgensMessage, AgensResource, kind, text_error

__all__ = ["DESCRIPTION_SECTION", "OBJECTIVE_SECTION", "AgensReader", "reader", "to_prompt"]

DESCRIPTION_SECTION = ("info", "job_description")
"""Where ``job_description`` goes: content every format shows, as information about the task."""
OBJECTIVE_SECTION = ("instruct", "node_objective")
"""Where ``node_objective`` goes: content every format shows, as an instruction."""


def to_prompt(message: AgensMessage | Mapping[str, Any], context: str | None = None) -> Prompt:
    """The core :class:`Prompt` for an Agens message and its ``context`` (``load_context/2``'s result)."""
    msg = AgensMessage.parse(message)
    if context is not None and not isinstance(context, str):
        raise FieldError("context", f"must be a string or None, not {kind(context)} (Agens crashes on anything else)")
    return _read(msg, context)


def _read(msg: AgensMessage, context: str | None) -> Prompt:
    for name in ("input", "node_objective", "job_description", "tool_defs", "tool_calls"):
        value = getattr(msg, name)
        if value is not None and not isinstance(value, str):
            jason.encode(value, (name,))  # fail on the message's own field path, before it travels on
    sections = [
        Section(kind=section_kind, key=key, value=value)
        for (section_kind, key), value in (
            (DESCRIPTION_SECTION, msg.job_description),
            (OBJECTIVE_SECTION, msg.node_objective),
        )
        if not _blank(value)
    ]
    results, native = _tool_results(msg.tool_results)
    native.update(_null_positions("null_tool_defs", msg.tool_defs))
    native.update(_null_positions("null_tool_calls", msg.tool_calls))
    fields: dict[str, Any] = {}
    if not _blank(msg.input):
        fields["instruction"] = msg.input
    # Built without the model's validation: every free value here went through Jason's walk above,
    # which refuses what the model's nesting check refuses (deeper than 1000 levels, circular), in the
    # same words but under the message's field names; checking 200,000 items again would cost more
    # than rendering them. The parts are validated models of their own.
    return Prompt.model_construct(
        system=None if _blank(context) else context,
        sections=sections,
        tools=[
            ToolDefinition(name=_tool_name(item, index), native=item) for index, item in enumerate(msg.tool_defs or ())
        ],
        tool_calls=[_tool_call(item) for item in msg.tool_calls or ()],
        tool_results=results,
        resources=[_resource(item, index) for index, item in enumerate(msg.resources or ())],
        previous_result=None if _blank(msg.previous_result) else msg.previous_result,
        retry=_retry(msg),
        native={"agens": native} if native else {},
        **fields,
    )


def _blank(value: object) -> bool:
    """Agens drops exactly two values: ``nil`` and ``""`` (``[]`` and ``%{}`` stay)."""
    return value is None or (isinstance(value, str) and value == "")


def _null_positions(field: str, items: list[Any] | None) -> dict[str, list[int]]:
    positions = [index for index, item in enumerate(items or ()) if item is None]
    return {field: positions} if positions else {}


def _tool_results(raw: dict[Any, Any] | None) -> tuple[list[ToolResult], dict[str, Any]]:
    """The results map as core results, plus the Agens entries the core list cannot say."""
    if raw is None:
        return [], {}
    if not raw:
        return [], {"tool_results": {}}
    results = [_tool_result(jason.key_text(key, ("tool_results",)), value) for key, value in raw.items()]
    if all(isinstance(key, str) for key in raw):
        return results, {}
    return results, {"tool_result_keys": list(raw)}


def _tool_result(call_id: str, result: Any) -> ToolResult:
    """A failed tool call becomes the text ``error: <reason>``: Agens stores ``{:error, reason}``
    there and then crashes encoding it on the node's next run."""
    if isinstance(result, tuple) and len(result) == 2 and result[0] == "error":
        reason = result[1]
        text = reason if isinstance(reason, str) else _reason_text(reason, ("tool_results", call_id))
        return ToolResult(call_id=call_id, content=f"error: {text}", is_error=True)
    if isinstance(result, BaseException):
        return ToolResult(call_id=call_id, content=f"error: {_reason_text(result, ())}", is_error=True)
    jason.encode(result, ("tool_results", call_id))
    return ToolResult(call_id=call_id, content=result)


def _reason_text(reason: object, path: Sequence[str | int]) -> str:
    if not isinstance(reason, BaseException):
        return jason.encode(reason, path)
    message = str(reason)
    return f"{type(reason).__name__}: {message}" if message else type(reason).__name__


def _tool_name(item: object, index: int) -> str:
    """A name for an opaque Agens tool definition (a tool name, a JSON string or a map)."""
    described = item
    if isinstance(item, str):
        if not item.lstrip().startswith("{"):
            return item
        try:
            described = json.loads(item)
        except (ValueError, RecursionError):  # not JSON, a huge number, or nested past the parser
            return item
    if isinstance(described, Mapping) and isinstance(described.get("name"), str):
        return str(described["name"])
    return item if isinstance(item, str) else f"tool {index}"


def _tool_call(item: object) -> ToolCall:
    """Agens' tool call map (``Agens.Schema.tools/0``) read into the core model; ``native`` keeps it."""
    fields: Mapping[Any, Any] = item if isinstance(item, Mapping) else {}
    name, call_id = fields.get("name"), fields.get("id")
    return ToolCall(
        name=name if isinstance(name, str) else "",
        id=call_id if isinstance(call_id, str) else None,
        arguments=_arguments(fields.get("arguments")),
        native=item,
    )


def _arguments(raw: object) -> dict[str, Any]:
    if not isinstance(raw, list):
        return {}
    pairs = [entry for entry in raw if isinstance(entry, Mapping) and isinstance(entry.get("key"), str)]
    return {entry["key"]: entry.get("value") for entry in pairs}


def _resource(item: AgensResource, index: int) -> Resource:
    """A resource as Agens prints it: ``uri`` and ``content`` through ``String.Chars`` (``nil`` uri: ``""``)."""
    path = ("resources", index)
    return Resource(
        uri=to_string(item.uri, (*path, "uri")),
        name=_optional_text(item.name, (*path, "name")),
        description=_optional_text(item.description, (*path, "description")),
        content=None if item.content is None else to_string(item.content, (*path, "content")),
    )


def _optional_text(value: object, path: Sequence[str | int]) -> str | None:
    """``name`` and ``description`` are never printed by Agens: kept as text for other formats when
    they have a text form, left out when they have none (Agens would not notice either)."""
    if value is None:
        return None
    try:
        return to_string(value, path)
    except FieldError:
        return None


def _retry(msg: AgensMessage) -> Retry | None:
    """Agens retries when ``retries`` is an integer > 0 (``true`` is an atom, not an integer); only
    then is the reason printed: text as it is, a list or map as JSON."""
    retries = msg.retries
    if type(retries) is not int or retries <= 0:
        return None
    reason = msg.retry_reason
    problem = text_error(reason)
    if problem is not None:
        raise FieldError("retry_reason", problem)
    text = reason if reason is None or isinstance(reason, str) else jason.encode(reason, ("retry_reason",))
    return Retry(reason=None if _blank(text) else text, attempt=retries)


class AgensReader:
    """``asrender render --from agens``: an Agens message as data, plus an optional ``context`` key
    (upstream's third argument to ``build/3``, which a file has no other place for)."""

    name = "agens"
    description = "an Agens.Message (its prompt fields) as JSON/YAML data"

    def read(self, data: Any) -> Prompt:
        """The :class:`Prompt` for a message given as data (see :func:`to_prompt`)."""
        if not isinstance(data, Mapping):
            raise FieldError("message", f"must be a mapping of Agens.Message fields, not {kind(data)}")
        fields = {key: value for key, value in data.items() if key != "context"}
        return to_prompt(fields, data.get("context"))


reader = AgensReader()
