"""Agently's prompt settings: dotted keys over the shipped defaults, merged the way Agently merges.

A prompt's Settings in Agently is a child of the global settings; reading merges the child over the
parent (dicts recursively, lists by appending the parent's missing items). Only four values feed
the generator, so they are resolved once, when an :class:`AgentlyPrompt` is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import AgentlyFieldError
from .storage import container_copy

__all__ = ["DEFAULT_SETTINGS", "DEFAULT_TITLES", "AgentlySettings", "resolve_settings"]

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

DEFAULT_SETTINGS: dict[str, Any] = {
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

_MISSING: Any = object()


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


def _set_path(tree: dict[Any, Any], key: Any, value: Any) -> None:
    """``settings.set(key, value)``: a dotted key walks (and creates) dicts, then replaces the leaf."""
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


_DEFAULT = _resolve(DEFAULT_SETTINGS)


def resolve_settings(settings: Mapping[str, Any] | None) -> AgentlySettings:
    """Resolve user settings (Agently's dotted keys, e.g. ``prompt.role_mapping``) over the defaults.

    Keys are applied in order, like successive ``prompt.settings.set(key, value)`` calls.
    """
    if not settings:
        return _DEFAULT
    if not isinstance(settings, Mapping):
        raise AgentlyFieldError("settings", f"must be a mapping of dotted keys, got {type(settings).__name__}")
    child: dict[Any, Any] = {}
    for key, value in settings.items():
        _set_path(child, key, container_copy(value))
    return _resolve(_merge(child, DEFAULT_SETTINGS))
