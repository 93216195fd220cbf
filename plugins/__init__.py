"""The plugin host: hook specs and their marker, the manager, entry-point loading and the built-ins.

``hookimpl`` is pluggy's marker, so it is read from :mod:`.hookspecs` when first asked for: a host of
the built-ins alone imports no pluggy (see :mod:`.manager`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .manager import PluginHost, PluginInfo, default_host

if TYPE_CHECKING:
    from .hookspecs import hookimpl

__all__ = ["PluginHost", "PluginInfo", "default_host", "hookimpl"]


def __getattr__(name: str) -> Any:
    if name == "hookimpl":
        from .hookspecs import hookimpl

        return hookimpl
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
