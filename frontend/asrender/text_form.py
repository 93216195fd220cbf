"""``--output text``: the text a model reads, for every format.

A format with a single-string form (agently's text; a template with no system part) is that string,
byte for byte. A message format sends messages, and a chat model reads them as one text, each
message's content after its role; which tokens a provider puts between them is its own chat
template, so the text shown is the provider-neutral transcript of them:

    system:
    You are Classifier.
    Classify.

    user:
    Context:
    ...

Each message is a line naming its role (and ``(name)``, ``[tool call id]``, `` error`` as the
display does), then its content verbatim and a newline; messages are separated by a blank line.
Content parts other than text, a turn's tool calls and the tools offered, which the model reads as
JSON, are one line of JSON each (a ``tools:`` block last). Nothing else is added: no headings, no
reply, no escapes on a file or a pipe. A program's run is several calls: each call's text follows
its ``=== SITE agent A attempt N ===`` line (the display's heading), so where one call ends shows.
"""

from __future__ import annotations

from ...core.json_text import dumps
from ...core.rendered import Message, RenderedPrompt

__all__ = ["model_text"]


def model_text(rendered: RenderedPrompt) -> str:
    """The text a model reads of ``rendered`` (see the module docstring)."""
    if rendered.text is not None:
        return rendered.text
    blocks = [_message_text(message) for message in rendered.messages]
    if rendered.tools:
        blocks.append("tools:\n" + "".join(_json_line(tool.model_dump(exclude_none=True)) for tool in rendered.tools))
    return "\n".join(blocks)


def _message_text(message: Message) -> str:
    speaker = message.role if message.name is None else f"{message.role} ({message.name})"
    if message.tool_call_id is not None:
        speaker += f" [{message.tool_call_id}]" + (" error" if message.is_error else "")
    chunks = [f"{speaker}:\n"]
    if isinstance(message.content, str):
        if message.content or not message.tool_calls:
            chunks.append(message.content + "\n")
    else:
        for part in message.content:
            text = part.get("text")
            chunks.append(text + "\n" if part.get("type") == "text" and isinstance(text, str) else _json_line(part))
    chunks.extend(
        _json_line({"tool_call": {"id": call.id, "name": call.name, "arguments": call.arguments}})
        for call in message.tool_calls
    )
    return "".join(chunks)


def _json_line(value: object) -> str:
    return dumps(value, sort_keys=True, default=str) + "\n"
