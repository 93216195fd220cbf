"""How deep a prompt's values may nest, and room for the serialisers that walk them.

Values in a prompt are user data (a context value, an instruction, a section's body). Every format
prints them with a walk over the nesting, so a value nested deeper than anything a model can use
(or a value that contains itself) must fail the same clear way in every format, at validation, with
the field named, instead of as a ``RecursionError`` somewhere in a serialiser.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from .errors import FieldError

__all__ = ["FRAMES_PER_LEVEL", "MAX_DEPTH", "check_nesting", "nesting_room"]

MAX_DEPTH = 1000
"""The deepest nesting of lists and mappings a prompt value may have (a bare scalar is depth 0)."""

FRAMES_PER_LEVEL = 4
"""Interpreter frames a recursive serialiser may spend per level of nesting (a walk, a helper, a
generator...): :func:`nesting_room` makes room for ``MAX_DEPTH`` levels of that."""


def check_nesting(value: Any, path: Sequence[str | int]) -> None:
    """Raise :class:`FieldError` at ``path`` when ``value`` nests deeper than ``MAX_DEPTH`` or contains itself.

    An explicit stack, not recursion: the check must not fail the way it guards against. A value
    may hold the same list twice side by side (that is no cycle); only a container inside itself is.
    A container met again no deeper than before is not walked again, so shared parts (YAML aliases)
    cost their size once, not once per reference.
    """
    stack: list[tuple[Any, int, bool]] = [(value, 0, False)]
    open_ids: set[int] = set()  # the containers on the current path from the root
    checked: dict[int, int] = {}  # container id -> the shallowest depth it was checked at
    while stack:
        item, depth, leaving = stack.pop()
        if leaving:
            open_ids.discard(id(item))
            checked[id(item)] = min(depth, checked.get(id(item), depth))
            continue
        if isinstance(item, str | bytes) or not isinstance(item, Mapping | list | tuple):
            continue
        if depth >= checked.get(id(item), MAX_DEPTH + 1):
            continue
        if id(item) in open_ids:
            raise FieldError(path, "the value contains itself (a circular structure cannot be printed)")
        if depth >= MAX_DEPTH:
            raise FieldError(path, f"the value is nested deeper than {MAX_DEPTH} levels")
        open_ids.add(id(item))
        stack.append((item, depth, True))
        children = item.values() if isinstance(item, Mapping) else item
        stack.extend((child, depth + 1, False) for child in children)


@contextmanager
def nesting_room() -> Iterator[None]:
    """Let recursive serialisers walk a value of ``MAX_DEPTH`` levels from wherever they are called."""
    current = sys.getrecursionlimit()
    wanted = _stack_depth() + MAX_DEPTH * FRAMES_PER_LEVEL + 100
    if wanted <= current:
        yield
        return
    sys.setrecursionlimit(wanted)
    try:
        yield
    finally:
        sys.setrecursionlimit(current)


def _stack_depth() -> int:
    depth = 0
    frame: Any = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    return depth
