"""What an AgentScript tool or memory scheme does for a program: the interface, not a scheme.

A scheme (``file``, ``sh``, ``sqlite``, a third party's ``s3``...) is registered through the
``register_tool_schemes`` hook under its URI scheme. The interpreter calls ``call_tool`` for
``Tool.method(args...)`` on an ``import tool`` binding and ``call_memory`` for ``Memory.add`` /
``Memory.query`` on an ``import memory`` binding, and records the outcome in the trace. A scheme
says which of the two it serves in ``kinds``; the interpreter refuses the other kind before calling
(``Unsupported memory URI scheme 'sh'``), so a scheme never has to. A scheme signals a failure with
:class:`ToolError`; the interpreter reports it as AgentScript does (``Tool T.m (uri) failed: message``),
or, for a memory's own refusal (:class:`MemoryProviderError`), with the message alone.

Each call gets the run's :class:`~promptwire.core.permissions.Permissions` (as ``ToolContext``): a
scheme that touches files, the environment or the network asks it first, and opens files through
it or through :mod:`promptwire.core.confined`, never by a path string.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Protocol

from .errors import PromptwireError
from .permissions import DEFAULT_TOOL_TIMEOUT, Permissions

__all__ = [
    "DEFAULT_TOOL_TIMEOUT",
    "REDACTED",
    "MemoryOutcome",
    "MemoryProviderError",
    "ToolContext",
    "ToolError",
    "ToolOutcome",
    "ToolRequest",
    "ToolScheme",
]

REDACTED: Final = "[redacted]"
"""What the trace shows instead of a result a scheme marked ``secret``."""


class ToolError(PromptwireError):
    """A tool or memory operation failed (the message says why, without the tool's name)."""


class MemoryProviderError(ToolError):
    """A memory's own refusal (a record or query it does not take, a memory file that is not one):
    it reaches the program as it is, where any other failure of a memory call is prefixed
    ``Memory M.op (uri) failed:``, as AgentScript words them."""


ToolContext = Permissions
"""What a run lets its tools touch, given to every call (schemes are shared, runs are not): the
run's :class:`~promptwire.core.permissions.Permissions`, under the name schemes have always used."""


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
    """A tool call's result, and what the trace shows as the changes it made (``effects``).

    ``effects`` left ``None`` is traced as AgentScript traces it: the result's own ``effects`` list
    when the result is an object holding one (``File.write``), else null; a scheme whose changes
    are not in its result may name them here. ``secret`` keeps the result out of the trace (it
    shows :data:`REDACTED`); the program still receives it.
    """

    result: Any
    effects: list[Any] | None = None
    secret: bool = False


@dataclass(frozen=True)
class MemoryOutcome:
    """A memory operation's result; ``id`` and ``record`` of an added record (``None`` for a
    query). ``count`` left ``None`` is traced as AgentScript traces it: the number of records when
    the result is a list (a query), else null (an add)."""

    result: Any
    count: int | None = None
    id: Any = None
    record: Any = None


class ToolScheme(Protocol):
    """A URI scheme's tools and/or memory; ``kinds`` holds ``"tool"``, ``"memory"`` or both."""

    name: str
    description: str
    kinds: frozenset[str]

    def call_tool(self, request: ToolRequest, context: ToolContext) -> ToolOutcome: ...

    def call_memory(self, request: ToolRequest, context: ToolContext) -> MemoryOutcome: ...
