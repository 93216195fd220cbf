"""Content parts in the OpenAI chat shape, the lingua franca of rich message content.

Adapters translate from this shape to each provider's own; renderers that put attachments into
messages all use this one function so a part means the same thing everywhere.
"""

from __future__ import annotations

from typing import Any

from ..core.prompt import AudioPart, ContentPart, FilePart, ImagePart, Prompt, TextPart

__all__ = ["URL_FILE_REASON", "openai_content", "openai_part", "url_file_paths"]

URL_FILE_REASON = "a chat file part takes inline data or a file id, not a URL: shown as a text part with the URL"


def openai_part(part: ContentPart) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart):
        image: dict[str, Any] = {"url": part.data_url}
        if part.detail is not None:
            image["detail"] = part.detail
        return {"type": "image_url", "image_url": image}
    if isinstance(part, AudioPart):
        return {"type": "input_audio", "input_audio": {"data": part.data, "format": part.format}}
    if isinstance(part, FilePart):
        if part.url is not None:
            # OpenAI chat file parts take ``file_data`` or ``file_id`` only: the model is told
            # where the file is instead, and the renderer reports it (``url_file_paths``).
            name = f" {part.filename}" if part.filename is not None else ""
            return {"type": "text", "text": f"[file{name}: {part.url}]"}
        file: dict[str, Any] = {"file_data": part.data_url}
        if part.filename is not None:
            file["filename"] = part.filename
        return {"type": "file", "file": file}
    raise TypeError(f"unknown content part {type(part).__name__}")  # unreachable: the union is closed


def openai_content(content: str | list[ContentPart]) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    return [openai_part(part) for part in content]


def url_file_paths(prompt: Prompt) -> list[str]:
    """Where the prompt holds a file given by URL, which :func:`openai_part` can only show as text."""
    paths = [f"attachments[{i}]" for i, part in enumerate(prompt.attachments) if _is_url_file(part)]
    for t, turn in enumerate(prompt.history):
        if not isinstance(turn.content, str):
            paths += [f"history[{t}].content[{i}]" for i, part in enumerate(turn.content) if _is_url_file(part)]
    return paths


def _is_url_file(part: ContentPart) -> bool:
    return isinstance(part, FilePart) and part.url is not None
