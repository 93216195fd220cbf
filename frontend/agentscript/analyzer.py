"""The static checks of AgentScript 0.1.5: every diagnostic the reference's ``analyze`` reports.

The checks walk the program once, in source order, and report every finding of the run in the order
the reference finds them (it does not sort). Codes, message texts and the node each one points at are
the reference's, including its quirks, because tools match on them:

* a variable first assigned inside a block is unknown after the block (scopes are lexical blocks);
* only the ``input`` option of a ``generate`` is checked for unknown names, the other options only
  for their literal kind;
* ``role`` / ``description`` must be string *literals*;
* an unknown method on a memory binding is reported twice (once as a callee, once for its arity),
  since the reference walks a memory call through both checks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...core.records import dataclass_record
from ...core.units import MAX_BUDGET
from .diagnostics import Diagnostic
from .positions import SourceFile, Span
from .syntax import (
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
    Identifier,
    If,
    Index,
    ListExpr,
    ListType,
    LoopUntil,
    Member,
    NamedType,
    Not,
    Number,
    ObjectExpr,
    Program,
    Repeat,
    Return,
    Shape,
    ShapeType,
    Stmt,
    String,
    Use,
)

__all__ = ["CODES", "MAX_ITERATIONS", "analyze"]

CODES = frozenset(
    {
        "DUPLICATE_IMPORT", "DUPLICATE_AGENT", "DUPLICATE_MAIN_AGENT", "MISSING_MAIN_AGENT",
        "MISSING_MAIN_FUNC", "DUPLICATE_FUNCTION", "DUPLICATE_MAIN_FUNC", "DUPLICATE_BINDING",
        "DUPLICATE_PARAM", "PARAM_SHADOWS_IMPORT", "INVALID_PARAM_SHAPE", "INVALID_BUDGET",
        "RESERVED_CONTEXT_LABEL", "INVALID_ITERATION_LIMIT", "INVALID_CONFIG", "UNKNOWN_MODEL",
        "INVALID_MODEL", "INVALID_ASSIGNMENT_TARGET", "UNKNOWN_IDENTIFIER", "INVALID_USE_RESOURCE",
        "UNKNOWN_FUNCTION", "NOT_CALLABLE", "UNKNOWN_MEMORY_METHOD", "INVALID_ARGUMENT_COUNT",
        "DUPLICATE_GENERATE_OPTION", "INVALID_GENERATE_INPUT", "INVALID_GENERATE_ATTEMPTS",
        "INVALID_GENERATE_MAX_OUTPUT", "INVALID_GENERATE_TEMPERATURE", "INVALID_GENERATE_THINK",
        "INVALID_GENERATE_STRICT", "INVALID_GENERATE_DEBUG", "UNKNOWN_GENERATE_OPTION",
        "MISSING_GENERATE_CONFIG", "DUPLICATE_SHAPE_FIELD", "UNKNOWN_SHAPE_TYPE",
    }
)  # fmt: skip

IMPORTED_KINDS = frozenset({"tool", "llm", "file", "agent", "memory"})
# Runtime capabilities: their values must never become prompt text. Files are data, so allowed.
NOT_CONTEXT_KINDS = frozenset({"tool", "llm", "agent", "function", "memory"})
RESERVED_CONTEXT_LABELS = frozenset({"system", "assistant", "tool", "developer"})
MEMORY_METHODS = frozenset({"add", "query"})
SHAPE_TYPE_NAMES = frozenset({"string", "number", "boolean", "json", "list"})
THINK_LEVELS = frozenset({"auto", "low", "medium", "high"})
CONFIG_KEYS = ("model", "role", "description")

MAX_ITERATIONS = 1_000_000
"""The largest count of ``repeat * N``, ``for ... max N`` and ``loop until ... max N``.

