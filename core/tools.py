"""What an AgentScript tool or memory scheme does for a program: the interface, not a scheme.

A scheme (``file``, ``sh``, ``sqlite``, a third party's ``s3``...) is registered through the
``register_tool_schemes`` hook under its URI scheme. The interpreter calls ``call_tool`` for
``Tool.method(args...)`` on an ``import tool`` binding and ``call_memory`` for ``Memory.add`` /
``Memory.query`` on an ``import memory`` binding, and records the outcome in the trace. A scheme
says which of the two it serves in ``kinds``; the interpreter refuses the other kind before calling
(``Unsupported memory URI scheme 'sh'``), so a scheme never has to. A scheme signals a failure with
:class:`ToolError`; the interpreter reports it as AgentScript does (``Tool T.m (uri) failed: message``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

from .errors import PromptwireError

__all__ = [
    "DEFAULT_TOOL_TIMEOUT",
    "REDACTED",
    "MemoryOutcome",
    "ToolContext",
    "ToolError",
    "ToolOutcome",
    "ToolRequest",
    "ToolScheme",
]

DEFAULT_TOOL_TIMEOUT: Final = 30.0
"""Seconds a network tool waits for an answer unless the run says otherwise."""

REDACTED: Final = "[redacted]"
"""What the trace shows instead of a result a scheme marked ``secret``."""


class ToolError(PromptwireError):
    """A tool or memory operation failed (the message says why, without the tool's name)."""


@dataclass(frozen=True)
class ToolContext:
    """What a run lets its tools touch, given to every call (schemes are shared, runs are not).

    ``workspace`` is the root file tools are confined to (the current directory, as AgentScript
    does). ``allowed_env`` limits ``env://`` to those names (``None``: any name). ``timeout`` bounds
    each network request, in seconds.
    """

    workspace: Path
    allowed_env: frozenset[str] | None = None
    timeout: float = DEFAULT_TOOL_TIMEOUT


@dataclass(frozen=True)
class ToolRequest:
    """One call: ``binding`` is the program's name for the import (``File``), ``uri`` its URI,
    ``method`` the member called (``read``; ``add``/``query`` for memory), ``args`` its JSON arguments."""

    binding: str
    uri: str
    method: str
    args: list[Any]


@dataclass(frozen=True)
class ToolOutcome:
    """A tool call's result, and the changes it made (``effects``, e.g. files written) for the trace.

    ``secret`` keeps the result out of the trace (it shows :data:`REDACTED`); the program still
    receives it.
    """

    result: Any
    effects: list[Any] = field(default_factory=list)
    secret: bool = False


@dataclass(frozen=True)
class MemoryOutcome:
    """A memory operation's result; ``count`` of records returned or stored; ``id`` and ``record``
    of an added record (``None`` for a query)."""

    result: Any
    count: int
    id: Any = None
    record: Any = None


class ToolScheme(Protocol):
    """A URI scheme's tools and/or memory; ``kinds`` holds ``"tool"``, ``"memory"`` or both."""

    name: str
    description: str
    kinds: frozenset[str]

    def call_tool(self, request: ToolRequest, context: ToolContext) -> ToolOutcome: ...

    def call_memory(self, request: ToolRequest, context: ToolContext) -> MemoryOutcome: ...
