"""Front end: the AgentScript language (:mod:`.agentscript`: ``parse``, ``check``) and the
``asrender`` application (:mod:`.asrender`: the command, snapshot and inspector). A run of a
program is ``promptwire.runs`` (and ``promptwire.run``), which both use.

The names below are imported on first use, so ``asrender render`` does not pay for the parser.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.exports import lazy_exports

if TYPE_CHECKING:
    from .agentscript import check, ensure_valid, parse
    from .agentscript.diagnostics import CheckError, Diagnostic, ParseError

__all__ = [
    "CheckError",
    "Diagnostic",
    "ParseError",
    "check",
    "ensure_valid",
    "parse",
]

_HOMES = {
    "check": ".agentscript",
    "ensure_valid": ".agentscript",
    "parse": ".agentscript",
    "CheckError": ".agentscript.diagnostics",
    "Diagnostic": ".agentscript.diagnostics",
    "ParseError": ".agentscript.diagnostics",
}


__getattr__ = lazy_exports(__name__, _HOMES)
