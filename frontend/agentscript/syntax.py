"""The AgentScript syntax tree: slotted dataclasses, each with the source span it came from.

The tree keeps what later stages need and nothing they must re-derive: a number keeps its raw token
(the ``source:`` line prints it, and budgets parse it), a ``use`` keeps its label as literal text, and
a ``generate`` keeps its options in source order (the checks report duplicates and unknown keys in
that order). :func:`~.syntax_json.to_json` turns a tree into JSON for ``asrender parse``.

A tree is not changed once parsed (a changed tree is a new one, made with ``dataclasses.replace``).
Nodes are slotted (a large program has hundreds of thousands of them) and equal only to themselves:
trees are compared through their JSON. Every ``asrender`` command but ``plugins`` imports this
module, so its classes are made cheaply: the generated ``__eq__``/``__hash__``, the ``frozen``
guards and a ``__repr__`` per class took three quarters of its import (22 ms; 5 ms without them,
``python -X importtime``), and one ``__repr__`` on :class:`_Node` serves them all. Every node writes
its ``__init__`` by hand (``init=False``): ``dataclass`` compiles the one it generates from source at
each import, which was 18M of the README example's instructions beyond the pydantic floor (28M to
10M for the 34 classes, ``valgrind --tool=callgrind``); tests/asrender/test_start_up.py checks that
each takes its fields as the generated one did. Every node has a docstring: ``dataclass`` writes one
from ``inspect.signature`` for a class without (3M more).
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


class _Node:
    """What every node shares: a ``repr`` written once, instead of one generated per class."""

    __slots__ = ()

    def __repr__(self) -> str:
        shown = [name for name, field in getattr(self, "__dataclass_fields__", {}).items() if field.repr]
        return f"{type(self).__name__}({', '.join(f'{name}={getattr(self, name)!r}' for name in shown)})"


ANONYMOUS_MAIN_AGENT = "__main_agent"
ANONYMOUS_MAIN_FUNC = "__main"


@dataclass(slots=True, init=False, eq=False, repr=False)
class Budget(_Node):
    """A budget literal such as ``2k``: ``amount`` 2.0, ``unit`` ``"k"`` (any letters are kept)."""

    amount: float
    unit: str | None
    raw: str

    def __init__(self, amount: float, unit: str | None, raw: str) -> None:
        self.amount = amount
        self.unit = unit
        self.raw = raw


# Expressions ------------------------------------------------------------------------------------


@dataclass(slots=True, init=False, eq=False, repr=False)
class Identifier(_Node):
    """A name where it is read: a variable, a parameter, an import, an agent or a function."""

    name: str
    span: Span

    def __init__(self, name: str, span: Span) -> None:
        self.name = name
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class String(_Node):
    """A string literal; ``value`` is the text with its escapes read."""

    value: str
    span: Span

    def __init__(self, value: str, span: Span) -> None:
        self.value = value
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Number(_Node):
    """A number literal: ``value`` is JavaScript's ``parseFloat(raw)`` (so ``2k`` is 2.0)."""

    value: float
    raw: str
    span: Span

    def __init__(self, value: float, raw: str, span: Span) -> None:
        self.value = value
        self.raw = raw
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Boolean(_Node):
    """``true`` or ``false``."""

    value: bool
    span: Span

    def __init__(self, value: bool, span: Span) -> None:
        self.value = value
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class NoneLiteral(_Node):
    """``none``: JSON ``null``."""

    span: Span

    def __init__(self, span: Span) -> None:
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class ListExpr(_Node):
    """``[a, b, ...]``."""

    items: tuple[Expr, ...]
    span: Span

    def __init__(self, items: tuple[Expr, ...], span: Span) -> None:
        self.items = items
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Property(_Node):
    """``key: value`` in an object literal or in ``generate`` options; the span starts at the key."""

    key: str
    value: Expr
    span: Span

    def __init__(self, key: str, value: Expr, span: Span) -> None:
        self.key = key
        self.value = value
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class ObjectExpr(_Node):
    """``{key: value, ...}``, its properties in source order."""

    properties: tuple[Property, ...]
    span: Span

    def __init__(self, properties: tuple[Property, ...], span: Span) -> None:
        self.properties = properties
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Member(_Node):
    """``object.property``."""

    object: Expr
    property: str
    span: Span

    def __init__(self, object: Expr, property: str, span: Span) -> None:
        self.object = object
        self.property = property
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Index(_Node):
    """``object[index]``."""

    object: Expr
    index: Expr
    span: Span

    def __init__(self, object: Expr, index: Expr, span: Span) -> None:
        self.object = object
        self.index = index
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Not(_Node):
    """``not operand``."""

    operand: Expr
    span: Span

    def __init__(self, operand: Expr, span: Span) -> None:
        self.operand = operand
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Binary(_Node):
    """``left op right`` with ``op`` one of ``or and == != <``."""

    operator: str
    left: Expr
    right: Expr
    span: Span

    def __init__(self, operator: str, left: Expr, right: Expr, span: Span) -> None:
        self.operator = operator
        self.left = left
        self.right = right
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Call(_Node):
    """``callee(args)``: a function, an agent's function or an imported tool."""

    callee: Expr
    args: tuple[Expr, ...]
    span: Span

    def __init__(self, callee: Expr, args: tuple[Expr, ...], span: Span) -> None:
        self.callee = callee
        self.args = args
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class NamedType(_Node):
    """A shape type by name; unknown names parse and are reported by the checks."""

    name: str
    span: Span

    def __init__(self, name: str, span: Span) -> None:
        self.name = name
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class ListType(_Node):
    """``list[item]`` in a shape."""

    item: ShapeType
    span: Span

    def __init__(self, item: ShapeType, span: Span) -> None:
        self.item = item
        self.span = span


