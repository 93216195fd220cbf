"""Which output format a prompt gets: Agently's ``PromptModel.set_output_format`` validator.

One function serves both the fast reader and the mirrored pydantic model, so the two cannot drift.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .declaration import resolve_auto_format
from .errors import notice

__all__ = ["DICT_ONLY_FORMATS", "KNOWN_FORMATS", "settle_output_format"]

DICT_ONLY_FORMATS = ("flat_markdown", "hybrid", "xml_field", "yaml_literal")

KNOWN_FORMATS = frozenset({"json", "markdown", "text", "auto", *DICT_ONLY_FORMATS})
"""The output formats Agently 4.1.4.10 knows; it shows no output requirement for any other name."""


def settle_output_format(output: Any, output_format: Any, *, warn_fallback: bool = True) -> tuple[Any, Any, bool]:
    """Return ``(output, output_format, resolved_from_auto)`` after Agently's defaults and fallbacks."""
    from_auto = False
    if output_format is None:
        if isinstance(output, Mapping) or (not isinstance(output, str) and isinstance(output, Sequence)):
            output_format = "json"
        elif isinstance(output, type):
            if output == str:  # noqa: E721 - Agently compares with ==
                output = None
                output_format = "markdown"
            else:
                output = {"value": (output,), "reply": (str, "Reply according the result value")}
                output_format = "json"
        else:
            output_format = "markdown"
    if output_format == "auto":
        from_auto = True
        output_format = resolve_auto_format(output)
    if output_format in DICT_ONLY_FORMATS and not isinstance(output, Mapping):
        if warn_fallback:
            notice(
                f"output_format='{output_format}' requires a dict output schema, "
                f"got {type(output).__name__}. Falling back to json.",
                "output_format",
                stacklevel=4,
            )
        output_format = "json"
    if not isinstance(output_format, str):
        output_format = str(output_format)
    return output, output_format, from_auto
