"""``asrender lsp``: the server, with every feature registered, on standard input and output, if
its extra is installed. The server's state (:mod:`.server`) and its handlers (:mod:`.features`)
are put together here, so neither imports the other's module back."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from ...core.errors import PromptwireError

if TYPE_CHECKING:
    from .server import AgentScriptServer

__all__ = ["make_server", "run", "serve_stdio"]

MISSING = (
    "asrender lsp needs pygls and lsprotocol: pip install 'promptwire[lsp]' (in a checkout: pip install -e '.[lsp]')"
)


def run() -> int:
    """Serve one editor until it exits; a missing extra is one line saying what to install, and
    standard streams that are not byte streams (``asrender`` called in-process with text buffers)
    one line saying the server needs them."""
    import sys

    if not all(hasattr(stream, "buffer") for stream in (sys.stdin, sys.stdout)):
        raise PromptwireError(
            "asrender lsp talks to an editor over standard input and output, which are not byte streams here"
        )
    try:
        import lsprotocol  # noqa: F401 - the extra, asked for before anything is served
        import pygls  # noqa: F401
    except ImportError as exc:
        if exc.name not in ("pygls", "lsprotocol") and not str(exc.name).startswith(("pygls.", "lsprotocol.")):
            raise
        raise PromptwireError(MISSING) from None
    return serve_stdio()


def make_server() -> AgentScriptServer:
    """A server with every feature registered (pygls lists them in the server's capabilities)."""
    from . import features
    from .server import AgentScriptServer

    server = AgentScriptServer()
    features.register(server)
    return server


def serve_stdio() -> int:
    """``asrender lsp``: serve one client over standard input and output until it exits."""
    from .evaluation import kill_all

    server = make_server()
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.start_io()
    finally:
        kill_all()  # the client went away without a shutdown, or the server was interrupted
    return 0
