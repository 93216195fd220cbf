"""Named things of one kind (renderers, readers, adapters, tool schemes), each remembered with its plugin.

The host calls each plugin's hook in plugin load order and adds what it registers at once, so an
error points at the plugin's ``register`` line, and listings and clash messages follow load order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, TypeVar

from ..core.errors import RegistrationError, UnknownNameError

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """Objects of one kind by name and alias, with the plugin that registered each name."""

    def __init__(self, kind: str, required_methods: tuple[str, ...] = ()) -> None:
        self.kind = kind
        self.required_methods = required_methods
        self._items: dict[str, T] = {}
        self._owners: dict[str, str] = {}
        self._primary: list[str] = []

    def add(self, obj: T, plugin: str, aliases: object = ()) -> None:
        """Store ``obj`` under its name and ``aliases`` as ``plugin``'s. Refused: a missing name, a
        missing method, aliases that are not names, and a name already taken (naming both plugins)."""
        name = getattr(obj, "name", None)
        if not isinstance(name, str) or not name:
            raise RegistrationError(f"plugin {plugin!r} registered a {self.kind} without a string 'name'")
        for method in self.required_methods:
            if not callable(getattr(obj, method, None)):
                raise RegistrationError(f"plugin {plugin!r}: {self.kind} {name!r} has no callable {method!r}")
        names = (name, *self._alias_names(aliases, name, plugin))
        for each in names:
            if each in self._owners or names.count(each) > 1:
                first = self._owners.get(each, plugin)
                raise RegistrationError(
                    f"{self.kind} name {each!r} is registered twice: by plugin {first!r} and by plugin {plugin!r}"
                )
        for each in names:
            self._items[each] = obj
            self._owners[each] = plugin
        self._primary.append(name)

    def _alias_names(self, aliases: object, name: str, plugin: str) -> tuple[str, ...]:
        where = f"plugin {plugin!r}: {self.kind} {name!r}"
        if isinstance(aliases, str | bytes) or not isinstance(aliases, Iterable):
            raise RegistrationError(f"{where}: aliases must be a tuple or list of names, not {aliases!r}")
        names = tuple(aliases)
        for alias in names:
            if not isinstance(alias, str) or not alias:
                raise RegistrationError(f"{where}: every alias must be a non-empty string, not {alias!r}")
        return names

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            raise UnknownNameError(self.kind, name, self.names()) from None

    def names(self) -> tuple[str, ...]:
        """Primary names in plugin load order (aliases resolve with :meth:`get` but are not listed)."""
        return tuple(self._primary)

    def owned_by(self, plugin: str) -> list[str]:
        """The primary names ``plugin`` registered, for ``asrender plugins``."""
        return [name for name in self._primary if self._owners[name] == plugin]
