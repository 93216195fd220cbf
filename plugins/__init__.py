"""The plugin host: hook specs and their marker, the manager, entry-point loading and the built-ins."""

from .hookspecs import hookimpl
from .manager import PluginHost, PluginInfo, default_host

__all__ = ["PluginHost", "PluginInfo", "default_host", "hookimpl"]
