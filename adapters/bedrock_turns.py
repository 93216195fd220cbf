"""A conversation as Bedrock Converse messages, and a Converse reply as the next turn.

:class:`ConverseMessages` writes a render's messages as Converse holds them: ``system`` blocks for
the leading system and developer text, then ``messages`` of ``user`` and ``assistant`` turns whose
``content`` is a list of blocks, each a one-key object:

* text as ``{"text": ...}`` (Converse refuses a blank text block: an empty text part or message is
  left out, with a note);
* an image given as bytes as ``{"image": {"format": "png", "source": {"bytes": BASE64}}}`` (PNG,
  JPEG, GIF, WebP; one stored in S3, ``s3://BUCKET/KEY.png``, as its ``s3Location``);
* a file given as bytes as ``{"document": {"format": "pdf", "name": ..., "source": {"bytes":
  BASE64}}}`` (the document formats Converse lists; its name is required and may hold only
  letters, digits, single spaces, hyphens, parentheses and square brackets, so a file name is made
  one and the note says so);
* audio as ``{"audio": {"format": "wav", "source": {"bytes": BASE64}}}`` (in a format Converse
  names; which models take it is theirs to say).

  Bytes are written as base64 text, which is how they go on the wire: boto3 takes them as raw
  bytes and writes them base64 in its JSON; promptwire sends the body as built (see
  :mod:`.bedrock`), so a dry run shows the very bytes;
* tool calls as ``toolUse`` blocks with the call's arguments as the ``input`` object, their results
  as ``toolResult`` blocks (``status: "error"`` for a failed tool) gathered into the user turn after
  the call, in call order, before the user content that came with them;
* Bedrock's own reasoning back as ``reasoningContent``: ``reasoningText`` with its ``signature``,
  or ``redactedContent`` (base64, as on the wire); reasoning of another provider, or unsigned, is
  left out with a note (never sent as text);
* a cache breakpoint as a ``cachePoint`` block right after the block it marks (in ``system``, in a
  message, or after the tools: :func:`cache_point`); a tool result's inner content takes none.

Converse wants user and assistant turns to alternate, so consecutive turns of one role are joined
(noted, unless the turn joined holds tool results alone, the usual form); tool-call ids it refuses
are mapped one way (:class:`ToolIds`); order rules are refused before sending, naming the turn.
"""

from __future__ import annotations

import base64
import re
from typing import Any, TypeVar

from pydantic import BaseModel

from ..core.json_text import json_object
from ..core.prompt import ChatTurn, ReasoningPart, TextPart, ToolCallPart, TurnPart
from ..core.rendered import Message
from .base import split_data_url
from .turns import ToolIds, foreign_reasoning, turn_error

__all__ = ["PROVIDER", "ConverseMessages", "cache_point", "reply_turn"]

PROVIDER = "bedrock"

IMAGE_FORMATS = {
    "image/png": "png",
    "image/jpeg": "jpeg",
    "image/jpg": "jpeg",
    "image/gif": "gif",
    "image/webp": "webp",
}
DOCUMENT_FORMATS = {
    "application/pdf": "pdf",
    "text/csv": "csv",
    "application/msword": "doc",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "application/vnd.ms-excel": "xls",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
    "text/html": "html",
    "text/plain": "txt",
    "text/markdown": "md",
}
"""The media types Converse takes as bytes, and the ``format`` it names each by."""
AUDIO_FORMATS = frozenset(
    {"mp3", "opus", "wav", "aac", "flac", "mp4", "ogg", "mkv", "mka", "x-aac", "m4a", "mpeg", "mpga", "pcm", "webm"}
)
"""The audio formats Converse names (which models take audio is the model's own matter)."""

_TURN_ROLES = frozenset({"user", "assistant"})

_NAME_OUTSIDE = re.compile(r"[^A-Za-z0-9\s\-()\[\]]+")
_SPACES = re.compile(r"\s+")


