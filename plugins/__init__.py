"""The plugin host: hook specs, the manager, entry-point discovery and the built-in registrations."""

from .manager import PluginHost, PluginInfo, default_host, hookimpl

__all__ = ["PluginHost", "PluginInfo", "default_host", "hookimpl"]
