"""The built-in formats and front doors, registered through the same hooks a third party uses.

Each registration is a light proxy that imports its module on first use, so loading the host (and
starting ``asrender``) costs no import of formats the command never touches.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from .manager import hookimpl

__all__ = ["LazyReader", "LazyRenderer"]


@dataclass(frozen=True)
class _Lazy:
    name: str
    description: str
    target: str  # "module:attribute", relative to the promptwire package

    def load(self) -> Any:
        module_name, _, attribute = self.target.partition(":")
        return getattr(importlib.import_module(module_name, "promptwire"), attribute)


@dataclass(frozen=True)
class LazyRenderer(_Lazy):
    @property
    def fields(self) -> frozenset[str]:
        """The prompt fields the format expresses (asks the real renderer, importing it)."""
        fields: frozenset[str] = self.load().fields
        return fields

    def render(self, prompt: Any, **options: Any) -> Any:
        return self.load().render(prompt, **options)


@dataclass(frozen=True)
class LazyReader(_Lazy):
    def read(self, data: Any) -> Any:
        return self.load().read(data)


RENDERERS = (
    LazyRenderer(
        "agentscript",
        "AgentScript 0.1.5 layered text: identity system text; Context, Instruction, schema user message",
        ".renderers.agentscript:renderer",
    ),
    LazyRenderer(
        "agens",
        "Agens 0.2.0 system/user prefix pairs: '## heading\\ndetail:\\n\\nbody' sections",
        ".renderers.agens:renderer",
    ),
    LazyRenderer(
        "agently",
        "Agently 4.1.4.10 prompt generator: '[SECTION]:' blocks with YAML bodies, user:/assistant: frame",
        ".renderers.agently.renderer:renderer",
    ),
    LazyRenderer(
        "messages",
        "chat messages with rich content: system, history, then the user turn with attachment parts",
        ".renderers.messages:renderer",
    ),
)

READERS = (
    LazyReader("prompt", "the core Prompt model as JSON/YAML data", ".core.reader:reader"),
    LazyReader("agens", "an Agens.Message (its prompt fields) as JSON/YAML data", ".renderers.agens:reader"),
    LazyReader(
        "agently",
        "an Agently prompt dict (input, info, instruct, output with $type/$desc/$ensure...)",
        ".renderers.agently.renderer:reader",
    ),
)


@hookimpl
def register_renderers(register: Any) -> None:
    for renderer in RENDERERS:
        register(renderer)


@hookimpl
def register_readers(register: Any) -> None:
    for reader in READERS:
        register(reader)
