"""A conversation as Ollama ``/api/chat`` messages, and an Ollama reply as the next turn.

:class:`OllamaMessages` writes a render's messages as Ollama takes them (the fields of the ``ollama``
SDK's ``Message``: ``role``, ``content``, ``thinking``, ``images``, ``tool_name``, ``tool_calls``):

* text parts are joined into ``content`` (a line between two), inline images go as bare base64 in
  ``images``; an image by URL, audio and files cannot go and are left out with a note;
* an assistant turn's tool calls go as ``tool_calls``, each ``{"function": {"name", "arguments"}}``
  with the arguments as an object. Ollama has no call ids: they are left out, with a note unless
  they are the ``call_<index>`` ids :func:`reply_turn` gave Ollama's own calls. A call whose
  arguments are no JSON object (a model's broken JSON, kept as OpenAI's text) cannot go as an
  object: the request is refused, naming the turn, rather than sent with made-up arguments;
* each tool result is a ``tool`` message naming its tool (``tool_name``: the result's name, else the
  name of the call it answers); the results in a user turn (Anthropic's shape) come first, the rest
  of the turn after them as a user message;
* reasoning goes back as the assistant message's ``thinking`` only when Ollama produced it; any
  other is left out with a note (never sent as text);
* Ollama has no cache breakpoints and no cache key: one note lists the breakpoints left out.
"""

from __future__ import annotations

from typing import Any

from ..core.prompt import ChatTurn, ReasoningPart, TextPart, ToolCallPart, TurnPart
from ..core.rendered import Message
from .base import split_data_url
from .turns import foreign_reasoning, holds_conversation_parts, turn_error

__all__ = ["OllamaMessages", "reply_turn"]

PROVIDER = "ollama"


