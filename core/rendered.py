"""What a renderer produces: provider-neutral chat messages plus the format's own structure.

Plain dataclasses with slots: a render is output, not user input, so it is never re-validated.
They are read-only by convention, not frozen: every call builds a render (a message per turn, a
section per block), and a frozen dataclass costs nearly three times as much to build (its
``__init__`` sets each field through ``object.__setattr__``), about 10 us per call between round
trips (``benchmarks/adapters.py``, issue 8). Adapters and tools read them and build new ones
(``dataclasses.replace``), never change one in place.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from .errors import FieldError
from .json_text import check_json_data, dumps, too_many_digits
from .nesting import with_nesting_room
from .printable import half_characters
from .records import dataclass_record

if TYPE_CHECKING:  # annotations only: a render's result does not need the prompt model loaded
    from .contract import OutputContract
    from .prompt import PromptCache, ToolCall, ToolDefinition

__all__ = ["UNEXPRESSED", "Message", "RenderWarning", "RenderedPrompt", "RenderedSection", "warning_lines"]

MessageContent = str | list[dict[str, Any]]


@dataclass_record(slots=True)
class Message:
    """One chat message; ``content`` is a string or a list of content parts: OpenAI-style for text
    and media (``text``, ``image_url``, ``input_audio``, ``file``), and promptwire's own for a
    conversation's ``tool_call``, ``tool_result`` and ``reasoning`` parts (see
    :mod:`promptwire.renderers.parts`), each in the turn's order.

    An ``assistant`` message may carry the ``tool_calls`` the model made; a ``tool`` message is the
    result of the call ``tool_call_id`` names (``is_error`` when the tool failed). Adapters turn
    these into each provider's own form (OpenAI ``tool_calls`` / ``tool`` messages, Anthropic
    ``tool_use`` / ``tool_result`` blocks, Ollama ``tool_calls``).

    Text is kept exactly, half a character included: a budget counted in UTF-16 units can cut a
    surrogate pair, and AgentScript sends that half (as a ``\\udXXX`` escape in its JSON body), so
    every JSON writer escapes it (:mod:`promptwire.core.json_text`); only :meth:`RenderedPrompt.display`
    shows it as U+FFFD.
    """

    role: str
    content: MessageContent
    name: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    is_error: bool = False
    cache: dict[str, Any] | None = None
    """A cache breakpoint at the end of this message (``{}``, or ``{"ttl": "1h"}``); a part of a
    content list carries its own under the same key."""

    def __init__(
        self,
        role: str,
        content: MessageContent,
        name: str | None = None,
        tool_calls: tuple[ToolCall, ...] = (),
        tool_call_id: str | None = None,
        is_error: bool = False,
        cache: dict[str, Any] | None = None,
    ) -> None:
        self.role = role
        self.content = content
        self.name = name
        self.tool_calls = tool_calls
        self.tool_call_id = tool_call_id
        self.is_error = is_error
        self.cache = cache

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.name is not None:
            data["name"] = self.name
        if self.cache is not None:
            data["cache"] = self.cache
        if self.tool_calls:
            data["tool_calls"] = [
                {"id": call.id, "name": call.name, "arguments": call.arguments} for call in self.tool_calls
            ]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        if self.is_error:
            data["is_error"] = True
        return data


@dataclass_record(slots=True)
class RenderedSection:
    """One named block of a render, as the format built it (for inspection and tooling).

    ``role`` is the message the block went into, ``key`` the prompt field it came from,
    ``title`` and ``detail`` the format's heading for it, ``body`` the text under the heading.
    """

    role: str
    key: str
    title: str
    body: str
    detail: str | None = None

    def __init__(self, role: str, key: str, title: str, body: str, detail: str | None = None) -> None:
        self.role = role
        self.key = key
        self.title = title
        self.body = body
        self.detail = detail


UNEXPRESSED = "the format cannot express it; left out"
"""The reason of a warning about a populated field that a format has no place for."""


@dataclass_record(slots=True)
class RenderWarning:
    """Something the render left out or changed, as a record: which format, which field, why.

    Renderers return these on the result and emit no Python warning themselves; the public API
    (:func:`promptwire.render`) turns them into Python warnings once, at the caller's line, and the
    CLI prints them. ``field`` is a path into the prompt (``history``, ``context.source``).
    """

    format: str
    field: str
    reason: str = UNEXPRESSED

    def __init__(self, format: str, field: str, reason: str = UNEXPRESSED) -> None:
        self.format = format
        self.field = field
        self.reason = reason

    def to_dict(self) -> dict[str, str]:
        return {"format": self.format, "field": self.field, "reason": self.reason}


def warning_lines(records: Sequence[RenderWarning]) -> list[str]:
    """The records as a person reads them, in order of first appearance: the left-out fields of one
    format on one line, any other record on a line of its own."""
    left_out: dict[str, list[str]] = {}
    order: list[str | RenderWarning] = []  # a format name stands for its grouped line
    for record in records:
        if record.reason != UNEXPRESSED:
            order.append(record)
        elif record.format in left_out:
            if record.field not in left_out[record.format]:  # several renders' records, each field once
                left_out[record.format].append(record.field)
        else:
            left_out[record.format] = [record.field]
            order.append(record.format)
    return [
        f"format {item!r} cannot express these prompt fields, which were left out: {', '.join(left_out[item])}"
        if isinstance(item, str)
        else f"format {item.format!r}: {item.field}: {item.reason}"
        for item in order
    ]


@dataclass_record(slots=True)
class RenderedPrompt:
    """What an adapter receives (see docs/rendered.md): the messages, and for native tool calling
    the ``tools`` the model may call (empty when the format wrote them into its text), plus the
    ``output`` contract the render asks for (``None`` when it asks for none)."""

    format: str
    messages: tuple[Message, ...]
    text: str | None = None
    sections: tuple[RenderedSection, ...] = ()
    warnings: tuple[RenderWarning, ...] = field(default=())
    tools: tuple[ToolDefinition, ...] = ()
    output: OutputContract | None = None
    cache: PromptCache | None = None
    """The prompt's caching for the whole request (a breakpoint after the tools, a cache key and
    retention); a breakpoint after the system text is on the system message."""

    def __init__(
        self,
        format: str,
        messages: tuple[Message, ...],
        text: str | None = None,
        sections: tuple[RenderedSection, ...] = (),
        warnings: tuple[RenderWarning, ...] = (),
        tools: tuple[ToolDefinition, ...] = (),
        output: OutputContract | None = None,
        cache: PromptCache | None = None,
    ) -> None:
        self.format = format
        self.messages = messages
        self.text = text
        self.sections = sections
        self.warnings = warnings
        self.tools = tools
        self.output = output
        self.cache = cache

    @property
    def system(self) -> str | None:
        """The system message's text, when the first message is a plain-text system message."""
        if self.messages and self.messages[0].role == "system" and isinstance(self.messages[0].content, str):
            return self.messages[0].content
        return None

    @property
    def user(self) -> MessageContent | None:
        """The content of the last user message (the turn being asked now)."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message.content
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "messages": [m.to_dict() for m in self.messages],
            "text": self.text,
            "sections": [
                {"role": s.role, "key": s.key, "title": s.title, "detail": s.detail, "body": s.body}
                for s in self.sections
            ],
            "warnings": [w.to_dict() for w in self.warnings],
            # Python mode: pydantic's JSON mode refuses anything nested past ~250 levels, while a
            # prompt may nest to MAX_DEPTH. A tool's ``returns`` and ``native`` and the output's
            # ``native`` are free values (an Agently declaration holds Python types): shown as
            # text where JSON has no form.
            "tools": [printable_json(tool.model_dump(exclude_none=True)) for tool in self.tools],
            "output": None if self.output is None else printable_json(self.output.model_dump(by_alias=True)),
            **({} if self.cache is None else {"cache": self.cache.model_dump(exclude_none=True)}),
        }

    def display(self) -> str:
        """The render as a person reads it: each message under a ``--- role ---`` line, verbatim.

        Text goes out byte for byte, except half a character (a surrogate pair cut by a budget),
        which no encoding can write and shows as U+FFFD; the JSON forms keep it as its escape. A
        content-part list shows each part under a ``-- part: type --`` line: text parts verbatim,
        other parts as one line of JSON.
        Every message is followed by one newline, so a message ending in ``\\n`` shows a blank line.
        """
        chunks: list[str] = []
        for message in self.messages:
            speaker = message.role if message.name is None else f"{message.role} ({message.name})"
            if message.tool_call_id is not None:
                speaker += f" [{message.tool_call_id}]" + (" error" if message.is_error else "")
            chunks.append(f"--- {speaker} ---\n")
            if isinstance(message.content, str):
                if message.content or not message.tool_calls:  # a bare tool-call turn has no text
                    chunks.append(message.content + "\n")
            else:
                for part in message.content:
                    kind = part.get("type", "?")
                    chunks.append(f"-- part: {kind} --\n")
                    if kind == "text" and isinstance(part.get("text"), str):
                        chunks.append(part["text"] + "\n")
                    else:
                        chunks.append(_json_line(part) + "\n")
            for call in message.tool_calls:
                chunks.append(f"-- tool call: {call.name} [{call.id}] --\n{_json_line(call.arguments)}\n")
        if self.tools:
            chunks.append("--- tools ---\n")
            chunks.extend(_json_line(tool.model_dump(exclude_none=True)) + "\n" for tool in self.tools)
        shown = "".join(chunks)
        return shown if shown.isascii() else half_characters().sub("\ufffd", shown)


def _json_line(value: object) -> str:
    return dumps(printable_json(value), sort_keys=True)


def printable_json(value: Any) -> Any:
    """``value`` as JSON data every JSON writer prints: itself when it is (the usual case, told
    by one walk), else with each part JSON has no form for (a Python type, a set, NaN, an integer
    longer than Python prints, a key that is not text) given as its text."""
    try:
        check_json_data(value, ())
    except FieldError:
        return with_nesting_room(_as_json, value)
    return value


def _as_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {key if isinstance(key, str) else _text(key): _as_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_as_json(item) for item in value]
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, int) and not too_many_digits(value):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return _text(value)


def _text(value: Any) -> str:
    if isinstance(value, int):  # too long to print: say what it is
        return f"<an integer of more than {sys.get_int_max_str_digits()} digits>"
    return str(value)
