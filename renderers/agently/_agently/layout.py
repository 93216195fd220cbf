"""The text layout: Agently's main prompt (``_generate_main_prompt``) and ``to_text``.

Section order is Agently's: tools, action results, info, custom keys, instruct, examples, input,
the output requirement, then ``[OUTPUT]:``. ``to_text`` frames it with the user role line, the
optional time line, system, developer and chat history, and the assistant role line. Values that
Agently cannot render raise :class:`AgentlyFieldError` naming the field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .errors import AgentlyFieldError, field_guard, notice
from .output_block import output_requirement_lines, render_structure
from .prompt_object import PromptObject, history_part
from .sanitize import sanitize
from .settings import AgentlySettings
from .slots import replace_slots, title_lookup
from .yaml_blocks import section_body

__all__ = ["main_prompt_lines", "map_role", "section_lines", "to_text"]


def section_lines(field: str, title: Any, value: Any, titles: dict[str, Any]) -> list[str]:
    """Agently's ``_generate_yaml_prompt_list``: ``[TITLE]:``, the body, and a blank line."""
    with field_guard(field):
        return [f"[{title}]:", section_body(value, titles), ""]


def _tool_lines(tools: list[dict[str, Any]], titles: dict[str, Any]) -> list[str]:
    lines = [f"[{titles.get('tools', 'TOOLS')}]:"]
    for index, tool in enumerate(tools):
        if not isinstance(tool, dict):
            continue
        lines.append("[")
        for key, value in tool.items():
            if key in ("kwargs", "returns"):
                with field_guard(f"tools[{index}].{key}"):
                    lines.append(f"{key}: {render_structure(sanitize(value), titles)}")
            else:
                with field_guard(f"tools[{index}].{key}"):
                    lines.append(f"{key}: {replace_slots(value, titles)}")
        lines.append("]")
    return lines


def _info_lines(info: Any, titles: dict[str, Any]) -> list[str]:
    lines = [f"[{titles.get('info', 'INFO')}]:"]
    with field_guard("info"):
        if isinstance(info, Mapping):
            for key, content in info.items():
                lines.append(f"- {key}: {sanitize(replace_slots(content, titles))}")
        elif isinstance(info, Sequence) and not isinstance(info, str):
            lines.extend(f"- {sanitize(replace_slots(item, titles))}" for item in info)
        else:
            value = sanitize(replace_slots(info, titles))
            if not isinstance(value, str):
                raise AgentlyFieldError(
                    "info",
                    f"a single info value must be text, a mapping or a list, got {type(info).__name__} "
                    f"(Agently 4.1.4.10 fails with: sequence item N: expected str instance, "
                    f"{type(value).__name__} found)",
                )
            lines.append(value)
    lines.append("")
    return lines


def main_prompt_lines(
    prompt: PromptObject, settings: AgentlySettings, bodies: dict[str, str] | None = None
) -> list[str]:
    """Every section after the chat history, ending with ``[OUTPUT]:`` (no role lines).

    ``bodies``, when given, receives the ``input`` section's body, for a caller that shows it again.
    """
    titles = settings.titles
    lines: list[str] = []
    if prompt.tools and isinstance(prompt.tools, list):
        lines.extend(_tool_lines(prompt.tools, titles))
    if prompt.action_results:
        lines.extend(
            section_lines(
                "action_results", str(titles.get("action_results", "ACTION RESULTS")), prompt.action_results, titles
            )
        )
    if prompt.info:
        lines.extend(_info_lines(prompt.info, titles))
    for key, value in prompt.extras.items():
        lines.extend(section_lines(key, key, value, titles))
    if prompt.instruct:
        lines.extend(section_lines("instruct", str(titles.get("instruct", "INSTRUCT")), prompt.instruct, titles))
    if prompt.examples:
        lines.extend(section_lines("examples", str(titles.get("examples", "EXAMPLES")), prompt.examples, titles))
    if prompt.input:
        section = section_lines("input", str(titles.get("input", "INPUT")), prompt.input, titles)
        if bodies is not None:
            bodies["input"] = section[1]
        lines.extend(section)
    if prompt.output:
        with field_guard("output"):
            lines.extend(output_requirement_lines(prompt.output, prompt.output_format, prompt.ensure_all_keys, titles))
    lines.append(f"[{titles.get('output', 'OUTPUT')}]:")
    return lines


def map_role(role: Any, roles: dict[Any, Any]) -> Any:
    """A chat-history role through the mapping, with the ``_`` fallback (default: ``assistant``)."""
    if role in roles:
        return roles[role]
    if "_" in roles:
        return roles["_"]
    return role


def _history_lines(prompt: PromptObject, roles: dict[Any, Any], raw_titles: Any) -> list[str]:
    lines = [f"[{title_lookup(raw_titles, 'chat_history', 'CHAT HISTORY')}]:"]
    for index, message in enumerate(prompt.chat_history):
        role = map_role(message.role, roles)
        content = message.content
        if isinstance(content, list):
            parts = [
                history_part(item, ["chat_history", index, "content", number]) for number, item in enumerate(content)
            ]
            for number, part in enumerate(parts):
                if part.type == "text":
                    lines.append(f"[{role}]:{replace_slots(str(part.text), raw_titles)}")
                else:
                    notice(
                        f"Skipped content: unable to convert type '{part.type}' to text. Content: {part.dump()}",
                        f"chat_history[{index}].content[{number}]",
                        stacklevel=4,
                    )
        else:
            with field_guard(f"chat_history[{index}].content"):
                lines.append(f"[{role}]:{sanitize(replace_slots(content, raw_titles))}")
    lines.append("")
    return lines


def to_text(
    prompt: PromptObject,
    settings: AgentlySettings,
    role_mapping: Any,
    clock: Callable[[], str],
    main: list[str] | None = None,
) -> str:
    """Agently's ``to_text``: the whole prompt as one string, ``user:`` first, ``assistant:`` last.

    ``main`` is the main prompt's lines when the caller has them already (the renderer builds them
    once for the text and the messages).
    """
    roles = settings.roles(role_mapping)
    raw_titles = settings.title_mapping
    titles = settings.titles
    lines = [f"{roles.get('user', 'user')}:"]
    if settings.add_current_time is True:
        lines.append(f"[current time]: {clock()}")
        lines.append("")
    if prompt.system:
        title = str(title_lookup(raw_titles, "system", "SYSTEM"))
        lines.extend(section_lines("system", title, prompt.system, titles))
    if prompt.developer:
        title = str(title_lookup(raw_titles, "developer", "DEVELOPER DIRECTIONS"))
        lines.extend(section_lines("developer", title, prompt.developer, titles))
    if prompt.chat_history:
        lines.extend(_history_lines(prompt, roles, raw_titles))
    lines.extend(main_prompt_lines(prompt, settings) if main is None else main)
    lines.append(f"{roles.get('assistant', 'assistant')}:")
    return "\n".join(lines)
