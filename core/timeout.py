"""How long a model call may wait for its provider: one default, and one check of a given value.

Its own small module because ``asrender`` reads it when it builds its command line, before anything
heavier (the prompt model, the generate runtime) is needed.
"""

from __future__ import annotations

import math

from .errors import FieldError

__all__ = ["DEFAULT_TIMEOUT", "check_timeout"]

DEFAULT_TIMEOUT = 30.0
"""Seconds an adapter waits for a provider's answer when the caller gave no timeout."""


def check_timeout(timeout: float | None) -> None:
    """A request timeout is a positive number of seconds (None: the adapter's default). Zero, a
    negative number or NaN would mean "wait forever", "fail at once" or whatever the HTTP client
    makes of it, depending on the SDK."""
    if timeout is not None and not 0 < timeout < math.inf:  # NaN fails both comparisons
        raise FieldError("timeout", f"must be a positive number of seconds, not {timeout!r}")
