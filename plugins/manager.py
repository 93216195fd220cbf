"""The plugin host: one pluggy manager, the plugins it loaded, and the registries their hooks filled.

It loads the built-ins, then installed entry points, then plugins passed in (tests, embedders), then
calls each ``register_*`` hook once through pluggy, so wrappers and call order behave as pluggy
documents. Every registration is tied to the plugin that made it (see :mod:`.attribution`): a clash
names both plugins, and ``asrender plugins`` says who provides what, with which version.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from types import ModuleType
from typing import Any

import pluggy

from ..core.errors import RegistrationError
from . import builtins as builtin_plugin
from . import hookspecs
from .attribution import call_register_hook
from .entry_points import allow_list_from_env, load_entry_points
from .lazy import LazyRenderer
from .registry import Registration, Registry

__all__ = ["BUILTIN_PLUGIN", "REGISTERS", "PluginHost", "PluginInfo", "default_host"]

BUILTIN_PLUGIN = "promptwire"

REGISTERS: dict[str, str] = {
    "register_renderers": "renderers",
    "register_adapters": "adapters",
    "register_readers": "readers",
    "register_tool_schemes": "tool_schemes",
}
"""Each hook and the registry it fills: an attribute of :class:`PluginHost` and a key of
:attr:`PluginInfo.registers` (so of ``asrender plugins --json``)."""


@dataclass(frozen=True)
class PluginInfo:
    """What ``asrender plugins`` shows of one plugin."""

    name: str
    version: str | None
    hooks: tuple[str, ...]
    registers: dict[str, list[str]]
    """Registry key (``"renderers"``...) to the names this plugin registered there, in order."""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "hooks": list(self.hooks), **self.registers}


class PluginHost:
    """One plugin manager and the registries it filled. Tests make their own; the CLI uses the default.

    ``allow`` lists the entry-point names to load; ``None`` reads ``PROMPTWIRE_PLUGINS`` (see
    :mod:`.entry_points`). Loading or registering badly raises :class:`RegistrationError`.
    """

    def __init__(
        self,
        *,
        builtins: bool = True,
        entry_points: bool = True,
        plugins: Sequence[object] = (),
        allow: Sequence[str] | None = None,
    ) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        self.renderers: Registry[Any] = Registry("renderer", ("render",))
        self.adapters: Registry[Any] = Registry("adapter")
        self.readers: Registry[Any] = Registry("reader", ("read",))
        self.tool_schemes: Registry[Any] = Registry("tool scheme")
        self._registries: dict[str, Registry[Any]] = {
            "renderers": self.renderers,
            "adapters": self.adapters,
            "readers": self.readers,
            "tool_schemes": self.tool_schemes,
        }
        if builtins:
            self._register(builtin_plugin, BUILTIN_PLUGIN)
        if entry_points:
            load_entry_points(self.pm, allow_list_from_env() if allow is None else allow)
        for plugin in plugins:
            self._register(plugin, _plugin_name(plugin))
        self._check_hook_names()
        for hook_name, key in REGISTERS.items():
            self._collect(hook_name, self._registries[key])

    def _register(self, plugin: object, name: str) -> None:
        if self.pm.has_plugin(name):
            raise RegistrationError(f"two plugins are named {name!r}")
        if self.pm.is_registered(plugin):
            raise RegistrationError(f"plugin {name!r} is already loaded as {self.pm.get_name(plugin)!r}")
        try:
            self.pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            raise RegistrationError(f"plugin {name!r} is not a valid promptwire plugin: {exc}") from None

    def _check_hook_names(self) -> None:
        """A misspelt hook (``register_renderer``) would otherwise register nothing, silently."""
        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            name = self.pm.get_name(exc.plugin)
            raise RegistrationError(
                f"plugin {name!r}: {exc} (the promptwire hooks are: {', '.join(hookspecs.HOOK_NAMES)})"
            ) from None

    def _collect(self, hook_name: str, registry: Registry[Any]) -> None:
        checked: list[Registration[Any]] = []

        def on_register(obj: Any, plugin: str, aliases: object) -> None:
            checked.append(registry.check(obj, plugin, aliases))

        call_register_hook(self.pm, hook_name, on_register)
        load_order = {name: rank for rank, name in enumerate(self._plugin_names())}
        for registration in sorted(checked, key=lambda each: load_order[each.plugin]):
            registry.add(registration)

    def _plugin_names(self) -> list[str]:
        return [name for name, plugin in self.pm.list_name_plugin() if plugin is not None]

    def renderer(self, name: str) -> Any:
        return self.renderers.get(name)

    def renderer_options(self, name: str) -> frozenset[str] | None:
        """The keyword options format ``name`` takes (``strict`` and its own), read from its
        ``render`` signature; ``None`` when it takes any keyword (``**options``). Asking a built-in
        imports its module."""
        renderer = self.renderer(name)
        real = renderer.load() if isinstance(renderer, LazyRenderer) else renderer
        parameters = list(inspect.signature(real.render).parameters.values())[1:]  # after the prompt
        if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters):
            return None
        keyword = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return frozenset(parameter.name for parameter in parameters if parameter.kind in keyword)

    def reader(self, name: str) -> Any:
        return self.readers.get(name)

    def adapter(self, name: str) -> Any:
        return self.adapters.get(name)

    def tool_scheme(self, name: str) -> Any:
        return self.tool_schemes.get(name)

    def plugins(self) -> list[PluginInfo]:
        """Every loaded plugin in load order, with its version and what it registered."""
        versions: dict[str | None, str | None] = {
            self.pm.get_name(plugin): dist.version for plugin, dist in self.pm.list_plugin_distinfo()
        }
        versions[BUILTIN_PLUGIN] = _own_version()
        infos = []
        for name in self._plugin_names():
            plugin = self.pm.get_plugin(name)
            hooks = tuple(sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or ()))
            registers = {key: registry.owned_by(name) for key, registry in self._registries.items()}
            infos.append(PluginInfo(name, versions.get(name), hooks, registers))
        return infos


def _plugin_name(plugin: object) -> str:
    """A module's or class's ``__name__``, an instance's class name: what a clash message shows."""
    if isinstance(plugin, ModuleType):
        return plugin.__name__
    name = getattr(plugin, "__name__", None)
    return name if isinstance(name, str) and name else type(plugin).__name__


def _own_version() -> str | None:
    try:
        return metadata.version(BUILTIN_PLUGIN)
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1)
def default_host() -> PluginHost:
    """The process-wide host, loaded on first use (entry points load once)."""
    return PluginHost()
