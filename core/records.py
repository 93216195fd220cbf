"""``dataclass`` without compiling source at import, for the classes every start makes.

On Python 3.11 and 3.12, ``dataclass`` writes each method it adds (``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, a frozen class's ``__setattr__`` and ``__delattr__``) as source text and
compiles it when the class is made, at every import: about 0.5M instructions a method, 3M for a
frozen class, and the README example's path made some 40 such classes (``valgrind --tool=callgrind``).
:func:`dataclass_record` is ``dataclass`` for a class that writes its ``__init__`` by hand: ``dataclass`` still
reads the fields (``fields``, ``replace``, ``asdict``, ``__match_args__`` and slots work as before),
and the other methods are the ones it would write, made from closures over the field names: the same
``repr`` text, equality and hash of the same fields, the same ``FrozenInstanceError``. A frozen class's
``__init__`` sets its fields with ``object.__setattr__``, as the generated one does.
tests/asrender/test_start_up.py checks that each hand-written ``__init__`` takes the fields as the
generated one would; tests/core/test_records.py that the methods behave as ``dataclass``'s.

For mypy, ``dataclass_record`` is ``dataclass`` itself, so it checks frozen classes and field types as before.
"""

from __future__ import annotations

import _thread
import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

__all__ = ["FACTORY", "dataclass_record", "field_setters"]


class _Factory:
    """The default of a field with a ``default_factory`` in a hand-written ``__init__``: the
    ``__init__`` calls the factory when it is given (shown as ``dataclass`` shows its own)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


FACTORY: Any = _Factory()

if TYPE_CHECKING:
    from dataclasses import dataclass as dataclass_record
else:

    def dataclass_record(*, frozen: bool = False, eq: bool = True, repr: bool = True, slots: bool = False) -> Any:
        """``dataclass(frozen=..., eq=..., repr=..., slots=...)`` for a class with its own ``__init__``."""

        def make(cls: type) -> type:
            return _make(cls, frozen=frozen, eq=eq, repr=repr, slots=slots)

        return make


def field_setters(cls: type) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of a slots record's fields, in their order, for the hand-written ``__init__``
    of a frozen one that every model call makes (:class:`~promptwire.core.call.Call`...): each sets
    its field's slot as ``object.__setattr__(self, name, value)`` does, in about a third of the
    instructions (``object.__setattr__`` first checks that the frozen class's own
    ``__setattr__`` is not bypassed, walking its bases: about 1,100 instructions a field)."""
    return tuple(cls.__dict__[field.name].__set__ for field in dataclasses.fields(cls))


def _make(cls: type, *, frozen: bool, eq: bool, repr: bool, slots: bool) -> type:
    if "__init__" not in cls.__dict__:
        raise TypeError(f"dataclass_record {cls.__qualname__} must write its __init__ (dataclass compiles one)")
    made: Any = dataclasses.dataclass(cls, init=False, repr=False, eq=False, frozen=False, slots=slots)
    params = made.__dataclass_params__  # as declared: a subclass's frozen check and readers see it
    params.init, params.repr, params.eq, params.frozen = True, repr, eq, frozen
    fields = dataclasses.fields(made)
    if repr:
        _add(made, "__repr__", _repr([field.name for field in fields if field.repr]))
    if eq:
        compared = [field.name for field in fields if field.compare]
        _add(made, "__eq__", _eq(_getter(compared)))
        own_hash = cls.__dict__.get("__hash__", dataclasses.MISSING)
        if own_hash is dataclasses.MISSING or (own_hash is None and "__eq__" in cls.__dict__):  # dataclass's table
            hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
            made.__hash__ = _hash(_getter(hashed)) if frozen else None
            if frozen:
                made.__hash__.__qualname__ = f"{made.__qualname__}.__hash__"
    if frozen:
        # The class given, as the generated methods name it (with slots it is not the class made).
        names = tuple(field.name for field in fields)
        for method in _frozen(cls, names):
            _add(made, method.__name__, method)
        if slots:  # pickling and copying set the fields back through object.__setattr__
            made.__getstate__ = _getstate
            made.__setstate__ = _setstate
    return made  # type: ignore[no-any-return]


def _add(cls: type, name: str, method: Callable[..., Any]) -> None:
    """``method`` as ``cls.name``, unless the class writes its own (as ``dataclass`` leaves it)."""
    if name in cls.__dict__:
        if name in ("__setattr__", "__delattr__"):
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        return
    method.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, method)


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The fields ``names`` of an instance, as a tuple (``attrgetter`` gives a bare value for one)."""

    def values(self: Any) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in names])

    return values


def _repr(names: list[str]) -> Callable[[Any], str]:
    running: set[tuple[int, int]] = set()

    def __repr__(self: Any) -> str:
        key = (id(self), _thread.get_ident())
        if key in running:  # as dataclass's: a field that holds the instance shows as ...
            return "..."
        running.add(key)
        try:
            shown = ", ".join([f"{name}={getattr(self, name)!r}" for name in names])
        finally:
            running.discard(key)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _eq(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _frozen(cls: Any, names: tuple[str, ...]) -> tuple[Callable[..., None], Callable[..., None]]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __setattr__, __delattr__


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, field.name) for field in dataclasses.fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for field, value in zip(dataclasses.fields(self), state, strict=False):
        object.__setattr__(self, field.name, value)
