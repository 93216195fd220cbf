"""Front end: the AgentScript language (``parse``, ``check``) and the ``asrender`` command.

The language is imported on first use, so ``asrender render`` does not pay for the parser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .diagnostics import CheckError, Diagnostic, ParseError
    from .language import check, ensure_valid, parse
    from .runner import RunResult, run

__all__ = ["CheckError", "Diagnostic", "ParseError", "RunResult", "check", "ensure_valid", "parse", "run"]

_HOMES = {
    "check": "language",
    "ensure_valid": "language",
    "parse": "language",
    "CheckError": "diagnostics",
    "Diagnostic": "diagnostics",
    "ParseError": "diagnostics",
    "RunResult": "runner",
    "run": "runner",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f".{home}", __name__), name)
