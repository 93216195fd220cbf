"""The registered ``agently`` format: any core ``Prompt`` in Agently's layout.

The renderer maps the ``Prompt`` to an Agently prompt dict (``mapping.map_prompt``) and renders it
with Agently's generator: ``text`` is ``to_text()``, ``messages`` is ``to_messages()`` called the
way Agently's OpenAI-compatible model requester calls it (rich content only when there are
attachments, no strict role order), unless the options say otherwise. Unlike ``AgentlyPrompt``
used directly, it renders every prompt (Agently refuses one with no input, info, instruct, output
or attachment) and emits no Python warning: Agently's own warnings come back as records on the
result, like every other thing the format leaves out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...core.errors import FieldError
from ...core.limits import check_nesting
from ...core.prompt import Prompt
from ...core.rendered import Message, RenderedPrompt, RenderWarning
from ..base import unexpressed_fields
from ._agently import layout
from ._agently.errors import Notice, collecting, printable
from ._agently.prompt import agently_clock
from ._agently.prompt_object import read_prompt
from ._agently.storage import resolve_settings
from ._agently.yaml_blocks import shared_parts_as_anchors
from .mapping import FORMAT, map_prompt
from .reader import AgentlyReader, reader

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
        "tools.returns",
        "tool_results",
        "tool_results.is_error",
        "output",
    }
)

# Agently's prompt keys, as the core Prompt fields they came from (for Agently's own warnings).
_CORE_FIELDS = {"chat_history": "history", "attachment": "attachments", "output_format": "output.format"}


def _core_field(path: str) -> str:
    for agently, core in _CORE_FIELDS.items():
        if path.startswith(agently):
            return core + path[len(agently) :]
    return path


def _warning(notice: Notice) -> RenderWarning:
    return RenderWarning(FORMAT, _core_field(notice.field), notice.message)


def _message(message: dict[str, Any]) -> Message:
    return Message(str(message["role"]), message["content"])


def _has_parts(prompt: Prompt) -> bool:
    return bool(prompt.attachments) or any(
        not isinstance(turn.content, str) and any(part.type != "text" for part in turn.content)
        for turn in prompt.history
    )


def _check_options(
    settings: Any, clock: Any, role_mapping: Any, rich_content: Any, strict_role_orders: Any, strict: Any
) -> None:
    """Options are user data too: refuse a wrong one by name before anything is rendered."""
    if settings is not None:
        if not isinstance(settings, Mapping) or not all(isinstance(key, str) for key in settings):
            raise FieldError("settings", "must be a mapping of Agently's dotted setting keys to values")
        check_nesting(settings, ("settings",))
    if clock is not None and not callable(clock):
        raise FieldError("clock", f"must be a function that returns the time as text, not {type(clock).__name__}")
    if role_mapping is not None and not (
        isinstance(role_mapping, Mapping)
        and all(isinstance(key, str) and isinstance(value, str) for key, value in role_mapping.items())
    ):
        raise FieldError("role_mapping", "must be a mapping of role names to role names (text to text)")
    if rich_content is not None and not isinstance(rich_content, bool):
        raise FieldError("rich_content", f"must be true, false or unset, not {rich_content!r}")
    for name, value in (("strict_role_orders", strict_role_orders), ("strict", strict)):
        if not isinstance(value, bool):
            raise FieldError(name, f"must be true or false, not {value!r}")


def _clock_text(clock: Callable[[], Any]) -> Callable[[], str]:
    def read() -> str:
        value = clock()
        if not isinstance(value, str):
            raise FieldError("clock", f"must return the time as text, returned {type(value).__name__}")
        return value

    return read


class AgentlyRenderer:
    """The ``agently`` format: Agently 4.1.4.10's ``to_text`` and ``to_messages`` for any Prompt.

    Options: ``settings`` (Agently's dotted settings, e.g. ``{"prompt.role_mapping": {...}}``),
    ``clock`` (for ``prompt.add_current_time``), ``role_mapping``, ``rich_content`` (default: only
    when the prompt has attachments or history turns with non-text parts, so none are skipped),
    ``strict_role_orders`` (default ``False``) and ``strict``.
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
        _check_options(settings, clock, role_mapping, rich_content, strict_role_orders, strict)
        warnings = list(unexpressed_fields(prompt, self.name, self.fields, strict=strict))
        with printable({"settings": settings}):
            resolved = resolve_settings(settings)
        read_clock = _clock_text(clock or agently_clock)
        rich = _has_parts(prompt) if rich_content is None else rich_content
        with printable({}), collecting() as notices, shared_parts_as_anchors():
            mapped = map_prompt(prompt)
            # The mapped dict is fresh and nothing below changes it: no copy as AgentlyPrompt makes.
            read = read_prompt(mapped.data, resolved)
            bodies: dict[str, str] = {}
            main = layout.main_prompt_lines(read, resolved, bodies)
            text = layout.to_text(read, resolved, role_mapping, read_clock, main)
            chat = layout.to_messages(
                read,
                resolved,
                role_mapping,
                rich,
                strict_role_orders,
                read_clock,
                main_text="\n".join(main),
                input_text=bodies.get("input"),
            )
        warnings.extend(mapped.warnings)
        seen: set[tuple[str, str]] = set()
        for notice in notices:
            # to_text and to_messages both say what they skip; one record per field and reason.
            record = _warning(notice)
            if (record.field, record.reason) not in seen:
                seen.add((record.field, record.reason))
                warnings.append(record)
        return RenderedPrompt(
            format=self.name,
            messages=tuple(_message(message) for message in chat),
            text=text,
            warnings=tuple(warnings),
            output=prompt.output,
        )


renderer = AgentlyRenderer()
