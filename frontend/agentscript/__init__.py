"""The AgentScript language: parse, check and print programs.

These are the functions the rest of promptwire (the interpreter, ``asrender``) calls; the modules
behind them each do one job: :mod:`.lexer`, :mod:`.parser`, :mod:`.analyzer`, :mod:`.unparse`,
:mod:`.syntax_json`, the run in :mod:`.interpreter` (its trace in :mod:`.trace`). Importing this
package (or one of its light modules, such as :mod:`.diagnostics` for its error classes) imports
none of them: each function imports what it needs when first called, so a ``check`` costs no heavy
import and a prompt-file render none of the language.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ...core.exports import lazy_exports

if TYPE_CHECKING:
    from .diagnostics import Diagnostic
    from .syntax import Program
    from .syntax_json import to_json
    from .unparse import expression_source

__all__ = ["check", "ensure_valid", "expression_source", "parse", "to_json"]

__getattr__ = lazy_exports(__name__, {"expression_source": ".unparse", "to_json": ".syntax_json"})


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a tree is built.

    A parse allocates hundreds of thousands of small tuples and nodes, none of them in a cycle; the
    collector's passes over that growing heap made parsing superlinear (2 MB took 3x as long per MB
    as 250 kB). Freed objects are still freed at once by reference counting.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_count()[0] > _BIG_PAUSE and gc.get_freeze_count() == 0:
                _to_oldest_generation()
            gc.enable()


_BIG_PAUSE = 100_000
"""Objects allocated during a pause past which the tree skips the young generations. Everything
allocated while paused sits in the youngest one, and the first young collection after it walks all
of it: for a 2 MB program (700,000 nodes, spans and positions) that walk was a third of parse +
check (issue 28). A long-lived tree belongs in the oldest generation, which is walked only by full
collections, so it is put there at once. Small programs are left to the collector: their walk is
cheap, and the move also ages whatever young objects the rest of the process has."""


def _to_oldest_generation() -> None:
    """Move every object the collector tracks into the oldest generation, walking none of them:
    ``freeze`` moves them all aside and ``unfreeze`` puts them back as the oldest. Only called when
    nothing else is frozen (a server may freeze its objects before forking: they stay frozen)."""
    gc.freeze()
    gc.unfreeze()


def parse(source: str, path: str | None = None, *, label_rule: str = "release") -> Program:
    """Parse an AgentScript 0.1.5 program.

    ``label_rule`` picks how ``use ... as`` labels end: ``"release"`` (the default: the rest of the
    line) or ``"late"`` (one name or string, then a line break). ``path`` only names the file in
    errors. Raises :class:`~.diagnostics.ParseError` (a ``SourceError``) at the first syntax error.
    """
    from .parser import parse_program

    with _collector_paused():
        return parse_program(source, path, label_rule=label_rule)


def check(
    program_or_source: Program | str, path: str | None = None, *, label_rule: str = "release"
) -> list[Diagnostic]:
    """Every static diagnostic of a program, in the reference's order; empty when it is valid.

    A source text is parsed first (a syntax error raises :class:`~.diagnostics.ParseError`, since
    nothing can be checked then). This is one file, as the reference's ``analyze`` sees it: its
    ``import agent`` files are not read. To check a program as it runs, check
    :func:`.loader.load_program`'s result, as ``asrender check`` does.
    """
    from .analyzer import analyze

    if isinstance(program_or_source, str):
        program_or_source = parse(program_or_source, path, label_rule=label_rule)
    with _collector_paused():
        return analyze(program_or_source)


def ensure_valid(program: Program) -> Program:
    """Return ``program`` if it passes the checks, else raise :class:`CheckError` with every finding."""
    from .analyzer import analyze
    from .diagnostics import CheckError

    diagnostics = analyze(program)
    if diagnostics:
        raise CheckError(diagnostics, program.source or None, program.path)
    return program
