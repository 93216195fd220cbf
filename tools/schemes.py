"""Which module serves which URI scheme, as the objects the plugin host registers.

A scheme may serve tools, memory or both (``file://`` is a tool over the workspace and a JSONL
memory); ``kinds`` is derived from what it was given, so the interpreter can refuse the other kind
with AgentScript's own message before anything runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.tools import MemoryOutcome, ToolContext, ToolError, ToolOutcome, ToolRequest
from .env import env_tool
from .files import file_tool
from .http import http_tool
from .jsonl_store import jsonl_memory
from .shell import shell_tool
from .sqlite_store import sqlite_memory

__all__ = ["Scheme", "env_scheme", "file_scheme", "http_scheme", "https_scheme", "sh_scheme", "sqlite_scheme"]

ToolFunction = Callable[[ToolRequest, ToolContext], ToolOutcome]
MemoryFunction = Callable[[ToolRequest, ToolContext], MemoryOutcome]


@dataclass(frozen=True)
class Scheme:
    """A URI scheme: its tool calls go to ``tool``, its memory calls to ``memory``."""

    name: str
    description: str
    tool: ToolFunction | None = None
    memory: MemoryFunction | None = None

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(kind for kind, served in (("tool", self.tool), ("memory", self.memory)) if served)

    def call_tool(self, request: ToolRequest, context: ToolContext) -> ToolOutcome:
        if self.tool is None:
            raise ToolError(f"{self.name}:// serves no tools")
        return self.tool(request, context)

    def call_memory(self, request: ToolRequest, context: ToolContext) -> MemoryOutcome:
        if self.memory is None:
            raise ToolError(f"{self.name}:// serves no memory")
        return self.memory(request, context)


file_scheme = Scheme(
    "file", "files in the workspace (read, list, write, patch, undo); JSONL memory", file_tool, jsonl_memory
)
sh_scheme = Scheme("sh", "find, grep and sed over the workspace, in Python: no shell is started", shell_tool)
env_scheme = Scheme(
    "env", "environment variables, limited by --allow-env; secret-looking values kept out of traces", env_tool
)
http_scheme = Scheme("http", "HTTP requests to the import's own origin, redirects included, with a timeout", http_tool)
https_scheme = Scheme(
    "https", "HTTPS requests to the import's own origin, redirects included, with a timeout", http_tool
)
sqlite_scheme = Scheme("sqlite", "memory in an SQLite database: sqlite://path#namespace", memory=sqlite_memory)
