"""The prompt laid out as Agently 4.1.4.10 lays it out: ``to_text`` and ``to_messages``.

Both start from the main prompt (``_generate_main_prompt``), every section after the chat history in
Agently's order: tools, action results, info, custom keys, instruct, examples, input, the output
requirement, then ``[OUTPUT]:``. ``to_text`` frames it with the user role line, the optional time
line, system, developer and chat history, and the assistant role line.

``to_messages`` gives system, developer, chat history, then the user turn(s), which take one of
three shapes: the bare input (when nothing else is set), the attachment parts alone, or the main
prompt text followed by attachments. ``strict_role_orders`` merges consecutive same-role history
messages and pads the history so it starts with ``user`` and ends with ``assistant``;
``rich_content is False`` (an identity check, so ``None`` differs) flattens history parts to text.
Agently's quirks are kept: the filler messages use literal roles, slot references are not replaced
in history, the input-only content is the sanitized value itself.

Values that Agently cannot render raise :class:`AgentlyFieldError` naming the field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .errors import AgentlyFieldError, field_guard, notice
from .output_block import output_requirement_lines, render_structure
from .prompt_object import ChatMsg, Part, PromptObject, history_part
from .sanitize import sanitize
from .slots import replace_slots, title_lookup
from .storage import AgentlySettings
from .yaml_blocks import section_body


def _section_lines(field: str, title: Any, value: Any, titles: dict[str, Any]) -> list[str]:
    """Agently's ``_generate_yaml_prompt_list``: ``[TITLE]:``, the body, and a blank line."""
    with field_guard(field):
        return [f"[{title}]:", section_body(value, titles), ""]


def _tool_lines(tools: list[dict[str, Any]], titles: dict[str, Any]) -> list[str]:
    lines = [f"[{titles.get('tools', 'TOOLS')}]:"]
    index, key = 0, ""
    # One guard for the whole list (a list may hold thousands of tools): it names the field being
    # printed when something fails.
    with field_guard(lambda: f"tools[{index}].{key}"):
        for index, tool in enumerate(tools):  # noqa: B007 - the guard reads index
            if not isinstance(tool, dict):
                continue
            lines.append("[")
            for key, value in tool.items():
                if key in ("kwargs", "returns"):
                    lines.append(f"{key}: {render_structure(sanitize(value), titles)}")
                else:
                    lines.append(f"{key}: {replace_slots(value, titles)}")
            lines.append("]")
    return lines


def _plain_texts(values: Any) -> bool:
    """Whether every value is text without a slot reference, which prints as it is (checked in bulk:
    an info list may be long)."""
    texts = list(values)
    return set(map(type, texts)) <= {str} and "${" not in "\n".join(texts)


def _info_lines(info: Any, titles: dict[str, Any]) -> list[str]:
    lines = [f"[{titles.get('info', 'INFO')}]:"]
    with field_guard("info"):
        if isinstance(info, Mapping):
            if _plain_texts(info.values()):
                lines.extend([f"- {key}: {content}" for key, content in info.items()])
            else:
                for key, content in info.items():
                    lines.append(f"- {key}: {sanitize(replace_slots(content, titles))}")
        elif isinstance(info, Sequence) and not isinstance(info, str):
            if _plain_texts(info):
                lines.extend([f"- {item}" for item in info])
            else:
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
            _section_lines(
                "action_results", str(titles.get("action_results", "ACTION RESULTS")), prompt.action_results, titles
            )
        )
    if prompt.info:
        lines.extend(_info_lines(prompt.info, titles))
    for key, value in prompt.extras.items():
        lines.extend(_section_lines(key, key, value, titles))
    if prompt.instruct:
        lines.extend(_section_lines("instruct", str(titles.get("instruct", "INSTRUCT")), prompt.instruct, titles))
    if prompt.examples:
        lines.extend(_section_lines("examples", str(titles.get("examples", "EXAMPLES")), prompt.examples, titles))
    if prompt.input:
        section = _section_lines("input", str(titles.get("input", "INPUT")), prompt.input, titles)
        if bodies is not None:
            bodies["input"] = section[1]
        lines.extend(section)
    if prompt.output:
        with field_guard("output"):
            lines.extend(output_requirement_lines(prompt.output, prompt.output_format, prompt.ensure_all_keys, titles))
    lines.append(f"[{titles.get('output', 'OUTPUT')}]:")
    return lines


def _map_role(role: Any, roles: dict[Any, Any]) -> Any:
    """A chat-history role through the mapping, with the ``_`` fallback (default: ``assistant``)."""
    if role in roles:
        return roles[role]
    if "_" in roles:
        return roles["_"]
    return role


def _texts(chat_history: list[ChatMsg]) -> list[str] | None:
    """Every message's content when all are text (the common case, written in bulk), else None."""
    contents = [message.content for message in chat_history]
    return contents if set(map(type, contents)) == {str} else None


