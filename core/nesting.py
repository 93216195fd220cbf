"""How deep a prompt's values may nest, and room for the serialisers that walk them.

Values in a prompt are user data (a context value, an instruction, a section's body). Every format
prints them with a walk over the nesting, so a value nested deeper than anything a model can use
(or a value that contains itself) must fail the same clear way in every format, at validation, with
the field named, instead of as a ``RecursionError`` somewhere in a serialiser.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from .errors import FieldError

__all__ = [
    "FRAMES_PER_LEVEL",
    "LONG_TEXT",
    "MAX_DEPTH",
    "MAX_REPEATED_CHARS",
    "MAX_REPEATED_VALUES",
    "REPEATED_VALUES_REFUSED",
    "EmptyMappings",
    "check_nesting",
    "check_values",
    "nesting_room",
    "recursion_room",
    "with_nesting_room",
]

_Value = TypeVar("_Value")
_Result = TypeVar("_Result")

MAX_DEPTH = 1000
"""The deepest nesting of lists and mappings a prompt value may have (a bare scalar is depth 0)."""

FRAMES_PER_LEVEL = 4
"""Interpreter frames a recursive serialiser may spend per level of nesting (a walk, a helper, a
generator...): :func:`nesting_room` makes room for ``MAX_DEPTH`` levels of that."""


MAX_REPEATED_VALUES = 1_000_000
"""How many values the repeats of a prompt may stand for in all: a list or mapping that appears in
several places (the same object, as YAML aliases build) is printed in full at each, so each
appearance after the first counts every value in it, keys included."""

REPEATED_VALUES_REFUSED = (
    f"parts used in several places print as more than {MAX_REPEATED_VALUES:,} values in all "
    "(each place prints the whole part): write the data out, or send less of it"
)
"""Why a value whose repeats pass :data:`MAX_REPEATED_VALUES` is refused, wherever it is."""

MAX_REPEATED_CHARS = 16 * 2**20
"""How many characters the repeats of a prompt may stand for in all: text in a repeated part, and a
text of :data:`LONG_TEXT` characters or more that appears in several places (the same object)."""

LONG_TEXT = 1024
"""Texts this long are followed by identity; a shorter text repeated costs no more than the slot
that holds it (1024 times at most), which the values count already."""


def check_nesting(value: Any, path: Sequence[str | int]) -> None:
    """:func:`check_values` for one value."""
    check_values(((path, value),))


def check_values(values: Iterable[tuple[Sequence[str | int], Any]]) -> None:
    """Raise :class:`FieldError` at a value's path when it nests deeper than ``MAX_DEPTH`` or
    contains itself, or when the parts repeated across all of ``values`` (one prompt's free values)
    print as more than ``MAX_REPEATED_VALUES`` values or ``MAX_REPEATED_CHARS`` characters.

    Every format prints a value written once as often as it appears: ``a = [x, x]; b = [a, a]``
    forty times over is 2**40 values printed from 41 lists, and no render would end. So each
    container is walked once, its height and size as printed remembered, and every later
    appearance (in this value or another of the prompt) adds its size to what repeats stand for and
    is checked for depth from where it appears, without a second walk: the check is linear in the
    data as written, and so, within the budget, is every render.

    An explicit stack of iterators, not recursion: the check must not fail the way it guards
    against. A scalar costs one type test, a text one length more.
    """
    walk = _Walk()
    for path, value in values:
        if value.__class__ is EmptyMappings:
            walk.empty_mappings(value, path)
        else:
            walk.value(value, path)


class EmptyMappings(list[dict[Any, Any]]):
    """Empty dicts, each a value of its own at its path plus its index in this list, given to
    :func:`check_values` as one: the schemas of a prompt's tools that have only a name and a
    description (50,000 of them in a big prompt). An empty mapping nests no deeper than one level
    and holds nothing, so all it can do is repeat, and a check that none repeats is done in C,
    not as a value each."""


_EMPTY_CONTAINER = (1, 1, 0)
"""What the walk remembers of an empty container: one level, one value, no characters."""


class _Walk:
    """What a check over one prompt's values remembers: each container's height (its levels,
    itself included), values and characters as printed, and what repeats stand for so far.

    Containers and long texts are told by ``id``, which is unique only among live objects: a value
    the caller made for the check (a tuple of a tool's fields) is freed once the next is read, and
    a new one may get its id and pass for a repeat, unwalked. So the walk keeps each value it is
    given (``kept``), and each child it did not get from a dict, list or tuple (a mapping of
    another kind may make its values when asked); a child of those is kept by its parent."""

    __slots__ = ("done", "kept", "repeated_chars", "repeated_values", "texts")

    def __init__(self) -> None:
        self.done: dict[int, tuple[int, int, int]] = {}
        self.texts: set[int] = set()
        self.kept: list[Any] = []
        self.repeated_values = 0
        self.repeated_chars = 0

    def value(self, value: Any, path: Sequence[str | int]) -> None:
        kind = type(value)
        if kind is str:
            if len(value) >= LONG_TEXT:
                self.kept.append(value)
                self.text(value, path)
            return
        if kind in _SCALARS or (kind not in _CONTAINERS and not _is_container(value)):
            return
        known = self.done.get(id(value))
        if known is not None:
            self.repeat(known[1], known[2], path)
            return
        self.kept.append(value)
        if not value and kind in _CONTAINERS:  # one value, nothing inside: no walk to set up
            self.done[id(value)] = _EMPTY_CONTAINER
        elif kind is not dict or not self.flat(value):
            self.walk(value, path)

    def empty_mappings(self, mappings: EmptyMappings, path: Sequence[str | int]) -> None:
        """Record each of ``mappings`` as :meth:`value` records an empty dict; when one repeats
        (twice among them, or seen in a value before), each is taken in turn as :meth:`value`
        takes it, at its own path, so the repeat is counted there."""
        entries = dict.fromkeys(map(id, mappings), _EMPTY_CONTAINER)
        if len(entries) == len(mappings) and self.done.keys().isdisjoint(entries):
            self.done.update(entries)
            self.kept += mappings
            return
        for index, mapping in enumerate(mappings):
            self.value(mapping, (*path, index))

    def flat(self, mapping: dict[Any, Any]) -> bool:
        """Record a dict of scalars and short texts (a tool call's arguments, one per turn of a
        conversation), or of those and lists and dicts of them (a context value of a few fields and
        a list of names), as its walk would, in one pass with no walk set up; ``False`` for any
        other, with nothing recorded. A child seen before (in this dict or an earlier value) is a
        repeat, which the walk counts."""
        chars = 0
        values = 1 + 2 * len(mapping)
        inner: dict[int, tuple[int, int, int]] = {}
        for item in mapping.values():
            kind = type(item)
            if kind is str:
                if len(item) >= LONG_TEXT:
                    return False
                chars += len(item)
            elif kind not in _SCALARS:
                if kind not in _CONTAINERS or id(item) in self.done or id(item) in inner:
                    return False
                size = _flat_size(item)
                if size is None:
                    return False
                inner[id(item)] = (1, *size)
                values += size[0] - 1  # the child itself is counted among the mapping's values
                chars += size[1]
        if inner:
            self.done.update(inner)
        try:  # _own_size's characters of a dict's keys, without its call (for each call of a history)
            chars += sum(map(len, mapping))
        except TypeError:  # a key that is not text (a number): its text is short
            chars += _own_size(mapping)[1]
        self.done[id(mapping)] = (2 if inner else 1, values, chars)
        return True

    def text(self, text: str, path: Sequence[str | int]) -> None:
        if id(text) in self.texts:
            self.repeat(1, len(text), path)
        else:
            self.texts.add(id(text))

    def repeat(self, values: int, chars: int, path: Sequence[str | int]) -> None:
        self.repeated_values += values
        self.repeated_chars += chars
        if self.repeated_values > MAX_REPEATED_VALUES:
            raise FieldError(path, REPEATED_VALUES_REFUSED)
        if self.repeated_chars > MAX_REPEATED_CHARS:
            raise FieldError(
                path,
                f"parts used in several places print as more than {MAX_REPEATED_CHARS:,} characters in all "
                "(each place prints the whole part): write the data out, or send less of it",
            )

    def walk(self, value: Any, path: Sequence[str | int]) -> None:
        done = self.done
        # The innermost open container's children, id, height, values and characters are locals;
        # the enclosing ones wait on the stack. A container counts itself and each child (a
        # mapping each key too) when it is opened; a child container adds the rest when it closes.
        items, key, height, (values, chars) = self.children(value), id(value), 1, _own_size(value)
        stack: list[tuple[Iterator[Any], int, int, int, int]] = []
        open_ids = {key}
        while True:
            for child in items:
                kind = type(child)
                if kind is str:
                    length = len(child)
                    chars += length
                    if length >= LONG_TEXT:
                        self.text(child, path)
                    continue
                if kind in _SCALARS or (kind not in _CONTAINERS and not _is_container(child)):
                    continue
                child_key = id(child)
                level = len(stack) + 2  # the level the child is at
                known = done.get(child_key)
                if known is not None:
                    child_height, child_values, child_chars = known
                    if level + child_height - 1 > MAX_DEPTH:
                        raise FieldError(path, f"the value is nested deeper than {MAX_DEPTH} levels")
                    if child_height >= height:
                        height = child_height + 1
                    values += child_values - 1
                    chars += child_chars
                    self.repeat(child_values, child_chars, path)
                    continue
                if child_key in open_ids:
                    raise FieldError(path, "the value contains itself (a circular structure cannot be printed)")
                if level > MAX_DEPTH:
                    raise FieldError(path, f"the value is nested deeper than {MAX_DEPTH} levels")
                stack.append((items, key, height, values, chars))
                key = child_key
                open_ids.add(key)
                height = 1
                if kind is dict:  # the usual mapping, told without the checks of _own_size
                    items = iter(child.values())
                    values = 1 + 2 * len(child)
                    try:
                        chars = sum(map(len, child))
                    except TypeError:
                        chars = _own_size(child)[1]
                elif kind is list or kind is tuple:  # and the usual sequence, which holds its children
                    items = iter(child)
                    values, chars = 1 + len(child), 0
                else:
                    items = self.children(child)
                    values, chars = _own_size(child)
                break
            else:
                done[key] = (height, values, chars)
                open_ids.discard(key)
                if not stack:
                    return
                child_height, child_values, child_chars = height, values, chars
                items, key, height, values, chars = stack.pop()
                if child_height >= height:
                    height = child_height + 1
                values += child_values - 1
                chars += child_chars

    def children(self, container: Any) -> Iterator[Any]:
        """The children of ``container``, kept alive for the check unless the container holds them."""
        if type(container) in _CONTAINERS:
            return iter(container.values() if type(container) is dict else container)
        children = list(container.values() if isinstance(container, Mapping) else container)
        self.kept.extend(children)
        return iter(children)


_SCALARS = frozenset({str, int, float, bool, type(None), bytes})

_CONTAINERS = frozenset({dict, list, tuple})
"""The usual containers, told by their exact type: :func:`_is_container`'s ``Mapping`` test goes
through the ABC machinery (about 0.3 us, for each container of a 100,000-row value)."""


def _is_container(value: Any) -> bool:
    return isinstance(value, Mapping | list | tuple) and not isinstance(value, str | bytes)


def _flat_size(container: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> tuple[int, int] | None:
    """The values and characters a dict, list or tuple of scalars and short texts prints as (its walk's
    count: itself, each child, each key and the key texts), or None when it holds anything else."""
    if type(container) is dict:
        items: Iterable[Any] = container.values()
        values = 1 + 2 * len(container)
        try:
            chars = sum(map(len, container))
        except TypeError:  # a key that is not text: the walk counts it
            return None
    else:
        items, values, chars = container, 1 + len(container), 0
    for item in items:
        kind = type(item)
        if kind is str:
            if len(item) >= LONG_TEXT:
                return None
            chars += len(item)
        elif kind not in _SCALARS:
            return None
    return values, chars


def _own_size(container: Any) -> tuple[int, int]:
    """What a container prints before its children's own sizes: itself and one value per child,
    and for a mapping one value per key and the characters of its text keys."""
    kind = type(container)
    if kind is list or kind is tuple or (kind is not dict and not isinstance(container, Mapping)):
        return 1 + len(container), 0
    try:
        chars = sum(map(len, container))
    except TypeError:  # a key that is not text (a number): its text is short
        chars = sum(len(key) for key in container if type(key) is str)
    return 1 + 2 * len(container), chars


def nesting_room() -> RecursionRoom:
    """Let recursive serialisers walk a value of ``MAX_DEPTH`` levels from wherever they are called."""
    return RecursionRoom(MAX_DEPTH * FRAMES_PER_LEVEL + 100)


def with_nesting_room(walk: Callable[[_Value], _Result], value: _Value) -> _Result:
    """``walk(value)``, given :func:`nesting_room` only when the stack runs out without it.

    For a walk that is pure and called on every render: most values are shallow, and making room
    up front costs a walk up the stack and two changes of the limit each time."""
    try:
        return walk(value)
    except RecursionError:
        with nesting_room():
            return walk(value)


def recursion_room(frames: int) -> RecursionRoom:
    """Make room for ``frames`` more interpreter frames above the current stack. The recursion
    limit is only ever raised, and restored on exit."""
    return RecursionRoom(frames)


class RecursionRoom:
    """The context manager of :func:`recursion_room`: a class rather than a generator, because
    a generator-based manager costs three times as much.

    The limit is one for the whole process, and threads share it: while rooms are open it is as
    high as the highest of them asked, and when one closes it goes down to what the others still
    need (what it was before any room, when none is left). So a room that closes gives back only
    its own room, never another thread's, and rooms closed in any order never leave it raised."""

    __slots__ = ("_frames", "_wanted")

    def __init__(self, frames: int) -> None:
        self._frames = frames
        self._wanted = 0

    def __enter__(self) -> None:
        global _limit_outside_rooms
        self._wanted = _stack_depth() + self._frames
        with _ROOMS:
            current = sys.getrecursionlimit()
            if not _open_rooms:
                _limit_outside_rooms = current
            _open_rooms.append(self._wanted)
            if self._wanted > current:
                sys.setrecursionlimit(self._wanted)

    def __exit__(self, *exc_info: object) -> None:
        with _ROOMS:
            _open_rooms.remove(self._wanted)
            limit = max([_limit_outside_rooms, *_open_rooms])
            if limit < sys.getrecursionlimit():
                with contextlib.suppress(RecursionError):  # this thread is deeper already: keep it
                    sys.setrecursionlimit(limit)


_ROOMS = threading.Lock()
_open_rooms: list[int] = []
"""The limit each open room asked for."""
_limit_outside_rooms = 0


def _stack_depth() -> int:
    depth = 0
    frame: Any = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth
