"""The plugin host: loads built-ins, then installed entry points, then plugins passed in, and keeps
what they register by name.

Hooks are called one implementation at a time so that every registration is tied to the plugin
that made it: a clash then names both plugins, and ``asrender plugins`` can say who provides what.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from types import ModuleType
from typing import Any, Generic, TypeVar

import pluggy

from ..core.errors import RegistrationError, UnknownNameError
from . import hookspecs

__all__ = ["ALLOW_ENV", "PluginHost", "PluginInfo", "Registry", "default_host", "hookimpl"]

hookimpl = pluggy.HookimplMarker(hookspecs.PROJECT_NAME)

ENTRY_POINT_GROUP = "promptwire"
BUILTIN_PLUGIN = "promptwire"
ALLOW_ENV = "PROMPTWIRE_PLUGINS"
"""Comma-separated entry-point names to load; unset loads all, empty loads none (built-ins stay)."""

T = TypeVar("T")


@dataclass
class Registry(Generic[T]):
    """Named things of one kind (renderers, adapters, readers), each remembered with its plugin."""

    kind: str
    required_methods: tuple[str, ...]
    _items: dict[str, T] = field(default_factory=dict)
    _owners: dict[str, str] = field(default_factory=dict)
    _primary: list[str] = field(default_factory=list)

    def add(self, obj: T, plugin: str, aliases: Iterable[str] = ()) -> None:
        name = getattr(obj, "name", None)
        if not isinstance(name, str) or not name:
            raise RegistrationError(f"plugin {plugin!r} registered a {self.kind} without a string 'name'")
        for method in self.required_methods:
            if not callable(getattr(obj, method, None)):
                raise RegistrationError(f"plugin {plugin!r}: {self.kind} {name!r} has no callable {method!r}")
        names = [name, *aliases]
        for each in names:
            if each in self._owners:
                raise RegistrationError(
                    f"{self.kind} name {each!r} is registered twice: by plugin {self._owners[each]!r} "
                    f"and by plugin {plugin!r}"
                )
        for each in names:
            self._items[each] = obj
            self._owners[each] = plugin
        self._primary.append(name)

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            raise UnknownNameError(self.kind, name, self.names()) from None

    def names(self) -> tuple[str, ...]:
        """Primary names in registration order (aliases resolve with :meth:`get` but are not listed)."""
        return tuple(self._primary)

    def owned_by(self, plugin: str) -> list[str]:
        return [name for name in self._primary if self._owners[name] == plugin]


@dataclass(frozen=True)
class PluginInfo:
    name: str
    version: str | None
    hooks: tuple[str, ...]
    registers: dict[str, list[str]]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "version": self.version, "hooks": list(self.hooks), **self.registers}


class PluginHost:
    """One plugin manager and the registries it filled. Tests make their own; the CLI uses the default."""

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
        self._versions: dict[str, str | None] = {}
        self.renderers: Registry[Any] = Registry("renderer", ("render",))
        self.adapters: Registry[Any] = Registry("adapter", ())
        self.readers: Registry[Any] = Registry("reader", ("read",))
        if builtins:
            from . import builtins as builtin_plugin

            self._add(builtin_plugin, BUILTIN_PLUGIN, _own_version())
        if entry_points:
            self._load_entry_points(_allow_list() if allow is None else allow)
        for plugin in plugins:
            self._add(plugin, _plugin_name(plugin), None)
        self._collect("register_renderers", self.renderers)
        self._collect("register_adapters", self.adapters)
        self._collect("register_readers", self.readers)

    def _add(self, plugin: object, name: str, version: str | None) -> None:
        if self.pm.has_plugin(name):
            raise RegistrationError(f"two plugins are named {name!r}")
        self.pm.register(plugin, name=name)
        self._versions[name] = version

    def _load_entry_points(self, allow: Sequence[str] | None) -> None:
        for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
            if allow is not None and entry_point.name not in allow:
                continue
            dist = entry_point.dist
            try:
                plugin = entry_point.load()
            except Exception as exc:  # a broken third-party plugin must not look like our crash
                raise RegistrationError(
                    f"plugin {entry_point.name!r} ({entry_point.value}) failed to load: {type(exc).__name__}: {exc}"
                ) from exc
            self._add(plugin, entry_point.name, dist.version if dist is not None else None)

    def _collect(self, hook_name: str, registry: Registry[Any]) -> None:
        for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
            register = _register_into(registry, impl.plugin_name)
            impl.function(register=register)

    def renderer(self, name: str) -> Any:
        return self.renderers.get(name)

    def reader(self, name: str) -> Any:
        return self.readers.get(name)

    def adapter(self, name: str) -> Any:
        return self.adapters.get(name)

    def plugins(self) -> list[PluginInfo]:
        infos = []
        for name, plugin in self.pm.list_name_plugin():
            hooks = tuple(sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or ()))
            registers = {
                "renderers": self.renderers.owned_by(name),
                "adapters": self.adapters.owned_by(name),
                "readers": self.readers.owned_by(name),
            }
            infos.append(PluginInfo(name, self._versions.get(name), hooks, registers))
        return infos


def _register_into(registry: Registry[Any], plugin: str) -> Callable[..., None]:
    def register(obj: Any, aliases: Iterable[str] = ()) -> None:
        registry.add(obj, plugin, aliases)

    return register


def _plugin_name(plugin: object) -> str:
    if isinstance(plugin, ModuleType):
        return plugin.__name__
    return getattr(plugin, "__name__", None) or type(plugin).__name__


def _allow_list() -> list[str] | None:
    raw = os.environ.get(ALLOW_ENV)
    if raw is None:
        return None
    return [name.strip() for name in raw.split(",") if name.strip()]


def _own_version() -> str | None:
    try:
        return metadata.version("promptwire")
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1)
def default_host() -> PluginHost:
    """The process-wide host, loaded on first use (entry points load once)."""
    return PluginHost()
