"""``asrender lsp``: the server on standard input and output, if its extra is installed."""

from __future__ import annotations

from ...core.errors import PromptwireError

__all__ = ["run"]

MISSING = "asrender lsp needs pygls and lsprotocol: pip install 'promptwire[lsp]'"


def run() -> int:
    """Serve one editor until it exits; a missing extra is one line saying what to install."""
    try:
        from .server import serve_stdio
    except ImportError as exc:
        if exc.name not in ("pygls", "lsprotocol") and not str(exc.name).startswith(("pygls.", "lsprotocol.")):
            raise
        raise PromptwireError(MISSING) from None
    return serve_stdio()
