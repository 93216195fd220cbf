"""Content parts in the OpenAI chat shape, the lingua franca of rich message content.

Adapters translate from this shape to each provider's own; renderers that put attachments into
messages all use this one function so a part means the same thing everywhere.
"""

from __future__ import annotations

from typing import Any

from ..core.prompt import AudioPart, ContentPart, FilePart, ImagePart, TextPart

__all__ = ["openai_content", "openai_part"]


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
        # Inline bytes travel as a data URL (OpenAI's ``file_data``); a remote file keeps its URL.
        file: dict[str, Any] = {"file_url": part.url} if part.url is not None else {"file_data": part.data_url}
        if part.filename is not None:
            file["filename"] = part.filename
        return {"type": "file", "file": file}
    raise TypeError(f"unknown content part {type(part).__name__}")  # unreachable: the union is closed


def openai_content(content: str | list[ContentPart]) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    return [openai_part(part) for part in content]
