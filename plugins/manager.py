"""The plugin host: the plugins it loaded, one registry of each kind their hooks filled, and pluggy's manager of them.

It loads the built-ins, then installed entry points, then plugins passed in (tests, embedders). Then
it calls each ``register_*`` hook on each plugin in turn, in that load order, with a ``register``
callback of the plugin's own (pluggy's ``subset_hook_caller``: the hook with every other plugin left
out), so every registration is known to be that plugin's: a clash names both plugins, and ``asrender
plugins`` says who provides what, with which version. A plugin's wrapper implementation
(``wrapper=True``, ``hookwrapper=True``) runs as pluggy runs wrappers, around nothing but its own
turn: what it registers before and after its ``yield`` is its plugin's.

A host of the built-ins alone (no plugin installed, or none the allow-list lets load, and none passed
in: the README's install) calls the built-ins' hooks itself, each kind's in the same order with the
same ``register``, and makes pluggy's manager only when something asks for it
(:attr:`PluginHost.pm`, ``asrender plugins``): importing pluggy and making its manager was 12M
instructions of every ``asrender`` run that looks a format up, 2% of the pydantic floor its start-up
is measured against (issue 41).

An installed plugin that fails to load is left out and kept in :attr:`PluginHost.broken`: the
others work, ``asrender plugins`` lists it marked, each problem is a :class:`PluginWarning`, and a
name nobody registered says which plugin failed (it may be the one that registers it).
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from importlib import metadata
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..core.errors import PluginWarning, RegistrationError, UnknownNameError
from ..core.records import dataclass_record
from . import builtins as builtin_plugin
from .entry_points import ALLOW_ENV, BrokenPlugin, allow_list_from_env, installed_plugin_names, load_entry_points
from .lazy import Lazy
from .registry import Registry

if TYPE_CHECKING:
    import pluggy

__all__ = ["BUILTIN_PLUGIN", "KINDS", "PluginHost", "PluginInfo", "default_host", "own_version"]

BUILTIN_PLUGIN = "promptwire"

KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "renderers": ("renderer", ("render",)),
    "adapters": ("adapter", ()),
    "readers": ("reader", ("read",)),
    "tool_schemes": ("tool scheme", ()),
}
"""Each kind of registered thing, filled by the hook ``register_<kind>``: what one is called in
messages and the methods the host refuses one without. The kinds are the keys of
:attr:`PluginHost.registries` and of :attr:`PluginInfo.registers` (so of ``asrender plugins --json``)."""


@dataclass_record(frozen=True)
class PluginInfo:
    """What ``asrender plugins`` shows of one plugin."""

    name: str
    version: str | None
    hooks: tuple[str, ...]
    registers: dict[str, list[str]]
    """Kind (``"renderers"``...) to the names this plugin registered there, in order."""
    error: str | None = None
    """Why the plugin failed to load (it registered nothing); ``None`` for a loaded one."""

    def __init__(
        self,
        name: str,
        version: str | None,
        hooks: tuple[str, ...],
        registers: dict[str, list[str]],
        error: str | None = None,
    ) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "hooks", hooks)
        object.__setattr__(self, "registers", registers)
        object.__setattr__(self, "error", error)

    def to_dict(self) -> dict[str, Any]:
        listed = {"name": self.name, "version": self.version, "hooks": list(self.hooks), **self.registers}
        return listed if self.error is None else {**listed, "error": self.error}


class PluginHost:
    """One plugin manager and the registries it filled. Tests make their own; the CLI uses the default.

    ``allow`` lists the entry-point names to load; ``None`` reads ``PROMPTWIRE_PLUGINS`` (see
    :mod:`.entry_points`). An installed plugin that fails to load is left out (:attr:`broken`) with a
    :class:`PluginWarning`, as is a name in the allow-list that no installed plugin has; a plugin
    passed in that registers badly raises :class:`RegistrationError`.
    """

    def __init__(
        self,
        *,
        builtins: bool = True,
        entry_points: bool = True,
        plugins: Sequence[object] = (),
        allow: Sequence[str] | None = None,
    ) -> None:
        self.registries: dict[str, Registry[Any]] = {
            kind: Registry(label, methods) for kind, (label, methods) in KINDS.items()
        }
        self.broken: tuple[BrokenPlugin, ...] = ()
        """The installed plugins that failed to load, left out."""
        self._builtins = builtins
        self._pm: pluggy.PluginManager | None = None
        allowed = allow_list_from_env() if allow is None else allow
        to_load: list[str] = []
        unknown: list[str] = []
        if entry_points and (allowed is None or allowed):  # an empty allow-list spares the scan
            installed = installed_plugin_names()
            to_load = [name for name in installed if allowed is None or name in allowed]
            if allowed is not None:
                known = {*installed, *([BUILTIN_PLUGIN] if builtins else [])}
                unknown = [name for name in allowed if name not in known]
        if to_load:
            self.broken = tuple(load_entry_points(self.pm, allowed))
        listed_in = ALLOW_ENV if allow is None else "the allow-list"
        for name in unknown:
            warnings.warn(f"{listed_in} names {name!r}, which no installed plugin is", PluginWarning, stacklevel=2)
        for broken in self.broken:
            warnings.warn(broken.message(), PluginWarning, stacklevel=2)
        for plugin in plugins:
            self._register(plugin, _plugin_name(plugin))
        if self._pm is None:  # the built-ins alone, or nothing at all
            if builtins:
                for kind, registry in self.registries.items():
                    hook_name = f"register_{kind}"
                    _registering(hook_name, BUILTIN_PLUGIN, registry, getattr(builtin_plugin, hook_name))
            return
        self._check_plugins()
        for kind, registry in self.registries.items():
            for name in self._plugin_names():
                self._call_hook(f"register_{kind}", name, registry)

    @property
    def pm(self) -> pluggy.PluginManager:
        """pluggy's manager of the loaded plugins, the built-ins first. A host of the built-ins
        alone makes it when first asked (their hooks have run already: it lists them, it does not
        call them again)."""
        if self._pm is None:
            self._pm = _plugin_manager(self._builtins)
        return self._pm

    def _register(self, plugin: object, name: str) -> None:
        if self.pm.has_plugin(name):
            raise RegistrationError(f"two plugins are named {name!r}")
        if self.pm.is_registered(plugin):
            raise RegistrationError(f"plugin {name!r} is already loaded as {self.pm.get_name(plugin)!r}")
        import pluggy

        try:
            self.pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            raise RegistrationError(f"plugin {name!r} is not a valid promptwire plugin: {exc}") from None

    def _check_plugins(self) -> None:
        """A misspelt hook (``register_renderer``) would otherwise register nothing, silently; and
        pluggy can leave plugins out of a hook call only if it can hash them."""
        import pluggy

        from .hookspecs import HOOK_NAMES

        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            name = self.pm.get_name(exc.plugin)
            raise RegistrationError(
                f"plugin {name!r}: {exc} (the promptwire hooks are: {', '.join(HOOK_NAMES)})"
            ) from None
        for name, plugin in self.pm.list_name_plugin():
            try:
                hash(plugin)
            except TypeError:
                raise RegistrationError(
                    f"plugin {name!r} cannot be hashed, which pluggy needs of a plugin (an instance of a "
                    "@dataclass is hashed with eq=False or frozen=True); to send with an adapter object "
                    "without a plugin, hand it to generate or run as adapter="
                ) from None

    def _call_hook(self, hook_name: str, plugin_name: str, registry: Registry[Any]) -> None:
        """Call ``plugin_name``'s implementation of ``hook_name`` alone (:func:`_registering`)."""
        plugin = self.pm.get_plugin(plugin_name)
        impls = getattr(self.pm.hook, hook_name).get_hookimpls()
        if not any(impl.plugin is plugin for impl in impls):
            return
        others = [impl.plugin for impl in impls if impl.plugin is not plugin]
        _registering(hook_name, plugin_name, registry, self.pm.subset_hook_caller(hook_name, remove_plugins=others))

    def _plugin_names(self) -> list[str]:
        return [name for name, plugin in self.pm.list_name_plugin() if plugin is not None]

    def get(self, kind: str, name: str) -> Any:
        """The thing registered as ``name`` (or an alias of it) of ``kind`` (a key of :data:`KINDS`).
        Unknown while a plugin failed to load, it may be that plugin's: the error names it."""
        try:
            return self.registries[kind].get(name)
        except UnknownNameError as exc:
            if not self.broken:
                raise
            failed = "; ".join(broken.message() for broken in self.broken)
            raise RegistrationError(f"{exc}, and {failed}") from None

    def load(self, kind: str, name: str) -> Any:
        """The object registered as ``name`` itself, for a caller about to use it: a built-in's module
        is imported now, and its calls no longer pass through the stand-in that deferred the import."""
        found = self.get(kind, name)
        return found.load() if isinstance(found, Lazy) else found

    def names(self, kind: str) -> tuple[str, ...]:
        """The names of ``kind`` in plugin load order (aliases resolve but are not listed)."""
        return self.registries[kind].names()

    def renderer(self, name: str) -> Any:
        return self.get("renderers", name)

    def renderer_options(self, name: str) -> frozenset[str] | None:
        """The keyword options format ``name`` takes (``strict`` and its own), read from its
        ``render`` signature; ``None`` when it takes any keyword (``**options``). Asking a built-in
        imports its module."""
        parameters = list(inspect.signature(self.load("renderers", name).render).parameters.values())[
            1:
        ]  # after the prompt
        if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters):
            return None
        keyword = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return frozenset(parameter.name for parameter in parameters if parameter.kind in keyword)

    def reader(self, name: str) -> Any:
        return self.get("readers", name)

    def adapter(self, name: str) -> Any:
        return self.get("adapters", name)

    def tool_scheme(self, name: str) -> Any:
        return self.get("tool_schemes", name)

    def plugins(self) -> list[PluginInfo]:
        """Every loaded plugin in load order, with its version and what it registered."""
        versions: dict[str | None, str | None] = {
            self.pm.get_name(plugin): dist.version for plugin, dist in self.pm.list_plugin_distinfo()
        }
        versions[BUILTIN_PLUGIN] = own_version()
        infos = []
        for name in self._plugin_names():
            plugin = self.pm.get_plugin(name)
            hooks = tuple(sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or ()))
            registers = {kind: registry.owned_by(name) for kind, registry in self.registries.items()}
            infos.append(PluginInfo(name, versions.get(name), hooks, registers))
        nothing: dict[str, list[str]] = {kind: [] for kind in self.registries}
        infos.extend(PluginInfo(b.name, b.version, (), nothing, error=b.error) for b in self.broken)
        return infos


