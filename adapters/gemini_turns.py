"""A rendered conversation as a Gemini ``generateContent`` body's ``systemInstruction`` and
``contents``, and a Gemini reply's content as the next assistant turn.

How each part goes (the REST API's JSON, camelCase):

* the leading system and developer text is the ``systemInstruction`` (a text part each; developer
  text said to go there); a system turn later on has no Gemini role and goes as a user turn, noted;
* a user turn is a ``user`` content, an assistant turn a ``model`` one; text is a ``text`` part,
  an image or file given as bytes (and audio) an ``inlineData`` part, an image by URL a
  ``fileData`` part with the URL as its ``fileUri`` (its MIME type guessed from the name, when it
  says one); an image's detail level and a file's name have no place and are noted;
* a tool call is a ``functionCall`` part (its ``id``, ``name`` and ``args``, an object: a call
  whose arguments are not one is refused, naming the turn); its result a ``functionResponse`` part
  (``id``, ``name``, and ``response`` holding the text as ``{"result": ...}``, or ``{"error": ...}``
  when the tool failed, the keys Google's SDK uses; images in it go in its ``parts``), the results
  of one model turn gathered into the ``user`` content after it, in call order, before the rest of
  that turn. Gemini pairs a response with its call by ``name`` and order, and takes the call ids
  promptwire gives (``id`` is optional on both): they go as they are. An id promptwire made up for
  a Gemini call that had none (``call_<n>``, its place among its turn's calls, see
  :func:`reply_turn`) goes back as Gemini sent it, without one, and so does its result;
* reasoning goes back only when Gemini produced it: a thought part (``"thought": true``) with its
  ``thoughtSignature``, and a signature Gemini put on another part (a ``functionCall``, the answer's
  text) back on the part that follows it (a reasoning part with a signature and no text stands for
  it); any other reasoning is left out with a note, never sent as text;
* Gemini has no cache breakpoints (its context caching is a ``cachedContents`` resource made
  beforehand, not a mark in a request): one note lists them.

Order rules the API enforces are refused before sending, naming the turn: a tool result that
answers no call of the model turn right before it, a call left unanswered (the API wants as many
``functionResponse`` parts as the turn had ``functionCall`` parts), a call answered twice, an id
used twice, a call in a turn other than the model's.
"""

from __future__ import annotations

import base64
import mimetypes
from typing import Any

from ..core.prompt import ChatTurn, ReasoningPart, TextPart, ToolCallPart, TurnPart
from ..core.rendered import Message
from .base import split_data_url
from .turns import foreign_reasoning, turn_error

__all__ = ["PROVIDER", "GeminiContents", "reply_turn"]

PROVIDER = "gemini"

_NOT_AFTER_ITS_CALL = (
    "answers no tool call of the model turn right before it "
    "(Gemini takes a functionResponse only in the turn after its functionCall)"
)
_MOVED = (
    "these tool results go before the user content that came before them "
    "(Gemini wants a turn's functionResponse parts first)"
)


