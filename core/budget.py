"""Budgets as AgentScript writes them: an amount and an optional unit (``2k``, ``500``, ``1.5k``).

The amount and unit are kept as written (traces and sources print them); the two readings are
derived: a context budget counts UTF-16 characters, an output budget counts provider tokens, and in
both only the unit ``k`` multiplies by 1000 (any other unit is silently a plain count, as upstream).
"""

from __future__ import annotations

import math
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["Budget"]

_BUDGET_RE = re.compile(r"^(\d+(?:\.\d+)?)([A-Za-z]+)?$")


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

    @classmethod
    def parse(cls, raw: str) -> Budget:
        """Parse a budget literal such as ``2k``; raises ``ValueError`` naming the bad text."""
        return cls.model_validate(_parse_fields(raw))

    @property
    def multiplier(self) -> int:
        return 1000 if self.unit == "k" else 1

    @property
    def context_limit(self) -> int:
        """UTF-16 characters a context item may take; 0 means "no clipping", as upstream."""
        return math.floor(self.amount * self.multiplier)

    @property
    def output_tokens(self) -> int:
        """Provider token limit; never below 1 (upstream clamps ``0.0001k`` to 1)."""
        return max(1, math.floor(self.amount * self.multiplier))

    def __str__(self) -> str:
        amount = int(self.amount) if self.amount.is_integer() else self.amount
        return f"{amount}{self.unit or ''}"


def _parse_fields(raw: str) -> dict[str, Any]:
    match = _BUDGET_RE.match(raw.strip())
    if match is None:
        raise ValueError(f"invalid budget {raw!r} (expected a number with an optional unit, like 2k or 500)")
    return {"amount": float(match.group(1)), "unit": match.group(2)}
