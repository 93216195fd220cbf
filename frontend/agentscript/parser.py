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
from .lexer import EOF, IDENTIFIER, KEYWORD, NUMBER, STRING, Token, tokenize
from .positions import Position, Span, line_text
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
NAME_KINDS = frozenset({IDENTIFIER, KEYWORD})
KEY_KINDS = frozenset({IDENTIFIER, KEYWORD, STRING})
LABEL_KINDS = frozenset({IDENTIFIER, KEYWORD, STRING})
FUNCTION_STARTS = frozenset({"func", "main"})
AGENT_STARTS = frozenset({"agent", "main"})
BOOLEANS = frozenset({"true", "false"})
POSTFIX_STARTS = frozenset({".", "(", "["})
# Lowest to highest; all left-associative. 0.1.5 has no arithmetic and no '>'.
BINARY_PRECEDENCE = {"or": 1, "and": 2, "==": 3, "!=": 3, "<": 4}

_BUDGET = re.compile(r"([0-9]+(?:\.[0-9]+)?)([A-Za-z]+)?")
_INTEGER = re.compile(r"[0-9]+")
_FLOAT_PREFIX = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?")

Parsed = tuple[int, Expr]


class _Cx:
    """What every rule shares: the tokens, the source (for error lines) and the options."""

    __slots__ = ("depth", "late_labels", "path", "source", "tokens")

    def __init__(self, tokens: list[Token], source: str, path: str | None, label_rule: str) -> None:
        if label_rule not in LABEL_RULES:
            raise ValueError(f"label_rule must be one of {sorted(LABEL_RULES)}, not {label_rule!r}")
        self.tokens = tokens
        self.source = source
        self.path = path or DEFAULT_FILE
        self.late_labels = label_rule == "late"
        self.depth = 0


def parse_program(source: str, path: str | None = None, *, label_rule: str = "release") -> Program:
    """Parse a whole ``.as`` file; raise :class:`ParseError` with the reference's text and position."""
    cx = _Cx(tokenize(source, path), source, path, label_rule)
    return _program(cx)


def parse_expression(source: str, path: str | None = None) -> Expr:
    """Parse one expression that must fill ``source`` (for tools and for round-trip tests)."""
    cx = _Cx(tokenize(source, path), source, path, "release")
    pos, expr = _expression(cx, 0)
    if cx.tokens[pos].kind != EOF:
        raise _error(cx, pos, "Expected end of expression")
    return expr


def js_parse_float(raw: str) -> float:
    """JavaScript's ``parseFloat`` on a number token: the longest decimal prefix (``2k`` -> 2.0)."""
    match = _FLOAT_PREFIX.match(raw)
    return float(match.group()) if match else float("nan")


def parse_budget(raw: str) -> Budget | None:
    """A budget token (``2k``, ``1.5k``, ``800``) as amount and unit, or None when it is no budget."""
    match = _BUDGET.fullmatch(raw)
    if match is None:
        return None
    return Budget(float(match.group(1)), match.group(2), raw)


# Helpers ----------------------------------------------------------------------------------------


def _error_at(cx: _Cx, position: Position, message: str) -> ParseError:
    return ParseError(
        message,
        file=cx.path,
        line=position.line,
        column=position.column,
        source_line=line_text(cx.source, position.line),
    )


def _error(cx: _Cx, pos: int, message: str) -> ParseError:
    return _error_at(cx, cx.tokens[pos].start, message)


def _expect(cx: _Cx, pos: int, value: str) -> int:
    if cx.tokens[pos].value != value:
        raise _error(cx, pos, f"Expected '{value}'")
    return pos + 1


def _name(cx: _Cx, pos: int, message: str) -> tuple[int, Token]:
    token = cx.tokens[pos]
    if token.kind not in NAME_KINDS:
        raise _error(cx, pos, message)
    return pos + 1, token


def _end(cx: _Cx, pos: int) -> Position:
    """End of the last consumed token (the reference's ``previous().range.end``)."""
    return cx.tokens[pos - 1 if pos else 0].end


def _at_close(token: Token, closer: str) -> bool:
    return token.value == closer or token.kind == EOF


def _enter(cx: _Cx, pos: int) -> None:
    cx.depth += 1
    if cx.depth > MAX_NESTING:
        raise _error(cx, pos, f"Program nests deeper than {MAX_NESTING} levels")


