"""The AgentScript syntax tree: frozen dataclasses, each with the source span it came from.

The tree keeps what later stages need and nothing they must re-derive: a number keeps its raw token
(the ``source:`` line prints it, and budgets parse it), a ``use`` keeps its label as literal text, and
a ``generate`` keeps its options in source order (the checks report duplicates and unknown keys in
that order). :func:`~.syntax_json.to_json` turns a tree into JSON for ``asrender parse``.

Each node is immutable (a changed tree is a new one, made with ``dataclasses.replace``), slotted (a
large program has hundreds of thousands of nodes) and equal only to itself (``eq=False``): trees are
compared through their JSON. Generating ``__eq__`` and ``__hash__`` for the 34 node classes cost a
third of what importing this module costs (22 ms to 14 ms here, ``python -X importtime``), which
every ``asrender`` command but ``plugins`` pays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from .diagnostics import DEFAULT_FILE
from .positions import SourceFile, Span

__all__ = [
    "ANONYMOUS_MAIN_AGENT",
    "ANONYMOUS_MAIN_FUNC",
    "Agent",
    "Assign",
    "Binary",
    "Boolean",
    "Budget",
    "Call",
    "Config",
    "Expr",
    "ExprStmt",
    "ForIn",
    "Function",
    "Generate",
    "GenerateOptions",
    "Identifier",
    "If",
    "Import",
    "Index",
    "ListExpr",
    "ListType",
    "LoopUntil",
    "Member",
    "NamedType",
    "Node",
    "NoneLiteral",
    "Not",
    "Number",
    "ObjectExpr",
    "Param",
    "Program",
    "Property",
    "Repeat",
    "Return",
    "Shape",
    "ShapeField",
    "ShapeType",
    "Stmt",
    "String",
    "Use",
]

ANONYMOUS_MAIN_AGENT = "__main_agent"
ANONYMOUS_MAIN_FUNC = "__main"


@dataclass(frozen=True, slots=True, eq=False)
class Budget:
    """A budget literal such as ``2k``: ``amount`` 2.0, ``unit`` ``"k"`` (any letters are kept)."""

    amount: float
    unit: str | None
    raw: str


# Expressions ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Identifier:
    name: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class String:
    value: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Number:
    """A number literal: ``value`` is JavaScript's ``parseFloat(raw)`` (so ``2k`` is 2.0)."""

    value: float
    raw: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Boolean:
    value: bool
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class NoneLiteral:
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class ListExpr:
    items: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Property:
    """``key: value`` in an object literal or in ``generate`` options; the span starts at the key."""

    key: str
    value: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class ObjectExpr:
    properties: tuple[Property, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Member:
    object: Expr
    property: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Index:
    object: Expr
    index: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Not:
    operand: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Binary:
    """``left op right`` with ``op`` one of ``or and == != <``."""

    operator: str
    left: Expr
    right: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Call:
    callee: Expr
    args: tuple[Expr, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class NamedType:
    """A shape type by name; unknown names parse and are reported by the checks."""

    name: str
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class ListType:
    item: ShapeType
    span: Span


ShapeType: TypeAlias = NamedType | ListType


@dataclass(frozen=True, slots=True, eq=False)
class ShapeField:
    name: str
    type: ShapeType
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Shape:
    fields: tuple[ShapeField, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class GenerateOptions:
    """The options object of ``generate``, in source order.

    ``max_output`` is the budget of the *last* ``max_output`` key (a repeated key is reported, and the
    reference keeps the last one), so callers need not re-parse the raw token.
    """

    properties: tuple[Property, ...]
    max_output: Budget | None
    span: Span

    def get(self, key: str) -> Property | None:
        """The last property named ``key``, as the reference's option fields keep the last one."""
        found = None
        for prop in self.properties:
            if prop.key == key:
                found = prop
        return found


@dataclass(frozen=True, slots=True, eq=False)
class Generate:
    options: GenerateOptions
    shape: Shape | None
    span: Span


Expr: TypeAlias = (
    Identifier
    | String
    | Number
    | Boolean
    | NoneLiteral
    | ListExpr
    | ObjectExpr
    | Member
    | Index
    | Not
    | Binary
    | Call
    | Generate
)

# Statements -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Config:
    """``model X``, ``role "..."`` or ``description "..."``, in an agent or as a statement."""

    key: str
    value: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Use:
    """``use value [max budget] [as label]``; the label is literal text, never evaluated."""

    value: Expr
    budget: Budget | None
    label: str | None
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Return:
    value: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Repeat:
    """``repeat * count { body }``. A count, like ``ForIn.limit`` and ``LoopUntil.limit``, is an
    ``int`` while a double holds it exactly, and beyond that the double JavaScript reads (``jsjson.js_number``)."""

    count: float
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class ForIn:
    item: str
    item_span: Span
    iterable: Expr
    limit: float
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class LoopUntil:
    condition: Expr
    limit: float
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class If:
    condition: Expr
    then_body: tuple[Stmt, ...]
    else_body: tuple[Stmt, ...] | None
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Assign:
    """``target = value``; any expression parses as a target, the checks reject the wrong kinds."""

    target: Expr
    value: Expr
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class ExprStmt:
    expr: Expr
    span: Span


Stmt: TypeAlias = Config | Use | Return | Repeat | ForIn | LoopUntil | If | Assign | ExprStmt

# Declarations -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class Import:
    """``import RESOURCE Name from "uri"`` with RESOURCE one of tool, llm, file, agent, memory.

    ``file`` is the file it was written in when that is not the program's own (an import merged in
    with an imported agent), else ``None``.
    """

    resource: str
    name: str
    uri: str
    span: Span
    file: SourceFile | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, slots=True, eq=False)
class Param:
    name: str
    shape: Shape | None
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Function:
    """A ``func``; an unnamed ``main func`` is called ``__main`` as in the reference."""

    name: str
    is_main: bool
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True, eq=False)
class Agent:
    """An ``agent``; an unnamed ``main agent`` is called ``__main_agent`` as in the reference.

    ``file`` is the file it was written in when that is not the program's own (an ``import agent``),
    else ``None``: the spans inside it, and so its errors and call sites, are in that file.
    """

    name: str
    is_main: bool
    config: tuple[Config, ...]
    functions: tuple[Function, ...]
    span: Span
    file: SourceFile | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, slots=True, eq=False)
class Program:
    """A whole ``.as`` file, and once loaded (:mod:`.loader`) the agents it imports from other files.
    ``source`` and ``path`` (the file's) travel along so errors can show the line."""

    imports: tuple[Import, ...]
    agents: tuple[Agent, ...]
    span: Span
    source: str = field(default="", repr=False, compare=False)
    path: str | None = field(default=None, repr=False, compare=False)

    def file_of(self, declaration: Agent | Import | None = None) -> SourceFile:
        """The file ``declaration`` was written in: its own ``file``, else this program's file."""
        if declaration is not None and declaration.file is not None:
            return declaration.file
        return SourceFile(self.path or DEFAULT_FILE, self.source)


Node: TypeAlias = (
    Program
    | Import
    | Agent
    | Function
    | Param
    | Stmt
    | Expr
    | Property
    | GenerateOptions
    | Shape
    | ShapeField
    | ShapeType
)