class OllamaMessages:
    """One request's messages, written in order (:meth:`write`); ``notes`` says everything changed
    or left out on the way, ``breakpoints`` where the render marked a cache breakpoint."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.breakpoints: list[str] = []
        self.ids_left_out: list[str] = []
        self._call_names: dict[str, str] = {}
        """Each call's tool, by the call's id: what a tool message names."""

    def write(self, message: Message, index: int) -> list[dict[str, Any]]:
        """The Ollama messages of the render's ``messages[index]`` (none, one or several)."""
        if message.cache is not None:
            self.breakpoints.append(f"messages[{index}]")
        content = message.content
        conversation = holds_conversation_parts(content)
        if message.name is not None and (
            message.role != "tool" or conversation
        ):  # a plain tool turn's is its tool_name
            self.notes.append(f"messages[{index}]: Ollama messages have no speaker name; {message.name!r} left out")
        if isinstance(content, list) and conversation:
            if message.role == "assistant":
                return [self._assistant(message, content, index)]
            return self._results(message, content, index)
        return [self._plain(message, index)]

    def _plain(self, message: Message, index: int) -> dict[str, Any]:
        """A message without a conversation's parts, as Ollama has always been sent it."""
        data: dict[str, Any] = {"role": message.role}
        if isinstance(message.content, str):
            data["content"] = message.content
        else:
            self._shown(data, list(enumerate(message.content)), f"messages[{index}]")
        if message.tool_calls:
            data["tool_calls"] = [
                {"function": {"name": call.name, "arguments": call.arguments}} for call in message.tool_calls
            ]
        if message.role == "tool" and message.name is not None:
            data["tool_name"] = message.name
        if message.is_error:
            self.notes.append(
                f"messages[{index}]: Ollama tool messages cannot mark an error; the result text is sent as is"
            )
        return data

    def _shown(self, data: dict[str, Any], parts: list[tuple[int, dict[str, Any]]], path: str) -> None:
        """Text and media parts into ``data``'s ``content`` (joined, a line between two) and
        ``images`` (bare base64); what Ollama cannot carry is noted."""
        texts, images = [], []
        for position, part in parts:
            kind = part.get("type")
            if "cache" in part:
                self.breakpoints.append(f"{path}.content[{position}]")
            inline = split_data_url((part.get("image_url") or {}).get("url", "")) if kind == "image_url" else None
            if kind == "text":
                texts.append(part["text"])
            elif inline is not None:
                images.append(inline[1])
                if part["image_url"].get("detail") is not None:
                    detail = part["image_url"]["detail"]
                    self.notes.append(
                        f"{path}.content[{position}]: Ollama has no image detail level; {detail!r} left out"
                    )
            else:
                self.notes.append(f"{path}.content[{position}]: Ollama cannot carry this {kind} part; left out")
        data["content"] = "\n".join(texts)
        if images:
            data["images"] = images

    def _assistant(self, message: Message, parts: list[dict[str, Any]], index: int) -> dict[str, Any]:
        shown: list[tuple[int, dict[str, Any]]] = []
        thinking: list[str] = []
        calls: list[dict[str, Any]] = []
        for position, part in enumerate(parts):
            kind, path = part.get("type"), f"messages[{index}].content[{position}]"
            if kind == "tool_call":
                calls.append(self._call(part, index, position, len(calls)))
            elif kind == "reasoning":
                self._reasoning(part, index, position, thinking)
            elif kind == "tool_result":
                self.notes.append(f"{path}: a tool result belongs to a tool message; left out of this assistant one")
            else:
                shown.append((position, part))
        shown_parts: dict[str, Any] = {}
        self._shown(shown_parts, shown, f"messages[{index}]")
        data: dict[str, Any] = {"role": "assistant", "content": shown_parts["content"]}
        if thinking:
            data["thinking"] = "".join(thinking)
        if len(thinking) > 1:
            self.notes.append(
                f"messages[{index}]: Ollama takes one thinking text a message; its {len(thinking)} are joined"
            )
        if "images" in shown_parts:
            data["images"] = shown_parts["images"]
        if calls:
            data["tool_calls"] = calls
        return data

    def _reasoning(self, part: dict[str, Any], index: int, position: int, thinking: list[str]) -> None:
        foreign = foreign_reasoning(part, PROVIDER, index, position)
        if foreign is not None:
            self.notes.append(foreign)
        elif part.get("text") is not None:
            thinking.append(part["text"])
        else:  # Ollama's reasoning is always text; a summary alone has no place
            self.notes.append(
                f"messages[{index}].content[{position}]: Ollama thinking is text; reasoning without it left out"
            )

    def _call(self, part: dict[str, Any], index: int, position: int, number: int) -> dict[str, Any]:
        path = f"messages[{index}].content[{position}]"
        if "cache" in part:
            self.breakpoints.append(path)
        arguments = part.get("arguments")
        if arguments is None:
            raise turn_error(
                index,
                f"tool call {part['name']!r} (content[{position}]) has arguments that are not a JSON object "
                f"({part.get('arguments_text')!r}); Ollama takes a call's arguments as an object",
            )
        call_id = part.get("id")
        if call_id is not None:
            self._call_names[call_id] = part["name"]
            if call_id != f"call_{number}":
                self.ids_left_out.append(call_id)
        return {"function": {"name": part["name"], "arguments": arguments}}

    def _results(self, message: Message, parts: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
        """A user or tool turn holding tool results: a tool message each, then the rest of the turn."""
        results: list[dict[str, Any]] = []
        rest: list[tuple[int, dict[str, Any]]] = []
        for position, part in enumerate(parts):
            kind, path = part.get("type"), f"messages[{index}].content[{position}]"
            if kind == "tool_result":
                results.append(self._result(part, index, position))
            elif kind in ("reasoning", "tool_call"):
                self.notes.append(
                    f"{path}: a {kind} part belongs to an assistant message; left out of this {message.role} one"
                )
            else:
                rest.append((position, part))
        if not rest:
            return results
        role = message.role
        if role == "tool":
            role = "user"
            self.notes.append(
                f"messages[{index}]: the parts of this tool turn that are no tool result are sent as a user message"
            )
        data: dict[str, Any] = {"role": role}
        self._shown(data, rest, f"messages[{index}]")
        return [*results, data]

    def _result(self, part: dict[str, Any], index: int, position: int) -> dict[str, Any]:
        path = f"messages[{index}].content[{position}]"
        if "cache" in part:
            self.breakpoints.append(path)
        data: dict[str, Any] = {"role": "tool"}
        content = part["content"]
        if isinstance(content, str):
            data["content"] = content
        else:
            self._shown(data, list(enumerate(content)), path)
        name = part.get("name") or self._call_names.get(part["call_id"])
        if name is not None:
            data["tool_name"] = name
        else:
            self.notes.append(
                f"{path}: no earlier call has the id {part['call_id']!r} and the result names no tool; "
                "sent without tool_name"
            )
        if part.get("is_error"):
            self.notes.append(f"{path}: Ollama tool messages cannot mark an error; the result text is sent as is")
        return data

    def id_note(self) -> list[str]:
        """The one note for the tool-call ids left out (Ollama has none)."""
        if not self.ids_left_out:
            return []
        ids = ", ".join(repr(call_id) for call_id in self.ids_left_out)
        return [f"tool call ids left out (Ollama has none; a tool message names its tool): {ids}"]


def reply_turn(message: Any) -> ChatTurn:
    """An Ollama reply's message as the next assistant turn: its thinking (marked as Ollama's, the
    only provider that takes it back), its text, and its tool calls with their object arguments.
    Ollama gives its calls no ids: each gets ``call_<index>`` (its place among the message's
    calls), the same every time, which a tool result names and which going back to Ollama leaves
    out without a note (they say nothing Ollama did not)."""
    parts: list[TurnPart] = []
    if message.thinking:
        parts.append(ReasoningPart(text=message.thinking, provider=PROVIDER))
    if message.content:
        parts.append(TextPart(text=message.content))
    for number, call in enumerate(message.tool_calls or ()):
        arguments = dict(call.function.arguments or {})
        parts.append(ToolCallPart(id=f"call_{number}", name=call.function.name, arguments=arguments))
    # text alone: as text, which is sent as it came (parts told by exact class: see PART_CLASSES)
    if all(type(part) is TextPart for part in parts):
        return ChatTurn(role="assistant", content=message.content or "")
    return ChatTurn(role="assistant", content=parts)
