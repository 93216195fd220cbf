"""How Agently's ``Prompt`` container stores what it is given: copied containers, dotted-key paths.

The copy is visible in the bytes (a namedtuple or ``OrderedDict`` comes back as a plain tuple or
dict), so an ``AgentlyPrompt`` stores its data the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import AgentlyFieldError

__all__ = ["container_copy", "store_prompt"]


def container_copy(value: Any, copies: dict[int, Any] | None = None) -> Any:
    """Agently's ``StateData._copy``: dicts, lists, sets and tuples rebuilt as the plain types.

    Visible in the bytes: a namedtuple or an ``OrderedDict`` stored in an Agently prompt prints as a
    plain tuple or dict afterwards. Other objects are kept (Agently's deep copies of built-in values
    are equal to them). Like Agently, a container held in several places is copied each time, into a
    tree (PyYAML would write shared parts with anchors). With ``copies`` (a dict the caller owns),
    each container is copied once and the copy shared, like ``copy.deepcopy``: the reader uses that,
    since copying YAML aliases as a tree takes time exponential in their nesting.
    """
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if copies is not None:
        known = copies.get(id(value))
        if known is not None:
            return known[1]
    if isinstance(value, dict):
        copied: Any = {key: container_copy(item, copies) for key, item in value.items()}
    elif isinstance(value, list):
        copied = [container_copy(item, copies) for item in value]
    elif isinstance(value, set):
        copied = {container_copy(item, copies) for item in value}
    elif isinstance(value, tuple):
        copied = tuple([container_copy(item, copies) for item in value])
    else:
        return value
    if copies is not None:
        # The original is kept beside its copy so its id cannot be reused while copying.
        copies[id(value)] = (value, copied)
    return copied


def store_prompt(prompt: Mapping[str, Any], *, share: bool = False) -> dict[str, Any]:
    """The prompt as Agently's container holds it after ``prompt[key] = value`` for each key.

    A dotted key is a path (``"info.user"`` sets ``info["user"]``), as in Agently. Values are copied
    the way Agently copies them (:func:`container_copy`), which also isolates them from the caller;
    ``share`` copies a container held in several places once (see :func:`container_copy`).
    """
    if not isinstance(prompt, Mapping):
        raise AgentlyFieldError("prompt", f"must be a mapping, got {type(prompt).__name__}")
    data: dict[str, Any] = {}
    copies: dict[int, Any] | None = {} if share else None
    for key, value in prompt.items():
        value = container_copy(value, copies)
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
