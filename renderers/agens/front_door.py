"""Agens' own entry points: an Agens message straight to its pairs or strings.

``build`` is ``Agens.Prompt.build/3`` and ``render`` the default ``build_prompt/3``. Each is the
reader (:func:`.reader.to_prompt`) followed by the renderer, so an Agens message renders the same
bytes here and through ``promptwire.render(to_prompt(message), "agens")``: one code path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .message import AgensMessage
from .prefixes import Pair
from .reader import to_prompt
from .renderer import prompt_pairs, render_text

__all__ = ["build", "render"]


def build(
    message: AgensMessage | Mapping[str, Any],
    prefixes: Mapping[str, Sequence[str]] | None = None,
    context: str | None = None,
    order: str = "declared",
) -> tuple[list[Pair], list[Pair]]:
    """``Agens.Prompt.build/3``: the system and user ``((heading, detail), value)`` pairs.

    ``prefixes`` overrides the default ``(heading, detail)`` of the fields it names (keys are the
    ``Agens.Prefixes`` field names). ``order="alphabetical"`` reproduces Agens on OTP <= 25.
    """
    return prompt_pairs(to_prompt(message, context), prefixes, order)


def render(
    message: AgensMessage | Mapping[str, Any],
    prefixes: Mapping[str, Sequence[str]] | None = None,
    context: str | None = None,
    order: str = "declared",
) -> tuple[str, str]:
    """The ``{system, user}`` strings of Agens' default ``build_prompt/3``."""
    system, user, _, _ = render_text(to_prompt(message, context), prefixes, order)
    return system, user