# Declarations -----------------------------------------------------------------------------------


def _program(cx: _Cx) -> Program:
    tokens = cx.tokens
    start = tokens[0].start
    imports: list[Import] = []
    agents: list[Agent] = []
    pos = 0
    while tokens[pos].kind != EOF:
        value = tokens[pos].value
        if value == "import":
            pos, declared = _import(cx, pos)
            imports.append(declared)
        elif value in AGENT_STARTS:
            pos, agent = _agent(cx, pos)
            agents.append(agent)
        else:
            raise _error(cx, pos, "Expected 'import', 'agent', or 'main agent'")
    return Program(tuple(imports), tuple(agents), Span(start, _end(cx, pos)), cx.source, cx.path)


def _import(cx: _Cx, pos: int) -> tuple[int, Import]:
    start = cx.tokens[pos].start
    pos, kind = _name(cx, pos + 1, "Expected import resource kind")
    if kind.value not in IMPORT_KINDS:
        raise _error_at(cx, kind.start, "Expected import resource kind 'tool', 'llm', 'file', 'agent', or 'memory'")
    pos, name = _name(cx, pos, f"Expected {kind.value} name")
    pos = _expect(cx, pos, "from")
    uri = cx.tokens[pos]
    if uri.kind != STRING:
        raise _error(cx, pos, f"Expected {kind.value} URI")
    return pos + 1, Import(kind.value, name.value, uri.value, Span(start, uri.end))


def _agent(cx: _Cx, pos: int) -> tuple[int, Agent]:
    tokens = cx.tokens
    start = tokens[pos].start
    is_main = tokens[pos].value == "main"
    pos = _expect(cx, pos + 1 if is_main else pos, "agent")
    name = ANONYMOUS_MAIN_AGENT
    if tokens[pos].value != "{":
        pos, token = _name(cx, pos, "Expected agent name")
        name = token.value
    if not is_main and name == ANONYMOUS_MAIN_AGENT:
        raise _error(cx, pos, "Only main agent can omit its name")
    pos = _expect(cx, pos, "{")
    config: list[Config] = []
    functions: list[Function] = []
    while not _at_close(tokens[pos], "}"):
        value = tokens[pos].value
        if value in CONFIG_KEYS:
            pos, setting = _config(cx, pos)
            config.append(setting)
        elif value in FUNCTION_STARTS:
            pos, function = _function(cx, pos)
            functions.append(function)
        else:
            raise _error(cx, pos, "Expected configuration declaration or function declaration")
    pos = _expect(cx, pos, "}")
    return pos, Agent(name, is_main, tuple(config), tuple(functions), Span(start, _end(cx, pos)))


def _config(cx: _Cx, pos: int) -> tuple[int, Config]:
    key = cx.tokens[pos]
    if key.kind not in NAME_KINDS:
        raise _error(cx, pos, "Expected configuration key")
    # A model is a name (or a member chain), never a comparison: the reference parses a postfix here.
    pos, value = _postfix(cx, pos + 1) if key.value == "model" else _expression(cx, pos + 1)
    return pos, Config(key.value, value, Span(key.start, value.span.end))


def _function(cx: _Cx, pos: int) -> tuple[int, Function]:
    tokens = cx.tokens
    start = tokens[pos].start
    is_main = tokens[pos].value == "main"
    pos = _expect(cx, pos + 1 if is_main else pos, "func")
    name = ANONYMOUS_MAIN_FUNC
    if tokens[pos].value != "(":
        pos, token = _name(cx, pos, "Expected function name")
        name = token.value
    if not is_main and name == ANONYMOUS_MAIN_FUNC:
        raise _error(cx, pos, "Only main func can omit its name")
    pos = _expect(cx, pos, "(")
    params: list[Param] = []
    while not _at_close(tokens[pos], ")"):
        pos, param = _param(cx, pos)
        params.append(param)
        if tokens[pos].value == ",":
            pos += 1
    pos = _expect(cx, pos, ")")
    pos, body = _block(cx, pos)
    return pos, Function(name, is_main, tuple(params), body, Span(start, _end(cx, pos)))


