"""The items of a conversation an adapter must account for, and how each is changed to see where
it went.

An item is a part of a turn (text, media, tool call, tool result, reasoning), a turn's text, a mark
on one (a cache breakpoint, its TTL, a turn's speaker name, a result's error flag, an image's
detail, a call's id), or a prompt-wide one (the system and developer text, the instruction, the
cache breakpoints after the system text and the tools, OpenAI's cache key and retention). Each is
changed alone, the conversation otherwise the same: its strings changed (a part, a text), its mark
taken off (set to none, a flag to false), or a call's id renamed in the call and in every result
that names it (so the pairs still pair). Nothing moves: every other item keeps its index, so the
request's notes about the others stay as they were.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .corpus import Conversation, parse_path

__all__ = ["Item", "changed", "changed_part", "items"]

_CHANGED = " (changed)"
_BASE64 = "QUFB"  # "AAA": inline data stays base64 of the same length modulo 4


@dataclass(frozen=True)
class Item:
    """One thing of a conversation, at ``path`` in the prompt data; ``how`` it is changed: ``part``
    (its strings), ``text``, ``off`` (set to none), ``false`` (a flag), ``id`` (a call's id,
    renamed everywhere)."""

    path: str
    how: str
    message: int | None = None
    """The rendered message it is in (``messages[i]`` in the ``conversation`` format: the system
    and developer messages, the history's turns, the instruction), ``None`` for none."""
    part: int | None = None
    """Its part's index in the message's content, when it is a part or a part's mark."""


def items(conversation: Conversation) -> Iterator[Item]:
    """Every item of ``conversation`` (of a generated history, its first and last rounds only)."""
    prompt = conversation.prompt
    leading = [field for field in ("system", "developer") if prompt.get(field) is not None]
    for m, field in enumerate(leading):
        yield Item(field, "text", m)
    cache = prompt.get("cache") or {}
    for field in ("system", "tools", "key", "retention"):
        if cache.get(field) is not None:  # the system breakpoint is on the system message
            message = 0 if field == "system" and leading[:1] == ["system"] else None
            yield Item(f"cache.{field}", "off", message)
            if field in ("system", "tools") and cache[field].get("ttl") is not None:
                yield Item(f"cache.{field}.ttl", "off", message)
    history = prompt.get("history", [])
    skipped = range(conversation.round_size, len(conversation.generated) - conversation.round_size)
    for t, turn in enumerate(history):
        if t not in skipped:
            yield from _turn_items(len(leading) + t, f"history[{t}]", turn)
    if "instruction" in prompt:
        yield Item("instruction", "text", len(leading) + len(history))


def _turn_items(message: int, here: str, turn: Mapping[str, Any]) -> Iterator[Item]:
    """The items of the history turn at ``here``, rendered as ``messages[message]``."""
    content = turn.get("content")
    if isinstance(content, str):
        yield Item(here, "text", message)
    elif isinstance(content, list):
        for p, part in enumerate(content):
            at = f"{here}.content[{p}]"
            yield Item(at, "part", message, p)
            kind = part.get("type")
            if kind == "tool_call" and part.get("id") is not None:
                yield Item(f"{at}.id", "id", message, p)
            if kind == "tool_result" and part.get("is_error"):
                yield Item(f"{at}.is_error", "false", message, p)
            if kind == "image" and part.get("detail") is not None:
                yield Item(f"{at}.detail", "off", message, p)
            mark = part.get("cache")
            if mark is not None:
                yield Item(f"{at}.cache", "off", message, p)
                if mark.get("ttl") is not None:
                    yield Item(f"{at}.cache.ttl", "off", message, p)
    if turn.get("name") is not None:
        yield Item(f"{here}.name", "off", message)
    mark = turn.get("cache")
    if mark is not None:
        yield Item(f"{here}.cache", "off", message)
        if mark.get("ttl") is not None:
            yield Item(f"{here}.cache.ttl", "off", message)


def changed(prompt: Mapping[str, Any], item: Item) -> dict[str, Any]:
    """A copy of ``prompt`` with ``item`` changed as its ``how`` says."""
    data = copy.deepcopy(dict(prompt))
    steps = parse_path(item.path)
    parent: Any = data
    for step in steps[:-1]:
        parent = parent[step]
    last = steps[-1]
    if item.how == "part":
        parent[last] = changed_part(parent[last])
    elif item.how == "text" and isinstance(parent[last], dict):  # a turn whose content is text
        parent[last]["content"] += _CHANGED
    elif item.how == "text":
        parent[last] += _CHANGED
    elif item.how == "off":
        parent[last] = None
    elif item.how == "false":
        parent[last] = False
    elif item.how == "id":
        _rename(data, parent[last], parent[last] + "_changed")
    else:
        raise ValueError(f"unknown change {item.how!r}")
    return data


def changed_part(part: Mapping[str, Any]) -> dict[str, Any]:
    """``part`` with every string that says what it holds changed (not its call id, which
    pairs it: see :func:`items`' ``id``; not its kind, media type or format)."""
    new = dict(part)
    kind = new.get("type")
    for key in ("text", "name", "filename", "signature", "encrypted"):
        if isinstance(new.get(key), str):
            new[key] += _CHANGED
    if isinstance(new.get("url"), str):
        new["url"] += "?changed"
    if isinstance(new.get("data"), str):
        new["data"] = _BASE64 + new["data"]
    if isinstance(new.get("summary"), list):
        new["summary"] = [line + _CHANGED for line in new["summary"]]
    if kind == "tool_call":
        if isinstance(new.get("arguments"), dict):
            new["arguments"] = {**new["arguments"], "changed": True}
        if isinstance(new.get("arguments_text"), str):
            new["arguments_text"] = new["arguments_text"] + " "  # the same object, other text
    if kind == "tool_result":
        content = new["content"]
        new["content"] = content + _CHANGED if isinstance(content, str) else [changed_part(p) for p in content]
    if kind == "reasoning" and isinstance(new.get("id"), str):
        new["id"] += "_changed"
    return new


def _rename(data: dict[str, Any], old: str, new: str) -> None:
    """The call id ``old`` renamed ``new`` in every call and result of the history."""
    for turn in data.get("history", []):
        if isinstance(turn.get("content"), list):
            for part in turn["content"]:
                if part.get("type") == "tool_call" and part.get("id") == old:
                    part["id"] = new
                if part.get("type") == "tool_result" and part.get("call_id") == old:
                    part["call_id"] = new
