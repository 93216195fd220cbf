"""How Agently's ``Prompt`` container stores what it is given: copied containers, dotted-key paths.

The copy is visible in the bytes (a namedtuple or ``OrderedDict`` comes back as a plain tuple or
dict), so an ``AgentlyPrompt`` stores its data the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import AgentlyFieldError

__all__ = ["container_copy", "store_prompt"]


def container_copy(value: Any) -> Any:
    """Agently's ``StateData._copy``: dicts, lists, sets and tuples rebuilt as the plain types.

    Visible in the bytes: a namedtuple or an ``OrderedDict`` stored in an Agently prompt prints as a
    plain tuple or dict afterwards. Other objects are kept (Agently's deep copies of built-in values
    are equal to them).
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if isinstance(value, dict):
        return {key: container_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [container_copy(item) for item in value]
    if isinstance(value, set):
        return {container_copy(item) for item in value}
    if isinstance(value, tuple):
        return tuple([container_copy(item) for item in value])
    return value


def store_prompt(prompt: Mapping[str, Any]) -> dict[str, Any]:
    """The prompt as Agently's container holds it after ``prompt[key] = value`` for each key.

    A dotted key is a path (``"info.user"`` sets ``info["user"]``), as in Agently. Values are copied
    the way Agently copies them (:func:`container_copy`), which also isolates them from the caller.
    """
    if not isinstance(prompt, Mapping):
        raise AgentlyFieldError("prompt", f"must be a mapping, got {type(prompt).__name__}")
    data: dict[str, Any] = {}
    for key, value in prompt.items():
        value = container_copy(value)
        if not (isinstance(key, str) and "." in key):
            data[key] = value
            continue
        current = data
        parts = key.split(".")
        for depth, part in enumerate(parts[:-1]):
            child = current.get(part)
            if part not in current:
                child = {}
            elif not isinstance(child, dict):
                walked = ".".join(parts[: depth + 1])
                raise AgentlyFieldError(key, f"cannot set it because {walked!r} is not a dictionary")
            else:
                child = dict(child)
            current[part] = child
            current = child
        current[parts[-1]] = value
    return data
