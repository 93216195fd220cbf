"""Environment variables read on a path every model call takes, each read seeing the environment as it is.

``os.environ.get(name)`` of a variable that is not set raises a ``KeyError`` inside
``os.environ.__getitem__``, catches it, raises another without its context and catches that in
``Mapping.get``: about 8,000 instructions, where a variable that is set costs about 1,000. A call
reads several that are usually not set (the bound on a reply, a provider's base URL or key, before
sending and again when the reply comes). :func:`environment_value` asks ``os.environ``'s own
mapping of encoded names first (CPython's ``_data``, which every change made through
``os.environ`` updates: ``monkeypatch.setenv``, ``mock.patch.dict`` and ``del`` alike), so a
variable set, changed or removed between calls is read as it is now; where ``os.environ`` has no
such mapping (a plain mapping put in its place), it is asked as it is.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["environment_value"]

_ENCODED: dict[str, Any] = {}
"""Each name read, as ``os.environ`` keeps it (bytes on POSIX, upper case on Windows)."""


def environment_value(name: str) -> str | None:
    """``os.environ.get(name)``."""
    environ = os.environ
    names = getattr(environ, "_data", None)
    if isinstance(names, dict):
        encoded = _ENCODED.get(name)
        if encoded is None:
            encoded = _ENCODED[name] = getattr(environ, "encodekey", str)(name)
        if encoded not in names:
            return None
    return environ.get(name)
