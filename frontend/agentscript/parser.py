"""The AgentScript 0.1.5 parser: tokens to a :class:`~.syntax.Program`, by recursive descent.

Every grammar rule is a function ``(cx, pos) -> (pos, node)`` over the token list, as in tomli: no
hidden cursor, each rule testable alone. The rules follow the reference parser closely, because the
programs it accepts, the node ranges it records and the errors it raises (text and position) are the
behaviour to reproduce. Two reference habits matter throughout:

* a token is recognised by its *value* whatever its kind (a string ``"use"`` at the start of a
  statement starts a ``use``), except where the reference asks for a kind (names, strings, numbers);
* when a token is checked *after* being consumed (a budget, a loop limit), the error points at the
  token that follows it, as the reference's does.

Newlines mean nothing except after ``use ... as``; see :func:`_release_label` and :func:`_late_label`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...renderers.agentscript.jsjson import js_number
from .diagnostics import DEFAULT_FILE, ParseError
from .lexer import EOF, NAME, NUMBER, STRING, Tokens, scan
from .positions import Span, line_text
from .syntax import (
    ANONYMOUS_MAIN_AGENT,
    ANONYMOUS_MAIN_FUNC,
    Agent,
    Assign,
    Binary,
    Boolean,
    Budget,
    Call,
    Config,
    Expr,
    ExprStmt,
    ForIn,
    Function,
    Generate,
    GenerateOptions,
    Identifier,
    If,
    Import,
    Index,
    ListExpr,
    ListType,
    LoopUntil,
    Member,
    NamedType,
    NoneLiteral,
    Not,
    Number,
    ObjectExpr,
    Param,
    Program,
    Property,
    Repeat,
    Return,
    Shape,
    ShapeField,
    ShapeType,
    Stmt,
    String,
    Use,
)

__all__ = [
    "LABEL_RULES",
    "MAX_NESTING",
    "js_parse_float",
    "parse_budget",
    "parse_expression",
    "parse_program",
]

LABEL_RULES = frozenset({"release", "late"})
# Python's stack, not the language, sets this bound: every walk over the tree (parse, checks, JSON,
# source text) recurses once per level, and a deeper tree would overflow the stack. Brackets, blocks,
# calls, members, indexes, `not`s and the operators of one chain each count one level.
MAX_NESTING = 100

IMPORT_KINDS = frozenset({"tool", "llm", "file", "agent", "memory"})
CONFIG_KEYS = frozenset({"model", "role", "description"})
KEY_KINDS = frozenset({NAME, STRING})
LABEL_KINDS = frozenset({NAME, STRING})
FUNCTION_STARTS = frozenset({"func", "main"})
AGENT_STARTS = frozenset({"agent", "main"})
BOOLEANS = frozenset({"true", "false"})
POSTFIX_STARTS = frozenset({".", "(", "["})
_WORD_LITERALS = frozenset({"generate", "true", "false", "none"})  # names that _primary reads otherwise
# Lowest to highest; all left-associative. 0.1.5 has no arithmetic and no '>'.
BINARY_PRECEDENCE = {"or": 1, "and": 2, "==": 3, "!=": 3, "<": 4}

_BUDGET = re.compile(r"([0-9]+(?:\.[0-9]+)?)([A-Za-z]+)?")
_INTEGER = re.compile(r"[0-9]+")
_FLOAT_PREFIX = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?")

Parsed = tuple[int, Expr]
_new = tuple.__new__
"""``Span(a, b, lines)`` runs the NamedTuple's ``__new__``, a Python function (220 ns);
``_new(Span, (a, b, lines))`` is the C one (130 ns). The rules below every statement and expression
use it: a 2 MB program has 190,000 spans."""


class _Cx:
    """What every rule shares: the tokens, the source (for error lines) and the options.

    The token lists and offset functions are copied out of :class:`~.lexer.Tokens` once, so a rule
    reads ``cx.values[pos]`` instead of reaching through one more object for every token. A node's
    span runs from the offset its first token starts at, ``cx.starts[pos]``, to where its last
    token ends, ``cx.end(pos - 1)`` (the reference's ``previous().range.end``), in the source's
    line map ``cx.lines``: its positions are worked out only if they are read.
    """

    __slots__ = (
        "depth",
        "end",
        "kinds",
        "late_labels",
        "lines",
        "path",
        "source",
        "span",
        "starts",
        "tokens",
        "values",
    )

    def __init__(self, tokens: Tokens, source: str, path: str | None, label_rule: str) -> None:
        if label_rule not in LABEL_RULES:
            raise ValueError(f"label_rule must be one of {sorted(LABEL_RULES)}, not {label_rule!r}")
        self.tokens = tokens
        self.kinds = tokens.kinds
        self.values = tokens.values
        self.starts = tokens.starts
        self.end = tokens.end_offset
        self.span = tokens.span
        self.lines = tokens.line_map
        self.source = source
        self.path = path or DEFAULT_FILE
        self.late_labels = label_rule == "late"
        self.depth = 0


def parse_program(source: str, path: str | None = None, *, label_rule: str = "release") -> Program:
    """Parse a whole ``.as`` file; raise :class:`ParseError` with the reference's text and position."""
    cx = _Cx(scan(source, path), source, path, label_rule)
    return _program(cx)


def parse_expression(source: str, path: str | None = None) -> Expr:
    """Parse one expression that must fill ``source`` (for tools and for round-trip tests)."""
    cx = _Cx(scan(source, path), source, path, "release")
    pos, expr = _expression(cx, 0)
    if cx.kinds[pos] != EOF:
        raise _error(cx, pos, "Expected end of expression")
    return expr


def js_parse_float(raw: str) -> float:
    """JavaScript's ``parseFloat`` on a number token: the longest decimal prefix (``2k`` -> 2.0)."""
    if raw.isdigit():  # the common case, and the whole token is the prefix
        return float(raw)
    match = _FLOAT_PREFIX.match(raw)
    return float(match.group()) if match else float("nan")


def parse_budget(raw: str) -> Budget | None:
    """A budget token (``2k``, ``1.5k``, ``800``) as amount and unit, or None when it is no budget."""
    match = _BUDGET.fullmatch(raw)
    if match is None:
        return None
    return Budget(float(match.group(1)), match.group(2), raw)


# Helpers ----------------------------------------------------------------------------------------


def _error(cx: _Cx, pos: int, message: str) -> ParseError:
    """The error ``message`` at the start of token ``pos``."""
    position = cx.tokens.start(pos)
    return ParseError(
        message,
        file=cx.path,
        line=position.line,
        column=position.column,
        source_line=line_text(cx.source, position.line),
    )


def _expect(cx: _Cx, pos: int, value: str) -> int:
    if cx.values[pos] != value:
        raise _error(cx, pos, f"Expected '{value}'")
    return pos + 1


def _name(cx: _Cx, pos: int, message: str) -> int:
    """``pos``, once the token there is checked to be a name (an identifier or a keyword)."""
    if cx.kinds[pos] is not NAME:
        raise _error(cx, pos, message)
    return pos


def _enter(cx: _Cx, pos: int) -> None:
    cx.depth += 1
    if cx.depth > MAX_NESTING:
        raise _too_deep(cx, pos)


def _too_deep(cx: _Cx, pos: int) -> ParseError:
    return _error(cx, pos, f"Program nests deeper than {MAX_NESTING} levels")


# Declarations -----------------------------------------------------------------------------------


def _program(cx: _Cx) -> Program:
    values = cx.values
    kinds = cx.kinds
    start = cx.starts[0]
    imports: list[Import] = []
    agents: list[Agent] = []
    pos = 0
    while kinds[pos] is not EOF:
        value = values[pos]
        if value == "import":
            pos, declared = _import(cx, pos)
            imports.append(declared)
        elif value in AGENT_STARTS:
            pos, agent = _agent(cx, pos)
            agents.append(agent)
        else:
            raise _error(cx, pos, "Expected 'import', 'agent', or 'main agent'")
    return Program(
        tuple(imports), tuple(agents), Span(start, cx.end(pos - 1 if pos else 0), cx.lines), cx.source, cx.path
    )


def _import(cx: _Cx, pos: int) -> tuple[int, Import]:
    values = cx.values
    start = cx.starts[pos]
    kind = _name(cx, pos + 1, "Expected import resource kind")
    resource = values[kind]
    if resource not in IMPORT_KINDS:
        raise _error(cx, kind, "Expected import resource kind 'tool', 'llm', 'file', 'agent', or 'memory'")
    name = _name(cx, kind + 1, f"Expected {resource} name")
    uri = _expect(cx, name + 1, "from")
    if cx.kinds[uri] is not STRING:
        raise _error(cx, uri, f"Expected {resource} URI")
    return uri + 1, Import(resource, values[name], values[uri], Span(start, cx.end(uri), cx.lines))


def _agent(cx: _Cx, pos: int) -> tuple[int, Agent]:
    values = cx.values
    kinds = cx.kinds
    start = cx.starts[pos]
    is_main = values[pos] == "main"
    pos = _expect(cx, pos + 1 if is_main else pos, "agent")
    name = ANONYMOUS_MAIN_AGENT
    if values[pos] != "{":
        name = values[_name(cx, pos, "Expected agent name")]
        pos += 1
    if not is_main and name == ANONYMOUS_MAIN_AGENT:
        raise _error(cx, pos, "Only main agent can omit its name")
    pos = _expect(cx, pos, "{")
    config: list[Config] = []
    functions: list[Function] = []
    while values[pos] != "}" and kinds[pos] is not EOF:
        value = values[pos]
        if value in CONFIG_KEYS:
            pos, setting = _config(cx, pos)
            config.append(setting)
        elif value in FUNCTION_STARTS:
            pos, function = _function(cx, pos)
            functions.append(function)
        else:
            raise _error(cx, pos, "Expected configuration declaration or function declaration")
    pos = _expect(cx, pos, "}")
    return pos, Agent(name, is_main, tuple(config), tuple(functions), Span(start, cx.end(pos - 1), cx.lines))


def _config(cx: _Cx, pos: int) -> tuple[int, Config]:
    if cx.kinds[pos] is not NAME:
        raise _error(cx, pos, "Expected configuration key")
    key = cx.values[pos]
    start = cx.starts[pos]
    # A model is a name (or a member chain), never a comparison: the reference parses a postfix here.
    pos, value = _postfix(cx, pos + 1) if key == "model" else _expression(cx, pos + 1)
    return pos, Config(key, value, _new(Span, (start, value.span.end_offset, cx.lines)))


def _function(cx: _Cx, pos: int) -> tuple[int, Function]:
    values = cx.values
    kinds = cx.kinds
    start = cx.starts[pos]
    is_main = values[pos] == "main"
    pos = _expect(cx, pos + 1 if is_main else pos, "func")
    name = ANONYMOUS_MAIN_FUNC
    if values[pos] != "(":
        name = values[_name(cx, pos, "Expected function name")]
        pos += 1
    if not is_main and name == ANONYMOUS_MAIN_FUNC:
        raise _error(cx, pos, "Only main func can omit its name")
    pos = _expect(cx, pos, "(")
    params: list[Param] = []
    while values[pos] != ")" and kinds[pos] is not EOF:
        pos, param = _param(cx, pos)
        params.append(param)
        if values[pos] == ",":
            pos += 1
    pos = _expect(cx, pos, ")")
    pos, body = _block(cx, pos)
    return pos, Function(name, is_main, tuple(params), body, Span(start, cx.end(pos - 1), cx.lines))


def _param(cx: _Cx, pos: int) -> tuple[int, Param]:
    name = _name(cx, pos, "Expected parameter name")
    pos = name + 1
    shape = None
    if cx.values[pos] == "{":
        pos, shape = _shape(cx, pos)
    end = shape.span.end_offset if shape else cx.end(name)
    return pos, Param(cx.values[name], shape, _new(Span, (cx.starts[name], end, cx.lines)))


# Statements -------------------------------------------------------------------------------------


def _block(cx: _Cx, pos: int) -> tuple[int, tuple[Stmt, ...]]:
    _enter(cx, pos)
    values = cx.values
    kinds = cx.kinds
    pos = _expect(cx, pos, "{")
    statements: list[Stmt] = []
    while values[pos] != "}" and kinds[pos] is not EOF:
        pos, statement = _statement(cx, pos)
        statements.append(statement)
    pos = _expect(cx, pos, "}")
    cx.depth -= 1
    return pos, tuple(statements)


def _statement(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    value = cx.values[pos]
    if value in CONFIG_KEYS:
        return _config(cx, pos)
    rule = _STATEMENTS.get(value)
    if rule is not None:
        return rule(cx, pos)
    return _assign_or_expression(cx, pos)


def _use(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    values = cx.values
    start = cx.starts[pos]
    pos, value = _expression(cx, pos + 1)
    budget = None
    if values[pos] == "max":
        pos, budget = _budget(cx, pos + 1, "Expected budget amount")
    label = None
    if values[pos] == "as":
        pos, label = _late_label(cx, pos + 1) if cx.late_labels else _release_label(cx, pos + 1)
    return pos, Use(value, budget, label, _new(Span, (start, cx.end(pos - 1), cx.lines)))


def _release_label(cx: _Cx, pos: int) -> tuple[int, str]:
    """The release rule: every token left on the ``as`` line, up to a ``}``, is label text.

    Token values are joined with one space where the source had any gap between them, so
    ``as retrieved  evidence (v2)`` reads ``retrieved evidence (v2)``; string tokens give their value.
    """
    tokens = cx.tokens
    values = cx.values
    first = pos
    parts: list[str] = []
    while tokens.kinds[pos] is not EOF and values[pos] != "}" and _same_line(cx, pos - 1, pos):
        if pos > first and tokens.starts[pos] > tokens.end_offset(pos - 1):
            parts.append(" ")
        parts.append(values[pos])
        pos += 1
    if pos == first:
        raise _error(cx, pos, "Expected context label after 'as'")
    return pos, "".join(parts)


def _same_line(cx: _Cx, before: int, pos: int) -> bool:
    """Whether token ``pos`` starts on the line token ``before`` starts on: no line break between
    their starts (looked for only there, so a label's tokens cost their own length, not the line's)."""
    return cx.source.find("\n", cx.starts[before], cx.starts[pos]) < 0


def _late_label(cx: _Cx, pos: int) -> tuple[int, str]:
    """The late rule: one name or one string, then a line break, ``}`` or the end."""
    as_token = pos - 1
    if cx.kinds[pos] not in LABEL_KINDS:
        raise _error(cx, pos, "Expected identifier or string context label after 'as'")
    label = cx.values[pos]
    pos += 1
    if cx.kinds[pos] is not EOF and cx.values[pos] != "}" and _same_line(cx, as_token, pos):
        raise _error(cx, pos, "Expected newline after context label")
    return pos, label


def _budget(cx: _Cx, pos: int, message: str) -> tuple[int, Budget]:
    if cx.kinds[pos] is not NUMBER:
        raise _error(cx, pos, message)
    raw = cx.values[pos]
    budget = parse_budget(raw)
    if budget is None:
        raise _error(cx, pos + 1, f"Invalid budget '{raw}'")
    return pos + 1, budget


def _integer(cx: _Cx, pos: int, message: str) -> tuple[int, float]:
    if cx.kinds[pos] is not NUMBER:
        raise _error(cx, pos, message)
    raw = cx.values[pos]
    if not _INTEGER.fullmatch(raw):
        raise _error(cx, pos + 1, message)
    return pos + 1, js_number(raw)  # the count JavaScript reads; the checks bound it


def _return(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    start = cx.starts[pos]
    pos, value = _expression(cx, pos + 1)
    return pos, Return(value, _new(Span, (start, value.span.end_offset, cx.lines)))


def _repeat(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    start = cx.starts[pos]
    pos = _expect(cx, pos + 1, "*")
    pos, count = _integer(cx, pos, "Expected repeat count")
    pos, body = _block(cx, pos)
    return pos, Repeat(count, body, _new(Span, (start, cx.end(pos - 1), cx.lines)))


def _for(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    start = cx.starts[pos]
    item = _name(cx, pos + 1, "Expected for item name")
    pos = _expect(cx, item + 1, "in")
    pos, iterable = _expression(cx, pos)
    pos = _expect(cx, pos, "max")
    pos, limit = _integer(cx, pos, "Expected for iteration count")
    pos, body = _block(cx, pos)
    return pos, ForIn(
        cx.values[item], cx.span(item), iterable, limit, body, _new(Span, (start, cx.end(pos - 1), cx.lines))
    )


def _loop(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    start = cx.starts[pos]
    pos = _expect(cx, pos + 1, "until")
    pos, condition = _expression(cx, pos)
    pos = _expect(cx, pos, "max")
    pos, limit = _integer(cx, pos, "Expected loop iteration count")
    pos, body = _block(cx, pos)
    return pos, LoopUntil(condition, limit, body, _new(Span, (start, cx.end(pos - 1), cx.lines)))


def _if(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    start = cx.starts[pos]
    pos, condition = _expression(cx, pos + 1)
    pos, then_body = _block(cx, pos)
    else_body = None
    if cx.values[pos] == "else":
        pos, else_body = _block(cx, pos + 1)
    return pos, If(condition, then_body, else_body, _new(Span, (start, cx.end(pos - 1), cx.lines)))


def _assign_or_expression(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    pos, expr = _expression(cx, pos)
    if cx.values[pos] != "=":
        return pos, ExprStmt(expr, expr.span)
    pos, value = _expression(cx, pos + 1)
    return pos, Assign(expr, value, _new(Span, (expr.span.start_offset, value.span.end_offset, cx.lines)))


_STATEMENTS: dict[str, Callable[[_Cx, int], tuple[int, Stmt]]] = {
    "use": _use,
    "return": _return,
    "repeat": _repeat,
    "for": _for,
    "loop": _loop,
    "if": _if,
}

# Expressions ------------------------------------------------------------------------------------


def _expression(cx: _Cx, pos: int, min_precedence: int = 1) -> Parsed:
    """``or`` / ``and`` / ``== !=`` / ``<`` by precedence climbing: one frame per level, not five.

    Each operator of a chain nests the tree one level deeper (they associate to the left), so each
    counts towards :data:`MAX_NESTING` like a bracket: every later walk over the tree recurses.
    """
    cx.depth += 1  # _enter(cx, pos), written out: this runs for every expression
    if cx.depth > MAX_NESTING:
        raise _too_deep(cx, pos)
    values = cx.values
    pos, left = _unary(cx, pos) if values[pos] == "not" else _postfix(cx, pos)
    precedence = BINARY_PRECEDENCE.get(values[pos])
    if precedence is None or precedence < min_precedence:  # most expressions have no operator
        cx.depth -= 1
        return pos, left
    levels = 1
    while precedence is not None and precedence >= min_precedence:
        _enter(cx, pos)
        levels += 1
        operator = values[pos]
        pos, right = _expression(cx, pos + 1, precedence + 1)
        left = Binary(operator, left, right, _new(Span, (left.span.start_offset, right.span.end_offset, cx.lines)))
        precedence = BINARY_PRECEDENCE.get(values[pos])
    cx.depth -= levels
    return pos, left


def _unary(cx: _Cx, pos: int) -> Parsed:
    """One or more ``not`` before a postfix expression (the caller saw the first ``not``)."""
    starts: list[int] = []
    while cx.values[pos] == "not":
        _enter(cx, pos)
        starts.append(cx.starts[pos])
        pos += 1
    pos, expr = _postfix(cx, pos)
    for start in reversed(starts):
        expr = Not(expr, _new(Span, (start, expr.span.end_offset, cx.lines)))
    cx.depth -= len(starts)
    return pos, expr


def _postfix(cx: _Cx, pos: int) -> Parsed:
    """A primary expression, then any ``.name``, ``(args)`` and ``[index]`` after it."""
    values = cx.values
    pos, expr = _primary(cx, pos)
    value = values[pos]
    if value not in POSTFIX_STARTS:  # most primaries stand alone
        return pos, expr
    levels = 0
    while value in POSTFIX_STARTS:
        _enter(cx, pos)
        levels += 1
        if value == ".":
            name = _name(cx, pos + 1, "Expected property name")
            pos = name + 1
            expr = Member(expr, values[name], _new(Span, (expr.span.start_offset, cx.end(name), cx.lines)))
        elif value == "(":
            pos, args = _arguments(cx, pos + 1)
            expr = Call(expr, args, _new(Span, (expr.span.start_offset, cx.end(pos - 1), cx.lines)))
        else:
            pos, index = _expression(cx, pos + 1)
            pos = _expect(cx, pos, "]")
            expr = Index(expr, index, _new(Span, (expr.span.start_offset, cx.end(pos - 1), cx.lines)))
        value = values[pos]
    cx.depth -= levels
    return pos, expr


def _arguments(cx: _Cx, pos: int) -> tuple[int, tuple[Expr, ...]]:
    """A call's arguments, after its ``(``, to just past its ``)``; commas between them are optional."""
    values = cx.values
    kinds = cx.kinds
    args: list[Expr] = []
    while values[pos] != ")" and kinds[pos] is not EOF:
        pos, arg = _expression(cx, pos)
        args.append(arg)
        if values[pos] == ",":
            pos += 1
    return _expect(cx, pos, ")"), tuple(args)


def _primary(cx: _Cx, pos: int) -> Parsed:
    """A literal, a name, an object, a list or a ``generate``: names first, the most common."""
    value = cx.values[pos]
    kind = cx.kinds[pos]
    if kind is NAME and value not in _WORD_LITERALS:
        return pos + 1, Identifier(value, cx.span(pos))
    if value == "generate":  # a string "generate" too, as in the reference
        return _generate(cx, pos)
    if kind is STRING:
        return pos + 1, String(value, cx.span(pos))
    if kind is NUMBER:
        return pos + 1, Number(js_parse_float(value), value, cx.span(pos))
    if value in BOOLEANS:
        return pos + 1, Boolean(value == "true", cx.span(pos))
    if value == "none":
        return pos + 1, NoneLiteral(cx.span(pos))
    if value == "{":
        return _object(cx, pos)
    if value == "[":
        return _list(cx, pos)
    if kind is NAME:
        return pos + 1, Identifier(value, cx.span(pos))
    raise _error(cx, pos, "Expected expression")


def _list(cx: _Cx, pos: int) -> Parsed:
    values = cx.values
    kinds = cx.kinds
    start = cx.starts[pos]
    pos += 1
    items: list[Expr] = []
    while values[pos] != "]" and kinds[pos] is not EOF:
        pos, item = _expression(cx, pos)
        items.append(item)
        if values[pos] == ",":
            pos += 1
    pos = _expect(cx, pos, "]")
    return pos, ListExpr(tuple(items), _new(Span, (start, cx.end(pos - 1), cx.lines)))


def _key(cx: _Cx, pos: int) -> int:
    """``pos``, once the token there is checked to be an object key followed by ``:``."""
    if cx.kinds[pos] not in KEY_KINDS:
        raise _error(cx, pos, "Expected object key")
    _expect(cx, pos + 1, ":")
    return pos


def _object(cx: _Cx, pos: int) -> Parsed:
    values = cx.values
    kinds = cx.kinds
    start = cx.starts[pos]
    pos += 1
    properties: list[Property] = []
    while values[pos] != "}" and kinds[pos] is not EOF:
        key = _key(cx, pos)
        pos, value = _expression(cx, key + 2)
        properties.append(Property(values[key], value, _new(Span, (cx.starts[key], value.span.end_offset, cx.lines))))
        if values[pos] != "}":  # fields need commas (0.1.5); a trailing one is fine
            pos = _expect(cx, pos, ",")
    pos = _expect(cx, pos, "}")
    return pos, ObjectExpr(tuple(properties), _new(Span, (start, cx.end(pos - 1), cx.lines)))


def _generate(cx: _Cx, pos: int) -> Parsed:
    start = cx.starts[pos]
    pos = _expect(cx, pos + 1, "(")
    pos, options = _generate_options(cx, pos)
    pos = _expect(cx, pos, ")")
    shape = None
    if cx.values[pos] == "->":
        pos, shape = _shape(cx, pos + 1)
    return pos, Generate(options, shape, _new(Span, (start, cx.end(pos - 1), cx.lines)))


def _generate_options(cx: _Cx, pos: int) -> tuple[int, GenerateOptions]:
    values = cx.values
    kinds = cx.kinds
    start = cx.starts[pos]
    pos = _expect(cx, pos, "{")
    properties: list[Property] = []
    max_output = None
    while values[pos] != "}" and kinds[pos] is not EOF:
        key = _key(cx, pos)
        pos = key + 2
        value: Expr
        if values[key] == "max_output":
            raw = values[pos]
            pos, max_output = _budget(cx, pos, "Expected generate max_output")
            value = Number(js_parse_float(raw), raw, cx.span(pos - 1))
        else:
            pos, value = _expression(cx, pos)
        properties.append(Property(values[key], value, _new(Span, (cx.starts[key], value.span.end_offset, cx.lines))))
        if values[pos] != "}":  # fields need commas (0.1.5); a trailing one is fine
            pos = _expect(cx, pos, ",")
    pos = _expect(cx, pos, "}")
    return pos, GenerateOptions(tuple(properties), max_output, _new(Span, (start, cx.end(pos - 1), cx.lines)))


# Shapes -----------------------------------------------------------------------------------------


def _shape(cx: _Cx, pos: int) -> tuple[int, Shape]:
    values = cx.values
    kinds = cx.kinds
    start = cx.starts[pos]
    pos = _expect(cx, pos, "{")
    fields: list[ShapeField] = []
    while values[pos] != "}" and kinds[pos] is not EOF:
        name = _name(cx, pos, "Expected shape field name")
        pos, shape_type = _shape_type(cx, name + 1)
        fields.append(
            ShapeField(values[name], shape_type, _new(Span, (cx.starts[name], shape_type.span.end_offset, cx.lines)))
        )
        if values[pos] == ",":
            pos += 1
    pos = _expect(cx, pos, "}")
    return pos, Shape(tuple(fields), _new(Span, (start, cx.end(pos - 1), cx.lines)))


def _shape_type(cx: _Cx, pos: int) -> tuple[int, ShapeType]:
    start = cx.starts[pos]
    name = _name(cx, pos, "Expected shape type")
    pos = name + 1
    if cx.values[name] != "list" or cx.values[pos] != "[":
        return pos, NamedType(cx.values[name], _new(Span, (start, cx.end(name), cx.lines)))
    _enter(cx, pos)
    pos, item = _shape_type(cx, pos + 1)
    pos = _expect(cx, pos, "]")
    cx.depth -= 1
    return pos, ListType(item, _new(Span, (start, cx.end(pos - 1), cx.lines)))
