"""A conversation as it is: its turns as chat messages, with no text layout around them.

The default format of a conversation read from a provider's own form (``asrender FILE --from
openai-chat``): the system text, the developer text, every turn of the history with its parts
(tool calls, tool results, reasoning, media, cache breakpoints), then the instruction, when there
is one, as the last user turn (text as it is, any other value as JSON) with the attachments, and
the one-round tool calls and results after it. Nothing is worded or wrapped: what was read is
what an adapter receives. The fields a layout would place (identity, context, sections, ...) have
no place here and are reported.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.errors import FieldError
from ..core.nesting import nesting_room
from ..core.prompt import Prompt
from ..core.rendered import Message, RenderedPrompt, RenderWarning
from .base import unexpressed_fields
from .messages import history_messages, mark_system, tool_turns
from .parts import URL_FILE_REASON, attachment_url_file_paths, openai_part

__all__ = ["ConversationRenderer", "renderer"]


class ConversationRenderer:
    name = "conversation"
    description = "the conversation as it is: system, developer, every turn with its parts, then the instruction"
    fields = frozenset(
        {
            "system",
            "developer",
            "history",
            "history.name",
            "history.tool_calls",
            "history.tool_results",
            "history.reasoning",
            "history.cache",
            "instruction",
            "attachments",
            "attachments.cache",
            "tools",
            "tools.returns",
            "tool_calls",
            "tool_results",
            "tool_results.is_error",
            "output",
            "cache",
        }
    )

    def render(self, prompt: Prompt, *, strict: bool = False) -> RenderedPrompt:
        reported = unexpressed_fields(prompt, self.name, self.fields, strict=strict)
        given = (("system", prompt.system), ("developer", prompt.developer))
        leading = [Message(role, text) for role, text in given if text is not None]
        unmarked: tuple[RenderWarning, ...] = ()
        if prompt.cache is not None:
            leading, unmarked = mark_system(leading, prompt.cache, self.name)
        asked = _asked(prompt)
        url_files = attachment_url_file_paths(prompt)
        history = history_messages(prompt, url_files)
        return RenderedPrompt(
            format=self.name,
            messages=tuple(leading + history + asked + tool_turns(prompt)),
            warnings=(
                *reported,
                *unmarked,
                *(RenderWarning(self.name, path, URL_FILE_REASON) for path in url_files),
            ),
            tools=tuple(prompt.tools),
            output=prompt.output,
            cache=prompt.cache,
        )


def _asked(prompt: Prompt) -> list[Message]:
    """The instruction as the last user turn, with the attachments; none when neither is given."""
    parts: list[dict[str, Any]] = [openai_part(part) for part in prompt.attachments]
    if "instruction" not in prompt.model_fields_set:
        return [Message("user", parts)] if parts else []
    text = _instruction_text(prompt.instruction)
    if not parts:
        return [Message("user", text)]
    return [Message("user", [{"type": "text", "text": text}, *parts])]


def _instruction_text(instruction: object) -> str:
    """The instruction as the user turn's text: text as it is, any other value as JSON."""
    if isinstance(instruction, str):
        return str.__str__(instruction)
    try:
        with nesting_room():
            return json.dumps(instruction, ensure_ascii=False, indent=2)
    except (TypeError, ValueError) as exc:
        raise FieldError("instruction", f"must be text or JSON data: {exc}") from None


renderer = ConversationRenderer()