def _param(cx: _Cx, pos: int) -> tuple[int, Param]:
    pos, token = _name(cx, pos, "Expected parameter name")
    shape = None
    if cx.tokens[pos].value == "{":
        pos, shape = _shape(cx, pos)
    end = shape.span.end if shape else token.end
    return pos, Param(token.value, shape, Span(token.start, end))


# Statements -------------------------------------------------------------------------------------


def _block(cx: _Cx, pos: int) -> tuple[int, tuple[Stmt, ...]]:
    _enter(cx, pos)
    tokens = cx.tokens
    pos = _expect(cx, pos, "{")
    statements: list[Stmt] = []
    while not _at_close(tokens[pos], "}"):
        pos, statement = _statement(cx, pos)
        statements.append(statement)
    pos = _expect(cx, pos, "}")
    cx.depth -= 1
    return pos, tuple(statements)


def _statement(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    value = cx.tokens[pos].value
    if value in CONFIG_KEYS:
        return _config(cx, pos)
    rule = _STATEMENTS.get(value)
    if rule is not None:
        return rule(cx, pos)
    return _assign_or_expression(cx, pos)


def _use(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    tokens = cx.tokens
    start = tokens[pos].start
    pos, value = _expression(cx, pos + 1)
    budget = None
    if tokens[pos].value == "max":
        pos, budget = _budget(cx, pos + 1, "Expected budget amount")
    label = None
    if tokens[pos].value == "as":
        pos, label = _late_label(cx, pos + 1) if cx.late_labels else _release_label(cx, pos + 1)
    return pos, Use(value, budget, label, Span(start, _end(cx, pos)))


def _release_label(cx: _Cx, pos: int) -> tuple[int, str]:
    """The release rule: every token left on the ``as`` line, up to a ``}``, is label text.

    Token values are joined with one space where the source had any gap between them, so
    ``as retrieved  evidence (v2)`` reads ``retrieved evidence (v2)``; string tokens give their value.
    """
    tokens = cx.tokens
    line = tokens[pos - 1].line
    parts: list[str] = []
    previous: Token | None = None
    token = tokens[pos]
    while token.kind != EOF and token.value != "}" and token.line == line:
        if previous is not None and token.offset > previous.end_offset:
            parts.append(" ")
        parts.append(token.value)
        previous = token
        pos += 1
        token = tokens[pos]
    if previous is None:
        raise _error(cx, pos, "Expected context label after 'as'")
    return pos, "".join(parts)


def _late_label(cx: _Cx, pos: int) -> tuple[int, str]:
    """The late rule: one name or one string, then a line break, ``}`` or the end."""
    tokens = cx.tokens
    line = tokens[pos - 1].line
    label = tokens[pos]
    if label.kind not in LABEL_KINDS:
        raise _error(cx, pos, "Expected identifier or string context label after 'as'")
    pos += 1
    following = tokens[pos]
    if following.kind != EOF and following.value != "}" and following.line == line:
        raise _error(cx, pos, "Expected newline after context label")
    return pos, label.value


def _budget(cx: _Cx, pos: int, message: str) -> tuple[int, Budget]:
    token = cx.tokens[pos]
    if token.kind != NUMBER:
        raise _error(cx, pos, message)
    budget = parse_budget(token.value)
    if budget is None:
        raise _error(cx, pos + 1, f"Invalid budget '{token.value}'")
    return pos + 1, budget


def _integer(cx: _Cx, pos: int, message: str) -> tuple[int, float]:
    token = cx.tokens[pos]
    if token.kind != NUMBER:
        raise _error(cx, pos, message)
    if not _INTEGER.fullmatch(token.value):
        raise _error(cx, pos + 1, message)
    return pos + 1, js_number(token.value)  # the count JavaScript reads; the checks bound it


def _return(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    start = cx.tokens[pos].start
    pos, value = _expression(cx, pos + 1)
    return pos, Return(value, Span(start, value.span.end))


def _repeat(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    start = cx.tokens[pos].start
    pos = _expect(cx, pos + 1, "*")
    pos, count = _integer(cx, pos, "Expected repeat count")
    pos, body = _block(cx, pos)
    return pos, Repeat(count, body, Span(start, _end(cx, pos)))


def _for(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    start = cx.tokens[pos].start
    pos, item = _name(cx, pos + 1, "Expected for item name")
    pos = _expect(cx, pos, "in")
    pos, iterable = _expression(cx, pos)
    pos = _expect(cx, pos, "max")
    pos, limit = _integer(cx, pos, "Expected for iteration count")
    pos, body = _block(cx, pos)
    return pos, ForIn(item.value, item.span, iterable, limit, body, Span(start, _end(cx, pos)))


def _loop(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    start = cx.tokens[pos].start
    pos = _expect(cx, pos + 1, "until")
    pos, condition = _expression(cx, pos)
    pos = _expect(cx, pos, "max")
    pos, limit = _integer(cx, pos, "Expected loop iteration count")
    pos, body = _block(cx, pos)
    return pos, LoopUntil(condition, limit, body, Span(start, _end(cx, pos)))


def _if(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    start = cx.tokens[pos].start
    pos, condition = _expression(cx, pos + 1)
    pos, then_body = _block(cx, pos)
    else_body = None
    if cx.tokens[pos].value == "else":
        pos, else_body = _block(cx, pos + 1)
    return pos, If(condition, then_body, else_body, Span(start, _end(cx, pos)))


def _assign_or_expression(cx: _Cx, pos: int) -> tuple[int, Stmt]:
    pos, expr = _expression(cx, pos)
    if cx.tokens[pos].value != "=":
        return pos, ExprStmt(expr, expr.span)
    pos, value = _expression(cx, pos + 1)
    return pos, Assign(expr, value, Span(expr.span.start, value.span.end))


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
    _enter(cx, pos)
    levels = 1
    tokens = cx.tokens
    pos, left = _unary(cx, pos) if tokens[pos].value == "not" else _postfix(cx, pos)
    while True:
        operator = tokens[pos].value
        precedence = BINARY_PRECEDENCE.get(operator)
        if precedence is None or precedence < min_precedence:
            break
        _enter(cx, pos)
        levels += 1
        pos, right = _expression(cx, pos + 1, precedence + 1)
        left = Binary(operator, left, right, Span(left.span.start, right.span.end))
    cx.depth -= levels
    return pos, left


def _unary(cx: _Cx, pos: int) -> Parsed:
    """One or more ``not`` before a postfix expression (the caller saw the first ``not``)."""
    tokens = cx.tokens
    starts: list[Position] = []
    while tokens[pos].value == "not":
        _enter(cx, pos)
        starts.append(tokens[pos].start)
        pos += 1
    pos, expr = _postfix(cx, pos)
    for start in reversed(starts):
        expr = Not(expr, Span(start, expr.span.end))
    cx.depth -= len(starts)
    return pos, expr


def _postfix(cx: _Cx, pos: int) -> Parsed:
    tokens = cx.tokens
    pos, expr = _primary(cx, pos)
    levels = 0
    while True:
        value = tokens[pos].value
        if value in POSTFIX_STARTS:
            _enter(cx, pos)
            levels += 1
        if value == ".":
            pos, name = _name(cx, pos + 1, "Expected property name")
            expr = Member(expr, name.value, Span(expr.span.start, name.end))
        elif value == "(":
            pos += 1
            args: list[Expr] = []
            while not _at_close(tokens[pos], ")"):
                pos, arg = _expression(cx, pos)
                args.append(arg)
                if tokens[pos].value == ",":
                    pos += 1
            pos = _expect(cx, pos, ")")
            expr = Call(expr, tuple(args), Span(expr.span.start, _end(cx, pos)))
        elif value == "[":
            pos, index = _expression(cx, pos + 1)
            pos = _expect(cx, pos, "]")
            expr = Index(expr, index, Span(expr.span.start, _end(cx, pos)))
        else:
            cx.depth -= levels
            return pos, expr


def _primary(cx: _Cx, pos: int) -> Parsed:
    token = cx.tokens[pos]
    value = token.value
    kind = token.kind
    if value == "generate":
        return _generate(cx, pos)
    if kind == STRING:
        return pos + 1, String(value, token.span)
    if kind == NUMBER:
        return pos + 1, Number(js_parse_float(value), value, token.span)
    if value in BOOLEANS:
        return pos + 1, Boolean(value == "true", token.span)
    if value == "none":
        return pos + 1, NoneLiteral(token.span)
    if value == "{":
        return _object(cx, pos)
    if value == "[":
        return _list(cx, pos)
    if kind in NAME_KINDS:
        return pos + 1, Identifier(value, token.span)
    raise _error(cx, pos, "Expected expression")


def _list(cx: _Cx, pos: int) -> Parsed:
    tokens = cx.tokens
    start = tokens[pos].start
    pos += 1
    items: list[Expr] = []
    while not _at_close(tokens[pos], "]"):
        pos, item = _expression(cx, pos)
        items.append(item)
        if tokens[pos].value == ",":
            pos += 1
    pos = _expect(cx, pos, "]")
    return pos, ListExpr(tuple(items), Span(start, _end(cx, pos)))


def _key(cx: _Cx, pos: int) -> tuple[int, Token]:
    token = cx.tokens[pos]
    if token.kind not in KEY_KINDS:
        raise _error(cx, pos, "Expected object key")
    return _expect(cx, pos + 1, ":"), token


def _separator(cx: _Cx, pos: int) -> int:
    """Object fields need commas (0.1.5); a trailing one before ``}`` is fine."""
    return pos if cx.tokens[pos].value == "}" else _expect(cx, pos, ",")


def _object(cx: _Cx, pos: int) -> Parsed:
    tokens = cx.tokens
    start = tokens[pos].start
    pos += 1
    properties: list[Property] = []
    while not _at_close(tokens[pos], "}"):
        pos, key = _key(cx, pos)
        pos, value = _expression(cx, pos)
        properties.append(Property(key.value, value, Span(key.start, value.span.end)))
        pos = _separator(cx, pos)
    pos = _expect(cx, pos, "}")
    return pos, ObjectExpr(tuple(properties), Span(start, _end(cx, pos)))


def _generate(cx: _Cx, pos: int) -> Parsed:
    start = cx.tokens[pos].start
    pos = _expect(cx, pos + 1, "(")
    pos, options = _generate_options(cx, pos)
    pos = _expect(cx, pos, ")")
    shape = None
    if cx.tokens[pos].value == "->":
        pos, shape = _shape(cx, pos + 1)
    return pos, Generate(options, shape, Span(start, _end(cx, pos)))


def _generate_options(cx: _Cx, pos: int) -> tuple[int, GenerateOptions]:
    tokens = cx.tokens
    start = tokens[pos].start
    pos = _expect(cx, pos, "{")
    properties: list[Property] = []
    max_output = None
    while not _at_close(tokens[pos], "}"):
        pos, key = _key(cx, pos)
        value: Expr
        if key.value == "max_output":
            token = tokens[pos]
            pos, max_output = _budget(cx, pos, "Expected generate max_output")
            value = Number(js_parse_float(token.value), token.value, token.span)
        else:
            pos, value = _expression(cx, pos)
        properties.append(Property(key.value, value, Span(key.start, value.span.end)))
        pos = _separator(cx, pos)
    pos = _expect(cx, pos, "}")
    return pos, GenerateOptions(tuple(properties), max_output, Span(start, _end(cx, pos)))


# Shapes -----------------------------------------------------------------------------------------


def _shape(cx: _Cx, pos: int) -> tuple[int, Shape]:
    tokens = cx.tokens
    start = tokens[pos].start
    pos = _expect(cx, pos, "{")
    fields: list[ShapeField] = []
    while not _at_close(tokens[pos], "}"):
        pos, name = _name(cx, pos, "Expected shape field name")
        pos, shape_type = _shape_type(cx, pos)
        fields.append(ShapeField(name.value, shape_type, Span(name.start, shape_type.span.end)))
        if tokens[pos].value == ",":
            pos += 1
    pos = _expect(cx, pos, "}")
    return pos, Shape(tuple(fields), Span(start, _end(cx, pos)))


def _shape_type(cx: _Cx, pos: int) -> tuple[int, ShapeType]:
    start = cx.tokens[pos].start
    pos, name = _name(cx, pos, "Expected shape type")
    if name.value != "list" or cx.tokens[pos].value != "[":
        return pos, NamedType(name.value, Span(start, name.end))
    _enter(cx, pos)
    pos, item = _shape_type(cx, pos + 1)
    pos = _expect(cx, pos, "]")
    cx.depth -= 1
    return pos, ListType(item, Span(start, _end(cx, pos)))
