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
from typing import Any, TypeVar

from ....core.json_text import all_text
from .errors import AgentlyFieldError, field_guard, notice
from .output_block import output_requirement_lines, render_structure
from .prompt_object import ChatMsg, Part, PromptObject, history_part, is_text_dict
from .sanitize import sanitize
from .slots import replace_slots, title_lookup
from .storage import AgentlySettings
from .yaml_blocks import section_body

M = TypeVar("M")
"""A chat message, as the caller of :func:`to_messages` makes it."""


def _section_lines(field: str, title: Any, value: Any, titles: dict[str, Any]) -> list[str]:
    """Agently's ``_generate_yaml_prompt_list``: ``[TITLE]:``, the body, and a blank line."""
    with field_guard(field):
        return [f"[{title}]:", section_body(value, titles), ""]


_TOOLS_AT_ONCE = 1000
"""Tools joined into one string at a time: a string per tool (or per line), all kept until the main
prompt is joined, cost 1.5 (2.7) times the text (50,000 tools: 8.3 (14.5) MB for 5.3 MB of text)."""


def _tool_lines(tools: list[dict[str, Any]], titles: dict[str, Any]) -> list[str]:
    lines = [f"[{titles.get('tools', 'TOOLS')}]:"]
    written: list[str] = []
    index, key = 0, ""
    # One guard for the whole list (a list may hold thousands of tools): it names the field being
    # printed when something fails.
    with field_guard(lambda: f"tools[{index}].{key}"):
        for index, tool in enumerate(tools):  # noqa: B007 - the guard reads index
            if not isinstance(tool, dict):
                continue
            if _bare_tool(tool):  # most tools: a name and a description, the same text as below
                written.append(f"[\nname: {tool['name']}\ndesc: {tool['desc']}\nkwargs: {{}}\n]")
                continue
            fields = ["["]
            for key, value in tool.items():
                if key in ("kwargs", "returns"):
                    fields.append(f"{key}: {render_structure(sanitize(value), titles)}")
                else:
                    fields.append(f"{key}: {replace_slots(value, titles)}")
            fields.append("]")
            written.append("\n".join(fields))
            if len(written) == _TOOLS_AT_ONCE:
                lines.append("\n".join(written))
                written.clear()
    if written:
        lines.append("\n".join(written))
    return lines


def _bare_tool(tool: dict[str, Any]) -> bool:
    """Whether ``tool`` is exactly ``{"name": text, "desc": text, "kwargs": {}}`` in that order, with
    no slot reference: its lines are the text itself (the usual tool: 50,000 of them went through
    the general loop at a few microseconds each)."""
    if len(tool) != 3:
        return False
    (name_key, name), (desc_key, desc), (kwargs_key, kwargs) = tool.items()
    return (
        name_key == "name"
        and desc_key == "desc"
        and kwargs_key == "kwargs"
        and name.__class__ is str
        and desc.__class__ is str
        and kwargs.__class__ is dict
        and not kwargs
        and "${" not in name
        and "${" not in desc
    )


def _joined_section(title: str, pieces: list[str]) -> str:
    """A section as one string: ``title``, the pieces (each line's first one starting with its line
    break) and the closing blank line, joined once."""
    pieces.insert(0, title)
    pieces.append("\n")
    return "".join(pieces)


def _info_text(info: Any, titles: dict[str, Any]) -> str:
    """The ``[INFO]`` section with its closing blank line: ``- key: value`` or ``- item`` per entry.

    Entries of text (the usual kind, which may number 100,000s) are joined once from the keys and
    the texts themselves, with no string per line in between (100,000 entries: those cost 2.6 times
    the text). Text prints as it is unless it holds a slot reference (``${...}``): the section is
    looked through for one once it is joined, and written entry by entry if it has one.
    """
    title = f"[{titles.get('info', 'INFO')}]:"
    lines = [title]
    with field_guard("info"):
        if isinstance(info, Mapping):
            if all_text(info.values()):
                pieces = ["\n- ", "", ": ", ""] * len(info)
                pieces[1::4] = [f"{key}" for key in info]
                pieces[3::4] = info.values()
                text = _joined_section(title, pieces)
                if "${" not in text:
                    return text
            for key, content in info.items():
                lines.append(f"- {key}: {sanitize(replace_slots(content, titles))}")
        elif isinstance(info, Sequence) and not isinstance(info, str):
            if all_text(info):
                pieces = ["\n- ", ""] * len(info)
                pieces[1::2] = info
                text = _joined_section(title, pieces)
                if "${" not in text:
                    return text
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
    return "\n".join(lines)


