"""Agens 0.2.0 prompts: the ``{system, user}`` strings of ``Agens.Prompt.build/3`` + ``build_prompt/3``.

Two doors, one path. The Agens front door (:func:`build`, :func:`render`) takes an
``Agens.Message`` (an :class:`AgensMessage` or a plain dict) and the ``context`` string; the
registered ``agens`` renderer takes any core :class:`Prompt`. The front door is the renderer applied
to :func:`to_prompt` of the message, so an Agens message renders the same bytes either way.

Where Agens upstream crashes or quietly misbehaves we raise :class:`FieldError` naming the field
instead (a non-string ``context``, a map ``previous_result``, an integer ``retry_reason``, tuples
inside values, ``retries=True``), and a tool result stored as an error (an exception, or the
``("error", reason)`` pair Agens stores as ``{:error, reason}``) becomes the text ``error: reason``
instead of crashing the next prompt. The field-to-section mapping is in ``docs/agens.md``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator, model_validator
from pydantic_core import PydanticCustomError

from ..core.clipping import clip
from ..core.errors import FieldError
from ..core.prompt import (
    ContextItem,
    Prompt,
    Resource,
    Retry,
    Section,
    ToolCall,
    ToolDefinition,
    ToolResult,
)
from ..core.rendered import Message, RenderedPrompt, RenderedSection
from ..core.validation import validate_model
from . import jason
from .base import unexpressed_fields

__all__ = [
    "DEFAULT_PREFIXES",
    "GENERIC_RETRY",
    "SYSTEM_FIELDS",
    "USER_FIELDS",
    "AgensMessage",
    "AgensReader",
    "AgensRenderer",
    "AgensResource",
    "Order",
    "Pair",
    "Prefix",
    "build",
    "prompt_pairs",
    "reader",
    "render",
    "renderer",
    "to_prompt",
]

Prefix = tuple[str, str]
"""``(heading, detail)``: a section prints as ``## heading\\ndetail:\\n\\nbody\\n``."""

PairValue = str | list[Any] | dict[Any, Any]
Pair = tuple[Prefix, PairValue]
Order = Literal["declared", "alphabetical"]

GENERIC_RETRY = "The previous response did not pass validation. Please review and try again."

_TOOL_DEFS_DETAIL = (
    "You have access to the following MCP tools. If you need to call one or more tools to complete the "
    "task, populate the `tool_calls` field in your structured response. If tool results have already been "
    "provided, use them to generate your response in `body` and `outputs` instead of making additional "
    "tool calls. The available tools are:\n"
)

DEFAULT_PREFIXES: Mapping[str, Prefix] = MappingProxyType(
    {
        "context": ("Context", "The following is critical context relevant to this task"),
        "objective": ("Node Objective", "The objective of this node is to"),
        "description": ("Job Description", "This is part of a multi-node job to achieve the following"),
        "input": ("Input", "The following is the original input from the user"),
        "previous_result": ("Previous Result", "The following is the result from the previous node in this job"),
        "schema": ("Schema", "It is critical to only return a JSON object matching the exact specification below"),
        "retry": (
            "Retry",
            "The response did not pass validation. Please try again and fix the following validation errors",
        ),
        # Ends in "\n" (an Elixir heredoc line continuation): the section header then shows a line
        # holding only ":". Upstream prints exactly that, so we do too.
        "tool_defs": ("Tool Definitions", _TOOL_DEFS_DETAIL),
        "tool_calls": ("Tool Calls", "The following MCP tool calls were made by this node"),
        "tool_results": (
            "Tool Results",
            "The following are the results of MCP tool calls for this node. Use these results to "
            "formulate your response in `body` and `outputs`",
        ),
        "resources": ("Resources", "The following resources are provided as context for this node"),
    }
)
"""``Agens.Prefixes.default/0``, verbatim. ``schema`` exists upstream but no section ever uses it."""

