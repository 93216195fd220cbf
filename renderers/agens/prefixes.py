"""Agens' section headings and their order: ``Agens.Prefixes.default/0`` and ``Prompt.build/3``'s key lists.

Constants only, shared by the renderer (which prints them) and the options check (which lets a
caller replace them). Copied byte for byte from Agens 0.2.0.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

__all__ = [
    "DEFAULT_PREFIXES",
    "GENERIC_RETRY",
    "ORDERS",
    "SYSTEM_FIELDS",
    "USER_FIELDS",
    "Order",
    "Pair",
    "PairValue",
    "Prefix",
]

Prefix = tuple[str, str]
"""``(heading, detail)``: a section prints as ``## heading\\ndetail:\\n\\nbody\\n``."""

PairValue = str | list[Any] | dict[Any, Any]
Pair = tuple[Prefix, PairValue]
Order = Literal["declared", "alphabetical"]

GENERIC_RETRY = "The previous response did not pass validation. Please review and try again."
"""The Retry text Agens shows when the retry has no reason (``nil`` or ``""``)."""

_TOOL_DEFS_DETAIL = (
    "You have access to the following MCP tools. If you need to call one or more tools to complete the "
    "task, populate the `tool_calls` field in your structured response. If tool results have already been "
    "provided, use them to generate your response in `body` and `outputs` instead of making additional "
    "tool calls. The available tools are:\n"
)

DEFAULT_PREFIXES: Mapping[str, Prefix] = MappingProxyType(
    {
        "context": ("Context", "The following is critical context relevant to this task"),
        "objective": ("Node Objective", "The objective of this node is to"),
        "description": ("Job Description", "This is part of a multi-node job to achieve the following"),
        "input": ("Input", "The following is the original input from the user"),
        "previous_result": ("Previous Result", "The following is the result from the previous node in this job"),
        "schema": ("Schema", "It is critical to only return a JSON object matching the exact specification below"),
        "retry": (
            "Retry",
            "The response did not pass validation. Please try again and fix the following validation errors",
        ),
        # Ends in "\n" (an Elixir heredoc line continuation): the section header then shows a line
        # holding only ":". Upstream prints exactly that, so we do too.
        "tool_defs": ("Tool Definitions", _TOOL_DEFS_DETAIL),
        "tool_calls": ("Tool Calls", "The following MCP tool calls were made by this node"),
        "tool_results": (
            "Tool Results",
            "The following are the results of MCP tool calls for this node. Use these results to "
            "formulate your response in `body` and `outputs`",
        ),
        "resources": ("Resources", "The following resources are provided as context for this node"),
    }
)
"""``Agens.Prefixes.default/0``, verbatim. ``schema`` exists upstream but no section ever uses it."""

SYSTEM_FIELDS: tuple[str, ...] = ("description", "objective", "context", "tool_defs", "resources")
USER_FIELDS: tuple[str, ...] = ("input", "previous_result", "tool_calls", "tool_results", "retry")
"""The declared (documented) order. Upstream's real order is the Elixir map's: alphabetical on
OTP <= 25, unspecified on OTP >= 26 (OTP-18414), hence the ``order`` option."""

ORDERS: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = MappingProxyType(
    {
        "declared": (SYSTEM_FIELDS, USER_FIELDS),
        "alphabetical": (tuple(sorted(SYSTEM_FIELDS)), tuple(sorted(USER_FIELDS))),
    }
)
"""The system and user section order of each ``order`` option."""
