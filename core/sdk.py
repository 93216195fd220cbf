"""An adapter's SDK, an optional extra: told by name when it is not installed.

The README's plain install (``pip install promptwire``) has no provider SDK: each is an extra
(``promptwire[openai]``...). An adapter names the module it sends with (``sdk``) and the extra that
installs it (``extra``); a call made without it is a :class:`SdkMissing` saying what to install,
raised before anything is sent (``ProviderAdapter._where`` in :mod:`promptwire.adapters.base`),
never a bare ``ModuleNotFoundError``. ``asrender`` checks the provider it is given before the run
starts (exit 2), and ``asrender plugins`` marks the adapters that cannot send. Building a request
needs no SDK: a dry run works without it. (In core, as :mod:`.telemetry`'s ``TelemetryUnavailable``
is: the front end asks it as the adapters do, and may not import the adapters' package.)
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

from .errors import PromptwireError

__all__ = ["SdkMissing", "missing_sdk", "require_sdk"]


class SdkMissing(PromptwireError):
    """A provider's SDK is not installed; the message says which extra installs it."""


def missing_sdk(adapter: Any) -> str | None:
    """Why ``adapter`` cannot send (its SDK is not installed, and what to install), or None."""
    module = getattr(adapter, "sdk", None)
    if not module or sys.modules.get(module) is not None:  # imported: installed (asked before every send)
        return None
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        found = None
    if found is not None:
        return None
    extra = getattr(adapter, "extra", None) or module
    name = getattr(adapter, "name", module)
    return f"the {name} adapter needs the {module} SDK, which is not installed: pip install 'promptwire[{extra}]'"


def require_sdk(adapter: Any) -> None:
    """Raise :class:`SdkMissing` when ``adapter``'s SDK is not installed."""
    problem = missing_sdk(adapter)
    if problem is not None:
        raise SdkMissing(problem)