def main_prompt(prompt: PromptObject, settings: AgentlySettings, bodies: dict[str, str] | None = None) -> str:
    """Every section after the chat history, ending with ``[OUTPUT]:`` (no role lines).

    It is one string, which the text and the user message both hold as it is (the message needs no
    copy of its own). ``bodies``, when given, receives the ``input`` section's body, for a caller
    that shows it again.
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
        lines.append(_info_text(prompt.info, titles))
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
    return "\n".join(lines)


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


def _history_text(prompt: PromptObject, roles: dict[Any, Any], raw_titles: Any) -> str:
    """The ``[CHAT HISTORY]`` section with its closing blank line: ``[role]:content`` per message.

    A history of text (the usual kind, which may hold 100,000s of turns) is joined once from each
    role's tag and the texts themselves, with no string per turn in between (120,000 turns: those
    cost 2.8 times the text).
    """
    title = f"[{title_lookup(raw_titles, 'chat_history', 'CHAT HISTORY')}]:"
    chat_history = prompt.chat_history
    texts = _texts(chat_history)
    if texts is not None:
        if "${" in "\n".join(texts):
            texts = [replace_slots(text, raw_titles) for text in texts]
        tags = {role: f"\n[{_map_role(role, roles)}]:" for role in {message.role for message in chat_history}}
        pieces = texts * 2
        pieces[0::2] = [tags[message.role] for message in chat_history]
        pieces[1::2] = texts
        return _joined_section(title, pieces)
    lines = [title]
    for index, (message, role) in enumerate(zip(chat_history, _mapped_roles(chat_history, roles), strict=True)):
        content = message.content
        if type(content) is str and "${" not in content:
            lines.append(f"[{role}]:{content}")  # what the guarded line below writes: nothing to replace
        elif isinstance(content, list):
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
    return "\n".join(lines)


def to_text(
    prompt: PromptObject,
    settings: AgentlySettings,
    role_mapping: Any,
    clock: Callable[[], str],
    main: Callable[[], str],
) -> str:
    """Agently's ``to_text``: the whole prompt as one string, ``user:`` first, ``assistant:`` last.

    ``main`` gives the main prompt (:func:`main_prompt`, which callers build once for the text and
    the messages); it is called where Agently builds it, so that errors come in Agently's order.
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
        lines.append(_history_text(prompt, roles, raw_titles))
    lines.append(main())
    lines.append(f"{roles.get('assistant', 'assistant')}:")
    return "\n".join(lines)


# --- to_messages ---------------------------------------------------------------------------------

_NOT_PLAIN = "Skipped content: unable to put attachment content into prompt messages when `rich_content` == False"


def agently_message(role: Any, content: Any) -> dict[str, Any]:
    """A chat message as Agently's ``to_messages`` gives it."""
    return {"role": role, "content": content}


def _section_message(
    field: str, value: Any, roles: dict[Any, Any], titles: dict[str, Any], message: Callable[[Any, Any], M]
) -> M:
    role = str(roles[field]) if field in roles else field
    with field_guard(field):
        return message(role, section_body(value, titles))


def _merge_failure(message: ChatMsg, role: Any) -> AgentlyFieldError:
    return AgentlyFieldError(
        "role_mapping",
        f"maps the role {message.role!r} to {role!r}, which Agently 4.1.4.10 cannot merge (it fails with IndexError)",
    )


def _text_history_messages(
    prompt: PromptObject,
    texts: list[str],
    roles: dict[Any, Any],
    raw_titles: Any,
    rich_content: Any,
    strict: Any,
    message: Callable[[Any, Any], M],
) -> list[M]:
    """``_history_messages`` when every content is text: each message is ``[{"type": "text", ...}]``
    (``rich_content is False``: the text itself), consecutive same roles merged when ``strict``."""
    mapped = _mapped_roles(prompt.chat_history, roles)
    if not strict:
        if rich_content is False:
            return [message(role, text) for role, text in zip(mapped, texts, strict=True)]
        return [message(role, [{"type": "text", "text": text}]) for role, text in zip(mapped, texts, strict=True)]
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
        return [message(role, "\n\n".join(group)) for role, group in merged]
    return [message(role, [{"type": "text", "text": text} for text in group]) for role, group in merged]


def _history_messages(
    prompt: PromptObject,
    roles: dict[Any, Any],
    raw_titles: Any,
    rich_content: Any,
    strict_role_orders: Any,
    message: Callable[[Any, Any], M],
) -> list[M]:
    texts = _texts(prompt.chat_history)
    if texts is not None:
        return _text_history_messages(prompt, texts, roles, raw_titles, rich_content, strict_role_orders, message)
    history: list[dict[str, Any]] = []
    # Where each part came from, to name it in errors: only plain text (rich_content False) needs it.
    origins: list[list[tuple[int, int]]] | None = [] if rich_content is False else None
    last_role: Any = None
    chat_history = prompt.chat_history
    for index, (turn, role) in enumerate(zip(chat_history, _mapped_roles(chat_history, roles), strict=True)):
        content = _history_content(turn.content, index)
        if strict_role_orders and role == last_role:
            if not history:
                raise _merge_failure(turn, role)
            history[-1]["content"].extend(content)
            if origins is not None:
                origins[-1].extend((index, number) for number in range(len(content)))
        else:
            history.append({"role": role, "content": content})
            if origins is not None:
                origins.append([(index, number) for number in range(len(content))])
        last_role = role
    if strict_role_orders:
        if history[0]["role"] != "user":
            title = title_lookup(raw_titles, "chat_history", "CHAT HISTORY")
            history.insert(0, {"role": "user", "content": [{"type": "text", "text": f"[{title}]"}]})
            if origins is not None:
                origins.insert(0, [])
        if history[-1]["role"] != "assistant":
            history.append({"role": "assistant", "content": [{"type": "text", "text": "[User continue input]"}]})
            if origins is not None:
                origins.append([])
    if origins is not None:
        return [message(item["role"], _flat_text(item, where)) for item, where in zip(history, origins, strict=True)]
    return [message(item["role"], item["content"]) for item in history]


