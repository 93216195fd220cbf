"""The registered ``agently`` format and front door: any core ``Prompt`` in Agently's layout.

The renderer maps the ``Prompt`` to an Agently prompt dict (``mapping.from_prompt``) and renders it
with :class:`AgentlyPrompt`: ``text`` is ``to_text()``, ``messages`` is ``to_messages()`` called the
way Agently's OpenAI-compatible model requester calls it (rich content only when there are
attachments, no strict role order), unless the options say otherwise. The reader turns Agently
prompt data (as JSON/YAML, output tuples spelled ``{"$type", "$desc", "$ensure"}``) into a ``Prompt``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...core.errors import FieldError
from ...core.prompt import Prompt
from ...core.rendered import Message, RenderedPrompt
from ..base import unexpressed_fields
from .mapping import from_prompt, from_serializable, to_prompt
from .prompt import AgentlyPrompt

__all__ = ["AgentlyReader", "AgentlyRenderer", "reader", "renderer"]

_EXPRESSED_FIELDS = frozenset(
    {
        "system",
        "developer",
        "context",
        "instruction",
        "sections",
        "history",
        "attachments",
        "tools",
        "tool_results",
        "output",
    }
)


def _message(message: dict[str, Any]) -> Message:
    content = message["content"]
    if not isinstance(content, str) and not (
        isinstance(content, list) and all(isinstance(part, dict) for part in content)
    ):
        # Agently's input-only message carries the input value itself (a dict or a list); a chat
        # message needs text, and Python's spelling of the value is what Agently would print.
        content = str(content)
    return Message(str(message["role"]), content)


def _has_parts(prompt: Prompt) -> bool:
    return bool(prompt.attachments) or any(
        not isinstance(turn.content, str) and any(part.type != "text" for part in turn.content)
        for turn in prompt.history
    )


class AgentlyRenderer:
    """The ``agently`` format: Agently 4.1.4.10's ``to_text`` and ``to_messages`` for any Prompt.

    Options: ``settings`` (Agently's dotted settings, e.g. ``{"prompt.role_mapping": {...}}``),
    ``clock`` (for ``prompt.add_current_time``), ``role_mapping``, ``rich_content`` (default: only
    when the prompt has attachments or history turns with non-text parts, so none are skipped), ``strict_role_orders`` (default ``False``) and ``strict``.
    """

    name = "agently"
    description = "Agently 4.1.4.10 prompt generator: '[SECTION]:' blocks with YAML bodies, user:/assistant: frame"
    fields: frozenset[str] = _EXPRESSED_FIELDS

    def render(
        self,
        prompt: Prompt,
        *,
        settings: Mapping[str, Any] | None = None,
        clock: Callable[[], str] | None = None,
        role_mapping: Mapping[str, str] | None = None,
        rich_content: bool | None = None,
        strict_role_orders: bool = False,
        strict: bool = False,
    ) -> RenderedPrompt:
        warnings = unexpressed_fields(prompt, self.name, self.fields, strict=strict)
        agently = AgentlyPrompt(from_prompt(prompt), settings, clock=clock)
        rich = _has_parts(prompt) if rich_content is None else rich_content
        messages = agently.to_messages(role_mapping, rich_content=rich, strict_role_orders=strict_role_orders)
        return RenderedPrompt(
            format=self.name,
            messages=tuple(_message(message) for message in messages),
            text=agently.to_text(role_mapping),
            warnings=warnings,
        )


class AgentlyReader:
    """``asrender render --from agently``: Agently prompt data (as ``to_json_prompt`` writes it)."""

    name = "agently"
    description = "an Agently prompt dict (input, info, instruct, output with $type/$desc/$ensure...)"

    def read(self, data: Any) -> Prompt:
        if not isinstance(data, Mapping):
            raise FieldError("prompt", f"must be a mapping of Agently prompt keys, not {type(data).__name__}")
        return to_prompt(from_serializable(data))


renderer = AgentlyRenderer()
reader = AgentlyReader()
