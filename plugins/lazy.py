"""Stand-ins for built-ins whose modules are imported only when first used.

Starting ``asrender`` (and listing plugins) must not import a format's module, with its YAML,
schema or template dependencies. A proxy knows only the name it is registered under and where the
real object lives; everything else, the description included, is asked of the real object, so it is
written once, on the object's class. A real object that answers to another name than the one it is
registered under is refused when first loaded, so the two cannot drift apart unnoticed.
"""

from __future__ import annotations

import importlib
from functools import cached_property
from typing import Any

from ..core.errors import RegistrationError
from ..core.records import dataclass_record

__all__ = ["Lazy", "LazyAdapter", "LazyReader", "LazyRenderer", "LazyToolScheme"]

_PACKAGE = __name__.rpartition(".plugins.")[0]
"""``promptwire``, whatever it is imported as: targets are relative to it."""


@dataclass_record(frozen=True)
class Lazy:
    """What every stand-in is: the name it is registered under and where the real object lives.

    The kinds below add no fields, so they are not dataclasses again: they inherit ``__init__``,
    equality, hashing and the frozen fields (decorating each anew only generated the same methods
    once more, 1.6 ms of every start).
    """

    name: str
    target: str
    """``"module:attribute"``, the module relative to the promptwire package (``".renderers.agens:renderer"``)."""

    def __init__(self, name: str, target: str) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "target", target)

    def load(self) -> Any:
        """The real object (imported on the first call)."""
        return self._real

    @cached_property
    def _real(self) -> Any:
        module_name, _, attribute = self.target.partition(":")
        real = getattr(importlib.import_module(module_name, _PACKAGE), attribute)
        real_name = getattr(real, "name", None)
        if real_name != self.name:
            raise RegistrationError(f"built-in {self.target} is registered as {self.name!r} but is named {real_name!r}")
        return real

    @property
    def description(self) -> str:
        description: str = self._real.description
        return description


class LazyRenderer(Lazy):
    """A built-in format: ``render`` and ``fields`` import the real renderer."""

    @property
    def fields(self) -> frozenset[str]:
        fields: frozenset[str] = self._real.fields
        return fields

    def render(self, prompt: Any, **options: Any) -> Any:
        return self._real.render(prompt, **options)


class LazyReader(Lazy):
    """A built-in reader: ``read`` (and ``model_field``) imports the real one."""

    def read(self, data: Any) -> Any:
        return self._real.read(data)

    @property
    def model_field(self) -> str | None:
        """The real reader's, when it reads a provider's request body (see ``register_readers``)."""
        field: str | None = getattr(self._real, "model_field", None)
        return field


class LazyAdapter(Lazy):
    """A built-in provider adapter: the first request imports the real one (and only then its SDK)."""

    def build_request(self, *args: Any, **kwargs: Any) -> Any:
        return self._real.build_request(*args, **kwargs)

    def send(self, *args: Any, **kwargs: Any) -> Any:
        return self._real.send(*args, **kwargs)

    def parse_reply(self, raw: Any) -> Any:
        return self._real.parse_reply(raw)

    def model_name(self, uri: str | None) -> Any:
        return self._real.model_name(uri)

    def __getattr__(self, name: str) -> Any:
        """The optional methods of streamed and awaited calls (``streamed``, ``stream``, ``asend``,
        ``astream``: see ``promptwire.calls.links``) are the real adapter's, when it has them."""
        if name in _OPTIONAL_ADAPTER_METHODS:
            return getattr(self._real, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


_OPTIONAL_ADAPTER_METHODS = frozenset({"streamed", "stream", "asend", "astream"})


class LazyToolScheme(Lazy):
    """A built-in tool or memory scheme: the first call (or ``kinds``) imports the real one."""

    @property
    def kinds(self) -> frozenset[str]:
        kinds: frozenset[str] = self._real.kinds
        return kinds

    def call_tool(self, *args: Any) -> Any:
        return self._real.call_tool(*args)

    def call_memory(self, *args: Any) -> Any:
        return self._real.call_memory(*args)
