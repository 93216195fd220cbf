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
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from .errors import FieldError

__all__ = ["FRAMES_PER_LEVEL", "MAX_DEPTH", "check_nesting", "nesting_room", "recursion_room", "with_nesting_room"]

_Value = TypeVar("_Value")
_Result = TypeVar("_Result")

MAX_DEPTH = 1000
"""The deepest nesting of lists and mappings a prompt value may have (a bare scalar is depth 0)."""

FRAMES_PER_LEVEL = 4
"""Interpreter frames a recursive serialiser may spend per level of nesting (a walk, a helper, a
generator...): :func:`nesting_room` makes room for ``MAX_DEPTH`` levels of that."""


def check_nesting(value: Any, path: Sequence[str | int]) -> None:
    """Raise :class:`FieldError` at ``path`` when ``value`` nests deeper than ``MAX_DEPTH`` or contains itself.

    An explicit stack of iterators, not recursion: the check must not fail the way it guards
    against. A value may hold the same list twice side by side (that is no cycle); only a container
    inside itself is. A container met again no deeper than before is not walked again, so shared
    parts (YAML aliases) cost their size once, not once per reference. Scalars cost one type lookup,
    an empty container one more test: every validation of a prompt checks each of its free values.
    """
    if type(value) in _SCALARS or not _is_container(value) or not value:
        return
    walks: list[Iterator[Any]] = [_children(value)]
    on_path: list[int] = [id(value)]
    open_ids: set[int] = {id(value)}
    checked: dict[int, int] = {}  # container id -> the shallowest depth it was fully checked at
    while walks:
        depth = len(walks)  # the depth of the children the innermost walk yields
        for child in walks[-1]:
            if type(child) in _SCALARS or not _is_container(child):
                continue
            key = id(child)
            if key in checked and checked[key] <= depth:
                continue
            if key in open_ids:
                raise FieldError(path, "the value contains itself (a circular structure cannot be printed)")
            if depth >= MAX_DEPTH:
                raise FieldError(path, f"the value is nested deeper than {MAX_DEPTH} levels")
            walks.append(_children(child))
            on_path.append(key)
            open_ids.add(key)
            break
        else:
            walks.pop()
            key = on_path.pop()
            open_ids.discard(key)
            checked[key] = depth - 1


_SCALARS = frozenset({str, int, float, bool, type(None), bytes})


def _is_container(value: Any) -> bool:
    return isinstance(value, Mapping | list | tuple) and not isinstance(value, str | bytes)


def _children(container: Any) -> Iterator[Any]:
    return iter(container.values() if isinstance(container, Mapping) else container)


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
