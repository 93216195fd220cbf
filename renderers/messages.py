"""Chat messages with rich content, around any text layout.

The layout (AgentScript's by default, or any renderer object passed as ``layout=``) decides the
words of the system and user messages; this format turns the conversation into real chat turns:
the system message, a developer message when the layout has no place for one, the history turns,
then the user turn, whose content becomes a list of parts when there are attachments.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import operator
from typing import TYPE_CHECKING, Any

from ..core.errors import FieldError
from ..core.nesting import nesting_room
from ..core.prompt import Prompt, PromptCache
from ..core.rendered import Message, RenderedPrompt, RenderWarning
from .base import Renderer, unexpressed_fields
from .parts import (
    URL_FILE_REASON,
    attachment_url_file_paths,
    cache_mark,
    holds_url_file,
    openai_content,
    openai_part,
    turn_url_file_paths,
)

if TYPE_CHECKING:
    from .agentscript import AgentScriptRenderer

__all__ = ["MessagesRenderer", "history_messages", "mark_system", "renderer", "tool_turns"]

_TURN_FIELDS = frozenset(
    {
        "history",
        "history.name",
        "history.tool_calls",
        "history.tool_results",
        "history.reasoning",
        "history.cache",
        "attachments",
        "attachments.cache",
        "tools",
        "tools.returns",
        "tool_calls",
        "tool_results",
        "tool_results.is_error",
    }
)

_TURN_LISTS = tuple(sorted(name for name in _TURN_FIELDS if "." not in name))
"""The fields among ``_TURN_FIELDS`` (the others are parts of these): every one a list."""


class MessagesRenderer:
    name = "messages"
    description = "chat messages with rich content: system, history, then the user turn with attachment parts"

    @property
    def fields(self) -> frozenset[str]:
        return _default_layout().fields | _TURN_FIELDS | {"developer", "cache"}

    def render(self, prompt: Prompt, *, layout: Renderer | None = None, strict: bool = False) -> RenderedPrompt:
        if layout is None:
            default = _default_layout()
            own, expressible = _fields_around(default.fields)
            reported = unexpressed_fields(prompt, self.name, expressible, strict=strict)
            laid_out = default.render_layout(prompt)  # it reads only its own fields: nothing to hide
        elif not isinstance(layout, Renderer):  # a protocol check costs ~25 us: only on a layout given
            raise FieldError(
                "layout",
                f"must be a renderer, got {type(layout).__name__} {layout!r} "
                "(promptwire.render and asrender take a format name)",
            )
        else:
            own, expressible = _fields_around(frozenset(layout.fields))
            reported = unexpressed_fields(prompt, self.name, expressible, strict=strict)
            laid_out = layout.render(_hidden_from_layout(prompt, own))

        fields = prompt.__dict__  # read without pydantic's attribute hook: this runs on every render
        leading = _leading_system(laid_out.messages)
        rest = list(laid_out.messages[len(leading) :])
        if "developer" in own and fields["developer"] is not None:
            leading.append(Message("developer", fields["developer"]))
        unmarked: tuple[RenderWarning, ...] = ()
        cache = fields["cache"]
        if "cache" in own and cache is not None:
            leading, unmarked = mark_system(leading, cache, self.name)
        attachments = fields["attachments"]
        url_files = attachment_url_file_paths(prompt) if attachments else []
        history = history_messages(prompt, url_files)
        if attachments:
            rest = _attach(rest, [openai_part(part) for part in attachments])
        elif history and _is_empty_user_turn(rest):
            rest = []
        warnings = (*reported, *unmarked)
        if url_files:
            warnings += tuple(RenderWarning(self.name, path, URL_FILE_REASON) for path in url_files)
        # Positional: a class called with keywords first builds a dict of them (three times the cost).
        return RenderedPrompt(
            self.name,  # format
            tuple(leading + history + rest + tool_turns(prompt)),  # messages
            None,  # text
            laid_out.sections,
            warnings,
            tuple(fields["tools"]),
            fields["output"],
            cache if "cache" in own else None,
        )


def _hidden_from_layout(prompt: Prompt, own: frozenset[str]) -> Prompt:
    """``prompt`` without what this format expresses itself (``own``), for a layout that would
    otherwise show or report it: the turns become messages of their own. Whatever the layout leaves
    out of the rest is reported by this format (it is outside the fields the two express)."""
    # Emptied as their defaults are (pydantic's ``get_default`` would inspect each factory's
    # signature, ~60 us a field, on every render: issue 28).
    hidden: dict[str, Any] = {name: [] for name in _TURN_LISTS}
    if "developer" in own:
        hidden["developer"] = None
    if "cache" in own:
        hidden["cache"] = None
    return prompt.model_copy(update=hidden)


@functools.lru_cache(maxsize=16)  # one entry per layout in use
def _fields_around(layout_fields: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The fields this format expresses itself around a layout that expresses ``layout_fields``
    (the turns, and the developer message and cache where the layout has no place for them), and
    all that the two express together. Kept: building the sets, and hashing a new one for
    :meth:`Prompt.populated_fields`, cost more than the rest of the report on every render."""
    own = _TURN_FIELDS | ({"developer", "cache"} - layout_fields)
    return own, layout_fields | own


