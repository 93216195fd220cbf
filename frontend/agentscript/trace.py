"""What a run of a program shows of its model calls: where each came from, what was sent, and the
reference's trace events and debug text for a ``generate``.

The interpreter evaluates; this module words what it saw. A ``generate`` gives one
:class:`~promptwire.core.call.ModelCall` per attempt (its site, the prompt, the render that was
sent, the request and the reply), a ``notes`` event for each attempt whose request the adapter changed, then
the ``generate`` event itself (:func:`generate_event`); with ``debug: true`` each attempt's
:func:`debug_block` goes to the debug stream before it is sent (:class:`DebugText`), and in
``asrender`` its :func:`debug_reply_block` once its reply has come (:class:`DebugReplies`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ...calls.watch import Watcher
from ...renderers.agentscript.renderer import instruction_value

if TYPE_CHECKING:
    from ...core.call import GenerateResult, ModelCall, ProviderRequest
    from ...core.prompt import Prompt
    from ...core.rendered import RenderedPrompt
    from ...renderers.agentscript.clipping import Clip
    from .syntax import Budget

__all__ = [
    "DebugReplies",
    "DebugText",
    "TextSink",
    "budget_json",
    "debug_block",
    "debug_reply_block",
    "generate_event",
    "notes_events",
]


class TextSink(Protocol):
    """Where debug text goes: anything with ``write`` (stderr, or the terminal-safe stream
    ``asrender`` gives a run)."""

    def write(self, text: str, /) -> object: ...


def notes_events(calls: Iterable[ModelCall]) -> list[dict[str, Any]]:
    """What the adapter changed on the way to the wire: a ``notes`` event per attempt that has any."""
    return [
        {"kind": "notes", "data": {"site": str(call.site), "attempt": call.attempt, "notes": list(call.request.notes)}}
        for call in calls
        if call.request.notes
    ]


def debug_block(agent: str, attempt: int, rendered: RenderedPrompt, request: ProviderRequest) -> str:
    """AgentScript's debug block for one attempt (written to stderr before the call), then what the
    adapter changed in its request, one ``note:`` line each."""
    contract = rendered.output
    schema = "" if contract is None else json.dumps(contract.json_schema, indent=2, ensure_ascii=False)
    user = rendered.user
    final = user if isinstance(user, str) else json.dumps(user, ensure_ascii=False)
    lines = [
        f"--- AgentScript generate debug: {agent} attempt {attempt} ---",
        "System:",
        rendered.system or "",
        "Final user message:",
        final or "",
        "Return schema:",
        schema,
        "--- end AgentScript generate debug ---",
        *(f"note: {note}" for note in request.notes),
    ]
    return "\n".join(lines) + "\n"


def debug_reply_block(agent: str, call: ModelCall) -> str:
    """For a generate with ``debug: true``, after each attempt (the reference's own block came
    before it): the raw model output and the validation result, as AgentScript's ``generate``
    document lists them, between the debug block's own ``---`` lines. The validation result is the
    trace's ``validation`` field (``null`` without an output contract), with the reason when the
    attempt was rejected."""
    reply = call.reply
    raw = "" if reply is None else reply.text if reply.text is not None else json.dumps(reply.value)
    strict = call.prompt.config.strict
    validation: dict[str, Any] | None = None
    if call.error is not None:
        validation = {"ok": False, "strict": strict, "error": call.error}
    elif call.prompt.output is not None:
        validation = {"ok": True, "strict": strict}
    lines = [
        f"--- AgentScript generate debug: {agent} attempt {call.attempt} reply ---",
        "Raw model output:",
        raw,
        "Validation result:",
        json.dumps(validation, ensure_ascii=False),
        "--- end AgentScript generate debug ---",
    ]
    return "\n".join(lines) + "\n"


class DebugText(Watcher):
    """The reference's debug text of each attempt of a program's generate with ``debug: true``, on
    ``stream``: :func:`debug_block`, before it is sent. A prompt file's call has no agent, and no
    debug text."""

    def __init__(self, stream: TextSink) -> None:
        self.stream = stream

    def call_started(self, call: ModelCall) -> None:
        if call.prompt.config.debug and call.agent:
            self.stream.write(debug_block(call.agent, call.attempt, call.rendered, call.request))


class DebugReplies(Watcher):
    """``asrender``'s addition to the debug text: :func:`debug_reply_block` of each attempt of a
    program's generate with ``debug: true``, on ``stream``, once its reply has come (a failed call
    has none)."""

    def __init__(self, stream: TextSink) -> None:
        self.stream = stream

    def call_ended(self, call: ModelCall, error: BaseException | None) -> None:
        if call.prompt.config.debug and call.reply is not None and call.agent:
            self.stream.write(debug_reply_block(call.agent, call))


def budget_json(budget: Budget | None) -> dict[str, Any] | None:
    """A budget as the reference's trace shows it: the amount and the unit as written."""
    if budget is None:
        return None
    amount = int(budget.amount) if budget.amount.is_integer() else budget.amount
    return {"amount": amount, "unit": budget.unit}


def generate_event(
    prompt: Prompt,
    result: GenerateResult,
    value: Any,
    clips: Sequence[Clip],
    rendered: RenderedPrompt | None,
    *,
    agent: str,
    model: Mapping[str, Any] | None,
    budgets: Sequence[Budget | None],
    max_output: Budget | None,
) -> dict[str, Any]:
    """The reference's ``generate`` trace event: budgets as the program wrote them (``budgets``, one
    per context item, and ``max_output``), each context value as the last attempt showed it
    (``clips``: a clipped string's kept prefix, a list's or object's kept items), its system and
    final user message as AgentScript rendered that attempt (``rendered``, whatever format it was
    sent in), and the result ``value`` as the program received it."""
    last = result.calls[-1]
    shown = rendered or last.rendered
    config = prompt.config
    max_output_json = budget_json(max_output)
    schema = prompt.output.json_schema if prompt.output is not None else None
    context = [
        {
            "index": index,
            "source": item.source,
            "label": item.label,
            "value": clip.value,
            "text": clip.text,
            "budget": budget_json(budget),
            "clipped": clip.clipped,
            "originalSize": clip.original_size,
            "clippedSize": clip.clipped_size,
        }
        for index, (item, clip, budget) in enumerate(zip(prompt.context, clips, budgets, strict=True))
    ]
    identity = prompt.identity
    return {
        "kind": "generate",
        "data": {
            "instruction": prompt.instruction,
            "config": {
                "maxOutput": max_output_json,
                "attempts": config.attempts,
                "temperature": config.temperature,
                "think": config.think,
                "strict": config.strict,
                "debug": config.debug,
            },
            "attempts": result.attempts,
            "maxOutput": max_output_json,
            "debug": config.debug,
            "context": {
                "agentName": agent,
                "model": None if model is None else dict(model),
                "identity": {"role": identity.role, "description": identity.description} if identity else None,
                "system": shown.system,
                "context": context,
                "instruction": instruction_value(last.prompt),
                "returnSchema": schema,
                "maxOutput": max_output_json,
                "finalUserMessage": shown.user,
            },
            "validation": {"ok": True, "strict": config.strict} if schema is not None else None,
            "result": value,
        },
    }
