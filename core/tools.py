"""What an AgentScript tool or memory scheme does for a program: the interface, not a scheme.

A scheme (``file``, ``sh``, ``sqlite``, a third party's ``s3``...) is registered through the
``register_tool_schemes`` hook under its URI scheme. The interpreter calls ``call_tool`` for
``Tool.method(args...)`` on an ``import tool`` binding and ``call_memory`` for ``Memory.add`` /
``Memory.query`` on an ``import memory`` binding, and records the outcome in the trace. A scheme
signals a failure with :class:`ToolError`; the interpreter reports it as AgentScript does
(``Tool T.m (uri) failed: message``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .errors import PromptwireError

__all__ = ["MemoryOutcome", "ToolError", "ToolOutcome", "ToolScheme"]


class ToolError(PromptwireError):
    """A tool or memory operation failed (the message says why, without the tool's name)."""


@dataclass(frozen=True)
class ToolOutcome:
    """A tool call's result, and the changes it made (``effects``, e.g. files written) for the trace."""

    result: Any
    effects: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class MemoryOutcome:
    """A memory operation's result; ``count`` of records returned or stored; ``id`` and ``record``
    of an added record (``None`` for a query)."""

    result: Any
    count: int
    id: Any = None
    record: Any = None


class ToolScheme(Protocol):
    name: str
    description: str

    def call_tool(self, uri: str, method: str, args: list[Any], *, workspace: Path) -> ToolOutcome: ...

    def call_memory(self, uri: str, operation: str, args: list[Any], *, workspace: Path) -> MemoryOutcome: ...
