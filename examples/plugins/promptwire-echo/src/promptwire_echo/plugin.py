"""The plugin module the entry point names: promptwire calls each hook once, after loading."""

from __future__ import annotations

from promptwire.plugin import RegisterCallback, hookimpl

from .adapter import EchoAdapter
from .renderer import FlatRenderer


@hookimpl
def register_adapters(register: RegisterCallback) -> None:
    register(EchoAdapter())


@hookimpl
def register_renderers(register: RegisterCallback) -> None:
    register(FlatRenderer(), aliases=("flat",))