def _registering(hook_name: str, plugin_name: str, registry: Registry[Any], hook: Callable[..., object]) -> None:
    """Call ``hook`` (one plugin's implementation of ``hook_name``) with a ``register`` that files
    what it is given under ``plugin_name``, and refuses to once the hook has returned."""
    returned = False

    def register(obj: Any, aliases: object = ()) -> None:
        if returned:
            raise RegistrationError(
                f"{hook_name}: register() was called after the hook returned; call it from the hook function"
            )
        registry.add(obj, plugin_name, aliases)

    try:
        hook(register=register)
    finally:
        returned = True


def _plugin_manager(builtins: bool) -> pluggy.PluginManager:
    """pluggy's manager of promptwire's hooks, with the built-ins registered when ``builtins``:
    their functions are marked as hook implementations here, where pluggy is imported anyway."""
    import pluggy

    from . import hookspecs

    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    if builtins:
        for name in hookspecs.HOOK_NAMES:
            hookspecs.hookimpl(getattr(builtin_plugin, name))
        pm.register(builtin_plugin, name=BUILTIN_PLUGIN)
    return pm


def _plugin_name(plugin: object) -> str:
    """A module's or class's ``__name__``, an instance's class name: what a clash message shows."""
    if isinstance(plugin, ModuleType):
        return plugin.__name__
    name = getattr(plugin, "__name__", None)
    return name if isinstance(name, str) and name else type(plugin).__name__


def own_version() -> str | None:
    """promptwire's installed version (``None`` when it runs from a checkout that is not installed)."""
    try:
        return metadata.version(BUILTIN_PLUGIN)
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=1)
def default_host() -> PluginHost:
    """The process-wide host, loaded on first use (entry points load once)."""
    return PluginHost()