class GeminiContents:
    """One request's ``systemInstruction`` and ``contents``, written in order (:meth:`write`);
    ``notes`` says everything changed or left out on the way, ``breakpoints`` where the render
    marked a cache breakpoint (all left out: see :func:`cache_notes` in the adapter)."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.breakpoints: list[str] = []
        self.contents: list[dict[str, Any]] = []
        self.system: list[dict[str, Any]] = []
        self.used: set[str] = set()
        """The ids of the tool calls so far (an id goes once in a conversation)."""
        self.waiting: _Answers | None = None
        """The tool calls of the last model turn, while the messages after it answer them."""

    def write(self, messages: tuple[Message, ...]) -> None:
        leading = 0
        while leading < len(messages) and messages[leading].role in ("system", "developer"):
            self._system(messages[leading], leading)
            leading += 1
        for index in range(leading, len(messages)):
            self._message(messages[index], index)
        self._close()

    def _system(self, message: Message, index: int) -> None:
        self._mark(message.cache, f"messages[{index}]")
        if message.role == "developer":
            self.notes.append(f"messages[{index}]: developer text is sent as part of the system instruction")
        if message.name is not None:
            self.notes.append(f"messages[{index}]: Gemini has no speaker name; {message.name!r} left out")
        if isinstance(message.content, str):
            self.system.append({"text": message.content})
            return
        for position, part in enumerate(message.content):
            self._mark(part.get("cache"), f"messages[{index}].content[{position}]")
            if part.get("type") == "text":
                self.system.append({"text": part["text"]})
            else:
                self.notes.append(
                    f"messages[{index}].content[{position}]: Gemini's system instruction takes text only; "
                    f"this {part.get('type')} part is left out"
                )

    def _message(self, message: Message, index: int) -> None:
        self._mark(message.cache, f"messages[{index}]")
        if message.name is not None and message.role != "tool":  # a tool's name is its call's
            self.notes.append(f"messages[{index}]: Gemini has no speaker name; {message.name!r} left out")
        if message.role == "assistant":
            self._close()
            self._model(message, index)
            return
        if message.role not in ("user", "tool"):
            self.notes.append(f"messages[{index}]: role {message.role!r} has no Gemini turn; sent as a user turn")
        if message.role == "tool" and message.tool_call_id is not None:  # a one-round result
            self._take([(None, self._one_round_result(message, index))], index)
            return
        if message.role == "tool" and isinstance(message.content, str):
            self.notes.append(
                f"messages[{index}]: a tool turn that answers no call has no functionResponse form; sent as user text"
            )
        parts = self._user_parts(message, index)
        self._take(parts, index)

    # --- model turns -----------------------------------------------------------------------------

    def _model(self, message: Message, index: int) -> None:
        parts: list[dict[str, Any]] = []
        calls: list[tuple[str | None, str]] = []
        carried: str | None = None  # a signature Gemini put on the part that follows
        content = [{"type": "text", "text": message.content}] if isinstance(message.content, str) else message.content
        if isinstance(message.content, str) and not message.content and message.tool_calls:
            content = []
        for position, part in enumerate(content):
            where = f"messages[{index}].content[{position}]"
            if isinstance(message.content, list):
                self._mark(part.get("cache"), where)
            kind = part.get("type")
            written: dict[str, Any] | None
            if kind == "reasoning":
                written, signature = self._reasoning(part, index, position)
                if signature is not None:
                    if carried is not None:
                        self.notes.append(f"{where}: two thought signatures in a row; the first is left out")
                    carried = signature
                    continue
            elif kind == "tool_call":
                written = self._call(part, index, position, len(calls))
                calls.append((part.get("id"), part["name"]))
            elif kind == "tool_result":
                raise turn_error(
                    index, f"content[{position}]: a tool result is in an assistant turn; Gemini takes it in a user turn"
                )
            else:
                written = self._media(part, where)
            if written is None:
                continue
            if carried is not None:
                written["thoughtSignature"] = carried
                carried = None
            parts.append(written)
        for number, call in enumerate(message.tool_calls):  # the one-round calls, after the text
            if call.id is not None and call.id in self.used:
                raise turn_error(index, f"tool call {call.name!r}: its id {call.id!r} is an earlier call's")
            if call.id is not None:
                self.used.add(call.id)
            parts.append({"functionCall": _function_call(call.id, call.name, call.arguments, len(calls) + number)})
        calls += [(call.id, call.name) for call in message.tool_calls]
        if carried is not None:
            self.notes.append(
                f"messages[{index}]: a thought signature with no part after it to carry it cannot go to Gemini; left out"
            )
        if not parts:
            self.notes.append(f"messages[{index}]: nothing of this assistant turn can go to Gemini; left out")
            return
        self.contents.append({"role": "model", "parts": parts})
        if calls:
            self.waiting = _Answers(index, calls, len(self.contents) - 1)

    def _reasoning(self, part: dict[str, Any], index: int, position: int) -> tuple[dict[str, Any] | None, str | None]:
        """Gemini's own reasoning as it came: a thought part (with its signature), or a signature
        alone, for the part after it (returned second); anything else is left out with a note."""
        where = f"messages[{index}].content[{position}]"
        foreign = foreign_reasoning(part, PROVIDER, index, position)
        if foreign is not None:
            self.notes.append(foreign)
            return None, None
        if part.get("redacted") or part.get("encrypted") is not None:
            self.notes.append(f"{where}: Gemini has no redacted or encrypted reasoning to take back; left out")
            return None, None
        if part.get("text") is None:
            if part.get("signature") is None:
                self.notes.append(f"{where}: Gemini reasoning with neither text nor a signature; left out")
            return None, part.get("signature")
        thought: dict[str, Any] = {"text": part["text"], "thought": True}
        if part.get("signature") is not None:
            thought["thoughtSignature"] = part["signature"]
        return thought, None

    def _call(self, part: dict[str, Any], index: int, position: int, number: int) -> dict[str, Any]:
        where = f"content[{position}]: tool call {part['name']!r}"
        if part.get("arguments") is None:
            raise turn_error(
                index,
                f"{where} has arguments that are not a JSON object ({part.get('arguments_text')!r}); "
                "Gemini takes a call's args as an object",
            )
        call_id = part.get("id")
        if call_id is not None and call_id in self.used:
            raise turn_error(index, f"{where}: its id {call_id!r} is an earlier call's (Gemini takes each id once)")
        if call_id is not None:
            self.used.add(call_id)
        return {"functionCall": _function_call(call_id, part["name"], part["arguments"], number)}

    # --- user turns ------------------------------------------------------------------------------

    def _user_parts(self, message: Message, index: int) -> list[tuple[str | None, dict[str, Any]]]:
        """The message's parts, each with the call id it answers (``None`` for the others)."""
        if isinstance(message.content, str):
            return [(None, {"text": message.content})]
        parts: list[tuple[str | None, dict[str, Any]]] = []
        for position, part in enumerate(message.content):
            where = f"messages[{index}].content[{position}]"
            self._mark(part.get("cache"), where)
            kind = part.get("type")
            if kind == "tool_result":
                parts.append((part["call_id"], self._result(part, index, position)))
            elif kind == "tool_call":
                raise turn_error(
                    index,
                    f"content[{position}]: tool call {part['name']!r} is in a {message.role} turn; "
                    "Gemini takes tool calls in model turns only",
                )
            elif kind == "reasoning":
                self.notes.append(f"{where}: Gemini takes reasoning in model turns only; left out")
            else:
                written = self._media(part, where)
                if written is not None:
                    parts.append((None, written))
        return parts

    def _result(self, part: dict[str, Any], index: int, position: int) -> dict[str, Any]:
        where = f"messages[{index}].content[{position}]"
        content = part["content"]
        media: list[dict[str, Any]] = []
        if isinstance(content, str):
            text = content
        else:
            texts = []
            for inner, shown in enumerate(content):
                inside = f"{where}.content[{inner}]"
                self._mark(shown.get("cache"), inside)
                if shown.get("type") == "text":
                    texts.append(shown["text"])
                    continue
                written = self._media(shown, inside)
                if written is not None:
                    media.append(written)
            if len(texts) > 1:
                self.notes.append(
                    f"{where}: the {len(texts)} text parts of this tool result are joined by a line break"
                )
            text = "\n".join(texts)
        return self._response(part["call_id"], part.get("name"), text, bool(part.get("is_error")), media)

    def _one_round_result(self, message: Message, index: int) -> dict[str, Any]:
        """A one-round result (``Prompt.tool_results``): its text, under its call's id."""
        text = message.content if isinstance(message.content, str) else ""
        if not isinstance(message.content, str):
            texts = [part["text"] for part in message.content if part.get("type") == "text"]
            if len(texts) != len(message.content):
                self.notes.append(
                    f"messages[{index}]: only the text parts of this message can go here; the others are left out"
                )
            text = "\n".join(texts)
        return self._response(str(message.tool_call_id), message.name, text, message.is_error, [])

    def _response(
        self, call_id: str, name: str | None, text: str, is_error: bool, media: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """A ``functionResponse``: the call's id (unless promptwire made it up), the tool's name
        (the result's, else its call's), the text under ``result`` (``error`` for a failure), and
        the result's media in its ``parts``."""
        waiting = self.waiting
        response: dict[str, Any] = {}
        if waiting is None or not waiting.made_up(call_id):
            response["id"] = call_id
        named = name or (waiting.name_of(call_id) if waiting is not None else None)
        response["name"] = named if named is not None else ""
        response["response"] = {"error" if is_error else "result": text}
        if media:
            response["parts"] = media
        return {"functionResponse": response}

    def _take(self, parts: list[tuple[str | None, dict[str, Any]]], index: int) -> None:
        """A user turn's parts: results answer the waiting calls (gathered into one content with
        the rest of the turn after them), anything else is a user content of its own."""
        waiting = self.waiting
        if waiting is None:
            for call_id, _ in parts:
                if call_id is not None:
                    raise turn_error(index, f"the tool result for {call_id!r} {_NOT_AFTER_ITS_CALL}")
            self.contents.append({"role": "user", "parts": [part for _, part in parts]})
            return
        for call_id, part in parts:
            if call_id is None:
                waiting.others.append(part)
                continue
            if call_id not in waiting.ids:
                raise turn_error(
                    index, f"the tool result for {call_id!r} {_NOT_AFTER_ITS_CALL} (messages[{waiting.index}])"
                )
            if call_id in waiting.answered:
                raise turn_error(index, f"the tool call {call_id!r} of messages[{waiting.index}] is answered twice")
            if waiting.others and not waiting.moved:
                waiting.moved = True
                self.notes.append(f"messages[{index}]: {_MOVED}")
            waiting.answered[call_id] = part

    def _close(self) -> None:
        """The user content that answers the waiting calls: their results in call order, then the
        user content that came with them; refused when a call is left unanswered."""
        waiting, self.waiting = self.waiting, None
        if waiting is None:
            return
        unanswered = [str(call_id) for call_id, _ in waiting.calls if call_id not in waiting.answered]
        if unanswered:
            named = ", ".join(map(repr, unanswered))
            has = f"tool call {named} has" if len(unanswered) == 1 else f"tool calls {named} have"
            raise turn_error(
                waiting.index,
                f"{has} no tool result in the turn after it (Gemini requires as many functionResponse parts "
                "as the turn had functionCall parts)",
            )
        results = [waiting.answered[call_id] for call_id, _ in waiting.calls if call_id is not None]
        if results or waiting.others:
            self.contents.append({"role": "user", "parts": results + waiting.others})

    # --- media and marks -------------------------------------------------------------------------

    def _media(self, part: dict[str, Any], where: str) -> dict[str, Any] | None:
        """A text or media part as its Gemini part; ``None`` (noted) for one Gemini cannot carry."""
        kind = part.get("type")
        if kind == "text":
            return {"text": part["text"]}
        if kind == "image_url":
            image = part["image_url"]
            if image.get("detail") is not None:
                self.notes.append(f"{where}: Gemini has no image detail level; {image['detail']!r} left out")
            return _data(image["url"])
        if kind == "input_audio":
            audio = part["input_audio"]
            return {"inlineData": {"mimeType": f"audio/{audio['format']}", "data": audio["data"]}}
        if kind == "file" and str(part["file"].get("file_data", "")).startswith("data:"):
            if part["file"].get("filename") is not None:
                self.notes.append(
                    f"{where}: Gemini's inline data has no file name; {part['file']['filename']!r} left out"
                )
            return _data(part["file"]["file_data"])
        self.notes.append(f"{where}: Gemini cannot carry this {kind} part; left out")
        return None

    def _mark(self, mark: dict[str, Any] | None, where: str) -> None:
        if mark is not None:
            self.breakpoints.append(where)


class _Answers:
    """The tool calls of one model turn (``index``: the message; ``content``: its place in
    ``contents``) and what the messages after it bring: a result per call, and other user parts."""

    def __init__(self, index: int, calls: list[tuple[str | None, str]], content: int) -> None:
        self.index = index
        self.calls = calls
        self.content = content
        self.ids = {call_id for call_id, _ in calls if call_id is not None}
        self.answered: dict[str, dict[str, Any]] = {}
        self.others: list[dict[str, Any]] = []
        self.moved = False

    def name_of(self, call_id: str) -> str | None:
        return next((name for known, name in self.calls if known == call_id), None)

    def made_up(self, call_id: str) -> bool:
        """Whether ``call_id`` is one promptwire gave a Gemini call that had none (``call_<n>``)."""
        return any(known == call_id == f"call_{number}" for number, (known, _) in enumerate(self.calls))


def _function_call(call_id: str | None, name: str, arguments: Any, number: int) -> dict[str, Any]:
    """A ``functionCall``: with its id, unless it is the one promptwire made up (``call_<n>``)."""
    call: dict[str, Any] = {}
    if call_id is not None and call_id != f"call_{number}":
        call["id"] = call_id
    call["name"] = name
    call["args"] = arguments
    return call


def _data(url: str) -> dict[str, Any]:
    """A data URL as ``inlineData``; any other URL as ``fileData`` (its type guessed from its name)."""
    inline = split_data_url(url)
    if inline is not None:
        return {"inlineData": {"mimeType": inline[0], "data": inline[1]}}
    file: dict[str, Any] = {}
    guessed = mimetypes.guess_type(url.split("?", 1)[0])[0]
    if guessed is not None:
        file["mimeType"] = guessed
    file["fileUri"] = url
    return {"fileData": file}


def reply_turn(content: Any) -> ChatTurn:
    """A Gemini reply's content as the next assistant turn, part for part: a thought part as
    reasoning (marked as Gemini's, the only provider that takes it back, with its signature), a
    signature on any other part as a reasoning part with no text before it, text, and function
    calls with their arguments. A call without an id gets ``call_<n>`` (its place among the
    turn's calls), which going back to Gemini leaves out again."""
    parts: list[TurnPart] = []
    calls = 0
    for part in getattr(content, "parts", None) or ():
        signature = _signature(part.thought_signature)
        if part.thought and part.text is not None:
            parts.append(ReasoningPart(text=part.text, signature=signature, provider=PROVIDER))
            continue
        if signature is not None:
            parts.append(ReasoningPart(signature=signature, provider=PROVIDER))
        if part.function_call is not None:
            call = part.function_call
            parts.append(
                ToolCallPart(id=call.id or f"call_{calls}", name=call.name or "", arguments=dict(call.args or {}))
            )
            calls += 1
        elif part.text is not None:
            parts.append(TextPart(text=part.text))
    if all(isinstance(part, TextPart) for part in parts) and len(parts) == 1:
        return ChatTurn(role="assistant", content=parts[0].text)  # type: ignore[union-attr]
    return ChatTurn(role="assistant", content=parts)


def _signature(signature: bytes | None) -> str | None:
    """A part's thought signature as the wire has it (base64 text), or ``None``."""
    return None if signature is None else base64.b64encode(signature).decode("ascii")