def _history_content(content: Any, index: int) -> list[dict[str, Any]]:
    """A message's content as ``to_messages`` sends it: each part read (``history_part``) and dumped.

    A text (the usual turn) and a text part are written as their dump directly: ``{"type": "text",
    "text": ...}``, what reading and dumping it gives, without a part made between (per turn of a
    history of 100,000s)."""
    if type(content) is str:
        return [{"type": "text", "text": content}]
    raw = content if isinstance(content, list) else [{"type": "text", "text": str(content)}]
    return [
        {"type": "text", "text": item["text"]}
        if is_text_dict(item)
        else history_part(item, ["chat_history", index, "content", number]).dump()
        for number, item in enumerate(raw)
    ]


def _flat_text(message: dict[str, Any], where: list[tuple[int, int]]) -> str:
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
    return "\n\n".join(texts)


def _skip_attachment(part: Part, number: int) -> None:
    notice(f"{_NOT_PLAIN}\nContent: {part.dump()!s}", f"attachment[{number}]", stacklevel=4)


def to_messages(
    prompt: PromptObject,
    settings: AgentlySettings,
    role_mapping: Any,
    rich_content: Any,
    strict_role_orders: Any,
    clock: Callable[[], str],
    main: Callable[[], str],
    message: Callable[[Any, Any], M],
    input_text: str | None = None,
) -> list[M]:
    """Agently's ``to_messages`` (see the module docstring for the shapes).

    ``main`` gives the main prompt (as for :func:`to_text`). ``message`` makes each message from its
    role and content: :func:`agently_message` for Agently's dicts, or the caller's own type, made
    directly (a history may hold 100,000s of turns, and a dict per turn cost five times its text).
    ``input_text``, when given, is the input-only message's content: the ``[INPUT]`` section's body
    (a chat message needs text; Agently itself passes the value on as it is).
    """
    roles = settings.roles(role_mapping)
    raw_titles = settings.title_mapping
    titles = settings.titles
    add_time = settings.add_current_time is True
    prefix = f"[current time]: {clock()}\n\n" if add_time else ""
    messages: list[M] = []

    if prompt.system:
        messages.append(_section_message("system", prompt.system, roles, titles, message))
    if prompt.developer:
        messages.append(_section_message("developer", prompt.developer, roles, titles, message))
    if prompt.chat_history:
        messages.extend(_history_messages(prompt, roles, raw_titles, rich_content, strict_role_orders, message))

    user = roles.get("user", "user")
    others = prompt.tools or prompt.action_results or prompt.info or prompt.instruct or prompt.output or prompt.extras
    if prompt.input and not others and not prompt.attachment:
        with field_guard("input"):
            content = input_text if input_text is not None else sanitize(replace_slots(prompt.input, raw_titles))
            messages.append(message(user, f"{prefix}{content}" if add_time else content))
    elif prompt.attachment and not prompt.input and not others:
        if rich_content:
            parts = [part.dump() for part in prompt.attachment]
            if add_time:
                parts = _prefix_first_text(parts, prefix)
            messages.append(message(user, parts))
        else:
            for number, part in enumerate(prompt.attachment):
                if part.type == "text" and part.is_text:
                    text = replace_slots(part.text, raw_titles)
                    messages.append(message(user, f"{prefix}{text}" if add_time else text))
                else:
                    _skip_attachment(part, number)
    elif rich_content:
        content_parts = [{"type": "text", "text": f"{prefix}{main()}" if add_time else main()}]
        content_parts.extend(part.dump() for part in prompt.attachment)
        messages.append(message(user, content_parts))
    else:
        main_text = main()
        for number, part in enumerate(prompt.attachment):
            if part.type == "text" and part.is_text:
                messages.append(message(user, replace_slots(part.text, raw_titles)))
            else:
                _skip_attachment(part, number)
        messages.append(message(user, f"{prefix}{main_text}" if add_time else main_text))
    return messages


def _prefix_first_text(parts: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    for part in parts:
        if part.get("type") == "text":
            part["text"] = f"{prefix}{part.get('text', '')!s}"
            return parts
    return [{"type": "text", "text": prefix}, *parts]
