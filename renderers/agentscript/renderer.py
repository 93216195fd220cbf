"""The ``agentscript`` format: AgentScript 0.1.5's layered prompt text, byte for byte.

Two messages. The system message is ``"You are " + role + ".\\n" + description``. The final user
message is its sections joined by a single ``\\n`` (no blank lines, no trailing newline):

* ``Context:`` and, per context item *i*, ``[label]`` (or ``[i]``, the item's *global* index, when it
  has no label), ``source: <expr>``, then the value's text clipped to its budget (strings raw,
  anything else ``JSON.stringify(value, null, 2)``);
* ``Instruction:`` and the instruction's text, with AgentScript's repair text on a retry;
* ``Return JSON matching this schema:`` and the output contract's JSON Schema, pretty-printed.

Beyond what AgentScript itself produces (it always has an identity, sources and an instruction), a
core ``Prompt`` may lack them, so these choices keep every render a faithful superset:

* ``system`` text follows the identity lines in the system message (joined by ``\\n``), or is the
  whole system message when there is no identity; with neither there is no system message.
* An item without ``source`` (or with an empty one) has no ``source:`` line, as upstream would print.
* The ``Instruction:`` section appears when an instruction was given (an explicit ``None`` prints
  ``null``, like AgentScript's ``input: none``) or when there is a retry to explain.

Every other populated field is reported by one warning (an error with ``strict=True``).
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...core.errors import FieldError
from ...core.nesting import with_nesting_room
from ...core.rendered import Message, RenderedPrompt, RenderedSection, RenderWarning
from ..base import unexpressed_fields
from .clipping import Clip, clip, value_text
from .jsjson import object_entries, pretty, pretty_reused

if TYPE_CHECKING:
    from ...core.prompt import ContextItem, Prompt, Retry

__all__ = [
    "AgentScriptRenderer",
    "context_clips",
    "instruction_value",
    "renderer",
    "repair_message",
    "system_text",
    "user_text",
]

CONTEXT_HEADING = "Context:"
INSTRUCTION_HEADING = "Instruction:"
SCHEMA_HEADING = "Return JSON matching this schema:"

_REPAIR_OPENING = "Previous generation failed."
_REPAIR_CLOSING = "Return corrected JSON matching the requested schema only."

_FIELDS = frozenset(
    {"identity", "system", "context", "context.source", "instruction", "retry", "retry.previous_output", "output"}
)


class AgentScriptRenderer:
    """Renders a :class:`Prompt` as AgentScript 0.1.5 builds its ``generate`` prompt."""

    name = "agentscript"
    description = "AgentScript 0.1.5 layered text: identity system text; Context, Instruction, schema user message"
    fields: frozenset[str] = _FIELDS

    def render(self, prompt: Prompt, *, strict: bool = False) -> RenderedPrompt:
        return self._render(prompt, unexpressed_fields(prompt, self.name, self.fields, strict=strict), None)

    def render_with_clips(self, prompt: Prompt) -> tuple[RenderedPrompt, list[Clip]]:
        """The render, and what it showed of each context item (:func:`context_clips`), each value
        clipped once: a run's trace records the clips of the very render it sent."""
        clips: list[Clip] = []
        return self._render(prompt, unexpressed_fields(prompt, self.name, self.fields), clips), clips

    def render_layout(self, prompt: Prompt) -> RenderedPrompt:
        """The render without the report of the fields it leaves out, for a format that lays out the
        rest of the prompt around it and reports what neither expresses (``messages``). It reads only
        its own fields, so that format need not hide the others from it (a copy of the prompt, and a
        report it would throw away, on every render)."""
        return self._render(prompt, (), None)

    def _render(self, prompt: Prompt, warnings: tuple[RenderWarning, ...], clips: list[Clip] | None) -> RenderedPrompt:
        def walk(prompt: Prompt) -> list[RenderedSection]:
            if clips is not None:
                clips.clear()  # a walk that ran out of stack starts again
            return _sections(prompt, clips)

        sections = with_nesting_room(walk, prompt)  # the JSON walks recurse per level of a value
        messages = [Message(s.role, s.body) for s in sections if s.role == "system"]
        messages.append(Message("user", _join_user(sections)))
        # Positional, as the records below (a class called with keywords first builds a dict of them:
        # three times the cost of the call, on every render).
        return RenderedPrompt(self.name, tuple(messages), None, tuple(sections), warnings, (), prompt.output)


renderer = AgentScriptRenderer()


# --------------------------------------------------------------------------------------------
# System message


def system_text(prompt: Prompt) -> str | None:
    """``You are <role>.\\n<description>``, then any ``system`` text; None when there is neither."""
    fields = prompt.__dict__
    identity, system = fields["identity"], fields["system"]
    if system is None:  # the usual prompt: who the model is, or nothing
        return None if identity is None else f"You are {identity.role}.\n{identity.description}"
    return system if identity is None else f"You are {identity.role}.\n{identity.description}\n{system}"


# --------------------------------------------------------------------------------------------
# User message


def user_text(prompt: Prompt) -> str:
    """The final user message alone (what AgentScript's trace calls ``finalUserMessage``)."""
    return _join_user(_sections(prompt))


