"""How Agently stores what it is given: a prompt's data and its settings, copied, set by dotted keys.

Agently's ``Prompt`` and ``Settings`` are both its ``StateData``: values are copied when stored
(visible in the bytes: a namedtuple or ``OrderedDict`` comes back as a plain tuple or dict), a dotted
key is a path (``"info.user"`` sets ``info["user"]``), and a prompt's settings are a child of the
global settings, read by merging the child over the parent (dicts recursively, lists by appending
the parent's missing items). Only four settings feed the generator, so they are resolved once, when
an :class:`AgentlyPrompt` is built.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, get_origin

from .errors import AgentlyFieldError

_MISSING: Any = object()


# --- storing values -----------------------------------------------------------------------------


# Leaves that print the same every time: a prompt made only of these renders the same bytes on
# every call (see ``changing`` below). Other objects (a pydantic model instance, a custom object, a
# deque) are kept, not copied, and their text may change between calls.
_FIXED_LEAVES = (type, Enum, datetime.date, datetime.time, datetime.timedelta, decimal.Decimal, bytes)


_KEPT = frozenset({str, int, float, bool, type(None)})


def _fixed_leaf(value: Any) -> bool:
    return isinstance(value, _FIXED_LEAVES) or get_origin(value) is not None


def container_copy(value: Any, copies: dict[int, Any] | None = None, changing: list[Any] | None = None) -> Any:
    """Agently's ``StateData._copy``: dicts, lists, sets and tuples rebuilt as the plain types.

    Visible in the bytes: a namedtuple or an ``OrderedDict`` stored in an Agently prompt prints as a
    plain tuple or dict afterwards. Other objects are kept (Agently's deep copies of built-in values
    are equal to them). Like Agently, a container held in several places is copied each time, into a
    tree (PyYAML would write shared parts with anchors). With ``copies`` (a dict the caller owns),
    each container is copied once and the copy shared, like ``copy.deepcopy``: the reader uses that,
    since copying YAML aliases as a tree takes time exponential in their nesting. ``changing`` (a list
    the caller owns) receives the kept objects whose text may change between renders.
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if copies is not None:
        known = copies.get(id(value))
        if known is not None:
            return known[1]
    # Text and numbers are kept as they are without a call each: most leaves are, and the copy of a
    # big value is a walk over all of them.
    if isinstance(value, dict):
        copied: Any = {
            key: item if type(item) in _KEPT else container_copy(item, copies, changing) for key, item in value.items()
        }
    elif isinstance(value, list):
        copied = [item if type(item) in _KEPT else container_copy(item, copies, changing) for item in value]
    elif isinstance(value, set):
        copied = {container_copy(item, copies, changing) for item in value}
    elif isinstance(value, tuple):
        copied = tuple([container_copy(item, copies, changing) for item in value])
    else:
        if changing is not None and not _fixed_leaf(value):
            changing.append(value)
        return value
    if copies is not None:
        # The original is kept beside its copy so its id cannot be reused while copying.
        copies[id(value)] = (value, copied)
    return copied


def _set_path(tree: dict[Any, Any], key: Any, value: Any) -> None:
    """``state.set(key, value)``: a dotted key walks (and creates, or copies) dicts, then replaces the leaf."""
    if not (isinstance(key, str) and "." in key):
        tree[key] = value
        return
    current = tree
    walked = ""
    parts = key.split(".")
    for part in parts[:-1]:
        nxt = current.get(part, _MISSING)
        if nxt is _MISSING:
            nxt = current[part] = {}
        elif not isinstance(nxt, dict):
            raise AgentlyFieldError(key, f"cannot set it because {(walked + part)!r} is not a dictionary")
        else:
            nxt = current[part] = dict(nxt)
        walked += part + "."
        current = nxt
    current[parts[-1]] = value


def store_prompt(
    prompt: Mapping[str, Any], *, share: bool = False, changing: list[Any] | None = None
) -> dict[str, Any]:
    """The prompt as Agently's container holds it after ``prompt[key] = value`` for each key.

    A dotted key is a path, as in Agently. Values are copied the way Agently copies them
    (:func:`container_copy`), which also isolates them from the caller; ``share`` copies a container
    held in several places once, and ``changing`` receives the kept objects whose text may change
    (see :func:`container_copy`).
    """
    if not isinstance(prompt, Mapping):
        raise AgentlyFieldError("prompt", f"must be a mapping, got {type(prompt).__name__}")
    data: dict[str, Any] = {}
    copies: dict[int, Any] | None = {} if share else None
    for key, value in prompt.items():
        _set_path(data, key, container_copy(value, copies, changing))
    return data


# --- the settings ---------------------------------------------------------------------------------