ShapeType: TypeAlias = NamedType | ListType


@dataclass(slots=True, init=False, eq=False, repr=False)
class ShapeField(_Node):
    """``name type`` in a shape: one field of the JSON object a ``generate`` must return."""

    name: str
    type: ShapeType
    span: Span

    def __init__(self, name: str, type: ShapeType, span: Span) -> None:
        self.name = name
        self.type = type
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Shape(_Node):
    """``{ field type ... }``: the output a ``generate`` asks for, or a parameter's type."""

    fields: tuple[ShapeField, ...]
    span: Span

    def __init__(self, fields: tuple[ShapeField, ...], span: Span) -> None:
        self.fields = fields
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class GenerateOptions(_Node):
    """The options object of ``generate``, in source order.

    ``max_output`` is the budget of the *last* ``max_output`` key (a repeated key is reported, and the
    reference keeps the last one), so callers need not re-parse the raw token.
    """

    properties: tuple[Property, ...]
    max_output: Budget | None
    span: Span

    def __init__(self, properties: tuple[Property, ...], max_output: Budget | None, span: Span) -> None:
        self.properties = properties
        self.max_output = max_output
        self.span = span

    def get(self, key: str) -> Property | None:
        """The last property named ``key``, as the reference's option fields keep the last one."""
        found = None
        for prop in self.properties:
            if prop.key == key:
                found = prop
        return found


@dataclass(slots=True, init=False, eq=False, repr=False)
class Generate(_Node):
    """``generate({...}) -> shape``: a model call with its options and, when given, its output shape."""

    options: GenerateOptions
    shape: Shape | None
    span: Span

    def __init__(self, options: GenerateOptions, shape: Shape | None, span: Span) -> None:
        self.options = options
        self.shape = shape
        self.span = span


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