SYSTEM_FIELDS: tuple[str, ...] = ("description", "objective", "context", "tool_defs", "resources")
USER_FIELDS: tuple[str, ...] = ("input", "previous_result", "tool_calls", "tool_results", "retry")
"""The declared (documented) order. Upstream's real order is the Elixir map's: alphabetical on
OTP <= 25, unspecified on OTP >= 26 (OTP-18414), hence the ``order`` option."""

_ORDERS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = MappingProxyType(
    {
        "declared": (SYSTEM_FIELDS, USER_FIELDS),
        "alphabetical": (tuple(sorted(SYSTEM_FIELDS)), tuple(sorted(USER_FIELDS))),
    }
)

# Fields of Agens.Message that exist upstream but never reach the prompt: accepted and ignored, so a
# whole message (as JSON, say) can be passed in.
_IGNORED_MESSAGE_FIELDS = frozenset(
    {
        "caller", "id", "run_id", "parent_run_id", "system", "user", "result", "agent_id",
        "serving_name", "job_id", "node_id", "outputs", "thread_id", "next",
    }
)  # fmt: skip

# Where to_prompt puts the Agens fields that the core model has no own field for.
_DESCRIPTION_SECTION = ("info", "job_description")
_OBJECTIVE_SECTION = ("instruct", "node_objective")
_EMPTY_RESULTS_SECTION = ("custom", "tool_results")

_EXPRESSED_FIELDS = frozenset(
    {
        "identity", "system", "developer", "context", "instruction", "sections", "tools", "tool_calls",
        "tool_results", "resources", "previous_result", "retry", "output",
    }
)  # fmt: skip


# --- the Agens message -------------------------------------------------------------------------------


def _kind(value: object) -> str:
    return "None" if value is None else type(value).__name__


def _type_error(expected: str, value: object, why: str = "") -> PydanticCustomError:
    return PydanticCustomError("agens_type", "must be {expected}, not {kind}{why}",
                               {"expected": expected, "kind": _kind(value), "why": why})  # fmt: skip