def _join_user(sections: list[RenderedSection]) -> str:
    lines: list[str] = []
    context_started = False
    for section in sections:
        if section.role != "user":
            continue
        if section.key.startswith("context[") and not context_started:
            lines.append(CONTEXT_HEADING)
            context_started = True
        lines.append(section.title)
        if section.detail is not None:
            lines.append(section.detail)
        lines.append(section.body)
    return "\n".join(lines)


def _sections(prompt: Prompt, clips: list[Clip] | None = None) -> list[RenderedSection]:
    """The render's parts in order; the user message is their lines joined by ``\\n``.

    A context item is one section: title ``[label]``, detail ``source: <expr>``, body the clipped
    text. The ``Context:`` line belongs to the layout, printed before the first item. Each item's
    clip is appended to ``clips`` when it is given.
    """
    fields = prompt.__dict__  # read without pydantic's attribute hook: this runs on every render
    sections: list[RenderedSection] = []
    system = system_text(prompt)
    if system is not None:
        sections.append(RenderedSection("system", "identity", "", system))
    for index, item in enumerate(fields["context"]):
        sections.append(_context_section(index, item, clips))
    retry, instruction = fields["retry"], fields["instruction"]
    if retry is None and instruction.__class__ is str:  # the usual instruction: its text as it is
        sections.append(RenderedSection("user", "instruction", INSTRUCTION_HEADING, instruction))
    elif "instruction" in prompt.model_fields_set or retry is not None:
        text = _text_of(instruction_value(prompt), "instruction")
        sections.append(RenderedSection("user", "instruction", INSTRUCTION_HEADING, text))
    output = fields["output"]
    if output is not None:
        schema = _pretty_of(output.json_schema, "output.schema", reused=True)
        sections.append(RenderedSection("user", "output", SCHEMA_HEADING, schema))
    return sections


def _context_section(index: int, item: ContextItem, clips: list[Clip] | None) -> RenderedSection:
    label, source, budget, value = _ITEM_VALUES(item.__dict__)
    if label is None:
        label = str(index)
    detail = f"source: {source}" if source else None
    if budget is None and clips is None:
        body = _text_of(value, ("context", index, "value"))  # whole: no clip to record, no sizes to count
    else:
        shown = _clip_of(item, index)
        body = shown.text
        if clips is not None:
            clips.append(shown)
    return RenderedSection("user", f"context[{index}]", f"[{label}]", body, detail)


_ITEM_VALUES = operator.itemgetter("label", "source", "budget", "value")
"""What a context item's section takes from its fields, read without pydantic's attribute hook."""


def context_clips(prompt: Prompt) -> list[Clip]:
    """Each context item's value clipped to its budget, in order.

    Exposed for whoever records what was shown (a generate trace wants ``clipped`` and both sizes).
    """
    return [_clip_of(item, index) for index, item in enumerate(prompt.context)]


def _clip_of(item: ContextItem, index: int) -> Clip:
    limit = item.budget.context_limit if item.budget is not None else None
    try:
        return clip(item.value, limit)
    except (TypeError, ValueError) as exc:
        raise FieldError(("context", index, "value"), str(exc)) from None


# --------------------------------------------------------------------------------------------
# Instruction and the repair text


def instruction_value(prompt: Prompt) -> Any:
    """The instruction as this attempt shows it: the original, or with the repair text on a retry.

    A string gets ``"\\n\\n" + message`` appended; an object gets a ``repair`` key (JS spread: an
    existing ``repair`` is replaced in place); anything else is wrapped as ``{input, repair}``.
    """
    instruction = prompt.instruction
    if prompt.retry is None:
        return instruction
    message = repair_message(prompt.retry)
    if isinstance(instruction, str):
        return f"{instruction}\n\n{message}"
    if isinstance(instruction, Mapping):
        repaired: dict[str, Any] = dict(_entries_of(instruction, "instruction"))
        repaired["repair"] = message
        return repaired
    return {"input": instruction, "repair": message}


def repair_message(retry: Retry) -> str:
    """The repair text: fixed opening and closing, the previous output and the error when known."""
    parts = [_REPAIR_OPENING]
    if retry.has_previous_output:
        parts.append("Previous output:\n" + _pretty_of(retry.previous_output, "retry.previous_output"))
    if retry.reason is not None:
        parts.append("Error:\n" + retry.reason)
    parts.append(_REPAIR_CLOSING)
    return "\n\n".join(parts)


# --------------------------------------------------------------------------------------------
# Text of user data, with errors that name the field


def _text_of(value: Any, field: str | tuple[str | int, ...]) -> str:
    try:
        return value_text(value)
    except (TypeError, ValueError) as exc:
        raise FieldError(field, str(exc)) from None


def _pretty_of(value: Any, field: str, *, reused: bool = False) -> str:
    try:
        return pretty_reused(value) if reused else pretty(value)
    except (TypeError, ValueError) as exc:
        raise FieldError(field, str(exc)) from None


def _entries_of(value: Mapping[Any, Any], field: str) -> list[tuple[str, object]]:
    try:
        return object_entries(value)
    except TypeError as exc:
        raise FieldError(field, str(exc)) from None