DEFAULT_TITLES: dict[str, str] = {
    "system": "SYSTEM",
    "developer": "DEVELOPER DIRECTIONS",
    "chat_history": "CHAT HISTORY",
    "info": "INFO",
    "tools": "TOOLS",
    "action_results": "ACTION RESULTS",
    "instruct": "INSTRUCT",
    "examples": "EXAMPLES",
    "input": "INPUT",
    "output": "OUTPUT",
    "output_requirement": "OUTPUT REQUIREMENT",
}

_DEFAULT_SETTINGS: dict[str, Any] = {
    "prompt": {
        "add_current_time": False,
        "default_output_format": "json",
        "role_mapping": {
            "system": "system",
            "developer": "developer",
            "assistant": "assistant",
            "user": "user",
            "_": "assistant",
        },
        "prompt_title_mapping": dict(DEFAULT_TITLES),
    }
}


@dataclass(frozen=True, slots=True)
class AgentlySettings:
    """The settings values the generator reads, as Agently would read them (raw, unchecked).

    ``title_mapping`` may be anything the user stored: Agently checks it is a dict in some places and
    not in others, and the renderer reproduces each place (see ``titles``).
    """

    role_mapping: Any
    title_mapping: Any
    add_current_time: Any
    default_output_format: Any

    @property
    def titles(self) -> dict[str, Any]:
        """The title mapping where Agently checks its type: anything but a dict counts as ``{}``."""
        mapping = self.title_mapping
        return mapping if isinstance(mapping, dict) else {}

    def roles(self, call_mapping: Any = None) -> dict[Any, Any]:
        """A fresh merged role mapping: settings (a dict, else ``{}``) updated by the call's dict."""
        merged = dict(self.role_mapping) if isinstance(self.role_mapping, dict) else {}
        if isinstance(call_mapping, dict):
            merged.update(call_mapping)
        return merged


def _merge(child: Mapping[Any, Any], parent: Mapping[Any, Any]) -> dict[Any, Any]:
    """Agently's ``StateData._merge_view``: parent keys first, child values over them."""
    result = dict(parent)
    for key, value in child.items():
        if key not in parent:
            result[key] = value
            continue
        inherited = parent[key]
        if isinstance(value, dict) and isinstance(inherited, dict):
            result[key] = _merge(value, inherited)
        elif isinstance(value, list):
            merged_list = list(value)
            if isinstance(inherited, (list, set, tuple)):
                for item in inherited:
                    if item not in merged_list:
                        merged_list.append(item)
            elif inherited not in merged_list:
                merged_list.append(inherited)
            result[key] = merged_list
        elif isinstance(value, set):
            merged_set = set(value)
            if isinstance(inherited, (list, set, tuple)):
                merged_set.update(inherited)
            else:
                merged_set.add(inherited)
            result[key] = merged_set
        else:
            result[key] = value
    return result


def merge_levels(levels: list[Mapping[Any, Any]]) -> dict[Any, Any]:
    """Agently's ``StateData`` inherited view of ``levels`` (each level's own data, child first).

    Values are copied as Agently's view copies them, so nothing the renderer is given is shared
    with the settings it came from.
    """
    merged: dict[Any, Any] = {}
    for level in levels:
        merged = _merge(merged, level)
    copied: dict[Any, Any] = container_copy(merged)
    return copied


def resolved_settings(tree: Mapping[Any, Any]) -> AgentlySettings:
    """The four values the generator reads from a merged settings tree (absent: Agently's defaults)."""
    return _resolve(tree)


def _get_path(tree: Mapping[Any, Any], dotted: str, default: Any) -> Any:
    current: Any = tree
    for part in dotted.split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        else:
            return default
    return current


def _resolve(tree: Mapping[Any, Any]) -> AgentlySettings:
    return AgentlySettings(
        role_mapping=_get_path(tree, "prompt.role_mapping", {}),
        title_mapping=_get_path(tree, "prompt.prompt_title_mapping", {}),
        add_current_time=_get_path(tree, "prompt.add_current_time", None),
        default_output_format=_get_path(tree, "prompt.default_output_format", "json"),
    )


_DEFAULT = _resolve(_DEFAULT_SETTINGS)


def resolve_settings(settings: Mapping[str, Any] | None, changing: list[Any] | None = None) -> AgentlySettings:
    """Resolve user settings (Agently's dotted keys, e.g. ``prompt.role_mapping``) over the defaults.

    Keys are applied in order, like successive ``prompt.settings.set(key, value)`` calls.
    ``changing`` is as for :func:`container_copy`.
    """
    if not settings:
        return _DEFAULT
    if not isinstance(settings, Mapping):
        raise AgentlyFieldError("settings", f"must be a mapping of dotted keys, got {type(settings).__name__}")
    child: dict[Any, Any] = {}
    for key, value in settings.items():
        _set_path(child, key, container_copy(value, None, changing))
    return _resolve(_merge(child, _DEFAULT_SETTINGS))
