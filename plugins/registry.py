"""Named things of one kind (renderers, readers, adapters, tool schemes), each remembered with its plugin.

Checking a registration and adding it are two steps: the shape is checked while the plugin's hook
runs, so an error points at the plugin's line; names are added once the hook returned, in plugin load
order, so listings and clash messages do not depend on the order pluggy happened to call plugins in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..core.errors import RegistrationError, UnknownNameError

__all__ = ["Registration", "Registry"]

T = TypeVar("T")


@dataclass(frozen=True)
class Registration(Generic[T]):
    """One checked ``register`` call: the object, the plugin that made it, its name then aliases."""

    obj: T
    plugin: str
    names: tuple[str, ...]


class Registry(Generic[T]):
    """Objects of one kind by name and alias, with the plugin that registered each name."""

    def __init__(self, kind: str, required_methods: tuple[str, ...] = ()) -> None:
        self.kind = kind
        self.required_methods = required_methods
        self._items: dict[str, T] = {}
        self._owners: dict[str, str] = {}
        self._primary: list[str] = []

    def check(self, obj: T, plugin: str, aliases: object) -> Registration[T]:
        """Refuse what cannot be served: a missing name, a missing method, aliases that are not names."""
        name = getattr(obj, "name", None)
        if not isinstance(name, str) or not name:
            raise RegistrationError(f"plugin {plugin!r} registered a {self.kind} without a string 'name'")
        for method in self.required_methods:
            if not callable(getattr(obj, method, None)):
                raise RegistrationError(f"plugin {plugin!r}: {self.kind} {name!r} has no callable {method!r}")
        return Registration(obj, plugin, (name, *self._alias_names(aliases, name, plugin)))

    def _alias_names(self, aliases: object, name: str, plugin: str) -> tuple[str, ...]:
        where = f"plugin {plugin!r}: {self.kind} {name!r}"
        if isinstance(aliases, str | bytes) or not isinstance(aliases, Iterable):
            raise RegistrationError(f"{where}: aliases must be a tuple or list of names, not {aliases!r}")
        names = tuple(aliases)
        for alias in names:
            if not isinstance(alias, str) or not alias:
                raise RegistrationError(f"{where}: every alias must be a non-empty string, not {alias!r}")
        return names

    def add(self, registration: Registration[T]) -> None:
        """Store a checked registration; a name already taken is an error naming both plugins."""
        for each in registration.names:
            if each in self._owners or registration.names.count(each) > 1:
                first = self._owners.get(each, registration.plugin)
                raise RegistrationError(
                    f"{self.kind} name {each!r} is registered twice: by plugin {first!r} "
                    f"and by plugin {registration.plugin!r}"
                )
        for each in registration.names:
            self._items[each] = registration.obj
            self._owners[each] = registration.plugin
        self._primary.append(registration.names[0])

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
