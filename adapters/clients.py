"""The SDK clients an adapter keeps: one per setting, closed when the adapter goes or the program ends.

Building a client costs about 20 ms (TLS context, connection pool), so an adapter keeps one per key,
base URL and timeout. Each is closed when its adapter is collected, and at exit before Python tears
its modules down: an SDK client still open then fails in its ``__del__`` and prints "Exception
ignored" (the SDKs' own resource objects used to keep it in a reference cycle, collected earlier;
posting a body we wrote creates none).
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any

__all__ = ["kept_clients"]


def kept_clients(owner: object) -> dict[Any, Any]:
    """An empty cache of SDK clients whose clients are closed when ``owner`` is collected or the
    program exits, whichever comes first."""
    clients: dict[Any, Any] = {}
    weakref.finalize(owner, _close_all, clients)
    return clients


def _close_all(clients: dict[Any, Any]) -> None:
    for client in clients.values():
        with contextlib.suppress(Exception):  # closing is tidying up; nothing to report
            client.close()
    clients.clear()