def _mapped_roles(chat_history: list[ChatMsg], roles: dict[Any, Any]) -> list[Any]:
    """Each message's role through the mapping (looked up once per distinct role)."""
    mapped = {role: _map_role(role, roles) for role in {message.role for message in chat_history}}
    return [mapped[message.role] for message in chat_history]


def _history_lines(prompt: PromptObject, roles: dict[Any, Any], raw_titles: Any) -> list[str]:
    lines = [f"[{title_lookup(raw_titles, 'chat_history', 'CHAT HISTORY')}]:"]
    texts = _texts(prompt.chat_history)
    if texts is not None:
        if "${" in "\n".join(texts):
            texts = [replace_slots(text, raw_titles) for text in texts]
        mapped = _mapped_roles(prompt.chat_history, roles)
        lines.extend([f"[{role}]:{text}" for role, text in zip(mapped, texts, strict=True)])
        lines.append("")
        return lines
    for index, message in enumerate(prompt.chat_history):
        role = _map_role(message.role, roles)
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
    main: Callable[[], list[str]],
) -> str:
    """Agently's ``to_text``: the whole prompt as one string, ``user:`` first, ``assistant:`` last.

    ``main`` gives the main prompt's lines (:func:`main_prompt_lines`, which callers build once for
    the text and the messages); it is called where Agently builds them, so that errors come in
    Agently's order.
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
        lines.extend(_section_lines("system", title, prompt.system, titles))
    if prompt.developer:
        title = str(title_lookup(raw_titles, "developer", "DEVELOPER DIRECTIONS"))
        lines.extend(_section_lines("developer", title, prompt.developer, titles))
    if prompt.chat_history:
        lines.extend(_history_lines(prompt, roles, raw_titles))
    lines.extend(main())
    lines.append(f"{roles.get('assistant', 'assistant')}:")
    return "\n".join(lines)


# --- to_messages ---------------------------------------------------------------------------------

_NOT_PLAIN = "Skipped content: unable to put attachment content into prompt messages when `rich_content` == False"


def _section_message(field: str, value: Any, roles: dict[Any, Any], titles: dict[str, Any]) -> dict[str, Any]:
    role = str(roles[field]) if field in roles else field
    with field_guard(field):
        return {"role": role, "content": section_body(value, titles)}


def _merge_failure(message: ChatMsg, role: Any) -> AgentlyFieldError:
    return AgentlyFieldError(
        "role_mapping",
        f"maps the role {message.role!r} to {role!r}, which Agently 4.1.4.10 cannot merge (it fails with IndexError)",
    )


def _text_history_messages(
    prompt: PromptObject, texts: list[str], roles: dict[Any, Any], raw_titles: Any, rich_content: Any, strict: Any
) -> list[dict[str, Any]]:
    """``_history_messages`` when every content is text: each message is ``[{"type": "text", ...}]``
    (``rich_content is False``: the text itself), consecutive same roles merged when ``strict``."""
    mapped = _mapped_roles(prompt.chat_history, roles)
    if not strict:
        if rich_content is False:
            return [{"role": role, "content": text} for role, text in zip(mapped, texts, strict=True)]
        return [
            {"role": role, "content": [{"type": "text", "text": text}]}
            for role, text in zip(mapped, texts, strict=True)
        ]
    merged: list[tuple[Any, list[str]]] = []
    last_role: Any = None
    for index, (role, text) in enumerate(zip(mapped, texts, strict=True)):
        if role == last_role:
            if not merged:
                raise _merge_failure(prompt.chat_history[index], role)
            merged[-1][1].append(text)
        else:
            merged.append((role, [text]))
        last_role = role
    if merged[0][0] != "user":
        merged.insert(0, ("user", [f"[{title_lookup(raw_titles, 'chat_history', 'CHAT HISTORY')}]"]))
    if merged[-1][0] != "assistant":
        merged.append(("assistant", ["[User continue input]"]))
    if rich_content is False:
        return [{"role": role, "content": "\n\n".join(group)} for role, group in merged]
    return [{"role": role, "content": [{"type": "text", "text": text} for text in group]} for role, group in merged]


def _history_messages(
    prompt: PromptObject,
    roles: dict[Any, Any],
    raw_titles: Any,
    rich_content: Any,
    strict_role_orders: Any,
) -> list[dict[str, Any]]:
    texts = _texts(prompt.chat_history)
    if texts is not None:
        return _text_history_messages(prompt, texts, roles, raw_titles, rich_content, strict_role_orders)
    history: list[dict[str, Any]] = []
    origins: list[list[tuple[int, int]]] = []  # where each part came from, to name it in errors
    last_role: Any = None
    for index, message in enumerate(prompt.chat_history):
        role = _map_role(message.role, roles)
        raw = message.content if isinstance(message.content, list) else [{"type": "text", "text": str(message.content)}]
        content = [
            history_part(item, ["chat_history", index, "content", number]).dump() for number, item in enumerate(raw)
        ]
        where = [(index, number) for number in range(len(content))]
        if strict_role_orders and role == last_role:
            if not history:
                raise _merge_failure(message, role)
            history[-1]["content"].extend(content)
            origins[-1].extend(where)
        else:
            history.append({"role": role, "content": content})
            origins.append(where)
        last_role = role
    if strict_role_orders:
        if history[0]["role"] != "user":
            title = title_lookup(raw_titles, "chat_history", "CHAT HISTORY")
            history.insert(0, {"role": "user", "content": [{"type": "text", "text": f"[{title}]"}]})
            origins.insert(0, [])
        if history[-1]["role"] != "assistant":
            history.append({"role": "assistant", "content": [{"type": "text", "text": "[User continue input]"}]})
            origins.append([])
    if rich_content is False:
        return [_flatten(message, where) for message, where in zip(history, origins, strict=True)]
    return history


def _flatten(message: dict[str, Any], where: list[tuple[int, int]]) -> dict[str, Any]:
    texts: list[Any] = []
    for position, part in enumerate(message["content"]):
        if "type" in part and part["type"] == "text":
            text = part["text"]
            if not isinstance(text, str):
                index, number = where[position] if position < len(where) else (0, position)
                raise AgentlyFieldError(
                    f"chat_history[{index}].content[{number}].text",
                    f"a text part needs a string text to be sent as plain text, got {type(text).__name__} "
                    "(Agently 4.1.4.10 fails joining it with TypeError; rich_content=True keeps such parts)",
                )
            texts.append(text)
        elif "type" in part:
            index, number = where[position] if position < len(where) else (0, position)
            notice(
                f"Skipped content: unable to convert type '{part['type']}' to chat message when "
                f"`rich_content` == False. Content: {part}",
                f"chat_history[{index}].content[{number}]",
                stacklevel=6,
            )
    return {"role": message["role"], "content": "\n\n".join(texts)}


def _skip_attachment(part: Part, number: int) -> None:
    notice(f"{_NOT_PLAIN}\nContent: {part.dump()!s}", f"attachment[{number}]", stacklevel=4)


def to_messages(
    prompt: PromptObject,
    settings: AgentlySettings,
    role_mapping: Any,
    rich_content: Any,
    strict_role_orders: Any,
    clock: Callable[[], str],
    main: Callable[[], list[str]],
    input_text: str | None = None,
) -> list[dict[str, Any]]:
    """Agently's ``to_messages`` (see the module docstring for the shapes).

    ``main`` gives the main prompt's lines (as for :func:`to_text`). ``input_text``, when
    given, is the input-only message's content: the ``[INPUT]`` section's body (a chat message needs
    text; Agently itself passes the value on as it is).
    """
    roles = settings.roles(role_mapping)
    raw_titles = settings.title_mapping
    titles = settings.titles
    add_time = settings.add_current_time is True
    prefix = f"[current time]: {clock()}\n\n" if add_time else ""
    messages: list[dict[str, Any]] = []

    if prompt.system:
        messages.append(_section_message("system", prompt.system, roles, titles))
    if prompt.developer:
        messages.append(_section_message("developer", prompt.developer, roles, titles))
    if prompt.chat_history:
        messages.extend(_history_messages(prompt, roles, raw_titles, rich_content, strict_role_orders))

    user = roles.get("user", "user")
    others = prompt.tools or prompt.action_results or prompt.info or prompt.instruct or prompt.output or prompt.extras
    if prompt.input and not others and not prompt.attachment:
        with field_guard("input"):
            content = input_text if input_text is not None else sanitize(replace_slots(prompt.input, raw_titles))
            messages.append({"role": user, "content": f"{prefix}{content}" if add_time else content})
    elif prompt.attachment and not prompt.input and not others:
        if rich_content:
            parts = [part.dump() for part in prompt.attachment]
            if add_time:
                parts = _prefix_first_text(parts, prefix)
            messages.append({"role": user, "content": parts})
        else:
            for number, part in enumerate(prompt.attachment):
                if part.type == "text" and part.is_text:
                    text = replace_slots(part.text, raw_titles)
                    messages.append({"role": user, "content": f"{prefix}{text}" if add_time else text})
                else:
                    _skip_attachment(part, number)
    elif rich_content:
        content_parts = [{"type": "text", "text": prefix + "\n".join(main())}]
        content_parts.extend(part.dump() for part in prompt.attachment)
        messages.append({"role": user, "content": content_parts})
    else:
        main_text = "\n".join(main())
        for number, part in enumerate(prompt.attachment):
            if part.type == "text" and part.is_text:
                messages.append({"role": user, "content": replace_slots(part.text, raw_titles)})
            else:
                _skip_attachment(part, number)
        messages.append({"role": user, "content": prefix + main_text})
    return messages


def _prefix_first_text(parts: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    for part in parts:
        if part.get("type") == "text":
            part["text"] = f"{prefix}{part.get('text', '')!s}"
            return parts
    return [{"type": "text", "text": prefix}, *parts]
