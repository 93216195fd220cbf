"""The ``source:`` text of an expression, exactly as the reference prints it in a prompt and a trace.

Each context item of a prompt names the expression it came from (``source: input.question``), and
the ``use`` trace event carries the same text, so the spelling must match the reference byte for byte:
strings as JSON string literals, numbers as their raw token (``2.50``, ``2k``), single spaces around
operators and no parentheses (the grammar has none, so precedence alone rebuilt the tree), objects as
``{ k: v }`` with keys unquoted, and a ``generate`` as its options only (the ``-> shape`` is dropped).
"""

from __future__ import annotations

from ...renderers.agentscript.jsjson import quote
from .syntax import (
    Binary,
    Boolean,
    Call,
    Expr,
    Generate,
    Identifier,
    Index,
    ListExpr,
    Member,
    NoneLiteral,
    Not,
    Number,
    ObjectExpr,
    Property,
    String,
)

__all__ = ["expression_source"]


def expression_source(expr: Expr) -> str:
    """The reference's ``formatExpressionSource`` for ``expr``."""
    if isinstance(expr, Identifier):
        return expr.name
    if isinstance(expr, Member):
        return f"{expression_source(expr.object)}.{expr.property}"
    if isinstance(expr, String):
        return quote(expr.value)
    if isinstance(expr, Number):
        return expr.raw
    if isinstance(expr, Boolean):
        return "true" if expr.value else "false"
    if isinstance(expr, NoneLiteral):
        return "none"
    if isinstance(expr, Index):
        return f"{expression_source(expr.object)}[{expression_source(expr.index)}]"
    if isinstance(expr, Binary):
        return f"{expression_source(expr.left)} {expr.operator} {expression_source(expr.right)}"
    if isinstance(expr, Not):
        return f"not {expression_source(expr.operand)}"
    if isinstance(expr, ListExpr):
        return f"[{', '.join(expression_source(item) for item in expr.items)}]"
    if isinstance(expr, ObjectExpr):
        return f"{{ {_properties(expr.properties)} }}"
    if isinstance(expr, Call):
        return f"{expression_source(expr.callee)}({', '.join(expression_source(arg) for arg in expr.args)})"
    if isinstance(expr, Generate):
        return f"generate({{ {_properties(expr.options.properties)} }})"
    raise TypeError(f"not an expression: {type(expr).__name__}")


def _properties(properties: tuple[Property, ...]) -> str:
    return ", ".join(f"{prop.key}: {expression_source(prop.value)}" for prop in properties)