@dataclass(slots=True, init=False, eq=False, repr=False)
class Config(_Node):
    """``model X``, ``role "..."`` or ``description "..."``, in an agent or as a statement."""

    key: str
    value: Expr
    span: Span

    def __init__(self, key: str, value: Expr, span: Span) -> None:
        self.key = key
        self.value = value
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Use(_Node):
    """``use value [max budget] [as label]``; the label is literal text, never evaluated."""

    value: Expr
    budget: Budget | None
    label: str | None
    span: Span

    def __init__(self, value: Expr, budget: Budget | None, label: str | None, span: Span) -> None:
        self.value = value
        self.budget = budget
        self.label = label
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Return(_Node):
    """``return value``."""

    value: Expr
    span: Span

    def __init__(self, value: Expr, span: Span) -> None:
        self.value = value
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Repeat(_Node):
    """``repeat * count { body }``. A count, like ``ForIn.limit`` and ``LoopUntil.limit``, is an
    ``int`` while a double holds it exactly, and beyond that the double JavaScript reads (``jsjson.js_number``)."""

    count: float
    body: tuple[Stmt, ...]
    span: Span

    def __init__(self, count: float, body: tuple[Stmt, ...], span: Span) -> None:
        self.count = count
        self.body = body
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class ForIn(_Node):
    """``for item in iterable max limit { body }``: at most ``limit`` items (see :class:`Repeat` for counts)."""

    item: str
    item_span: Span
    iterable: Expr
    limit: float
    body: tuple[Stmt, ...]
    span: Span

    def __init__(
        self,
        item: str,
        item_span: Span,
        iterable: Expr,
        limit: float,
        body: tuple[Stmt, ...],
        span: Span,
    ) -> None:
        self.item = item
        self.item_span = item_span
        self.iterable = iterable
        self.limit = limit
        self.body = body
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class LoopUntil(_Node):
    """``loop until condition max limit { body }``: at most ``limit`` rounds."""

    condition: Expr
    limit: float
    body: tuple[Stmt, ...]
    span: Span

    def __init__(self, condition: Expr, limit: float, body: tuple[Stmt, ...], span: Span) -> None:
        self.condition = condition
        self.limit = limit
        self.body = body
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class If(_Node):
    """``if condition { then } else { else }``; ``else_body`` is ``None`` without an ``else``."""

    condition: Expr
    then_body: tuple[Stmt, ...]
    else_body: tuple[Stmt, ...] | None
    span: Span

    def __init__(
        self,
        condition: Expr,
        then_body: tuple[Stmt, ...],
        else_body: tuple[Stmt, ...] | None,
        span: Span,
    ) -> None:
        self.condition = condition
        self.then_body = then_body
        self.else_body = else_body
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Assign(_Node):
    """``target = value``; any expression parses as a target, the checks reject the wrong kinds."""

    target: Expr
    value: Expr
    span: Span

    def __init__(self, target: Expr, value: Expr, span: Span) -> None:
        self.target = target
        self.value = value
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class ExprStmt(_Node):
    """An expression on its own line (a call made for what it does)."""

    expr: Expr
    span: Span

    def __init__(self, expr: Expr, span: Span) -> None:
        self.expr = expr
        self.span = span


Stmt: TypeAlias = Config | Use | Return | Repeat | ForIn | LoopUntil | If | Assign | ExprStmt

# Declarations -----------------------------------------------------------------------------------


@dataclass(slots=True, init=False, eq=False, repr=False)
class Import(_Node):
    """``import RESOURCE Name from "uri"`` with RESOURCE one of tool, llm, file, agent, memory.

    ``file`` is the file it was written in when that is not the program's own (an import merged in
    with an imported agent), else ``None``.
    """

    resource: str
    name: str
    uri: str
    span: Span
    file: SourceFile | None = field(default=None, repr=False, compare=False)

    def __init__(self, resource: str, name: str, uri: str, span: Span, file: SourceFile | None = None) -> None:
        self.resource = resource
        self.name = name
        self.uri = uri
        self.span = span
        self.file = file


@dataclass(slots=True, init=False, eq=False, repr=False)
class Param(_Node):
    """A function's parameter, with its shape when it declares one."""

    name: str
    shape: Shape | None
    span: Span

    def __init__(self, name: str, shape: Shape | None, span: Span) -> None:
        self.name = name
        self.shape = shape
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Function(_Node):
    """A ``func``; an unnamed ``main func`` is called ``__main`` as in the reference."""

    name: str
    is_main: bool
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    span: Span

    def __init__(self, name: str, is_main: bool, params: tuple[Param, ...], body: tuple[Stmt, ...], span: Span) -> None:
        self.name = name
        self.is_main = is_main
        self.params = params
        self.body = body
        self.span = span


@dataclass(slots=True, init=False, eq=False, repr=False)
class Agent(_Node):
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

    def __init__(
        self,
        name: str,
        is_main: bool,
        config: tuple[Config, ...],
        functions: tuple[Function, ...],
        span: Span,
        file: SourceFile | None = None,
    ) -> None:
        self.name = name
        self.is_main = is_main
        self.config = config
        self.functions = functions
        self.span = span
        self.file = file


@dataclass(slots=True, init=False, eq=False, repr=False)
class Program(_Node):
    """A whole ``.as`` file, and once loaded (:mod:`.loader`) the agents it imports from other files.
    ``source`` and ``path`` (the file's) travel along so errors can show the line."""

    imports: tuple[Import, ...]
    agents: tuple[Agent, ...]
    span: Span
    source: str = field(default="", repr=False, compare=False)
    path: str | None = field(default=None, repr=False, compare=False)

    def __init__(
        self,
        imports: tuple[Import, ...],
        agents: tuple[Agent, ...],
        span: Span,
        source: str = "",
        path: str | None = None,
    ) -> None:
        self.imports = imports
        self.agents = agents
        self.span = span
        self.source = source
        self.path = path

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
