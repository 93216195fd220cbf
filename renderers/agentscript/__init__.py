"""The ``agentscript`` format and the rules of AgentScript's values it prints by.

AgentScript is JavaScript underneath: values print as ``JSON.stringify`` prints them
(:mod:`.jsjson`), budgets count UTF-16 code units and clip JSON text (:mod:`.clipping`), and output
shapes are AgentScript's own type names (:mod:`.shape`). These rules are AgentScript's alone, so
they live here and not in the format-neutral core; the ``.as`` front end reads them from here too.
"""

from .renderer import (
    AgentScriptRenderer,
    context_clips,
    instruction_value,
    renderer,
    repair_message,
    system_text,
    user_text,
)
from .shape import SHAPE_TYPES, shape_contract, shape_type_schema

__all__ = [
    "SHAPE_TYPES",
    "AgentScriptRenderer",
    "context_clips",
    "instruction_value",
    "renderer",
    "repair_message",
    "shape_contract",
    "shape_type_schema",
    "system_text",
    "user_text",
]
