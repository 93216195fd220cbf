"""``dataclass_record``: a class made with it behaves as the same class made with ``dataclass``.

Each case builds the same class twice, once with ``dataclass`` (its generated ``__init__``) and once
with ``dataclass_record`` (a hand-written one), for every combination of the parameters the package uses, and
compares what a caller can see: ``repr`` (a field that holds the instance included), equality,
hashing, the frozen guards, ``replace``, ``fields``, ``__match_args__``, the declared parameters,
pickling and copying.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from promptwire.core.records import FACTORY, dataclass_record

COMBINATIONS = [
    dict(zip(("frozen", "eq", "repr", "slots"), values, strict=True))
    for values in itertools.product((False, True), repeat=4)
]


def _pair(params: dict[str, bool]) -> tuple[type, type]:
    """The same three-field class (a default, a factory, a field left out of repr and comparison)
    made by ``dataclass`` and by ``dataclass_record``; both are module-level for pickling."""

    class Generated:
        """A generated record."""

        name: str
        count: int = 0
        tags: list[str] = field(default_factory=list)
        note: Any = field(default=None, repr=False, compare=False)

    class Written:
        """A hand-written record."""

        name: str
        count: int = 0
        tags: list[str] = field(default_factory=list)
        note: Any = field(default=None, repr=False, compare=False)

        def __init__(self, name: str, count: int = 0, tags: list[str] = FACTORY, note: Any = None) -> None:
            set_field = object.__setattr__ if params["frozen"] else setattr
            set_field(self, "name", name)
            set_field(self, "count", count)
            set_field(self, "tags", list() if tags is FACTORY else tags)
            set_field(self, "note", note)

    suffix = "_".join(f"{key}{int(value)}" for key, value in params.items())
    made = []
    for cls, decorator in ((Generated, dataclass(**params)), (Written, dataclass_record(**params))):
        cls.__qualname__ = cls.__name__ = f"{cls.__name__}_{suffix}"
        made_cls = decorator(cls)
        globals()[made_cls.__name__] = made_cls
        made.append(made_cls)
    return made[0], made[1]


def _outcome(action: Any) -> Any:
    try:
        return ("value", action())
    except Exception as exc:
        return ("raised", type(exc).__name__, str(exc).replace("Written", "Generated"))


def _seen(cls: type, params: dict[str, bool]) -> dict[str, Any]:
    """What a caller can see of ``cls``, with the class's own name made the same for both."""
    name = cls.__name__

    def show(value: Any) -> Any:  # without a generated repr, object's (an address): the fields
        if params["repr"]:
            return repr(value).replace(name, "C")
        return type(value).__repr__ is object.__repr__, [getattr(value, f.name) for f in dataclasses.fields(cls)]

    one, same, other = cls("a", 1, ("x",), note=1), cls("a", 1, ("x",), note=2), cls("b")
    seen: dict[str, Any] = {
        "repr": show(one),
        "equal": (one == same, one == other, one.__eq__(object())),
        "hash": _outcome(lambda: hash(one) == hash(same)) if cls.__hash__ is not None else None,
        "hashable": cls.__hash__ is None,
        "set field": _outcome(lambda: setattr(one, "count", 5)),
        "set other": _outcome(lambda: setattr(one, "other", 5)),
        "delete field": _outcome(lambda: delattr(other, "name")),
        "fields": [(f.name, f.repr, f.compare) for f in dataclasses.fields(cls)],
        "match_args": cls.__match_args__,  # type: ignore[attr-defined]
        "params": repr(cls.__dataclass_params__),  # type: ignore[attr-defined]
        "factory": (cls("c").tags, cls("c").tags is not cls("d").tags),
        "replaced": show(dataclasses.replace(cls("e", 2), count=3)),
        "slots": getattr(cls, "__slots__", None),
        "copied": _outcome(lambda: show(copy.deepcopy(cls("f", 4)))),
        "pickled": _outcome(lambda: show(pickle.loads(pickle.dumps(cls("g", 5))))),
    }
    if params["repr"] and not params["frozen"]:  # a field that holds the instance itself
        loop = cls("h")
        loop.note = loop
        loop.tags = [loop]
        seen["recursive repr"] = repr(loop).replace(name, "C")
    return seen


@pytest.mark.parametrize("params", COMBINATIONS, ids=lambda params: ",".join(k for k, v in params.items() if v))
def test_a_record_behaves_as_the_dataclass(params: dict[str, bool]) -> None:
    generated, written = _pair(params)
    assert _seen(written, params) == _seen(generated, params)


def test_a_record_must_write_its_init() -> None:
    with pytest.raises(TypeError, match="must write its __init__"):

        @dataclass_record()
        class Bare:
            """No __init__."""

            name: str


def test_the_factory_default_shows_as_dataclass_shows_its_own() -> None:
    assert repr(FACTORY) == "<factory>"


def test_the_records_every_call_makes_set_each_field_to_its_argument() -> None:
    # Call, Target, Whole and Usage set their fields with field_setters, in their order: each field
    # holds the argument given in its place, and they stay frozen.
    from promptwire.calls.targets import Target
    from promptwire.core.call import Call, Usage, Whole

    for cls in (Call, Target, Whole, Usage):
        values = [object() for _ in dataclasses.fields(cls)]
        made = cls(*values)
        assert [getattr(made, each.name) for each in dataclasses.fields(cls)] == values
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, dataclasses.fields(cls)[0].name, None)


def test_field_setters_set_a_slot_as_object_setattr_does() -> None:
    from promptwire.core.records import field_setters

    @dataclass_record(frozen=True, slots=True)
    class Pair:
        left: int
        right: int

        def __init__(self, left: int, right: int) -> None:
            object.__setattr__(self, "left", left)
            object.__setattr__(self, "right", right)

    pair = Pair(1, 2)
    set_left, set_right = field_setters(Pair)
    set_left(pair, 3)
    set_right(pair, 4)
    assert pair == Pair(3, 4) and hash(pair) == hash(Pair(3, 4))
