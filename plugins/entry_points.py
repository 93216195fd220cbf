"""Installed plugins: entry points of the group ``promptwire``, loaded by pluggy, narrowed by an allow-list.

``PROMPTWIRE_PLUGINS`` names the entry points to load, comma-separated: unset loads every installed
plugin, empty loads none (the cure for a broken or slow plugin, as in ``llm``). Built-ins are not
entry points and always load. pluggy does the loading, the blocking and the bookkeeping of which
distribution each plugin came from; this module adds the allow-list and, when a plugin fails to
import or to register, a :class:`BrokenPlugin` that names the entry point instead of a bare
traceback from inside someone else's package. One broken plugin does not stop the others: it is
left out, and the host reports it (``asrender plugins`` lists it, marked; other commands warn).
A name in ``PROMPTWIRE_PLUGINS`` that no installed plugin has is reported too: a typo in the
"load only these" switch would otherwise load nothing, silently.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from importlib import metadata
from typing import TYPE_CHECKING

from ..core.errors import RegistrationError
from ..core.records import dataclass_record

if TYPE_CHECKING:
    import pluggy

__all__ = [
    "ALLOW_ENV",
    "ENTRY_POINT_GROUP",
    "BrokenPlugin",
    "allow_list_from_env",
    "installed_plugin_names",
    "load_entry_points",
]

ENTRY_POINT_GROUP = "promptwire"
ALLOW_ENV = "PROMPTWIRE_PLUGINS"


def allow_list_from_env() -> list[str] | None:
    """The entry-point names ``PROMPTWIRE_PLUGINS`` allows, or ``None`` (all) when it is unset."""
    raw = os.environ.get(ALLOW_ENV)
    if raw is None:
        return None
    return [name.strip() for name in raw.split(",") if name.strip()]


@dataclass_record(frozen=True)
class BrokenPlugin:
    """An installed plugin that failed to import or to register, and was left out."""

    name: str
    """Its entry point's name."""
    target: str
    """What the entry point names (``module`` or ``module:object``)."""
    version: str | None
    error: str
    """``ExceptionType: message``."""

    def __init__(self, name: str, target: str, version: str | None, error: str) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "error", error)

    def message(self) -> str:
        return (
            f"plugin {self.name!r} ({self.target}) failed to load: {self.error} "
            f"(set {ALLOW_ENV} to the plugins to load, without it)"
        )


def installed_plugin_names() -> list[str]:
    """The entry-point names of the installed plugins, in the order the distributions are found:
    one scan of every installed distribution, which tells the host whether it needs pluggy at all."""
    return [entry_point.name for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP)]


def load_entry_points(pm: pluggy.PluginManager, allow: Collection[str] | None) -> list[BrokenPlugin]:
    """Register on ``pm`` every installed plugin whose entry-point name ``allow`` lists (``None``: all).

    A plugin that fails to import or to register is left out (its name blocked for this load) and
    returned; the others load.
    """
    if allow is not None and not allow:
        return []  # loads none, and spares the scan of every installed distribution
    registered_before = {name for name, plugin in pm.list_name_plugin() if plugin is not None}
    blocked = [] if allow is None else _block_all_but(pm, allow)
    broken: list[BrokenPlugin] = []
    try:
        while True:
            try:
                pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
                break
            except Exception as exc:  # a broken third-party plugin must not look like our crash
                failed = _failed_entry_point(pm, registered_before, exc)
                if failed is None:
                    raise _load_error(exc) from exc
                broken.append(failed)
                pm.set_blocked(failed.name)  # unregisters what it left, and the next load passes it by
                blocked.append(failed.name)
    finally:
        for name in blocked:
            pm.unblock(name)  # the block only narrows this load; plugins passed in later may take the name
    return broken


def _block_all_but(pm: pluggy.PluginManager, allow: Collection[str]) -> list[str]:
    blocked = []
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        name = entry_point.name
        # set_blocked unregisters a plugin already under that name: never touch those (the built-ins).
        if name not in allow and not pm.has_plugin(name) and not pm.is_blocked(name):
            pm.set_blocked(name)
            blocked.append(name)
    return blocked


def _failed_entry_point(
    pm: pluggy.PluginManager, registered_before: Collection[str], exc: Exception
) -> BrokenPlugin | None:
    """The entry point pluggy stopped at: the first one, in pluggy's own order, it did not finish."""
    finished = {pm.get_name(plugin) for plugin, _ in pm.list_plugin_distinfo()}
    for dist in metadata.distributions():
        for entry_point in dist.entry_points:
            name = entry_point.name
            if entry_point.group != ENTRY_POINT_GROUP or name in registered_before or name in finished:
                continue
            if pm.is_blocked(name):
                continue
            return BrokenPlugin(name, entry_point.value, dist.version, f"{type(exc).__name__}: {exc}")
    return None


def _load_error(exc: Exception) -> RegistrationError:
    return RegistrationError(
        f"an installed plugin (entry-point group {ENTRY_POINT_GROUP!r}) failed to load: {type(exc).__name__}: {exc}"
    )
