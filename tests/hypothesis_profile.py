"""How many examples a property test runs, as a multiple of the run's Hypothesis profile.

tests/conftest.py loads the profile ``HYPOTHESIS_PROFILE`` names: ``dev`` (the default, quick) or
``ci`` (the full count, what CI runs). A test whose examples cost much less or much more than most
asks for ``examples(times)``, so each profile keeps the proportions between tests. A fuzz target
asks for ``fuzz_examples(times)``: the same, unless a volume run sets ``PROMPTWIRE_FUZZ_EXAMPLES``.
"""

from __future__ import annotations

import os

from hypothesis import settings


def examples(times: float) -> int:
    """``times`` the profile's example count (read when the test module is imported, after the
    profile is loaded), at least one."""
    return max(1, round(settings.default.max_examples * times))


def fuzz_examples(times: float = 1) -> int:
    """How many inputs a fuzz target tries: ``PROMPTWIRE_FUZZ_EXAMPLES`` when set (a volume run:
    that many for every target, whatever its ``times``), else ``examples(times)``."""
    volume = int(os.environ.get("PROMPTWIRE_FUZZ_EXAMPLES", "0"))
    return volume or examples(times)
