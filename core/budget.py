"""Budgets: an amount and an optional unit, kept as written (``2k``, ``500``, ``1.5k``).

The amount and unit are kept as written (traces and sources print them); the two readings are
derived: a context budget bounds the text of a value in the units of the format being rendered, an
output budget counts provider tokens. The only unit is ``k`` (times 1000).

The core model refuses what it does not understand: another unit (``2K``, ``2kb``, ``1.5M``), an
amount that comes to less than one unit (``0.5``: upstream AgentScript reads that as "no limit"),
or one too large to count exactly. The AgentScript front end, which must read every budget the
reference reads, applies the reference's looser rules before it builds a ``Budget``.
"""

import functools
import math
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .units import MAX_BUDGET, UNITS

__all__ = ["MAX_BUDGET", "UNITS", "Budget"]


@functools.cache
def _budget_text() -> re.Pattern[str]:
    """A budget written as text (``"2kb"``, ``"500"``); compiled when first asked for: a program's
    budgets are read by its parser, and a run given none as text never asks."""
    return re.compile(r"^(\d+(?:\.\d+)?)([A-Za-z]+)?$")


class Budget(BaseModel):
    """``amount`` + ``unit`` as written; accepts ``"2k"``, ``500`` or ``{"amount": 2, "unit": "k"}``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    amount: float = Field(gt=0, allow_inf_nan=False)
    unit: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _accept_literals(cls, data: Any) -> Any:
        if isinstance(data, bool):
            raise ValueError("a budget is a number with an optional unit, like 2k or 500")
        if isinstance(data, int | float):
            return {"amount": data}
        if isinstance(data, str):
            return _parse_fields(data)
        return data

    @model_validator(mode="after")
    def _countable(self) -> "Budget":
        if self.unit not in UNITS:
            raise ValueError(f"unknown budget unit {self.unit!r} (the only unit is 'k', for thousands)")
        count = self.amount * UNITS[self.unit]
        if count < 1:
            raise ValueError(f"a budget of {self} comes to less than one unit")
        if count > MAX_BUDGET:
            raise ValueError(f"a budget of {self} is too large (at most {MAX_BUDGET})")
        return self

    @classmethod
    def parse(cls, raw: str) -> "Budget":
        """Parse a budget literal such as ``2k``; raises ``ValueError`` naming the bad text."""
        return cls.model_validate(_parse_fields(raw))

    @property
    def multiplier(self) -> int:
        return UNITS[self.unit]

    @property
    def context_limit(self) -> int:
        """How much of a value's text a context item may show, in the rendering format's units."""
        return math.floor(self.amount * self.multiplier)

    @property
    def output_tokens(self) -> int:
        """Provider token limit."""
        return math.floor(self.amount * self.multiplier)

    def __str__(self) -> str:
        amount = int(self.amount) if self.amount.is_integer() else self.amount
        return f"{amount}{self.unit or ''}"


def _parse_fields(raw: str) -> dict[str, Any]:
    match = _budget_text().match(raw.strip())
    if match is None:
        raise ValueError(f"invalid budget {raw!r} (expected a number with an optional unit, like 2k or 500)")
    return {"amount": float(match.group(1)), "unit": match.group(2)}
