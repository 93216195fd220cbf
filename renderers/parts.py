"""Content parts in the OpenAI chat shape, the lingua franca of rich message content.

Adapters translate from this shape to each provider's own; renderers that put attachments into
messages all use this one function so a part means the same thing everywhere.

A conversation's own parts have no OpenAI content-part form, so they keep promptwire's: each the
part's fields that are given, under its ``type``::

    {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {...}, "arguments_text": "..."}
    {"type": "tool_result", "call_id": "call_1", "content": "18C" | [parts], "name": ..., "is_error": true}
    {"type": "reasoning", "text": ..., "summary": [...], "signature": ..., "encrypted": ...,
     "redacted": true, "provider": "anthropic", "id": ...}

and a part marked as a cache breakpoint carries ``"cache": {}`` (or ``{"ttl": "1h"}``); a reply's text
or tool call from the Responses API carries the ``"item_id"`` of its output item, which only that
provider takes back (every other writer builds its own parts and leaves it behind).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from ..core.prompt import (
    PART_CLASSES,
    AudioPart,
    CacheMark,
    ContentPart,
    FilePart,
    ImagePart,
    Prompt,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    TurnPart,
)

__all__ = [
    "URL_FILE_REASON",
    "attachment_url_file_paths",
    "cache_mark",
    "holds_url_file",
    "media_content",
    "openai_content",
    "openai_part",
    "turn_url_file_paths",
    "url_file_paths",
]

URL_FILE_REASON = "a chat file part takes inline data or a file id, not a URL: shown as a text part with the URL"


def cache_mark(mark: CacheMark | None) -> dict[str, Any] | None:
    """A breakpoint as a rendered message or part carries it: ``{}``, or ``{"ttl": ...}``."""
    if mark is None:
        return None
    return {} if mark.ttl is None else {"ttl": mark.ttl}


def openai_part(part: TurnPart) -> dict[str, Any]:
    """``part`` as a rendered content part (see the module docstring), its breakpoint included."""
    # Read from the fields, not with ``getattr``: on a kind without the field, pydantic's
    # ``__getattr__`` raises and catches an AttributeError (about 2 us, for each part of a history),
    # and every attribute read of a model, even one it has, goes through that hook first.
    fields = part.__dict__
    kind = type(part)
    by_fields = _FIELD_SHAPES.get(kind)  # the kinds of a conversation's turns: written from their fields
    if by_fields is not None:
        shaped = by_fields(fields)
    else:
        shape = _SHAPES.get(kind)  # one call fewer per part of a history than _shaped
        shaped = shape(part) if shape is not None else _shaped(part)
    mark = fields.get("cache")  # every kind but reasoning may carry one
    if mark is not None:
        shaped["cache"] = cache_mark(mark)
    item_id = fields.get("item_id")  # a reply's text or call, from the Responses API
    if item_id is not None:
        shaped["item_id"] = item_id
    return shaped


def _shaped(part: TurnPart) -> dict[str, Any]:
    shape = _SHAPES.get(part.__class__)
    if shape is None:  # a subclass of a part's class
        shape = next((shape for kind, shape in _SHAPES.items() if isinstance(part, kind)), None)
        if shape is None:
            raise TypeError(f"unknown content part {type(part).__name__}")  # unreachable: the union is closed
    return shape(part)


def _text(part: TextPart) -> dict[str, Any]:
    return {"type": "text", "text": part.text}


def _image(part: ImagePart) -> dict[str, Any]:
    image: dict[str, Any] = {"url": part.data_url}
    if part.detail is not None:
        image["detail"] = part.detail
    return {"type": "image_url", "image_url": image}


def _audio(part: AudioPart) -> dict[str, Any]:
    return {"type": "input_audio", "input_audio": {"data": part.data, "format": part.format}}


def _file(part: FilePart) -> dict[str, Any]:
    if part.url is not None:
        # OpenAI chat file parts take ``file_data`` or ``file_id`` only: the model is told
        # where the file is instead, and the renderer reports it (``url_file_paths``).
        name = f" {part.filename}" if part.filename is not None else ""
        return {"type": "text", "text": f"[file{name}: {part.url}]"}
    file: dict[str, Any] = {"file_data": part.data_url}
    if part.filename is not None:
        file["filename"] = part.filename
    return {"type": "file", "file": file}


def _tool_call(part: ToolCallPart) -> dict[str, Any]:
    call: dict[str, Any] = {"type": "tool_call", "id": part.id, "name": part.name, "arguments": part.arguments}
    if part.arguments_text is not None:
        call["arguments_text"] = part.arguments_text
    return call


def _tool_result(part: ToolResultPart) -> dict[str, Any]:
    content = part.content
    result: dict[str, Any] = {
        "type": "tool_result",
        "call_id": part.call_id,
        "content": content if content.__class__ is str else openai_content(content),
    }
    if part.name is not None:
        result["name"] = part.name
    if part.is_error:
        result["is_error"] = True
    return result


def _text_fields(fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": "text", "text": fields["text"]}


def _tool_call_fields(fields: dict[str, Any]) -> dict[str, Any]:
    call: dict[str, Any] = {
        "type": "tool_call",
        "id": fields["id"],
        "name": fields["name"],
        "arguments": fields["arguments"],
    }
    text = fields["arguments_text"]
    if text is not None:
        call["arguments_text"] = text
    return call


def _tool_result_fields(fields: dict[str, Any]) -> dict[str, Any]:
    content = fields["content"]
    result: dict[str, Any] = {
        "type": "tool_result",
        "call_id": fields["call_id"],
        "content": content if content.__class__ is str else openai_content(content),
    }
    if fields["name"] is not None:
        result["name"] = fields["name"]
    if fields["is_error"]:
        result["is_error"] = True
    return result


_FIELD_SHAPES: dict[type[Any], Callable[[dict[str, Any]], dict[str, Any]]] = {
    TextPart: _text_fields,
    ToolCallPart: _tool_call_fields,
    ToolResultPart: _tool_result_fields,
}
""":func:`_text`, :func:`_tool_call` and :func:`_tool_result` from the part's fields, read once by
:func:`openai_part` (a history holds 100,000s of these parts, and each attribute read of a model
goes through pydantic's ``__getattr__`` hook)."""


def _reasoning(part: ReasoningPart) -> dict[str, Any]:
    return {"type": "reasoning", **part.model_dump(exclude_none=True, exclude_defaults=True, exclude={"type"})}


_SHAPES: dict[type[Any], Callable[[Any], dict[str, Any]]] = {
    TextPart: _text,
    ImagePart: _image,
    AudioPart: _audio,
    FilePart: _file,
    ToolCallPart: _tool_call,
    ToolResultPart: _tool_result,
    ReasoningPart: _reasoning,
}
"""How each kind of part is written, looked up by its class: a chain of ``isinstance`` tests cost
up to six calls for each part of a history (a tool result is the sixth)."""


def openai_content(content: str | list[ContentPart] | list[TurnPart]) -> str | list[dict[str, Any]]:
    if content.__class__ is list:  # a turn's parts, for each turn of a history
        return list(map(openai_part, content))
    if isinstance(content, str):
        return content
    return [openai_part(part) for part in content]


def url_file_paths(prompt: Prompt) -> list[str]:
    """Where the prompt holds a file given by URL, which :func:`openai_part` can only show as text."""
    if not prompt.attachments and all(turn.content.__class__ is str for turn in prompt.history):
        return []  # no part anywhere: the usual chat of text turns, told in one pass
    paths = attachment_url_file_paths(prompt)
    for t, turn in enumerate(prompt.history):
        content = turn.content
        if not isinstance(content, str) and holds_url_file(content):
            paths += turn_url_file_paths(t, content)
    return paths


def attachment_url_file_paths(prompt: Prompt) -> list[str]:
    """The attachments' part of :func:`url_file_paths` (the turns' follow: a renderer that writes
    the turns anyway adds theirs with :func:`turn_url_file_paths` as it goes)."""
    return [f"attachments[{i}]" for i, part in enumerate(prompt.attachments) if _is_url_file(part)]


def holds_url_file(content: list[TurnPart]) -> bool:
    """Whether a turn's parts may hold a file given by URL: told in C by the parts' classes (for
    each turn of a history), before :func:`turn_url_file_paths` looks into the ones that may."""
    return not _NO_URL_FILE.issuperset(map(type, content))


def turn_url_file_paths(index: int, content: list[TurnPart]) -> list[str]:
    """Where ``history[index]``'s parts hold a file given by URL (:func:`url_file_paths`)."""
    paths = []
    for i, part in enumerate(content):
        # Told by the exact class where it is one of the part classes (see PART_CLASSES), _is_url_file's
        # test inline.
        kind = part.__class__
        known = kind in PART_CLASSES
        if kind is FilePart or (not known and isinstance(part, FilePart)):
            if cast(FilePart, part).url is not None:
                paths.append(f"history[{index}].content[{i}]")
        elif kind is ToolResultPart or (not known and isinstance(part, ToolResultPart)):
            shown_parts = cast(ToolResultPart, part).content
            if not isinstance(shown_parts, str):
                paths += [
                    f"history[{index}].content[{i}].content[{n}]"
                    for n, shown in enumerate(shown_parts)
                    if _is_url_file(shown)
                ]
    return paths


_NO_URL_FILE = frozenset({TextPart, ImagePart, AudioPart, ToolCallPart, ReasoningPart})
"""The part classes that never hold a file given by URL (a file part may be one, a tool result may
show one; a class outside the part classes is looked into)."""


def _is_url_file(part: TurnPart) -> bool:
    return isinstance(part, FilePart) and part.url is not None


def media_content(content: str | list[ContentPart] | list[TurnPart]) -> str | list[dict[str, Any]]:
    """``content`` as a format that shows text and media only (no tool calls, tool results,
    reasoning or breakpoints) writes it: those parts and marks are left out, and the renderer's
    report names them (``history.tool_calls``, ``history.cache``...)."""
    if isinstance(content, str):
        return content
    return [
        _shaped(part)
        for part in content
        if part.__class__ in _MEDIA_CLASSES or (part.__class__ not in PART_CLASSES and isinstance(part, _MEDIA))
    ]


_MEDIA = (TextPart, ImagePart, AudioPart, FilePart)
_MEDIA_CLASSES = frozenset(_MEDIA)
"""The parts a message shows, told by the exact class where it is one of the part classes (see
``PART_CLASSES``): ``isinstance`` against a model class that does not match is slow, and with a
union (``TextPart | ...``) slower still, for each part of a history."""
