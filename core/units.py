"""What a budget counts: its units and the largest count, as plain numbers.

Apart from :mod:`.budget` (the pydantic model) so that a front end's static checks can hold a
program's budgets to them without importing the prompt model.
"""

from __future__ import annotations

import sys

__all__ = ["MAX_BUDGET", "UNITS"]

UNITS = {None: 1, "k": 1000}
"""The units a budget may carry, with what each multiplies the amount by."""

MAX_BUDGET = 2**sys.float_info.mant_dig
"""The largest count a budget may come to: every whole number up to it is exact as a float (a
budget's amount is one), so a count is never rounded."""