The reference takes any count, so ``repeat * 9223372036854775808`` spins until it is killed, and a
count of thousands of digits is not even a number Python can count to. A loop in AgentScript
repeats model and tool calls a handful of times (the reference's examples use 2 to 8); a million
passes of a trivial body take about two seconds here, and a count above it can only be a slip or a
runaway, so the checks refuse it (``INVALID_ITERATION_LIMIT``) rather than let the run hang."""


@dataclass_record(frozen=True, slots=True)
class _Binding:
    """What a name is bound to where the checks look it up: its kind and, for a function, its
    agent, name and number of parameters."""

    kind: str  # param, local, function, or an import kind
    agent: str | None = None
    function: str | None = None
    arity: int | None = None

    def __init__(
        self,
        kind: str,
        agent: str | None = None,
        function: str | None = None,
        arity: int | None = None,
    ) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "agent", agent)
        object.__setattr__(self, "function", function)
        object.__setattr__(self, "arity", arity)


_PARAM = _Binding("param")
_LOCAL = _Binding("local")  # bindings are frozen, so every local shares one (a frozen init costs 0.5 us)


class _Scope:
    """Names and config keys of one lexical block; lookups walk outwards."""

    __slots__ = ("bindings", "configs", "parent")

    def __init__(self, parent: _Scope | None = None) -> None:
        self.parent = parent
        self.bindings: dict[str, _Binding] = {}
        self.configs: set[str] = set()

    def define(self, name: str, binding: _Binding) -> None:
        self.bindings.setdefault(name, binding)  # the first definition in a block wins

    def resolve(self, name: str) -> _Binding | None:
        scope: _Scope | None = self
        while scope is not None:
            found = scope.bindings.get(name)
            if found is not None:
                return found
            scope = scope.parent
        return None

    def has_config(self, key: str) -> bool:
        scope: _Scope | None = self
        while scope is not None:
            if key in scope.configs:
                return True
            scope = scope.parent
        return False

    def child(self) -> _Scope:
        return _Scope(self)


def analyze(program: Program) -> list[Diagnostic]:
    """Every static finding for ``program``, in the order the reference reports them."""
    return _Analyzer().run(program)


def _is_positive_integer(expr: Expr) -> bool:
    return isinstance(expr, Number) and math.isfinite(expr.value) and expr.value > 0 and expr.value.is_integer()


class _Analyzer:
    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.agent_decls: dict[str, Agent] = {}
        self.imports: dict[str, str] = {}  # name -> kind, first import of a name only
        self.agents: dict[str, None] = {}  # every agent name, imported or declared, in first-seen order
        self.file: SourceFile | None = None  # the file of the agent being checked, when not the program's

    def error(self, code: str, message: str, span: Span) -> None:
        self.diagnostics.append(Diagnostic(code, message, span, file=self.file))

    def run(self, program: Program) -> list[Diagnostic]:
        self.check_imports(program)
        self.check_agents(program)
        return self.diagnostics

    # Program level --------------------------------------------------------------------------------

    def check_imports(self, program: Program) -> None:
        for declared in program.imports:
            if declared.name in self.imports:
                self.file = declared.file
                self.error("DUPLICATE_IMPORT", f"Duplicate import '{declared.name}'", declared.span)
                self.file = None
                continue
            self.imports[declared.name] = declared.resource
            if declared.resource == "agent":
                self.agents[declared.name] = None

    def check_agents(self, program: Program) -> None:
        main_agent: Agent | None = None
        for agent in program.agents:
            self.file = agent.file
            if agent.name in self.agent_decls:
                self.error("DUPLICATE_AGENT", f"Duplicate agent '{agent.name}'", agent.span)
            self.agent_decls[agent.name] = agent
            self.agents[agent.name] = None
            if agent.is_main:
                if main_agent is not None:
                    self.error("DUPLICATE_MAIN_AGENT", "Program can only have one main agent", agent.span)
                main_agent = agent  # the last main agent is the entry, as in the reference
        self.file = None
        if main_agent is None and len(program.agents) > 1:
            self.error("MISSING_MAIN_AGENT", "Program with multiple agents must declare one main agent", program.span)
        entry = main_agent or (program.agents[0] if len(program.agents) == 1 else None)
        if entry is not None and not any(function.is_main for function in entry.functions):
            self.file = entry.file
            self.error("MISSING_MAIN_FUNC", "Entry agent must declare one main func", entry.span)
        program_scope = self.program_scope()
        for agent in program.agents:
            self.file = agent.file
            self.check_agent(agent, program_scope)
        self.file = None

    def program_scope(self) -> _Scope:
        """Imports, then every agent: the names every agent sees (built once, not once per agent)."""
        scope = _Scope()
        for name, kind in self.imports.items():
            scope.define(name, _Binding(kind, agent=name if kind == "agent" else None))
        for name in self.agents:
            scope.define(name, _Binding("agent", agent=name))
        return scope

    def check_agent(self, agent: Agent, program_scope: _Scope) -> None:
        scope = program_scope.child()
        seen: set[str] = set()
        main_func: Function | None = None
        for function in agent.functions:
            if function.name in seen:
                self.error(
                    "DUPLICATE_FUNCTION", f"Duplicate function '{function.name}' in agent '{agent.name}'", function.span
                )
                continue
            if function.is_main:
                if main_func is not None:
                    self.error(
                        "DUPLICATE_MAIN_FUNC", f"Agent '{agent.name}' can only have one main func", function.span
                    )
                main_func = function
            existing = scope.resolve(function.name)
            if existing is not None and existing.kind != "function":
                self.error(
                    "DUPLICATE_BINDING",
                    f"Function '{function.name}' conflicts with an imported {existing.kind}",
                    function.span,
                )
                continue
            seen.add(function.name)
            scope.define(function.name, _function_binding(agent.name, function))
        for config in agent.config:
            self.check_config(config, scope)
        for function in agent.functions:
            self.check_function(function, scope)

    def check_function(self, function: Function, agent_scope: _Scope) -> None:
        scope = agent_scope.child()
        names: set[str] = set()
        for index, param in enumerate(function.params):
            if param.name in names:
                self.error(
                    "DUPLICATE_PARAM", f"Duplicate parameter '{param.name}' in function '{function.name}'", param.span
                )
                continue
            names.add(param.name)
            existing = scope.resolve(param.name)
            if existing is not None and existing.kind in IMPORTED_KINDS:
                self.error(
                    "PARAM_SHADOWS_IMPORT",
                    f"Parameter '{param.name}' conflicts with an imported {existing.kind}",
                    param.span,
                )
            scope.define(param.name, _PARAM)
            if param.shape is not None:
                if not function.is_main or index != 0 or param.name != "input":
                    self.error(
                        "INVALID_PARAM_SHAPE",
                        "V0 only supports shape declarations on the main func input parameter",
                        param.span,
                    )
                self.check_shape(param.shape)
        self.check_block(function.body, scope)

    # Statements -----------------------------------------------------------------------------------

    def check_block(self, statements: tuple[Stmt, ...], scope: _Scope) -> None:
        for statement in statements:
            self.check_statement(statement, scope)

    def check_statement(self, statement: Stmt, scope: _Scope) -> None:
        if isinstance(statement, ExprStmt):
            self.check_expression(statement.expr, scope)
        elif isinstance(statement, Assign):
            self.check_assignment(statement, scope)
        elif isinstance(statement, Use):
            self.check_use(statement, scope)
        elif isinstance(statement, Config):
            self.check_config(statement, scope)
        elif isinstance(statement, If):
            self.check_expression(statement.condition, scope)
            self.check_block(statement.then_body, scope.child())
            if statement.else_body is not None:
                self.check_block(statement.else_body, scope.child())
        elif isinstance(statement, ForIn):
            self.check_expression(statement.iterable, scope)
            if statement.limit <= 0:
                self.error("INVALID_ITERATION_LIMIT", "For iteration count must be greater than 0", statement.span)
            self.check_iteration_count(statement.limit, statement.span)
            body_scope = scope.child()
            body_scope.define(statement.item, _LOCAL)
            self.check_block(statement.body, body_scope)
        elif isinstance(statement, LoopUntil):
            self.check_expression(statement.condition, scope)
            self.check_iteration_count(statement.limit, statement.span)
            self.check_block(statement.body, scope.child())
        elif isinstance(statement, Repeat):
            self.check_iteration_count(statement.count, statement.span)
            self.check_block(statement.body, scope.child())
        elif isinstance(statement, Return):
            self.check_expression(statement.value, scope)

    def check_iteration_count(self, count: float, span: Span) -> None:
        if count > MAX_ITERATIONS:
            self.error("INVALID_ITERATION_LIMIT", f"Iteration count must be at most {MAX_ITERATIONS}", span)

    def check_use(self, statement: Use, scope: _Scope) -> None:
        self.check_expression(statement.value, scope)
        root = _root_identifier(statement.value)
        if root is not None:
            binding = scope.resolve(root.name)
            if binding is not None and binding.kind in NOT_CONTEXT_KINDS:
                self.error(
                    "INVALID_USE_RESOURCE", f"Resource '{root.name}' cannot be used as prompt context", root.span
                )
        if statement.budget is not None and statement.budget.amount <= 0:
            self.error("INVALID_BUDGET", "Budget amount must be greater than 0", statement.span)
        elif statement.budget is not None and not math.isfinite(statement.budget.amount):
            # A finite budget of any size is the reference's (one longer than any text clips nothing);
            # hundreds of digits read as Infinity, which no count can be.
            self.error("INVALID_BUDGET", "Budget must be a finite number", statement.span)
        if statement.label and statement.label in RESERVED_CONTEXT_LABELS:
            self.error("RESERVED_CONTEXT_LABEL", f"Context label '{statement.label}' is reserved", statement.span)

    def check_config(self, config: Config, scope: _Scope) -> None:
        scope.configs.add(config.key)
        value = config.value
        if config.key == "model":
            if not isinstance(value, Identifier):
                self.error("INVALID_CONFIG", "model must reference an imported llm name", value.span)
                return
            binding = scope.resolve(value.name)
            if binding is None:
                self.error("UNKNOWN_MODEL", f"Unknown model import '{value.name}'", value.span)
            elif binding.kind != "llm":
                self.error("INVALID_MODEL", "model must reference an imported llm", value.span)
        elif not isinstance(value, String):
            self.error("INVALID_CONFIG", f"{config.key} must be a string", value.span)

    def check_assignment(self, statement: Assign, scope: _Scope) -> None:
        self.check_expression(statement.value, scope)
        target = statement.target
        if isinstance(target, Identifier):
            scope.define(target.name, _LOCAL)
        elif isinstance(target, Member):
            self.check_expression(target.object, scope)
        else:
            self.error(
                "INVALID_ASSIGNMENT_TARGET", "Assignment target must be an identifier or member expression", target.span
            )

    # Expressions ----------------------------------------------------------------------------------

    def check_expression(self, expr: Expr, scope: _Scope) -> None:
        if isinstance(expr, Identifier):  # the most common by far, so before the table
            if scope.resolve(expr.name) is None:
                self.error("UNKNOWN_IDENTIFIER", f"Unknown identifier '{expr.name}'", expr.span)
            return
        check = _EXPRESSION_CHECKS.get(type(expr))
        if check is not None:  # literals have nothing to check
            check(self, expr, scope)

    def check_member(self, expr: Member, scope: _Scope) -> None:
        self.check_expression(expr.object, scope)

    def check_index(self, expr: Index, scope: _Scope) -> None:
        self.check_expression(expr.object, scope)
        self.check_expression(expr.index, scope)

    def check_binary(self, expr: Binary, scope: _Scope) -> None:
        self.check_expression(expr.left, scope)
        self.check_expression(expr.right, scope)

    def check_not(self, expr: Not, scope: _Scope) -> None:
        self.check_expression(expr.operand, scope)

    def check_list(self, expr: ListExpr, scope: _Scope) -> None:
        for item in expr.items:
            self.check_expression(item, scope)

    def check_object(self, expr: ObjectExpr, scope: _Scope) -> None:
        for prop in expr.properties:
            self.check_expression(prop.value, scope)

    def check_call(self, call: Call, scope: _Scope) -> None:
        self.check_callee(call.callee, scope)
        for arg in call.args:
            self.check_expression(arg, scope)
        self.check_arity(call, scope)

    def check_callee(self, callee: Expr, scope: _Scope) -> None:
        if isinstance(callee, Identifier):
            binding = scope.resolve(callee.name)
            if binding is None:
                self.error("UNKNOWN_FUNCTION", f"Unknown function '{callee.name}'", callee.span)
            elif binding.kind not in ("function", "agent"):
                self.error("NOT_CALLABLE", f"'{callee.name}' is not an agent function or agent", callee.span)
            return
        if isinstance(callee, Member):
            self.check_expression(callee.object, scope)
            if isinstance(callee.object, Identifier):
                binding = scope.resolve(callee.object.name)
                if binding is not None and binding.kind == "memory" and callee.property not in MEMORY_METHODS:
                    self.error(
                        "UNKNOWN_MEMORY_METHOD",
                        f"Unknown memory method '{callee.object.name}.{callee.property}'",
                        callee.span,
                    )
            return
        self.check_expression(callee, scope)
        self.error("NOT_CALLABLE", "Only agent functions and member calls can be called in V0", callee.span)

    def check_arity(self, call: Call, scope: _Scope) -> None:
        callee = call.callee
        if isinstance(callee, Identifier):
            binding = scope.resolve(callee.name)
            if binding is None:
                return
            if binding.kind == "function":
                self.check_expected_arity(binding, len(call.args), call.span)
            elif binding.kind == "agent" and binding.agent:
                main = self.agent_function(binding.agent, None)
                if main is None:
                    self.error("UNKNOWN_FUNCTION", f"Agent '{binding.agent}' has no callable main func", callee.span)
                else:
                    self.check_expected_arity(_function_binding(binding.agent, main), len(call.args), call.span)
            return
        if not isinstance(callee, Member) or not isinstance(callee.object, Identifier):
            return
        binding = scope.resolve(callee.object.name)
        if binding is None:
            return
        if binding.kind == "agent" and binding.agent:
            function = self.agent_function(binding.agent, callee.property)
            if function is None:
                self.error("UNKNOWN_FUNCTION", f"Unknown function '{binding.agent}.{callee.property}'", callee.span)
            else:
                self.check_expected_arity(_function_binding(binding.agent, function), len(call.args), call.span)
        elif binding.kind == "memory":
            method = f"{callee.object.name}.{callee.property}"
            if callee.property not in MEMORY_METHODS:
                self.error("UNKNOWN_MEMORY_METHOD", f"Unknown memory method '{method}'", callee.span)
            elif len(call.args) != 1:
                self.error(
                    "INVALID_ARGUMENT_COUNT",
                    f"Memory method '{method}' expects 1 argument(s), got {len(call.args)}",
                    call.span,
                )

    def check_expected_arity(self, binding: _Binding, actual: int, span: Span) -> None:
        if binding.arity is None or binding.arity == actual:
            return
        name = f"{binding.agent}.{binding.function}" if binding.agent and binding.function else "function"
        self.error(
            "INVALID_ARGUMENT_COUNT", f"Function '{name}' expects {binding.arity} argument(s), got {actual}", span
        )

    def agent_function(self, agent: str, name: str | None) -> Function | None:
        """A declared agent's function by name, or its main func when ``name`` is None."""
        declared = self.agent_decls.get(agent)
        if declared is None:
            return None
        for function in declared.functions:
            if function.is_main if name is None else function.name == name:
                return function
        return None

    def check_generate(self, generate: Generate, scope: _Scope) -> None:
        options = generate.options
        instruction = options.get("input")
        if instruction is not None:
            self.check_expression(instruction.value, scope)
        self.check_generate_options(generate)
        if generate.shape is not None:
            self.check_shape(generate.shape)
        for key in CONFIG_KEYS:
            if not scope.has_config(key):
                self.error("MISSING_GENERATE_CONFIG", f"generate requires {key} in the current scope", generate.span)

    def check_generate_options(self, generate: Generate) -> None:
        options = generate.options
        seen: set[str] = set()
        has_input = False
        for prop in options.properties:
            key = prop.key
            value = prop.value
            if key in seen:
                self.error("DUPLICATE_GENERATE_OPTION", f"Duplicate generate option '{key}'", prop.span)
            seen.add(key)
            if key == "input":
                has_input = True
            elif key == "attempts":
                if not _is_positive_integer(value):
                    self.error("INVALID_GENERATE_ATTEMPTS", "generate attempts must be a positive integer", value.span)
            elif key == "max_output":
                if options.max_output is None or options.max_output.amount <= 0:
                    self.error(
                        "INVALID_GENERATE_MAX_OUTPUT", "generate max_output must be a positive budget", value.span
                    )
                elif _budget_count(options.max_output) > MAX_BUDGET:
                    self.error(
                        "INVALID_GENERATE_MAX_OUTPUT",
                        f"generate max_output must come to at most {MAX_BUDGET} (2^53) tokens",
                        value.span,
                    )
            elif key == "temperature":
                if not isinstance(value, Number):
                    self.error("INVALID_GENERATE_TEMPERATURE", "generate temperature must be a number", value.span)
                elif not math.isfinite(value.value):
                    self.error(
                        "INVALID_GENERATE_TEMPERATURE", "generate temperature must be a finite number", value.span
                    )
            elif key == "think":
                if not isinstance(value, Boolean) and not (isinstance(value, String) and value.value in THINK_LEVELS):
                    self.error(
                        "INVALID_GENERATE_THINK",
                        "generate think must be a boolean or one of auto, low, medium, high",
                        value.span,
                    )
            elif key in ("strict", "debug"):
                if not isinstance(value, Boolean):
                    self.error(f"INVALID_GENERATE_{key.upper()}", f"generate {key} must be a boolean", value.span)
            else:
                self.error("UNKNOWN_GENERATE_OPTION", f"Unknown generate option '{key}'", prop.span)
        if not has_input:
            self.error("INVALID_GENERATE_INPUT", "generate object argument requires an input field", options.span)

    def check_shape(self, shape: Shape) -> None:
        names: set[str] = set()
        for shape_field in shape.fields:
            if shape_field.name in names:
                self.error(
                    "DUPLICATE_SHAPE_FIELD", f"Duplicate generate return field '{shape_field.name}'", shape_field.span
                )
            names.add(shape_field.name)
            self.check_shape_type(shape_field.type)

    def check_shape_type(self, shape_type: ShapeType) -> None:
        while isinstance(shape_type, ListType):
            shape_type = shape_type.item
        if isinstance(shape_type, NamedType) and shape_type.name not in SHAPE_TYPE_NAMES:
            self.error("UNKNOWN_SHAPE_TYPE", f"Unsupported shape type '{shape_type.name}'", shape_type.span)


_EXPRESSION_CHECKS: dict[type[Expr], Callable[[_Analyzer, Any, _Scope], None]] = {
    Member: _Analyzer.check_member,
    Call: _Analyzer.check_call,
    Generate: _Analyzer.check_generate,
    Index: _Analyzer.check_index,
    Binary: _Analyzer.check_binary,
    Not: _Analyzer.check_not,
    ListExpr: _Analyzer.check_list,
    ObjectExpr: _Analyzer.check_object,
}
"""How each kind of expression is checked, by its class: one lookup instead of a chain of
``isinstance`` that a literal ran to its end."""


def _budget_count(budget: Budget) -> float:
    """What a budget comes to as the reference reads it: ``k`` is thousands, any other unit plain."""
    return budget.amount * (1000 if budget.unit == "k" else 1)


def _function_binding(agent: str, function: Function) -> _Binding:
    return _Binding("function", agent=agent, function=function.name, arity=len(function.params))


def _root_identifier(expr: Expr) -> Identifier | None:
    """The name a ``use`` reads from: the root of a member / index chain (calls are not followed)."""
    while isinstance(expr, Member | Index):
        expr = expr.object
    return expr if isinstance(expr, Identifier) else None