class AgensResource(BaseModel):
    """``Agens.Resource``. ``content`` None means "not loaded" and leaves the resource out."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    uri: str
    name: str
    description: str | None = None
    content: str | None = None


class AgensMessage(BaseModel):
    """The fields of ``Agens.Message`` that feed the prompt.

    Text fields take what ``prompt_field/1`` can print: a string, or a list or map printed as JSON.
    The other ``Agens.Message`` fields (``id``, ``caller``, ``result`` ...) are accepted and ignored;
    any other key is an error, so a misspelt field never vanishes silently. :meth:`parse` (and every
    function here that takes a message) raises :class:`FieldError` naming the bad field; calling the
    constructor directly raises pydantic's ``ValidationError``, as any pydantic model does.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    input: str | list[Any] | dict[Any, Any]
    node_objective: str | list[Any] | dict[Any, Any] | None = None
    job_description: str | list[Any] | dict[Any, Any] | None = None
    previous_result: str | None = None
    resources: list[AgensResource] | None = None
    tool_defs: list[Any] | None = None
    tool_calls: list[Any] | None = None
    tool_results: dict[str, Any] | None = None
    retries: int = 0
    retry_reason: str | list[Any] | dict[Any, Any] | None = None

    @classmethod
    def parse(cls, data: AgensMessage | Mapping[str, Any]) -> AgensMessage:
        """Validate a message given as data; bad data raises :class:`FieldError` naming the field."""
        return _coerce_message(data)

    @model_validator(mode="before")
    @classmethod
    def _drop_non_prompt_fields(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            return {key: value for key, value in data.items() if key not in _IGNORED_MESSAGE_FIELDS}
        return data

    @field_validator("input", mode="before")
    @classmethod
    def _check_input(cls, value: Any) -> Any:
        if value is None:
            raise PydanticCustomError("agens_missing", "is required (Agens refuses a message without input)")
        return _check_text(value)

    @field_validator("node_objective", "job_description", "retry_reason", mode="before")
    @classmethod
    def _check_optional_text(cls, value: Any) -> Any:
        return None if value is None else _check_text(value)

    @field_validator("previous_result", mode="before")
    @classmethod
    def _check_previous_result(cls, value: Any) -> Any:
        if value is None or isinstance(value, str):
            return value
        raise _type_error("a string", value, " (Agens crashes on anything else)")

    @field_validator("resources", "tool_defs", "tool_calls", mode="before")
    @classmethod
    def _check_list(cls, value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, list):
            raise _type_error("a list", value)
        if any(item is None for item in value):
            raise PydanticCustomError("agens_item", "items cannot be None")
        return value

    @field_validator("tool_results", mode="before")
    @classmethod
    def _check_tool_results(cls, value: Any) -> Any:
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise _type_error("a map of tool call id to result", value)
        for key in value:
            if not isinstance(key, str):
                raise PydanticCustomError(
                    "agens_key", "keys are tool call ids and must be strings, not {kind}", {"kind": _kind(key)}
                )
        return dict(value)

    @field_validator("retries", mode="before")
    @classmethod
    def _check_retries(cls, value: Any) -> Any:
        if value is None:
            return 0
        if isinstance(value, bool) or not isinstance(value, int):
            raise _type_error("a whole number of retries", value)
        if value < 0:
            raise PydanticCustomError("agens_retries", "cannot be negative")
        return value


def _check_text(value: Any) -> Any:
    if isinstance(value, str | list | dict):
        return value
    if isinstance(value, Mapping):
        return dict(value)
    raise _type_error("a string, a list or a map", value, " (Agens' prompt_field/1 prints nothing else)")


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


# --- Agens message -> core Prompt ------------------------------------------------------------------


def to_prompt(message: AgensMessage | Mapping[str, Any], context: str | None = None) -> Prompt:
    """The core :class:`Prompt` for an Agens message and its ``context`` (``load_context/2``'s result).

    Rendering the result with the ``agens`` renderer gives Agens' own bytes; other renderers get the
    same content in their layout. The mapping is in ``docs/agens.md``.
    """
    msg = _coerce_message(message)
    _check_context(context)
    _check_encodable(msg)
    sections = [
        Section(kind=kind, key=key, value=value)
        for (kind, key), value in (
            (_DESCRIPTION_SECTION, msg.job_description),
            (_OBJECTIVE_SECTION, msg.node_objective),
        )
        if not _blank(value)
    ]
    if msg.tool_results == {}:
        kind, key = _EMPTY_RESULTS_SECTION
        sections.append(Section(kind=kind, key=key, value={}))
    return Prompt(
        system=None if _blank(context) else context,
        instruction=None if _blank(msg.input) else msg.input,
        sections=sections,
        tools=[
            ToolDefinition(name=_tool_name(item, index), native=item) for index, item in enumerate(msg.tool_defs or ())
        ],
        tool_calls=[_tool_call(item) for item in msg.tool_calls or ()],
        tool_results=[_tool_result(key, value) for key, value in (msg.tool_results or {}).items()],
        resources=[Resource(**resource.model_dump()) for resource in msg.resources or ()],
        previous_result=None if _blank(msg.previous_result) else msg.previous_result,
        retry=_retry(msg),
    )


def _coerce_message(message: AgensMessage | Mapping[str, Any]) -> AgensMessage:
    if isinstance(message, AgensMessage):
        return message
    if not isinstance(message, Mapping):
        raise FieldError("message", f"must be an AgensMessage or a mapping of its fields, not {_kind(message)}")
    for key in message:
        if key == "context":
            raise FieldError("context", "is not a field of Agens.Message; pass it as the context argument")
        if not isinstance(key, str):
            raise FieldError("message", f"field names must be strings, not {_kind(key)}")
    return validate_model(AgensMessage, message)


def _check_context(context: object) -> None:
    if context is not None and not isinstance(context, str):
        raise FieldError("context", f"must be a string or None, not {_kind(context)} (Agens crashes on anything else)")


def _check_encodable(msg: AgensMessage) -> None:
    """Fail on the message's own field path, before the values travel into a Prompt."""
    for name in (
        "input",
        "node_objective",
        "job_description",
        "retry_reason",
        "tool_defs",
        "tool_calls",
    ):
        value = getattr(msg, name)
        if value is not None and not isinstance(value, str):
            jason.encode(value, (name,))


def _blank(value: object) -> bool:
    """Agens drops exactly two values: ``nil`` and ``""`` (``[]`` and ``%{}`` stay)."""
    return value is None or (isinstance(value, str) and value == "")


def _tool_name(item: object, index: int) -> str:
    """A name for an opaque Agens tool definition (a tool name, a JSON string or a map)."""
    described = item
    if isinstance(item, str):
        try:
            described = json.loads(item)
        except ValueError:
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


def _retry(msg: AgensMessage) -> Retry | None:
    """Agens retries when ``retries > 0``; the reason (if any) prints as text, a list or map as JSON."""
    if msg.retries <= 0:
        return None
    reason = msg.retry_reason
    text = reason if reason is None or isinstance(reason, str) else jason.encode(reason, ("retry_reason",))
    return Retry(reason=None if _blank(text) else text, attempt=msg.retries)


# --- core Prompt -> Agens pairs -----------------------------------------------------------------------


def prompt_pairs(
    prompt: Prompt, prefixes: Mapping[str, Sequence[str]] | None = None, order: str = "declared"
) -> tuple[list[Pair], list[Pair]]:
    """``Prompt.build/3`` for any prompt: the ``((heading, detail), value)`` pairs of each message."""
    system, user = _named_pairs(prompt, prefixes, order)
    return [pair for _, pair in system], [pair for _, pair in user]


def _named_pairs(
    prompt: Prompt, prefixes: Mapping[str, Sequence[str]] | None, order: str
) -> tuple[list[tuple[str, Pair]], list[tuple[str, Pair]]]:
    """The pairs, each with the Agens field it came from (custom prefixes may rename the heading)."""
    keys = _order(order)
    table = _prefix_table(prefixes)
    values = {name: value for name, value in _section_values(prompt).items() if value is not None and value != ""}
    system, user = ([(name, (table[name], values[name])) for name in names if name in values] for names in keys)
    return system, user


def _order(order: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if not isinstance(order, str) or order not in _ORDERS:
        raise FieldError("order", f"must be 'declared' or 'alphabetical', not {order!r}")
    return _ORDERS[order]


def _prefix_table(prefixes: Mapping[str, Sequence[str]] | None) -> dict[str, Prefix]:
    table = dict(DEFAULT_PREFIXES)
    if prefixes is None:
        return table
    if not isinstance(prefixes, Mapping):
        raise FieldError("prefixes", f"must be a mapping of field name to (heading, detail), not {_kind(prefixes)}")
    for name, prefix in prefixes.items():
        if name not in DEFAULT_PREFIXES:
            known = ", ".join(DEFAULT_PREFIXES)
            raise FieldError(("prefixes", str(name)), f"unknown Agens prefix (known: {known})")
        table[name] = _prefix(prefix, name)
    return table


def _prefix(prefix: object, name: str) -> Prefix:
    if (
        isinstance(prefix, tuple | list)
        and len(prefix) == 2
        and isinstance(prefix[0], str)
        and isinstance(prefix[1], str)
    ):
        return (prefix[0], prefix[1])
    raise FieldError(("prefixes", name), f"must be a (heading, detail) pair of strings, not {prefix!r}")


def _section_values(prompt: Prompt) -> dict[str, PairValue | None]:
    description, objective, others = _split_sections(prompt.sections)
    return {
        "description": _pair_value(description, "sections"),
        "objective": _pair_value(objective, "sections"),
        "context": _context_text(prompt, others),
        "tool_defs": [_tool_def_value(tool) for tool in prompt.tools] or None,
        "resources": _resources_text(prompt.resources),
        "input": _pair_value(prompt.instruction, "instruction"),
        "previous_result": _pair_value(prompt.previous_result, "previous_result"),
        "tool_calls": [_tool_call_value(call) for call in prompt.tool_calls] or None,
        "tool_results": _tool_results_value(prompt),
        "retry": _retry_text(prompt.retry),
    }


def _split_sections(sections: Sequence[Section]) -> tuple[object, object, list[tuple[int, Section]]]:
    """Take the first job description and node objective; the other sections (with their index in
    ``prompt.sections``, for error paths) go to Context."""
    found: dict[tuple[str, str | None], object] = {}
    others: list[tuple[int, Section]] = []
    for index, section in enumerate(sections):
        slot = (section.kind, section.key)
        if slot in (_DESCRIPTION_SECTION, _OBJECTIVE_SECTION) and slot not in found:
            found[slot] = section.value
        elif slot != _EMPTY_RESULTS_SECTION:
            others.append((index, section))
    return found.get(_DESCRIPTION_SECTION), found.get(_OBJECTIVE_SECTION), others


def _pair_value(value: object, field: str) -> PairValue | None:
    """What ``prompt_field/1`` can print: strings, lists and maps; other JSON values as their text."""
    if value is None or isinstance(value, str | list | dict):
        return value
    if isinstance(value, Mapping):
        return dict(value)
    return jason.encode(value, (field,))


def _context_text(prompt: Prompt, sections: list[tuple[int, Section]]) -> str | None:
    """Agens has one system-side text slot, Context: identity, system and developer text, context
    items and any other sections go there, in that order, separated by blank lines."""
    parts: list[str] = []
    if prompt.identity is not None:
        identity = f"You are {prompt.identity.role}."
        parts.append(identity + (f"\n{prompt.identity.description}" if prompt.identity.description else ""))
    parts.extend(text for text in (prompt.system, prompt.developer) if text)
    parts.extend(_context_item_text(item, index) for index, item in enumerate(prompt.context))
    parts.extend(
        _titled(section.key or section.kind, _body(section.value, ("sections", index, "value")))
        for index, section in sections
    )
    return "\n\n".join(parts) or None


def _context_item_text(item: ContextItem, index: int) -> str:
    value = item.value if item.budget is None else clip(item.value, item.budget.context_limit).value
    body = _body(value, ("context", index, "value"))
    return body if item.label is None else _titled(item.label, body)


def _titled(title: str, body: str) -> str:
    # The same sub-heading Agens gives a resource ("### uri").
    return f"### {title}\n\n{body}"


def _body(value: object, path: Sequence[str | int]) -> str:
    return value if isinstance(value, str) else jason.encode(value, path)


def _tool_def_value(tool: ToolDefinition) -> object:
    """The Agens form kept by the front door, else an MCP tool description (name, description, inputSchema)."""
    if tool.native is not None:
        return tool.native
    described: dict[str, Any] = {"name": tool.name}
    if tool.description:
        described["description"] = tool.description
    if tool.parameters:
        described["inputSchema"] = tool.parameters
    return described


def _tool_call_value(call: ToolCall) -> object:
    """The Agens form kept by the front door, else ``Agens.Schema.tools/0``'s call shape."""
    if call.native is not None:
        return call.native
    described: dict[str, Any] = {
        "name": call.name,
        "arguments": [{"key": key, "value": value} for key, value in call.arguments.items()],
        "type": "tool_call",
    }
    if call.id is not None:
        described["id"] = call.id
    return described


def _tool_results_value(prompt: Prompt) -> dict[str, Any] | None:
    """Agens' ``%{tool_id => result}``. A result without a call id is keyed by its tool name or position."""
    results: dict[str, Any] = {}
    for index, result in enumerate(prompt.tool_results):
        key = result.call_id if result.call_id is not None else (result.name or str(index))
        if key in results:
            raise FieldError(
                ("tool_results", index, "call_id"), f"two results for call {key!r}: Agens keys results by call id"
            )
        results[key] = result.content
    if results:
        return results
    # The front door's marker for an empty %{} map, which Agens keeps and prints as {}.
    empty = any((section.kind, section.key) == _EMPTY_RESULTS_SECTION for section in prompt.sections)
    return {} if empty else None


def _resources_text(resources: Iterable[Resource]) -> str | None:
    """Loaded resources as fenced blocks; ``name`` and ``description`` are not shown, as upstream."""
    blocks = [f"### {r.uri}\n\n```\n{r.content}\n```" for r in resources if r.content is not None]
    return "\n\n".join(blocks) or None


def _retry_text(retry: Retry | None) -> str | None:
    if retry is None:
        return None
    return GENERIC_RETRY if _blank(retry.reason) else retry.reason


# --- the front door ------------------------------------------------------------------------------------


def build(
    message: AgensMessage | Mapping[str, Any],
    prefixes: Mapping[str, Sequence[str]] | None = None,
    context: str | None = None,
    order: str = "declared",
) -> tuple[list[Pair], list[Pair]]:
    """``Agens.Prompt.build/3``: the system and user ``((heading, detail), value)`` pairs.

    ``prefixes`` overrides the default ``(heading, detail)`` of the fields it names (keys are the
    ``Agens.Prefixes`` field names). ``order="alphabetical"`` reproduces Agens on OTP <= 25.
    """
    return prompt_pairs(to_prompt(message, context), prefixes, order)


def render(
    message: AgensMessage | Mapping[str, Any],
    prefixes: Mapping[str, Sequence[str]] | None = None,
    context: str | None = None,
    order: str = "declared",
) -> tuple[str, str]:
    """The ``{system, user}`` strings of Agens' default ``build_prompt/3``."""
    system, user, _ = _render_text(to_prompt(message, context), prefixes, order)
    return system, user


def _render_text(
    prompt: Prompt, prefixes: Mapping[str, Sequence[str]] | None, order: str
) -> tuple[str, str, list[RenderedSection]]:
    """``build_prompt/3``: ``prompt_field/1`` on every pair, a message's sections joined by ``"\\n"``."""
    texts: list[str] = []
    sections: list[RenderedSection] = []
    for role, named in zip(("system", "user"), _named_pairs(prompt, prefixes, order), strict=True):
        chunks = []
        for field, ((heading, detail), value) in named:
            body = _body(value, (field,))
            chunks.append(f"## {heading}\n{detail}:\n\n{body}\n")
            sections.append(RenderedSection(role=role, key=field, title=heading, detail=detail, body=body))
        texts.append("\n".join(chunks))
    return texts[0], texts[1], sections


# --- the registered renderer and reader ----------------------------------------------------------


class AgensRenderer:
    """The ``agens`` format: any :class:`Prompt` as Agens' system and user strings.

    Options: ``prefixes`` (field name -> ``(heading, detail)``), ``order`` (``"declared"`` or
    ``"alphabetical"``) and ``strict`` (refuse prompts with fields Agens cannot show).
    """

    name = "agens"
    description = "Agens 0.2.0 system/user prefix pairs: '## heading\\ndetail:\\n\\nbody' sections"
    fields: frozenset[str] = _EXPRESSED_FIELDS

    def render(
        self,
        prompt: Prompt,
        *,
        prefixes: Mapping[str, Sequence[str]] | None = None,
        order: str = "declared",
        strict: bool = False,
    ) -> RenderedPrompt:
        warnings = unexpressed_fields(prompt, self.name, self.fields, strict=strict)
        system, user, sections = _render_text(prompt, prefixes, order)
        return RenderedPrompt(
            format=self.name,
            # Agens hands the host both strings, the system one even when it is "".
            messages=(Message("system", system), Message("user", user)),
            sections=tuple(sections),
            warnings=warnings,
        )


class AgensReader:
    """``asrender render --from agens``: an Agens message as data, plus an optional ``context`` key
    (upstream's third argument to ``build/3``, which a file has no other place for)."""

    name = "agens"
    description = "an Agens.Message (its prompt fields) as JSON/YAML data"

    def read(self, data: Any) -> Prompt:
        if not isinstance(data, Mapping):
            raise FieldError("message", f"must be a mapping of Agens.Message fields, not {_kind(data)}")
        fields = {key: value for key, value in data.items() if key != "context"}
        return to_prompt(fields, data.get("context"))


renderer = AgensRenderer()
reader = AgensReader()
