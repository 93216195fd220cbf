"""A conversation as Chat Completions messages, and a Chat Completions reply as the next turn.

:class:`ChatMessages` writes a render's messages. A message without a conversation's parts (tool
calls, tool results, reasoning) goes out as it always has (:func:`plain_message`); one with them is
written natively:

* an assistant turn is one message: its text as ``content`` (``null`` beside tool calls when it has
  none), its calls as ``tool_calls``, each with the provider's own argument text when the call
  kept it, else its arguments as JSON text; parallel calls stay in one message;
* each tool result is a ``tool`` message of its own; the results in a user turn (Anthropic's shape)
  come first, the rest of that turn after them as a user message;
* Chat Completions takes no reasoning back and has no cache breakpoints (OpenAI caches prompt
  prefixes on its own): reasoning is left out with a note (never sent as text), and one note lists
  every breakpoint left out;
* a tool message may only answer a call of the assistant message just before it (tool messages
  between them), and every call of that message must be answered before the next message: OpenAI
  refuses anything else, so the request is refused first, naming the turn (:func:`turn_error`);
* tool-call ids longer than OpenAI's 40 characters (or with other characters than letters,
  digits, ``_`` and ``-``) are mapped one way, the same for a call and its result (:class:`ToolIds`).
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from ..core.json_text import json_object, json_writer
from ..core.prompt import ChatTurn, ReasoningPart, TextPart, ToolCallPart, TurnPart
from ..core.rendered import Message
from .turns import ToolIds, foreign_reasoning, holds_conversation_parts, turn_error

__all__ = ["ChatMessages", "cache_breakpoints_note", "plain_message", "reply_turn"]

PROVIDER = "openai"


_arguments_text = json_writer()
"""``json.dumps(arguments, ensure_ascii=False)`` for each call of a conversation, its encoder made once."""


class ChatMessages:
    """One request's messages, written in order (:meth:`write`), then checked complete
    (:meth:`finish`); ``notes`` says everything changed or left out on the way."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.breakpoints: list[str] = []
        """Where the render marked a cache breakpoint (``messages[2].content[0]``), all left out."""
        self.ids = ToolIds("OpenAI", "a-zA-Z0-9_-", 40)
        self._made: AbstractSet[str] = _NO_CALLS
        """The ids of the calls the last assistant message made, while only tool messages follow it."""
        self._unanswered: dict[str, int] = {}
        """The calls (written as parts) still waiting for their tool message, with their message's index."""

    def write_all(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        """A render's messages written in order, as :meth:`write` writes each, then checked
        complete (:meth:`finish`). A history may hold 100,000s of messages: the usual one (text
        alone, with no name, mark or tool fields, so nothing to note) is written here, without a
        list or a call of its own."""
        written: list[dict[str, Any]] = []
        append = written.append
        for index, message in enumerate(messages):
            content = message.content
            if (
                content.__class__ is str
                and message.cache is None
                and message.name is None
                and not message.tool_calls
                and message.tool_call_id is None
                and not message.is_error
                and message.role != "tool"
            ):
                data = {"role": message.role, "content": content}
                if self._unanswered:
                    self._follow(data, index)  # which refuses it
                self._made = _NO_CALLS
                append(data)
            else:
                written += self.write(message, index)
        self.finish()
        return written

    def write(self, message: Message, index: int) -> list[dict[str, Any]]:
        """The Chat Completions messages of the render's ``messages[index]`` (none, one or several)."""
        if message.cache is not None:
            self.breakpoints.append(f"messages[{index}]")
        content = message.content
        if content.__class__ is str:  # text, most of a history: nothing in its content to look at
            data = plain_message(message, index, self.notes)
            self._follow(data, index)
            return [data]
        if isinstance(content, list) and holds_conversation_parts(content):
            if message.role != "assistant":
                written = self._results(message, content, index)
                # Its tool messages answered their calls as they were written: the rest of the
                # turn (a message of another role, last) is the one left to follow the rules.
                if written and written[-1]["role"] != "tool":
                    self._follow(written[-1], index)
                return written
            data = self._assistant(message, content, index)
            self._follow(data, index)
            for call in data.get("tool_calls", ()):  # its calls, the only ones a caller could leave unanswered
                self._unanswered[call["id"]] = index
            return [data]
        if isinstance(content, list) and any("cache" in part or "item_id" in part for part in content):
            parts = [self._unmarked(part, f"messages[{index}].content[{j}]") for j, part in enumerate(content)]
            message = dataclasses.replace(message, content=parts)
        data = plain_message(message, index, self.notes)
        self._follow(data, index)
        return [data]

    def finish(self) -> None:
        """Refuse a conversation that ends before a call of its last assistant message is answered."""
        if self._unanswered:
            call_id, index = next(iter(self._unanswered.items()))
            raise turn_error(index, f"tool call {call_id!r} has no tool result after it{_ANSWER_RULE}")

    def _follow(self, data: dict[str, Any], index: int) -> None:
        """Keep the order rules: which calls a tool message may answer next, and which still wait."""
        if data["role"] == "tool":  # a result of the one-round form answers a call as well as a part does
            self._unanswered.pop(data.get("tool_call_id", ""), None)
            return
        if self._unanswered:
            call_id, made_in = next(iter(self._unanswered.items()))
            problem = f"tool call {call_id!r} has no tool result before messages[{index}]{_ANSWER_RULE}"
            raise turn_error(made_in, problem)
        calls = data.get("tool_calls")
        self._made = frozenset(map(_CALL_ID, calls)) if calls else _NO_CALLS

    def _assistant(self, message: Message, parts: list[dict[str, Any]], index: int) -> dict[str, Any]:
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        for position, part in enumerate(parts):
            kind = part.get("type")
            if "cache" in part:
                self.breakpoints.append(_part_path(index, position))
            if kind == "text":
                texts.append(part["text"])
            elif kind == "tool_call":
                calls.append(self._call(part, index, position))
            elif kind == "reasoning":
                self.notes.append(_reasoning_note(part, index, position))
            else:
                self.notes.append(
                    f"{_part_path(index, position)}: a Chat Completions assistant message has no place for a "
                    f"{kind} part; left out"
                )
        content: Any = None if calls else ""
        if len(texts) == 1:
            content = texts[0]
        elif texts:
            content = [{"type": "text", "text": text} for text in texts]
        data: dict[str, Any] = {"role": "assistant", "content": content}
        if message.name is not None:
            data["name"] = message.name
        if calls:
            data["tool_calls"] = calls
        return data

    def _call(self, part: dict[str, Any], index: int, position: int) -> dict[str, Any]:
        call_id = part.get("id")
        if call_id is None:
            call_id = f"call_{index}_{position}"
            self.notes.append(
                f"messages[{index}].content[{position}]: a tool call without an id is sent as {call_id!r} "
                "(OpenAI requires one)"
            )
        text = part.get("arguments_text")
        if text is None:
            text = _arguments_text(part.get("arguments"))
        sent = call_id if self.ids.accepts(call_id) else self.ids(call_id)
        return {"id": sent, "type": "function", "function": {"name": part["name"], "arguments": text}}

    def _results(self, message: Message, parts: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
        """A user or tool turn holding tool results: a tool message each, then the rest of the turn."""
        results: list[dict[str, Any]] = []
        rest: list[dict[str, Any]] = []
        for position, part in enumerate(parts):
            kind = part.get("type")
            if kind == "tool_result":
                results.append(self._result(part, index, position))
            elif kind == "reasoning":
                self.notes.append(_reasoning_note(part, index, position))
            elif kind == "tool_call":
                self.notes.append(
                    f"{_part_path(index, position)}: a tool call belongs to an assistant message; left out of "
                    f"this {message.role} one"
                )
            else:
                rest.append(self._unmarked(part, _part_path(index, position)))
        if not rest:
            return results
        role = message.role
        if role == "tool":
            role = "user"
            self.notes.append(
                f"messages[{index}]: the parts of this tool turn that are no tool result are sent as a user message"
            )
        data: dict[str, Any] = {"role": role, "content": rest}
        if message.name is not None:
            data["name"] = message.name
        return [*results, data]

    def _result(self, part: dict[str, Any], index: int, position: int) -> dict[str, Any]:
        call_id = part["call_id"]
        # Told by the calls just made first: each was sent with an id OpenAI takes, so an id found
        # there needs no pattern match (one per result of a history).
        if call_id not in self._made and (call_id := self.ids(call_id)) not in self._made:
            raise turn_error(
                index,
                f"content[{position}] answers tool call {part['call_id']!r}, which the assistant message just before "
                "it did not make (OpenAI takes a tool message only after the assistant message that made its call, "
                "with nothing but tool messages between them)",
            )
        self._unanswered.pop(call_id, None)
        if "cache" in part:
            self.breakpoints.append(_part_path(index, position))
        content = part["content"]
        if isinstance(content, list):
            content = self._tool_texts(content, _part_path(index, position))
        if part.get("name") is not None:
            self.notes.append(
                f"{_part_path(index, position)}: OpenAI tool messages have no name; the tool is known by its call id"
            )
        if part.get("is_error"):
            self.notes.append(
                f"{_part_path(index, position)}: OpenAI tool messages cannot mark an error; the result text is sent "
                "as is"
            )
        return {"role": "tool", "content": content, "tool_call_id": call_id}

    def _tool_texts(self, content: list[dict[str, Any]], path: str) -> list[dict[str, Any]]:
        """A tool result's parts as a tool message takes them: text parts only."""
        texts = []
        for number, shown in enumerate(content):
            where = f"{path}.content[{number}]"
            if "cache" in shown:
                self.breakpoints.append(where)
            if shown.get("type") == "text":
                texts.append({"type": "text", "text": shown["text"]})
            else:
                kind = shown.get("type")
                self.notes.append(
                    f"{where}: a Chat Completions tool message takes text only; this {kind} part is left out"
                )
        return texts

    def _unmarked(self, part: dict[str, Any], path: str) -> dict[str, Any]:
        """``part`` without its breakpoint, whose place is kept for the note, and without the
        Responses API's item id (an id of that provider's, which Chat Completions has no use for)."""
        if "cache" in part:
            self.breakpoints.append(path)
        return {key: value for key, value in part.items() if key not in ("cache", "item_id")}


_NO_CALLS: frozenset[str] = frozenset()
_CALL_ID = operator.itemgetter("id")
"""A written call's id, read in C (for each assistant message of a history)."""


def _part_path(index: int, position: int) -> str:
    """Where a part is, for a note or a breakpoint: made only when one needs it (a history may
    hold 100,000s of parts, and a path each cost as much as writing the part)."""
    return f"messages[{index}].content[{position}]"


_ANSWER_RULE = ": OpenAI requires a tool message answering each call of an assistant message before any other message"


def _reasoning_note(part: dict[str, Any], index: int, position: int) -> str:
    """Reasoning is never sent to Chat Completions: another provider's may not be, and OpenAI's own
    is not taken back (the API has no field for it)."""
    foreign = foreign_reasoning(part, PROVIDER, index, position)
    if foreign is not None:
        return foreign
    return f"messages[{index}].content[{position}]: Chat Completions takes no reasoning back; left out"


def cache_breakpoints_note(places: list[str], why: str) -> list[str]:
    """The one note for every cache breakpoint a provider without them left out, in order (worded
    as the Responses adapter words its own)."""
    if not places:
        return []
    return [f"cache breakpoints left out ({', '.join(places)}): {why}"]


def plain_message(message: Message, index: int, notes: list[str]) -> dict[str, Any]:
    """A message without a conversation's parts, as Chat Completions has always been sent it: its
    role and content as rendered, the one-round tool calls and results of :class:`Message`."""
    role = message.role
    if role == "tool" and message.tool_call_id is None:
        notes.append(f"messages[{index}]: a tool turn that answers no call needs a tool_call_id; sent as a user turn")
        role = "user"
    data: dict[str, Any] = {"role": role, "content": message.content}
    if message.name is not None and role == "tool":
        notes.append(f"messages[{index}]: OpenAI tool messages have no name; the tool is known by its call id")
    elif message.name is not None:
        data["name"] = message.name
    if message.tool_calls:
        data["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments_text(call.arguments)},
            }
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        data["tool_call_id"] = message.tool_call_id
    if message.is_error:
        notes.append(f"messages[{index}]: OpenAI tool messages cannot mark an error; the result text is sent as is")
    return data


def reply_turn(message: Any) -> ChatTurn:
    """A Chat Completions reply's message as the next assistant turn: the reasoning of compatible
    servers (``reasoning_content``, marked as OpenAI's, which Chat Completions does not take back),
    the text (a turn of text alone holds it as text, not as a part: a render sends a list of parts
    as a list), and each tool call with the provider's own argument text (its object read from it,
    ``None`` when the text is not a JSON object)."""
    parts: list[TurnPart] = []
    reasoning = (message.model_extra or {}).get("reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        parts.append(ReasoningPart(text=reasoning, provider=PROVIDER))
    if message.content:
        parts.append(TextPart(text=message.content))
    for call in message.tool_calls or ():
        text = call.function.arguments
        parts.append(
            ToolCallPart(id=call.id, name=call.function.name, arguments=json_object(text), arguments_text=text)
        )
    if all(isinstance(part, TextPart) for part in parts):  # text alone: as text, which is sent as it came
        return ChatTurn(role="assistant", content=message.content or "")
    return ChatTurn(role="assistant", content=parts)
