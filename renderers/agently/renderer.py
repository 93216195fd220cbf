"""The registered ``agently`` format: any core ``Prompt`` in Agently's layout (the core -> Agently bridge).

The renderer maps the ``Prompt`` to an Agently prompt dict (:func:`map_prompt`) and renders it with
the clone of Agently's generator (``_agently``): ``text`` is ``to_text()``, ``messages`` is
``to_messages()`` called the way Agently's OpenAI-compatible model requester calls it (rich content
only when there are attachments, no strict role order), unless the options say otherwise. Unlike
``AgentlyPrompt`` used directly, it renders every prompt (Agently refuses one with no input, info,
instruct, output or attachment) and emits no Python warning: Agently's own warnings come back as
records on the result, like every other thing the format leaves out.

Values are handed to Agently as the model should read them. Agently prints an ``info`` value, and a
scalar section body, with Python's ``str()``: a dict comes out as ``{'id': 4711}``, ``True`` as
``True``, ``None`` as ``None``. ``AgentlyPrompt`` keeps that for a user's own Agently dict (it is
Agently's behaviour), but a core ``Prompt`` is shown as a model reads data: one line of JSON where
Agently prints a value inline (``- key: value``), and YAML, Agently's own section form, where it
prints a block. Context items are fitted to their budgets in that text, and whatever Agently has no
place for comes back as a :class:`RenderWarning` instead of disappearing. The reverse direction,
Agently data read into a ``Prompt``, is the reader (``reader.py``). The field table is in
``docs/agently.md``.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import FieldError
from ...core.fitting import TextForm, fit
from ...core.json_text import all_text
from ...core.nesting import check_nesting
from ...core.prompt import ChatTurn, ContextItem, Prompt, Section, ToolDefinition, ToolResult
from ...core.rendered import Message, RenderedPrompt, RenderWarning
from ..base import unexpressed_fields
from ..parts import media_content
from ._agently import layout
from ._agently.declarations import KNOWN_FORMATS, SchemaNotes, schema_to_declaration
from ._agently.errors import AgentlyFieldError, Notice, collecting, is_digit_limit, printable
from ._agently.prompt import agently_clock
from ._agently.prompt_object import DECLARED_FIELDS, ChatMsg, PromptObject, read_message, read_prompt
from ._agently.sanitize import sanitize
from ._agently.storage import AgentlySettings, resolve_settings
from ._agently.yaml_blocks import dump_yaml, section_body, shared_parts_as_anchors

__all__ = ["AgentlyRenderer", "Mapped", "map_prompt", "renderer"]

FORMAT = "agently"


# --- values as the model reads them ---------------------------------------------------------------

_JSON_SCALARS = (bool, int, float)


def _set_items(value: Any) -> Any:
    if isinstance(value, set | frozenset):
        # A set has no order; sort its text forms so the bytes are the same on every run.
        return sorted(value, key=lambda item: (type(item).__name__, str(item)))
    if isinstance(value, tuple):
        return list(value)
    return str(value)


def _json(value: Any, field: str) -> str:
    try:
        try:
            return json.dumps(value, ensure_ascii=False)
        except TypeError:
            # Not plain JSON data (a date, a class, a tuple key, a set...): Agently's sanitize makes
            # it data; one that becomes text (a date's ISO form, a type's name) is shown as that text.
            sanitized = sanitize(value)
            if isinstance(sanitized, str):
                return sanitized
            return json.dumps(sanitized, ensure_ascii=False, default=_set_items)
    except ValueError as error:
        if is_digit_limit(error):
            raise AgentlyFieldError(field, "an integer has too many digits to be printed") from None
        raise AgentlyFieldError(field, f"cannot be printed as JSON: {error}") from None


def _inline_text(value: Any, field: str) -> str:
    """The text Agently shows for ``value`` on one line (``- key: <text>``): text as is, else JSON."""
    if isinstance(value, str):
        return value
    return _json(value, field)


def _scalar_text(value: Any, field: str) -> Any:
    """A scalar section body as JSON text (``true``, ``null``, ``0``); text and containers unchanged."""
    if value is None or (isinstance(value, _JSON_SCALARS) and not isinstance(value, str)):
        return _json(value, field)
    return value


# --- the mapping: a core Prompt as an Agently prompt dict -----------------------------------------


@dataclass
class Mapped:
    """The Agently prompt dict for a Prompt, and what the mapping had to change or leave out."""

    data: dict[str, Any] = field(default_factory=dict)
    warnings: list[RenderWarning] = field(default_factory=list)

    def warn(self, field_path: str, reason: str) -> None:
        self.warnings.append(RenderWarning(FORMAT, field_path, reason))


# --- sections -------------------------------------------------------------------------------------


def _by_kind(sections: Sequence[Section], kind: str) -> list[tuple[int, Section]]:
    return [(index, section) for index, section in enumerate(sections) if section.kind == kind]


def _merged(sections: list[tuple[int, Section]], *, keyed: bool, shown: Any) -> Any:
    """One Agently value for the sections of one kind: the value itself, a key->value map, or a list.

    ``info`` keeps a lone section's key (Agently lists info as ``- key: value``); ``instruct`` and
    ``examples`` show a lone section's value as it is. ``shown`` turns each value into what Agently
    is to print.
    """
    values = [shown(section.value, f"sections[{index}].value") for index, section in sections]
    keys = [section.key for _, section in sections]
    if len(sections) == 1 and (keys[0] is None or not keyed):
        return values[0]
    if all(key is not None for key in keys) and len(set(keys)) == len(keys):
        return dict(zip(keys, values, strict=True))
    if len(sections) == 1:
        return values[0]
    return list(values)


def _info_value(value: Any, path: str) -> Any:
    """Agently prints info inline (``- key: value``, ``- item`` or the lone text): give it text.

    A dict or list that holds text only (the usual big info) is that text already: it is handed on
    as it is, not copied (100,000 entries: a copy took half the render's time and 3.9 MB).
    """
    if isinstance(value, dict | list) and set(map(type, value.values() if isinstance(value, dict) else value)) <= {str}:
        return value
    if isinstance(value, dict):
        return {key: _inline_text(item, f"{path}.{key}") for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_inline_text(item, f"{path}[{index}]") for index, item in enumerate(value)]
    return _inline_text(value, path)


# --- context --------------------------------------------------------------------------------------


def _labels(items: Sequence[ContextItem], mapped: Mapped) -> list[str]:
    """One distinct key per item: its label (or source); a repeated one gets the first free ``_N``."""
    wanted = [item.label or item.source or f"context_{index}" for index, item in enumerate(items)]
    taken = set(wanted)
    seen: set[str] = set()
    labels: list[str] = []
    for index, label in enumerate(wanted):
        if label in seen:
            number = 2
            while f"{label}_{number}" in taken:
                number += 1
            renamed = f"{label}_{number}"
            taken.add(renamed)
            mapped.warn(
                f"context[{index}].label",
                f"the label {label!r} is already used by another context item; shown as {renamed!r}",
            )
            label = renamed
        seen.add(label)
        labels.append(label)
    return labels


def _inline_form(path: str) -> TextForm:
    return TextForm(text=lambda value: _inline_text(value, path))


def _block_form(path: str) -> TextForm:
    return TextForm(text=lambda value: section_body(_scalar_text(value, path), {}))


def _context(prompt: Prompt, mapped: Mapped, *, inline: bool) -> dict[str, Any]:
    """The context items by label, each fitted to its budget in the text Agently shows for it."""
    entries: dict[str, Any] = {}
    labels = _labels(prompt.context, mapped)
    for index, (label, item) in enumerate(zip(labels, prompt.context, strict=True)):
        path = f"context[{index}].value"
        limit = item.budget.context_limit if item.budget is not None else None
        if inline:
            entries[label] = fit(item.value, limit, _inline_form(path)).text
        elif limit is None:
            entries[label] = _scalar_text(item.value, path)
        else:
            entries[label] = _scalar_text(fit(item.value, limit, _block_form(path)).value, path)
    return entries


# --- tools and results ----------------------------------------------------------------------------


def _report_schema(mapped: Mapped, notes: SchemaNotes, where: str) -> None:
    for path, keywords in notes.left_out:
        listed = ", ".join(keywords)
        mapped.warn(path, f"{where} has no place for the schema keyword(s) {listed}; left out")


def _tool(tool: ToolDefinition, index: int, mapped: Mapped) -> Any:
    native = tool.native
    if native is None and not tool.parameters and tool.returns is None:  # a name and a description
        return {"name": tool.name, "desc": tool.description, "kwargs": {}}
    if isinstance(native, dict) and {"name", "desc", "kwargs"} <= set(native):
        return native
    notes = SchemaNotes()
    path = f"tools[{index}].parameters"
    kwargs: Any = {}
    if tool.parameters:
        kwargs = schema_to_declaration(tool.parameters, path, notes, output=False)
        if not isinstance(kwargs, dict):
            mapped.warn(path, "Agently's tool kwargs are named arguments; a schema that is not an object is left out")
            kwargs = {}
    data: dict[str, Any] = {"name": tool.name, "desc": tool.description, "kwargs": kwargs}
    if tool.returns is not None:
        returns = tool.returns
        if isinstance(returns, dict) and ("type" in returns or "properties" in returns):
            returns = schema_to_declaration(returns, f"tools[{index}].returns", notes, output=False)
        data["returns"] = returns
    _report_schema(mapped, notes, "Agently's tool description")
    return data


def _action_results(results: list[ToolResult]) -> Any:
    """Agently's ``action_results``: a map keyed by tool name, or by call id when names repeat.

    A failed call keeps its failure visible as ``{"error": content}`` (Agently has no error flag).
    """
    values = [{"error": result.content} if result.is_error else result.content for result in results]
    for keys in ([result.name for result in results], [result.call_id for result in results]):
        if all(key is not None for key in keys) and len(set(keys)) == len(keys):
            return dict(zip(keys, values, strict=True))
    if len(results) == 1:
        # A lone result is the section's body, which Agently prints with str(): give it JSON text.
        return _scalar_text(values[0], "tool_results[0].content")
    return values


# --- output ---------------------------------------------------------------------------------------


def _output(prompt: Prompt, mapped: Mapped) -> None:
    contract = prompt.output
    if contract is None:
        return
    data = mapped.data
    if contract.dialect == "agently" and contract.native is not None:
        data["output"] = contract.native
        if contract.format is not None:
            if contract.format in KNOWN_FORMATS:
                data["output_format"] = contract.format
            else:
                # Agently shows no output requirement at all for a format it does not know.
                mapped.warn(
                    "output.format",
                    f"Agently 4.1.4.10 has no output format {contract.format!r} (it would show no output "
                    "requirement); shown in the default format instead",
                )
    else:
        notes = SchemaNotes()
        data["output"] = schema_to_declaration(contract.json_schema, "output", notes, output=True)
        _report_schema(mapped, notes, "Agently's output structure")
    if prompt.config.strict:
        data["ensure_all_keys"] = True


def _instruction(value: Any) -> Any:
    """The ``input`` value: Agently hides a falsy one, so a given ``0``/``False``/``[]`` goes as text."""
    if isinstance(value, list | dict | tuple) and not value:
        return dump_yaml(value)
    return _scalar_text(value, "instruction")


# --- the whole prompt -----------------------------------------------------------------------------


def _chat_message(turn: ChatTurn) -> dict[str, Any]:
    return {"role": turn.role, "content": media_content(turn.content)}


def _read_turn(turn: ChatTurn, index: int) -> ChatMsg:
    """``read_message(_chat_message(turn), index)``, without the dict for a turn whose role is text
    and whose content is text or parts (every turn but one whose fields are subclasses): the dict
    would be read as exactly these two values (per turn of a history of 100,000s)."""
    role, content = turn.role, media_content(turn.content)
    if type(role) is str and (type(content) is str or type(content) is list):
        return ChatMsg(role, content)
    return read_message({"role": role, "content": content}, index)


def map_prompt(prompt: Prompt, *, history: bool = True) -> Mapped:
    """The Agently prompt dict for ``prompt``, with warnings for what was changed or left out.

    Context items join ``info`` (label -> value, fitted to their budgets); fields Agently has no
    place for (identity, tool calls, resources, previous result, retry) are left out here, and the
    renderer reports them. ``history=False`` leaves the chat history out, for a caller that reads
    it message by message (``read_prompt(..., chat_history=...)``).
    """
    mapped = Mapped()
    data = mapped.data
    if prompt.system is not None:
        data["system"] = prompt.system
    if prompt.developer is not None:
        data["developer"] = prompt.developer
    if prompt.history and history:
        data["chat_history"] = [_chat_message(turn) for turn in prompt.history]
    if prompt.tools:
        data["tools"] = [_tool(tool, index, mapped) for index, tool in enumerate(prompt.tools)]
    if prompt.tool_results:
        data["action_results"] = _action_results(prompt.tool_results)
    info_sections = _by_kind(prompt.sections, "info")
    info = _merged(info_sections, keyed=True, shown=lambda value, path: value) if info_sections else None
    info_path = f"sections[{info_sections[0][0]}].value" if len(info_sections) == 1 else "sections"
    custom: dict[str, Any] = {}
    if prompt.context:
        labels = set(_labels(prompt.context, Mapped()))
        joins_info = not info_sections or (isinstance(info, dict) and not info.keys() & labels)
        context = _context(prompt, mapped, inline=joins_info)
        if joins_info:
            info = {**(info or {}), **context}
        else:
            custom["context"] = context
    if info_sections or prompt.context:
        data["info"] = _info_value(info, info_path)
    for index, section in _by_kind(prompt.sections, "custom"):
        key = section.key or "custom"
        if key in DECLARED_FIELDS or key in custom:
            raise FieldError("sections", f"the custom section {key!r} would clash with another Agently prompt key")
        custom[key] = _scalar_text(section.value, f"sections[{index}].value")
    data.update(custom)
    for kind in ("instruct", "examples"):
        chosen = _by_kind(prompt.sections, kind)
        if chosen:
            data[kind] = _merged(chosen, keyed=False, shown=_scalar_text)
    if prompt.instruction is not None and prompt.instruction != "":
        data["input"] = _instruction(prompt.instruction)
    if prompt.attachments:
        data["attachment"] = media_content(prompt.attachments)
    _output(prompt, mapped)
    if prompt.config.temperature is not None:
        data["options"] = {"temperature": prompt.config.temperature}
    return mapped


# --- the renderer ----------------------------------------------------------------------------------

_EXPRESSED_FIELDS = frozenset(
    {
        "system",
        "developer",
        "context",
        "instruction",
        "sections",
        "history",
        "attachments",
        "tools",
        "tools.returns",
        "tool_results",
        "tool_results.is_error",
        "output",
    }
)

# Agently's prompt keys, as the core Prompt fields they came from (for Agently's own warnings).
_CORE_FIELDS = {"chat_history": "history", "attachment": "attachments", "output_format": "output.format"}


def _core_field(path: str) -> str:
    for agently, core in _CORE_FIELDS.items():
        if path.startswith(agently):
            return core + path[len(agently) :]
    return path


def _warning(notice: Notice) -> RenderWarning:
    return RenderWarning(FORMAT, _core_field(notice.field), notice.message)


def _message(role: Any, content: Any) -> Message:
    return Message(str(role), content)


def _read(prompt: Prompt, settings: AgentlySettings) -> tuple[Mapped, PromptObject]:
    """The prompt mapped and read as ``read_prompt(map_prompt(prompt).data)`` reads it.

    The chat history is read turn by turn, each turn's Agently dict made only to be read: all of
    them at once cost five times the history's text (120,000 turns: 23 MB for 4.4 MB).
    """
    mapped = map_prompt(prompt, history=False)
    history = prompt.history
    chat_history: Iterable[ChatMsg] | None = None
    if history:
        roles, contents = list(map(_ROLE, history)), list(map(_CONTENT, history))
        if all_text(roles) and all_text(contents):  # the usual history: read in bulk, a message each
            chat_history = list(map(ChatMsg, roles, contents))
        else:
            chat_history = (_read_turn(turn, index) for index, turn in enumerate(history))
    return mapped, read_prompt(mapped.data, settings, chat_history=chat_history)


_ROLE: Callable[[ChatTurn], Any] = operator.attrgetter("role")
_CONTENT: Callable[[ChatTurn], Any] = operator.attrgetter("content")
"""A turn's role and content, read in C for each turn of a history."""


def _has_parts(prompt: Prompt) -> bool:
    if not prompt.attachments and all_text(list(map(_CONTENT, prompt.history))):
        return False  # a history of text, the usual one: told in C
    return bool(prompt.attachments) or any(
        not isinstance(turn.content, str) and any(part.type != "text" for part in turn.content)
        for turn in prompt.history
    )


def _check_options(
    settings: Any, clock: Any, role_mapping: Any, rich_content: Any, strict_role_orders: Any, strict: Any
) -> None:
    """Options are user data too: refuse a wrong one by name before anything is rendered."""
    if settings is not None:
        if not isinstance(settings, Mapping) or not all(isinstance(key, str) for key in settings):
            raise FieldError("settings", "must be a mapping of Agently's dotted setting keys to values")
        check_nesting(settings, ("settings",))
    if clock is not None and not callable(clock):
        raise FieldError("clock", f"must be a function that returns the time as text, not {type(clock).__name__}")
    if role_mapping is not None and not (
        isinstance(role_mapping, Mapping)
        and all(isinstance(key, str) and isinstance(value, str) for key, value in role_mapping.items())
    ):
        raise FieldError("role_mapping", "must be a mapping of role names to role names (text to text)")
    if rich_content is not None and not isinstance(rich_content, bool):
        raise FieldError("rich_content", f"must be true, false or unset, not {rich_content!r}")
    for name, value in (("strict_role_orders", strict_role_orders), ("strict", strict)):
        if not isinstance(value, bool):
            raise FieldError(name, f"must be true or false, not {value!r}")


def _clock_text(clock: Callable[[], Any]) -> Callable[[], str]:
    def read() -> str:
        value = clock()
        if not isinstance(value, str):
            raise FieldError("clock", f"must return the time as text, returned {type(value).__name__}")
        return value

    return read


class AgentlyRenderer:
    """The ``agently`` format: Agently 4.1.4.10's ``to_text`` and ``to_messages`` for any Prompt.

    Options: ``settings`` (Agently's dotted settings, e.g. ``{"prompt.role_mapping": {...}}``),
    ``clock`` (for ``prompt.add_current_time``), ``role_mapping``, ``rich_content`` (default: only
    when the prompt has attachments or history turns with non-text parts, so none are skipped),
    ``strict_role_orders`` (default ``False``) and ``strict``.
    """

    name = FORMAT
    description = "Agently 4.1.4.10 prompt generator: '[SECTION]:' blocks with YAML bodies, user:/assistant: frame"
    fields: frozenset[str] = _EXPRESSED_FIELDS

    def render(
        self,
        prompt: Prompt,
        *,
        settings: Mapping[str, Any] | None = None,
        clock: Callable[[], str] | None = None,
        role_mapping: Mapping[str, str] | None = None,
        rich_content: bool | None = None,
        strict_role_orders: bool = False,
        strict: bool = False,
    ) -> RenderedPrompt:
        _check_options(settings, clock, role_mapping, rich_content, strict_role_orders, strict)
        warnings = list(unexpressed_fields(prompt, self.name, self.fields, strict=strict))
        with printable({"settings": settings}):
            resolved = resolve_settings(settings)
        read_clock = _clock_text(clock or agently_clock)
        rich = _has_parts(prompt) if rich_content is None else rich_content
        with printable({}), collecting() as notices, shared_parts_as_anchors():
            # The mapped dict is fresh and nothing below changes it: no copy as AgentlyPrompt makes.
            mapped, read = _read(prompt, resolved)
            bodies: dict[str, str] = {}
            main = layout.main_prompt(read, resolved, bodies)
            text = layout.to_text(read, resolved, role_mapping, read_clock, lambda: main)
            chat = layout.to_messages(
                read,
                resolved,
                role_mapping,
                rich,
                strict_role_orders,
                read_clock,
                lambda: main,
                _message,
                input_text=bodies.get("input"),
            )
        warnings.extend(mapped.warnings)
        seen: set[tuple[str, str]] = set()
        for notice in notices:
            # to_text and to_messages both say what they skip; one record per field and reason.
            record = _warning(notice)
            if (record.field, record.reason) not in seen:
                seen.add((record.field, record.reason))
                warnings.append(record)
        return RenderedPrompt(
            format=self.name,
            messages=tuple(chat),
            text=text,
            warnings=tuple(warnings),
            output=prompt.output,
        )


renderer = AgentlyRenderer()