def cache_point(mark: dict[str, Any]) -> dict[str, Any]:
    """A breakpoint as Converse's ``cachePoint`` block (a ``ttl`` of ``5m`` or ``1h`` where given)."""
    point: dict[str, Any] = {"type": "default"}
    if mark.get("ttl") is not None:
        point["ttl"] = mark["ttl"]
    return {"cachePoint": point}


def document_name(filename: str | None, number: int) -> str:
    """A document's name as Converse takes it: the file name without its extension, each run of
    other characters a hyphen, single spaces; ``document N`` when that leaves nothing."""
    stem = filename.rsplit(".", 1)[0] if filename and "." in filename.lstrip(".") else filename or ""
    name = _SPACES.sub(" ", _NAME_OUTSIDE.sub("-", stem)).strip()[:200]
    return name or f"document {number}"


class _Turn:
    """A Converse message being written: its role, blocks, and the render's message it began at."""

    def __init__(self, role: str, content: list[dict[str, Any]], index: int, results_only: bool) -> None:
        self.role = role
        self.content = content
        self.index = index
        self.results_only = results_only


class ConverseMessages:
    """One request's ``system`` and ``messages`` (:meth:`write`); ``notes`` says everything changed
    or left out on the way."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.system: list[dict[str, Any]] = []

    def _begin(self) -> None:
        """The general pass's own state (the plain text pass needs none: every call makes a writer)."""
        self.ids = ToolIds("Bedrock", "a-zA-Z0-9_-", 64)
        self.turns: list[_Turn] = []
        self.documents = 0
        self.used: set[str] = set()
        self.origin: dict[int, int] = {}
        """The render's message each toolResult block came from (by the block's id), for a refusal to name."""

    def write(self, messages: tuple[Message, ...]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The ``system`` blocks and the ``messages`` of the render's messages, order rules checked."""
        written = self._plain(messages)
        return written if written is not None else self._written(messages)

    def _plain(self, messages: tuple[Message, ...]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
        """What :meth:`_written` writes of a plain text conversation (system text, then user and
        assistant turns that alternate, each text that is not blank, no name, no breakpoint, no
        tool call), written in one pass; ``None`` for any other, which :meth:`_written` writes
        with its notes and checks. The usual prompt is such a conversation, and every call
        writes one: the general pass cost about four times as many instructions."""
        system: list[dict[str, Any]] = []
        written: list[dict[str, Any]] = []
        leading = True
        role = ""
        for message in messages:
            content = message.content
            if content.__class__ is not str or not content.strip() or message.cache is not None:
                return None
            if leading and message.role == "system":
                system.append({"text": content})
                continue
            leading = False
            if message.role == role or message.role not in _TURN_ROLES or message.name is not None:
                return None
            if message.tool_calls:
                return None
            role = message.role
            written.append({"role": role, "content": [{"text": content}]})
        self.system.extend(system)
        return self.system, written

    def _written(self, messages: tuple[Message, ...]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """:meth:`write` of any conversation."""
        self._begin()
        leading = 0
        while leading < len(messages) and messages[leading].role in ("system", "developer"):
            self._system(messages[leading], leading)
            leading += 1
        for index in range(leading, len(messages)):
            self._message(messages[index], index)
        written = self._paired()
        self.notes.extend(self.ids.notes())
        return self.system, written

    def _system(self, message: Message, index: int) -> None:
        if message.role == "developer":
            self.notes.append(f"messages[{index}]: developer text is sent as part of the system prompt")
        parts = [{"type": "text", "text": message.content}] if isinstance(message.content, str) else message.content
        for position, part in enumerate(parts):
            where = (
                f"messages[{index}]" if isinstance(message.content, str) else f"messages[{index}].content[{position}]"
            )
            if part.get("type") != "text":
                self.notes.append(
                    f"{where}: Bedrock system blocks take text only; this {part.get('type')} part is left out"
                )
                continue
            if not part["text"].strip():
                self.notes.append(f"{where}: Bedrock refuses a blank text block; left out")
                continue
            self.system.append({"text": part["text"]})
            if part.get("cache") is not None:
                self.system.append(cache_point(part["cache"]))
        if message.cache is not None:
            self._mark_end(self.system, message.cache, f"messages[{index}]")

    def _mark_end(self, blocks: list[dict[str, Any]], mark: dict[str, Any], where: str) -> None:
        """A message's breakpoint: a ``cachePoint`` after its last block (once)."""
        if not blocks:
            self.notes.append(f"{where}: an empty message has no block to mark; cache breakpoint left out")
        elif "cachePoint" not in blocks[-1]:
            blocks.append(cache_point(mark))

    def _message(self, message: Message, index: int) -> None:
        if message.name is not None and message.role != "tool":
            self.notes.append(f"messages[{index}]: Bedrock turns have no speaker name; {message.name!r} left out")
        role = message.role
        if role not in ("user", "assistant", "tool"):
            self.notes.append(f"messages[{index}]: role {role!r} has no Bedrock turn; sent as a user turn")
        elif role == "tool" and message.tool_call_id is None and not _holds_results(message):
            self.notes.append(
                f"messages[{index}]: a tool turn that answers no call has no toolResult form; sent as user text"
            )
        content = self._blocks_of(message, index)
        if message.cache is not None:
            self._mark_end(content, message.cache, f"messages[{index}]")
        if not content:
            if isinstance(message.content, str) or not message.content:
                self.notes.append(f"messages[{index}]: Bedrock refuses an empty turn; left out")
            return
        role = "assistant" if role == "assistant" else "user"
        results_only = all("toolResult" in block or "cachePoint" in block for block in content)
        if self.turns and self.turns[-1].role == role:
            before = self.turns[-1]
            if not (results_only or before.results_only):  # results with their user content are one turn anyway
                self.notes.append(
                    f"messages[{index}]: joined to the {role} turn before it (Bedrock wants user and assistant "
                    "turns to alternate)"
                )
            before.content.extend(content)
            before.results_only = before.results_only and results_only
            return
        self.turns.append(_Turn(role, content, index, results_only))

    def _blocks_of(self, message: Message, index: int) -> list[dict[str, Any]]:
        if message.role == "tool" and message.tool_call_id is not None:  # a one-round result
            text = message.content if isinstance(message.content, str) else self._texts(message.content, index)
            result: dict[str, Any] = {"toolUseId": self.ids(message.tool_call_id), "content": [{"text": text}]}
            if message.is_error:
                result["status"] = "error"
            block = {"toolResult": result}
            self.origin[id(block)] = index
            return [block]
        blocks: list[dict[str, Any]]
        if isinstance(message.content, str):
            blocks = [{"text": message.content}] if message.content.strip() else []
            if message.content and not blocks:
                self.notes.append(f"messages[{index}]: Bedrock refuses a blank text block; left out")
        else:
            blocks = self._parts(message.content, index, message.role)
        for call in message.tool_calls:  # the one-round calls (``Prompt.tool_calls``), after the text
            blocks.append(
                {"toolUse": {"toolUseId": self.ids(str(call.id)), "name": call.name, "input": call.arguments}}
            )
        return blocks

    def _texts(self, parts: list[dict[str, Any]], index: int) -> str:
        texts = [part["text"] for part in parts if part.get("type") == "text"]
        if len(texts) != len(parts):
            self.notes.append(
                f"messages[{index}]: only the text parts of this message can go here; the others are left out"
            )
        return "\n".join(texts)

    def _parts(self, parts: list[dict[str, Any]], index: int, role: str, within: str = "") -> list[dict[str, Any]]:
        """Content parts as blocks, each breakpoint a ``cachePoint`` after its block; ``within``
        names the tool result whose content they are (``.content[2]``): there no breakpoint goes."""
        blocks: list[dict[str, Any]] = []
        for position, part in enumerate(parts):
            where = f"messages[{index}]{within}.content[{position}]"
            kind = part.get("type")
            if kind == "reasoning":
                block = self._reasoning(part, where, role)
            elif kind == "tool_call":
                block = self._tool_use(part, index, position, role)
            elif kind == "tool_result":
                block = self._tool_result(part, index, position, role)
            else:
                block = self._media(part, where)
            if block is None:
                continue
            blocks.append(block)
            if part.get("cache") is not None:
                if within:
                    self.notes.append(f"{where}: Bedrock takes no cache point inside a tool result; left out")
                else:
                    blocks.append(cache_point(part["cache"]))
        return blocks

    def _media(self, part: dict[str, Any], where: str) -> dict[str, Any] | None:
        kind = part.get("type")
        if kind == "text":
            if part["text"].strip():
                return {"text": part["text"]}
            self.notes.append(f"{where}: Bedrock refuses a blank text block; left out")
            return None
        if kind == "image_url":
            image = part["image_url"]
            inline = split_data_url(image["url"])
            stored = _s3_image(image["url"])
            if stored is not None:
                block: dict[str, Any] = {"image": stored}
            elif inline is None or inline[0] not in IMAGE_FORMATS:
                what = "an image by URL" if inline is None else f"an image of type {inline[0]}"
                self.notes.append(
                    f"{where}: Bedrock takes images as PNG, JPEG, GIF or WebP bytes (or from S3), not {what}; left out"
                )
                return None
            else:
                block = {"image": {"format": IMAGE_FORMATS[inline[0]], "source": {"bytes": inline[1]}}}
            if image.get("detail") is not None:
                self.notes.append(f"{where}: Bedrock has no image detail level; {image['detail']!r} left out")
            return block
        if kind == "file":
            file = part["file"]
            inline = split_data_url(str(file.get("file_data", "")))
            if inline is None or inline[0] not in DOCUMENT_FORMATS:
                what = "a file without its data" if inline is None else f"a file of type {inline[0]}"
                self.notes.append(
                    f"{where}: Bedrock documents take {', '.join(DOCUMENT_FORMATS.values())}; not {what}; left out"
                )
                return None
            self.documents += 1
            name = document_name(file.get("filename"), self.documents)
            if name != file.get("filename"):
                given = f"the file name {file['filename']!r}" if file.get("filename") else "no file name"
                self.notes.append(
                    f"{where}: Bedrock requires a document name of letters, digits, single spaces, hyphens, "
                    f"parentheses and brackets; {given} sent as {name!r}"
                )
            source = {"bytes": inline[1]}
            return {"document": {"format": DOCUMENT_FORMATS[inline[0]], "name": name, "source": source}}
        if kind == "input_audio" and part["input_audio"].get("format") in AUDIO_FORMATS:
            audio = part["input_audio"]
            return {"audio": {"format": audio["format"], "source": {"bytes": audio["data"]}}}
        self.notes.append(f"{where}: Bedrock cannot carry this {kind} part; left out")
        return None

    def _reasoning(self, part: dict[str, Any], where: str, role: str) -> dict[str, Any] | None:
        """Bedrock's own reasoning, as it came: its text with the signature, or its redacted content."""
        index, _, rest = where.partition("].content[")
        foreign = foreign_reasoning(part, PROVIDER, int(index.removeprefix("messages[")), int(rest.split("]")[0]))
        if foreign is not None:
            self.notes.append(foreign)
        elif role != "assistant":
            self.notes.append(f"{where}: Bedrock takes reasoning in assistant turns only; left out")
        elif part.get("redacted"):
            if part.get("encrypted") is not None:
                return {"reasoningContent": {"redactedContent": part["encrypted"]}}
            self.notes.append(
                f"{where}: redacted reasoning without its content cannot be sent back to bedrock; left out"
            )
        elif part.get("signature") is not None:
            return {
                "reasoningContent": {"reasoningText": {"text": part.get("text") or "", "signature": part["signature"]}}
            }
        else:
            self.notes.append(
                f"{where}: reasoning without its signature cannot be sent back to bedrock "
                "(the model refuses reasoning it cannot verify); left out"
            )
        return None

    def _tool_use(self, part: dict[str, Any], index: int, position: int, role: str) -> dict[str, Any]:
        where = f"content[{position}]: tool call {part['name']!r}"
        if role != "assistant":
            raise turn_error(index, f"{where} is in a {role} turn; Bedrock takes tool calls in assistant turns only")
        if part.get("id") is None:
            raise turn_error(index, f"{where} has no id, which Bedrock needs to pair it with its result")
        if part.get("arguments") is None:
            raise turn_error(
                index,
                f"{where} has arguments that are not a JSON object ({part.get('arguments_text')!r}); "
                "Bedrock takes a call's input as an object",
            )
        if part["id"] in self.used:
            raise turn_error(index, f"{where}: its id {part['id']!r} is an earlier call's (Bedrock takes each id once)")
        self.used.add(part["id"])
        return {"toolUse": {"toolUseId": self.ids(part["id"]), "name": part["name"], "input": part["arguments"]}}

    def _tool_result(self, part: dict[str, Any], index: int, position: int, role: str) -> dict[str, Any]:
        if role == "assistant":
            raise turn_error(
                index, f"content[{position}]: a tool result is in an assistant turn; Bedrock takes it in a user turn"
            )
        content = part["content"]
        if isinstance(content, str):
            blocks = [{"text": content}]
        else:
            blocks = self._parts(content, index, role, f".content[{position}]")
        result: dict[str, Any] = {"toolUseId": self.ids(part["call_id"]), "content": blocks}
        if part.get("is_error"):
            result["status"] = "error"
        if part.get("name") is not None:
            self.notes.append(
                f"messages[{index}].content[{position}]: Bedrock tool results have no name; "
                "the tool is known by its call id"
            )
        block = {"toolResult": result}
        self.origin[id(block)] = index
        return block

    def _paired(self) -> list[dict[str, Any]]:
        """The turns as messages, each assistant turn's calls answered in the user turn after it
        (its results first, in call order), or refused naming the turn."""
        written: list[dict[str, Any]] = []
        calls: list[str] = []
        caller = 0
        for turn in self.turns:
            if turn.role == "assistant":
                if calls:
                    raise _unanswered(caller, calls, self.ids)
                calls = [block["toolUse"]["toolUseId"] for block in turn.content if "toolUse" in block]
                caller = turn.index
                written.append({"role": "assistant", "content": turn.content})
                continue
            results = [block for block in turn.content if "toolResult" in block]
            answered: set[str] = set()
            for block in results:
                call = block["toolResult"]["toolUseId"]
                where = self.origin.get(id(block), turn.index)
                if call not in calls:
                    raise turn_error(
                        where,
                        f"the tool result for {self.ids.original(call)!r} answers no tool call of the assistant turn "
                        "right before it (Bedrock takes a toolResult only in the user turn after its toolUse)",
                    )
                if call in answered:
                    raise turn_error(where, f"the tool call {self.ids.original(call)!r} is answered twice")
                answered.add(call)
            if len(answered) != len(calls):
                raise _unanswered(caller, [call for call in calls if call not in answered], self.ids)
            content = _results_first(turn.content, calls) if results else turn.content
            if content is not turn.content and _moved(turn.content):
                self.notes.append(
                    f"messages[{turn.index}]: these tool results go before the user content that came before "
                    "them (Bedrock wants a turn's toolResult blocks first)"
                )
            calls = []
            written.append({"role": "user", "content": content})
        if calls:
            raise _unanswered(caller, calls, self.ids)
        return written


_S3_IMAGE = re.compile(r"s3://[^/]+/.+\.(png|jpe?g|gif|webp)", re.IGNORECASE)


def _s3_image(url: str) -> dict[str, Any] | None:
    """An image stored in S3 (``s3://BUCKET/KEY.png``) as Converse's ``s3Location`` source, its
    format read from the key's extension; ``None`` for any other URL."""
    found = _S3_IMAGE.fullmatch(url)
    if found is None:
        return None
    kind = found.group(1).lower()
    return {"format": "jpeg" if kind in ("jpg", "jpeg") else kind, "source": {"s3Location": {"uri": url}}}


def _holds_results(message: Message) -> bool:
    return isinstance(message.content, list) and any(part.get("type") == "tool_result" for part in message.content)


def _groups(content: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Blocks with the ``cachePoint`` that marks each (it follows its block wherever the block goes)."""
    groups: list[list[dict[str, Any]]] = []
    for block in content:
        if "cachePoint" in block and groups:
            groups[-1].append(block)
        else:
            groups.append([block])
    return groups


def _results_first(content: list[dict[str, Any]], calls: list[str]) -> list[dict[str, Any]]:
    """A user turn's blocks with its tool results first, in the order of the calls they answer."""
    groups = _groups(content)
    results = sorted(
        (group for group in groups if "toolResult" in group[0]),
        key=lambda group: calls.index(group[0]["toolResult"]["toolUseId"]),
    )
    others = [group for group in groups if "toolResult" not in group[0]]
    return [block for group in results + others for block in group]


def _moved(content: list[dict[str, Any]]) -> bool:
    """Whether user content comes before a tool result in ``content`` (writing results first moves it)."""
    kinds = ["toolResult" in group[0] for group in _groups(content)]
    return any(not kinds[i] and any(kinds[i + 1 :]) for i in range(len(kinds)))


def _unanswered(index: int, calls: list[str], ids: ToolIds) -> Exception:
    named = ", ".join(repr(ids.original(call)) for call in calls)
    which = f"tool call {named} has" if len(calls) == 1 else f"tool calls {named} have"
    return turn_error(
        index,
        f"{which} no tool result in the turn after it "
        "(Bedrock requires every toolUse to be answered by a toolResult in the next user turn)",
    )


def reply_turn(message: dict[str, Any]) -> ChatTurn:
    """A Converse reply's message as the next assistant turn: each block in its order, reasoning
    with its signature (or its redacted content, as base64 text) marked as Bedrock's, text, and
    tool calls with their input; a block a turn has no part for (an image the model made, a
    citation) is not carried."""
    parts: list[TurnPart] = []
    for block in message["content"]:
        if "text" in block:
            parts.append(_made(TextPart, {"text": block["text"]}))
        elif "reasoningContent" in block:
            reasoning = block["reasoningContent"]
            if "redactedContent" in reasoning:
                encrypted = base64.b64encode(reasoning["redactedContent"]).decode("ascii")
                parts.append(_made(ReasoningPart, {"encrypted": encrypted, "redacted": True, "provider": PROVIDER}))
            else:
                text = reasoning["reasoningText"]
                given = {"text": text["text"], "signature": text.get("signature"), "provider": PROVIDER}
                parts.append(_made(ReasoningPart, given))
        elif "toolUse" in block:
            call = block["toolUse"]
            arguments = call["input"] if isinstance(call["input"], dict) else json_object(str(call["input"]))
            parts.append(_made(ToolCallPart, {"id": call["toolUseId"], "name": call["name"], "arguments": arguments}))
    return _made(ChatTurn, {"role": "assistant", "content": parts})


_Model = TypeVar("_Model", bound=BaseModel)


def _made(model: type[_Model], fields: dict[str, Any]) -> _Model:
    """``model(**fields)``: the same validation and the same model (the same fields set), by the
    model's own validator (pydantic's ``__pydantic_validator__``) without ``BaseModel.__init__``'s
    Python frame and keyword arguments, about 2,500 instructions less for each part of every reply
    and for its turn."""
    made: _Model = model.__pydantic_validator__.validate_python(fields)
    return made