_EMPTY_USER_TURN = [Message("user", "")]
"""The user turn a layout writes for a prompt with nothing to ask (no instruction, input or
context): after a conversation's turns (a provider's body read with ``--from``) it would add a turn
that carries nothing, and Anthropic refuses a message of empty text. Left out there; a prompt
without turns keeps it, as a request must hold at least one message."""


def _is_empty_user_turn(messages: list[Message]) -> bool:
    """Whether ``messages`` is :data:`_EMPTY_USER_TURN`. The text is looked at first: a layout's
    user turn carries the instruction, and comparing messages builds a tuple of all seven fields of
    each, on every render."""
    return len(messages) == 1 and messages[0].content == "" and messages == _EMPTY_USER_TURN


def history_messages(prompt: Prompt, url_files: list[str] | None = None) -> list[Message]:
    """The conversation's turns as messages, each part and breakpoint kept (see :mod:`.parts`).
    With ``url_files``, where the turns hold a file given by URL (shown as text, see
    :func:`~.parts.url_file_paths`) is added to it in the same pass: a history may hold 100,000s
    of turns, and a second pass over their parts cost a fifth of the render."""
    messages = []
    for index, turn in enumerate(prompt.__dict__["history"]):
        # A turn's fields taken from its __dict__ in one read: every attribute read of a pydantic
        # model goes through the class's __getattr__ hook (about 0.1 us each, four per turn).
        role, content, name, cache = _TURN_VALUES(turn.__dict__)
        # Message(role, content, name, cache=...), its __init__ inline: calling a class runs its
        # __init__ through type.__call__ (about 0.7k instructions of each turn's 4k; a keyword
        # argument more for a turn of parts).
        message = _new_message(Message)
        message.role = role
        if content.__class__ is str:  # text, most of a history: nothing in its content to convert
            message.content = content
        else:
            message.content = openai_content(content)
            if url_files is not None and not isinstance(content, str) and holds_url_file(content):
                url_files += turn_url_file_paths(index, content)
        message.name = name
        message.tool_calls = ()
        message.tool_call_id = None
        message.is_error = False
        message.cache = None if cache is None else cache_mark(cache)
        messages.append(message)
    return messages


_TURN_VALUES = operator.itemgetter("role", "content", "name", "cache")
"""What a message takes from a turn's fields."""

_new_message = object.__new__
"""A :class:`Message` with no field set yet, for :func:`history_messages` to set them all."""


def mark_system(
    leading: list[Message], cache: PromptCache, format_name: str
) -> tuple[list[Message], tuple[RenderWarning, ...]]:
    """The leading system messages with the prompt's system breakpoint on the last of them (the
    breakpoint covers all the system text, so it goes at its end), or a warning that there is no
    system text to mark."""
    if cache.system is None:
        return leading, ()
    for index in range(len(leading) - 1, -1, -1):
        if leading[index].role == "system":
            marked = dataclasses.replace(leading[index], cache=cache_mark(cache.system))
            return [*leading[:index], marked, *leading[index + 1 :]], ()
    return leading, (RenderWarning(format_name, "cache.system", "there is no system text to mark; left out"),)


def tool_turns(prompt: Prompt) -> list[Message]:
    """The model's earlier tool calls (one assistant turn) and their results (one ``tool`` message
    each), after the user turn they answer. Calls without an id get ``call_<index>``; a result
    without ``call_id`` answers the call at its own index, so every result names its call."""
    fields = prompt.__dict__
    if not fields["tool_calls"] and not fields["tool_results"]:  # the usual chat: nothing to set up
        return []
    calls = [
        call if call.id is not None else call.model_copy(update={"id": f"call_{i}"})
        for i, call in enumerate(prompt.tool_calls)
    ]
    turns = [Message("assistant", "", tool_calls=tuple(calls))] if calls else []
    for index, result in enumerate(prompt.tool_results):
        call_id = result.call_id
        if call_id is None:
            call_id = calls[index].id if index < len(calls) else f"call_{index}"
        text = _result_text(result.content, ("tool_results", index, "content"))
        turns.append(Message("tool", text, result.name, tool_call_id=call_id, is_error=result.is_error))
    return turns


def _result_text(content: object, path: tuple[str | int, ...]) -> str:
    """A tool result as the text a tool message carries: text as it is, other values as JSON."""
    if isinstance(content, str):
        return str.__str__(content)
    try:
        with nesting_room():
            return json.dumps(content, ensure_ascii=False, indent=2)
    except (TypeError, ValueError) as exc:  # not JSON data, or an integer too long to print
        raise FieldError(path, f"a tool result must be JSON data: {exc}") from None


def _leading_system(messages: tuple[Message, ...]) -> list[Message]:
    leading = []
    for message in messages:
        if message.role not in ("system", "developer"):
            break
        leading.append(message)
    return leading


def _attach(messages: list[Message], parts: list[dict[str, Any]]) -> list[Message]:
    """Append the parts to the last user message (adding an empty user turn if there is none)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "user":
            content = message.content
            if isinstance(content, str):
                head = [{"type": "text", "text": content}] if content else []
            else:
                head = list(content)
            return [*messages[:index], Message("user", head + parts), *messages[index + 1 :]]
    return [*messages, Message("user", parts)]


@functools.cache  # one answer; an import statement costs about a microsecond on every render
def _default_layout() -> AgentScriptRenderer:
    from .agentscript import renderer as agentscript_renderer

    return agentscript_renderer


renderer = MessagesRenderer()
