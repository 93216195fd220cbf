"""The built-in formats, readers, adapters and tool schemes, registered through the same hooks a third party uses.

The ``register_*`` functions below are this plugin's hook implementations. They carry no
``@hookimpl`` here: the host marks them when it makes pluggy's manager (``manager._plugin_manager``),
and a host of the built-ins alone, the usual ``asrender`` run, calls them itself without importing
pluggy at all (see :mod:`.manager`).

The tables below are the only place that says where a built-in lives. Each maps the name it is
registered under to its ``"module:attribute"``, relative to the promptwire package; the registered
object is a lazy proxy (see :mod:`.lazy`), so loading the host imports none of these modules, and
their descriptions are read from the real objects when someone asks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ..core.errors import UnknownNameError
from .lazy import LazyAdapter, LazyReader, LazyRenderer, LazyToolScheme

if TYPE_CHECKING:
    from .hookspecs import RegisterCallback

__all__ = [
    "ADAPTERS",
    "READERS",
    "RENDERERS",
    "TOOL_SCHEMES",
    "builtin_renderer",
    "register_adapters",
    "register_readers",
    "register_renderers",
    "register_tool_schemes",
]

RENDERERS: Final[dict[str, str]] = {
    "agentscript": ".renderers.agentscript:renderer",
    "agens": ".renderers.agens:renderer",
    "agently": ".renderers.agently.renderer:renderer",
    "messages": ".renderers.messages:renderer",
    "conversation": ".renderers.conversation:renderer",
    "template": ".renderers.template:renderer",
}

READERS: Final[dict[str, str]] = {
    "prompt": ".renderers.prompt_data:reader",
    "agens": ".renderers.agens:reader",
    "agently": ".renderers.agently.reader:reader",
    "openai-chat": ".adapters.readers.openai_chat:reader",
    "openai-responses": ".adapters.readers.openai_responses:reader",
    "anthropic": ".adapters.readers.anthropic:reader",
    "ollama": ".adapters.readers.ollama:reader",
    "gemini": ".adapters.readers.gemini:reader",
    "bedrock": ".adapters.readers.bedrock:reader",
}

ADAPTERS: Final[dict[str, str]] = {
    "offline": ".adapters.offline:adapter",
    "openai": ".adapters.openai:adapter",
    "openai-responses": ".adapters.openai_responses:adapter",
    "ollama": ".adapters.ollama:adapter",
    "anthropic": ".adapters.anthropic:adapter",
    "gemini": ".adapters.gemini:adapter",
    "bedrock": ".adapters.bedrock:adapter",
    "azure": ".adapters.azure:adapter",
    "azure-responses": ".adapters.azure:responses_adapter",
}

TOOL_SCHEMES: Final[dict[str, str]] = {
    "file": ".tools.schemes:file_scheme",
    "sh": ".tools.schemes:sh_scheme",
    "env": ".tools.schemes:env_scheme",
    "http": ".tools.schemes:http_scheme",
    "https": ".tools.schemes:https_scheme",
    "sqlite": ".tools.schemes:sqlite_scheme",
}


def builtin_renderer(name: str) -> LazyRenderer:
    """The built-in format ``name``, to build a format on: its module is imported when it first
    renders, so a plugin that imports it costs nothing at start-up."""
    if name not in RENDERERS:
        raise UnknownNameError("built-in renderer", name, tuple(RENDERERS))
    return LazyRenderer(name, RENDERERS[name])


def register_renderers(register: RegisterCallback) -> None:
    """Register every format of :data:`RENDERERS`, in table order."""
    for name, target in RENDERERS.items():
        register(LazyRenderer(name, target))


def register_readers(register: RegisterCallback) -> None:
    """Register every reader of :data:`READERS`, in table order."""
    for name, target in READERS.items():
        register(LazyReader(name, target))


def register_adapters(register: RegisterCallback) -> None:
    """Register every provider adapter of :data:`ADAPTERS`, in table order."""
    for name, target in ADAPTERS.items():
        register(LazyAdapter(name, target))


def register_tool_schemes(register: RegisterCallback) -> None:
    """Register every tool and memory scheme of :data:`TOOL_SCHEMES`, in table order."""
    for name, target in TOOL_SCHEMES.items():
        register(LazyToolScheme(name, target))
