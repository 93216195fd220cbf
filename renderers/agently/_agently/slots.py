"""Slot references: ``${INPUT.customer}`` in prompt text becomes ``[INPUT > customer]``.

A prompt can point at another section by name; Agently rewrites such references to that section's
title (from the title mapping) so the model sees the same words as the section headers. Unknown
slots are left as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import AgentlyFieldError
from .storage import DEFAULT_TITLES

_SLOT_RE = re.compile(r"\$\{([^}]+)\}")

_SLOT_TITLE_DEFAULTS: dict[str, str] = {**DEFAULT_TITLES, "attachment": "ATTACHMENT"}

_ALIASES = {
    "instruction": "instruct",
    "instructions": "instruct",
    "output": "output_requirement",
    "output_requirement": "output_requirement",
    "outputrequirement": "output_requirement",
}

_TITLE_SETTING = "prompt.prompt_title_mapping"


def title_lookup(titles: Any, key: str, default: str) -> Any:
    """``titles.get(key, default)`` where Agently does not check the mapping's type.

    Agently crashes with ``AttributeError: 'str' object has no attribute 'get'`` there; say which
    setting is wrong instead.
    """
    if isinstance(titles, dict):
        return titles.get(key, default)
    getter = getattr(titles, "get", None)
    if getter is None:
        raise AgentlyFieldError(
            _TITLE_SETTING,
            f"must be a dict of section titles, got {type(titles).__name__} "
            "(Agently 4.1.4.10 fails with AttributeError here)",
        )
    return getter(key, default)


def _render(match: re.Match[str], titles: Any) -> str:
    slot_expr, _, path = match.group(1).strip().partition(".")
    slot = slot_expr.strip().lower().replace("-", "_")
    slot = _ALIASES.get(slot, slot)
    default = _SLOT_TITLE_DEFAULTS.get(slot)
    if default is None:
        return match.group(0)
    title = str(title_lookup(titles or {}, slot, default))
    path = path.strip()
    return f"[{title} > {path}]" if path else f"[{title}]"


_NO_TEXT = frozenset({int, float, bool, type(None)})


def _nothing_to_replace(items: list[Any]) -> bool:
    """Whether a list holds only plain scalars and no slot reference (checked at C speed: a long
    list of plain items is common, and walking it item by item dominated a render)."""
    kinds = set(map(type, items))
    if kinds <= _NO_TEXT:
        return True
    if kinds == {str} or kinds - _NO_TEXT == {str}:
        return "${" not in "\n".join([item for item in items if type(item) is str] if kinds != {str} else items)
    return False


def replace_slots(value: Any, titles: Any, memo: dict[int, Any] | None = None) -> Any:
    """Rewrite slot references in every string of ``value`` (mapping values, lists and tuples).

    Like Agently, containers are rebuilt (mappings become dicts) and a ``str`` subclass comes back
    as a plain ``str``; mapping keys and sets are left alone. With ``memo`` (a dict the caller
    owns), a container held in several places is rebuilt once and stays shared, so a value with
    shared parts (YAML aliases) costs time linear in its distinct containers, not in its tree.
    """
    kind = type(value)
    if kind is str:
        if "${" not in value:
            return value
        return _SLOT_RE.sub(lambda match: _render(match, titles), value)
    if isinstance(value, str):
        return _SLOT_RE.sub(lambda match: _render(match, titles), value)
    if memo is not None and id(value) in memo:
        return memo[id(value)]
    if isinstance(value, Mapping):
        result: Any = {key: replace_slots(item, titles, memo) for key, item in value.items()}
    elif isinstance(value, list):
        if kind is list and _nothing_to_replace(value):
            result = list(value)
        else:
            result = [replace_slots(item, titles, memo) for item in value]
    elif isinstance(value, tuple):
        result = tuple([replace_slots(item, titles, memo) for item in value])
    else:
        return value
    if memo is not None:
        memo[id(value)] = result
    return result
