"""Running an AgentScript 0.1.5 program: scopes, ``use`` laziness, agents, and ``generate``.

A tree-walking interpreter over the typed AST of :mod:`.syntax`. Each ``generate`` builds a core
:class:`Prompt` from the visible ``use`` declarations (evaluated then, in the scope that declared
them), the identity in scope and the generate's options and shape, and hands it to the core runtime
(:func:`promptwire.calls.generate.generate`) with AgentScript's own renderer and the adapter the run
was given. Trace events are recorded as the reference emits them (worded in :mod:`.trace`), and
every model call is kept (:attr:`Interpreter.calls`) for whoever shows them after the run.

Tool and memory calls go to the scheme registered for the binding's URI scheme (``tool_scheme``,
a lookup the caller supplies from the plugin host; the built-ins live in ``promptwire.tools``). A
tool's arguments may hold ``†input.…`` / ``†state.…`` references, resolved before the tool sees
them. Not here: the interactive input prompt.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...calls.generate import generate
from ...calls.links import Chain
from ...calls.targets import Router
from ...calls.watch import Watcher
from ...core.budget import Budget as CoreBudget
from ...core.call import ModelAdapter, ModelCall, Site
from ...core.coercion import ResultError, field_types, mismatch
from ...core.errors import FieldError, ModelOutputError, ModelRouteError, PromptwireError, UnknownNameError
from ...core.nesting import MAX_REPEATED_VALUES, REPEATED_VALUES_REFUSED, recursion_room
from ...core.permissions import Permissions
from ...core.prompt import ContextItem, GenerateConfig, Identity, Prompt, assembled_prompt
from ...core.records import FACTORY, dataclass_record
from ...core.references import resolve, resolve_arguments
from ...core.rendered import RenderedPrompt
from ...core.stepping import blocking
from ...core.text_files import decode_text
from ...core.units import MAX_BUDGET
from ...renderers.agentscript.clipping import Clip
from ...renderers.agentscript.jsjson import js_number, js_numbers, stringify
from ...renderers.agentscript.renderer import renderer
from ...renderers.agentscript.shape import shape_contract
from .diagnostics import AgentScriptError
from .positions import SourceFile, Span, line_text
from .syntax import (
    ANONYMOUS_MAIN_AGENT,
    Agent,
    Assign,
    Binary,
    Boolean,
    Budget,
    Call,
    Config,
    ExprStmt,
    ForIn,
    Function,
    Generate,
    GenerateOptions,
    Identifier,
    If,
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
    Program,
    Repeat,
    Return,
    ShapeType,
    String,
    Use,
)
from .trace import budget_json, generate_event, notes_events
from .unparse import expression_source

if TYPE_CHECKING:
    from ...core.tools import ToolScheme

__all__ = ["Interpreter", "RunError"]

MAX_CALL_DEPTH = 1000
# Python frames one program call takes when it sits a few blocks deep (a bare call takes 5, each
# enclosing if/for/repeat/loop 3 more): room for the reference's 1000 calls in ordinary programs.
FRAMES_PER_CALL = 16
RUNTIME_ERROR = "RUNTIME_ERROR"


class RunError(AgentScriptError):
    """A runtime error, located like a compiler's error (the reference's message text kept)."""


@dataclass_record(frozen=True)
class Binding:
    """An opaque resource: ``kind`` is tool, llm, memory, agent or function."""

    kind: str
    name: str
    uri: str | None = None
    agent: str | None = None

    def __init__(self, kind: str, name: str, uri: str | None = None, agent: str | None = None) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "uri", uri)
        object.__setattr__(self, "agent", agent)

    def to_json(self) -> dict[str, Any]:
        if self.kind == "function":
            return {"function": self.name, "agent": self.agent}
        if self.kind == "agent":
            return {"agent": self.name}
        return {self.kind: self.name, "uri": self.uri}


@dataclass_record(eq=False)
class _UseRecord:
    """A ``use`` declaration and the scope that declared it (it is evaluated there, when a
    ``generate`` reads it)."""

    node: Use
    scope: _Scope

    def __init__(self, node: Use, scope: _Scope) -> None:
        self.node = node
        self.scope = scope


@dataclass_record(eq=False)  # a scope is itself, not its contents
class _Scope:
    """One block's names, configuration and ``use`` declarations, each name looked up through the
    parents."""

    parent: _Scope | None
    names: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)
    uses: list[_UseRecord] = field(default_factory=list)
    globals: dict[str, Any] | None = None  # the root's imports, agents and functions
    agent: Agent | None = None  # the root's: the agent whose function runs in this scope

    def __init__(
        self,
        parent: _Scope | None,
        names: dict[str, Any] = FACTORY,
        config: dict[str, Any] = FACTORY,
        uses: list[_UseRecord] = FACTORY,
        globals: dict[str, Any] | None = None,
        agent: Agent | None = None,
    ) -> None:
        self.parent = parent
        self.names = dict() if names is FACTORY else names
        self.config = dict() if config is FACTORY else config
        self.uses = list() if uses is FACTORY else uses
        self.globals = globals
        self.agent = agent

    def lookup(self, name: str) -> tuple[bool, Any]:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.names:
                return True, scope.names[name]
            if scope.globals is not None and name in scope.globals:
                return True, scope.globals[name]
            scope = scope.parent
        return False, None

    def assign(self, name: str, value: Any) -> None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.names:
                scope.names[name] = value
                return
            scope = scope.parent
        self.names[name] = value

    def config_value(self, key: str) -> Any:
        scope: _Scope | None = self
        while scope is not None:
            if key in scope.config:
                return scope.config[key]
            scope = scope.parent
        return None

    def visible_uses(self) -> list[_UseRecord]:
        inherited = self.parent.visible_uses() if self.parent is not None else []
        return inherited + self.uses


def _call_room() -> AbstractContextManager[None]:
    """Let a run reach the reference's call depth: Python's default limit of 1000 frames is met
    after about 200 program calls."""
    return recursion_room(MAX_CALL_DEPTH * FRAMES_PER_CALL + 200)


class _ShownClips:
    """AgentScript's render of each attempt of one generate, keeping the last one and what it showed
    of each context item: the trace records those (the reference's trace is AgentScript's) instead of
    clipping every value again. With ``send``, each attempt is sent as ``send`` renders it."""

    def __init__(self, send: Callable[[Prompt], RenderedPrompt] | None = None) -> None:
        self.send = send
        self.clips: list[Clip] = []
        self.last: RenderedPrompt | None = None

    def render(self, prompt: Prompt) -> RenderedPrompt:
        self.last, self.clips = renderer.render_with_clips(prompt)
        return self.last if self.send is None else self.send(prompt)


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


@dataclass_record(eq=False)  # one run: two are never the same, whatever they hold
class Interpreter:
    """One run of a program: ``adapter`` (or a router) answers its model calls, through the links of
    ``chain``; ``watchers`` are told of each (the debug text of the generates that ask for it is
    one, :class:`.trace.DebugText`). After :meth:`run`, ``trace`` holds the reference's trace and
    ``calls`` every model call in order (also after a failed run: a :class:`PromptwireError` that
    ends a run carries them as ``error.calls``)."""

    program: Program
    adapter: ModelAdapter | Router
    chain: Chain = field(default_factory=Chain)
    """The links each model call passes through (see :mod:`promptwire.calls.links`)."""
    tool_scheme: Callable[[str], ToolScheme] | None = None
    tool_context: Permissions = field(default_factory=lambda: Permissions(Path.cwd()))
    timeout: float | None = None
    stream: bool = False
    """Whether each model call is streamed (its text then goes to the watchers as it arrives)."""
    watchers: Sequence[Watcher] = ()
    """Told of each generate and each model call (each :class:`ModelCall` names its site)."""
    render: Callable[[Prompt], RenderedPrompt] | None = None
    """How each model call is rendered to be sent (a format's render): AgentScript's own text by
    default. The trace holds AgentScript's render whatever is sent, as the reference's does."""
    trace: list[dict[str, Any]] = field(default_factory=list)
    calls: list[ModelCall] = field(default_factory=list)
    _files: dict[str, Any] = field(default_factory=dict)
    _depth: int = 0
    _input: Any = None
    _out_of_stack_at: tuple[Span, SourceFile] | None = None
    _here: SourceFile | None = None  # the file of the code running now (the program's, until a call)

    def __init__(
        self,
        program: Program,
        adapter: ModelAdapter | Router,
        chain: Chain = FACTORY,
        tool_scheme: Callable[[str], ToolScheme] | None = None,
        tool_context: Permissions = FACTORY,
        timeout: float | None = None,
        stream: bool = False,
        watchers: Sequence[Watcher] = (),
        render: Callable[[Prompt], RenderedPrompt] | None = None,
        trace: list[dict[str, Any]] = FACTORY,
        calls: list[ModelCall] = FACTORY,
        _files: dict[str, Any] = FACTORY,
        _depth: int = 0,
        _input: Any = None,
        _out_of_stack_at: tuple[Span, SourceFile] | None = None,
        _here: SourceFile | None = None,
    ) -> None:
        self.program = program
        self.adapter = adapter
        self.chain = Chain() if chain is FACTORY else chain
        self.tool_scheme = tool_scheme
        self.tool_context = Permissions(Path.cwd()) if tool_context is FACTORY else tool_context
        self.timeout = timeout
        self.stream = stream
        self.watchers = watchers
        self.render = render
        self.trace = list() if trace is FACTORY else trace
        self.calls = list() if calls is FACTORY else calls
        self._files = dict() if _files is FACTORY else _files
        self._depth = _depth
        self._input = _input
        self._out_of_stack_at = _out_of_stack_at
        self._here = _here

    # --- entry ----------------------------------------------------------------------------------

    def run(self, input_value: Any = None, *, agent: str | None = None, function: str | None = None) -> Any:
        try:
            return self._run(input_value, agent, function)
        except _Unprintable as exc:  # an agent's settings, evaluated outside any block
            error = self._error(f"The value is too large to write out: {exc}", self.program.span)
            error.calls = tuple(self.calls)
            raise error from None
        except PromptwireError as exc:
            exc.calls = tuple(self.calls)
            raise

    def _run(self, input_value: Any, agent: str | None, function: str | None) -> Any:
        self._here = self.program.file_of()
        self._load_files()
        target = self._entry_agent(agent)
        func = self._entry_function(target, function)
        self._input = input_value if input_value is not None else {}
        args = [self._input] if func.params else []
        if func.params and func.params[0].shape is not None:
            self._check_input(args[0], func, self.program.file_of(target))
        with _call_room():
            try:
                return self._call(target, func, args, func.span)
            except RecursionError:
                # Calls inside deeply nested blocks, or a value built thousands of levels deep, can
                # use up Python's stack before the reference's call-depth limit is reached: still a
                # located error, not a crash.
                span, file = self._out_of_stack_at or (func.span, self.program.file_of(target))
                raise self._error(
                    "Program nests too deeply to run: calls inside many nested blocks, "
                    "or a value nested thousands of levels deep",
                    span,
                    file,
                ) from None

    def _entry_agent(self, name: str | None) -> Agent:
        agents = self.program.agents
        if name is not None:
            for agent in agents:
                if agent.name == name:
                    return agent
            raise self._error(f"Unknown agent '{name}'", self.program.span)
        mains = [agent for agent in agents if agent.is_main]
        if mains:
            return mains[0]
        if len(agents) == 1:
            return agents[0]
        raise self._error("main agent is required when a program contains multiple agents", self.program.span)

    def _entry_function(self, agent: Agent, name: str | None) -> Function:
        for func in agent.functions:
            if (name is None and func.is_main) or func.name == name:
                return func
        raise self._error(f"Unknown function '{agent.name}.{name or 'main'}'", agent.span, self.program.file_of(agent))

    def _check_input(self, value: Any, func: Function, file: SourceFile) -> None:
        shape = func.params[0].shape
        assert shape is not None
        kinds = field_types(shape_contract({f.name: _type_text(f.type) for f in shape.fields}).json_schema)
        for shape_field in shape.fields:
            if not isinstance(value, dict) or value.get(shape_field.name) is None:
                raise self._error(
                    f"Missing input 'input.{shape_field.name}' and no interactive input provider is available",
                    shape_field.span,
                    file,
                )
            failed = mismatch(value[shape_field.name], kinds[shape_field.name])
            if failed is not None:
                raise self._error(f"Input field must be a {failed}", shape_field.span, file)

    def _load_files(self) -> None:
        base = Path(self.program.path).parent if self.program.path else Path.cwd()
        for item in self.program.imports:
            if item.resource != "file":
                continue
            path = base / item.uri  # absolute already when the program was loaded from a file
            try:
                # Through the run's permissions: nothing outside the program's folder (and the
                # workspace) unless allowed, no /proc, FIFO or device, no symlink out.
                text = decode_text(self.tool_context.read_bytes(path))
                self._files[item.name] = json.loads(text) if path.suffix == ".json" else text
            except (OSError, ValueError, PromptwireError) as exc:  # a refusal names the flag to add
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                raise self._error(
                    f"Cannot read file '{item.uri}': {reason}", item.span, self.program.file_of(item)
                ) from None

    # --- calls ----------------------------------------------------------------------------------

    def _globals(self, agent: Agent) -> dict[str, Any]:
        names: dict[str, Any] = {other.name: Binding("agent", other.name) for other in self.program.agents}
        for item in self.program.imports:
            if item.resource == "file":
                names[item.name] = self._files.get(item.name)
            else:
                names[item.name] = Binding(item.resource, item.name, item.uri)
        for func in agent.functions:
            names[func.name] = Binding("function", func.name, agent=agent.name)
        return names

    def _call(self, agent: Agent, func: Function, args: list[Any], span: Span) -> Any:
        if len(args) != len(func.params):
            raise self._error(
                f"Function '{agent.name}.{func.name}' expects {len(func.params)} argument(s), got {len(args)}", span
            )
        if self._depth >= MAX_CALL_DEPTH:
            raise self._error(f"Maximum call depth of {MAX_CALL_DEPTH} exceeded", span)
        caller = self._file()
        self._here = self.program.file_of(agent)  # the callee's code runs in the callee's file
        root = _Scope(None, globals=self._globals(agent), agent=agent)
        self._depth += 1
        try:
            for config in agent.config:
                root.config[config.key] = self._eval(config.value, root)
            for param, value in zip(func.params, args, strict=True):
                root.names[param.name] = value
            return self._block(func.body, root, final_value=True)
        except _Return as done:
            return done.value
        except RecursionError:
            # No new frame may be entered here: only remember the innermost call (and the file it
            # is written in) for the message.
            if self._out_of_stack_at is None:
                self._out_of_stack_at = (span, caller)
            raise
        finally:
            self._depth -= 1
            self._here = caller

    def _agent_call(self, agent_name: str, function: str | None, args: list[Any], span: Span) -> Any:
        agent = next(a for a in self.program.agents if a.name == agent_name)
        func = self._entry_function(agent, function)
        outer, self.trace = self.trace, []
        try:
            result = self._call(agent, func, args, span)
        finally:
            inner, self.trace = self.trace, outer
        self.trace.append(
            {
                "kind": "agent",
                "data": {
                    "agent": agent.name,
                    "function": func.name,
                    "args": _json_value(args),
                    "result": _json_value(result),
                    "trace": inner,
                },
            }
        )
        return result

    # --- statements -----------------------------------------------------------------------------

    def _block(self, body: tuple[Any, ...], scope: _Scope, *, final_value: bool = False) -> Any:
        value = None
        for index, stmt in enumerate(body):
            try:
                value = self._stmt(stmt, scope)
            except _Unprintable as exc:
                raise self._error(f"The value is too large to write out: {exc}", stmt.span) from None
            if final_value and index == len(body) - 1 and isinstance(stmt, ExprStmt):
                return value
        return None

    def _stmt(self, stmt: Any, scope: _Scope) -> Any:
        if isinstance(stmt, ExprStmt):
            return self._eval(stmt.expr, scope)
        if isinstance(stmt, Use):
            scope.uses.append(_UseRecord(stmt, scope))
            self.trace.append(
                {
                    "kind": "use",
                    "data": {
                        "source": expression_source(stmt.value),
                        "label": stmt.label,
                        "budget": budget_json(stmt.budget),
                    },
                }
            )
            return None
        if isinstance(stmt, Config):
            scope.config[stmt.key] = self._eval(stmt.value, scope)
            return None
        if isinstance(stmt, Assign):
            self._assign(stmt, scope)
            return None
        if isinstance(stmt, Return):
            raise _Return(self._eval(stmt.value, scope))
        if isinstance(stmt, If):
            if _truthy(self._eval(stmt.condition, scope)):
                self._block(stmt.then_body, _Scope(scope))
            elif stmt.else_body is not None:
                self._block(stmt.else_body, _Scope(scope))
            return None
        if isinstance(stmt, Repeat):
            for _ in range(int(stmt.count)):  # the checks keep counts to MAX_ITERATIONS
                self._block(stmt.body, _Scope(scope))
            return None
        if isinstance(stmt, ForIn):
            items = self._eval(stmt.iterable, scope)
            if not isinstance(items, list):
                raise self._error("for loop requires a list value", stmt.iterable.span)
            for index, item in enumerate(items[: int(stmt.limit)]):
                self.trace.append(
                    {"kind": "for", "data": {"item": stmt.item, "index": index, "value": _json_value(item)}}
                )
                inner = _Scope(scope)
                inner.names[stmt.item] = item
                self._block(stmt.body, inner)
            return None
        if isinstance(stmt, LoopUntil):
            for _ in range(int(stmt.limit)):
                inner = _Scope(scope)
                self._block(stmt.body, inner)
                if _truthy(self._eval(stmt.condition, inner)):
                    break
            return None
        raise self._error(f"Unsupported statement {type(stmt).__name__}", stmt.span)

    def _assign(self, stmt: Assign, scope: _Scope) -> None:
        value = self._eval(stmt.value, scope)
        target = stmt.target
        if isinstance(target, Identifier):
            scope.assign(target.name, value)
            return
        if isinstance(target, Member):
            owner = self._eval(target.object, scope)
            if isinstance(owner, list):
                raise self._error("Cannot assign a property on a list value", target.span)
            if not isinstance(owner, dict):
                raise self._error("Cannot assign a property on a non-object value", target.span)
            owner[target.property] = value
            return
        raise self._error("Invalid assignment target", target.span)

    # --- expressions ----------------------------------------------------------------------------

    def _eval(self, expr: Any, scope: _Scope) -> Any:
        if isinstance(expr, String):
            return expr.value
        if isinstance(expr, Number):
            return js_number(int(expr.value)) if expr.value.is_integer() else expr.value
        if isinstance(expr, Boolean):
            return expr.value
        if isinstance(expr, NoneLiteral):
            return None
        if isinstance(expr, Identifier):
            found, value = scope.lookup(expr.name)
            if not found:
                raise self._error(f"Unknown name '{expr.name}'", expr.span)
            return value
        if isinstance(expr, ListExpr):
            return [self._eval(item, scope) for item in expr.items]
        if isinstance(expr, ObjectExpr):
            return {prop.key: self._eval(prop.value, scope) for prop in expr.properties}
        if isinstance(expr, Member):
            return self._member(self._eval(expr.object, scope), expr)
        if isinstance(expr, Index):
            return self._index(self._eval(expr.object, scope), self._eval(expr.index, scope), expr)
        if isinstance(expr, Not):
            return not _truthy(self._eval(expr.operand, scope))
        if isinstance(expr, Binary):
            return self._binary(expr, scope)
        if isinstance(expr, Call):
            return self._call_expr(expr, scope)
        if isinstance(expr, Generate):
            return self._generate(expr, scope)
        raise self._error(f"Unsupported expression {type(expr).__name__}", expr.span)

    def _member(self, owner: Any, expr: Member) -> Any:
        name = expr.property
        if isinstance(owner, Binding) and owner.kind in ("tool", "memory"):
            return {owner.kind: owner.name, "method": name}
        if isinstance(owner, list):
            if name == "length":
                return len(owner)
            if name == "summary":
                return _json_value(owner)
            raise self._error(f"Unknown list property '{name}'", expr.span)
        if isinstance(owner, dict):
            if name not in owner:
                raise self._error(f"Unknown object property '{name}'", expr.span)
            return owner[name]
        raise self._error(f"Cannot read property '{name}'", expr.span)

    def _index(self, owner: Any, index: Any, expr: Index) -> Any:
        """``owner[index]`` as the reference reads it (both already evaluated): a value that is no
        list is reported at the indexed expression, a bad or too large index at the index inside
        the brackets, which it prints as a JS number."""
        if not isinstance(owner, list):
            raise self._error("Index access requires a list value", expr.object.span)
        if not _is_index(index):
            raise self._error("List index must be a non-negative integer", expr.index.span)
        if index >= len(owner):
            raise self._error(f"List index {stringify(index)} is out of range", expr.index.span)
        return owner[int(index)]

    def _binary(self, expr: Binary, scope: _Scope) -> Any:
        if expr.operator == "and":
            return _truthy(self._eval(expr.left, scope)) and _truthy(self._eval(expr.right, scope))
        if expr.operator == "or":
            return _truthy(self._eval(expr.left, scope)) or _truthy(self._eval(expr.right, scope))
        left, right = self._eval(expr.left, scope), self._eval(expr.right, scope)
        if expr.operator in ("==", "!="):
            same = stringify(_json_value(left)) == stringify(_json_value(right))
            return same if expr.operator == "==" else not same
        numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (left, right))
        if not numbers:
            raise self._error(f"operator '{expr.operator}' requires number operands", expr.span)
        return left < right

    def _call_expr(self, expr: Call, scope: _Scope) -> Any:
        callee = expr.callee
        if isinstance(callee, Member):
            owner = self._eval(callee.object, scope)
            if isinstance(owner, list) and callee.property == "add":
                if len(expr.args) != 1:  # at the member expression: where the list expression starts
                    raise self._error("list.add expects exactly one argument", callee.span)
                owner.append(self._eval(expr.args[0], scope))
                return owner
            if isinstance(owner, Binding) and owner.kind == "agent":
                args = [self._eval(arg, scope) for arg in expr.args]
                return self._agent_call(owner.name, callee.property, args, expr.span)
            if isinstance(owner, Binding) and owner.kind in ("tool", "memory"):
                args = [self._eval(arg, scope) for arg in expr.args]
                return self._resource_call(owner, callee.property, args, expr.span, scope)
            raise self._error(f"Unsupported member call '{callee.property}'", expr.span)
        value = self._eval(callee, scope)
        args = [self._eval(arg, scope) for arg in expr.args]
        if isinstance(value, Binding) and value.kind == "agent":
            return self._agent_call(value.name, None, args, expr.span)
        if isinstance(value, Binding) and value.kind == "function":
            agent = next(a for a in self.program.agents if a.name == value.agent)
            func = next(f for f in agent.functions if f.name == value.name)
            return self._call(agent, func, args, expr.span)
        name = callee.name if isinstance(callee, Identifier) else expression_source(callee)
        raise self._error(f"'{name}' is not callable", expr.span)

    def _resource_call(self, binding: Binding, method: str, args: list[Any], span: Span, scope: _Scope) -> Any:
        from ...core.tools import REDACTED, MemoryProviderError, ToolRequest  # imported by programs that call a tool

        uri = binding.uri or ""
        scheme_name = uri.partition("://")[0] if "://" in uri else ""
        scheme = self._scheme(binding.kind, scheme_name, span)
        context = self.tool_context
        plain_args = _json_value(args)
        if binding.kind == "memory":
            if method not in ("add", "query"):
                raise self._error(f"Unsupported member call '{method}'", span)
            if len(args) != 1:
                raise self._error(f"Memory {binding.name}.{method} expects exactly one argument", span)
            try:
                outcome = blocking(
                    lambda: scheme.call_memory(ToolRequest(binding.name, uri, method, plain_args), context)
                )
            except MemoryProviderError as exc:  # the memory's own words, as the reference shows them
                raise self._error(str(exc), span) from None
            except PromptwireError as exc:
                raise self._error(f"Memory {binding.name}.{method} ({uri}) failed: {exc}", span) from None
            result = _json_value(outcome.result)  # a copy: what the program does to it later is not traced
            data: dict[str, Any] = {
                "memory": binding.name,
                "operation": method,
                "uri": uri,
                "args": _json_value(args[0]),  # the one argument itself, as the reference traces it
                "result": result,
                "count": outcome.count if outcome.count is not None else _memory_count(result),
            }
            if method == "add":
                data["id"] = outcome.id
                data["record"] = _json_value(outcome.record)
            self.trace.append({"kind": "memory", "data": data})
            return outcome.result
        readable = _ProgramData(self._input, scope)
        try:
            tool_args = [
                resolve_arguments(arg, readable) if isinstance(arg, dict) else resolve(arg, readable)
                for arg in plain_args
            ]
            request = ToolRequest(binding.name, uri, method, tool_args)
            tool_outcome = blocking(lambda: scheme.call_tool(request, context))
        except PromptwireError as exc:
            raise self._error(f"Tool {binding.name}.{method} ({uri}) failed: {exc}", span) from None
        shown = REDACTED if tool_outcome.secret else _json_value(tool_outcome.result)
        effects = tool_outcome.effects
        self.trace.append(
            {
                "kind": "tool",
                "data": {
                    "tool": binding.name,
                    "method": method,
                    "scheme": scheme_name,
                    "uri": uri,
                    "args": _json_value(args),  # its own copy: a tool may hand its arguments back
                    "result": shown,
                    "effects": _effects_of(shown) if effects is None else _json_value(effects),
                },
            }
        )
        return tool_outcome.result

    def _scheme(self, kind: str, name: str, span: Span) -> ToolScheme:
        if self.tool_scheme is not None:
            try:
                scheme = self.tool_scheme(name)
            except UnknownNameError:  # a plugin that fails to load says so itself
                pass
            else:
                if kind in scheme.kinds:
                    return scheme
        raise self._error(f"Unsupported {kind} URI scheme '{name}'", span)

    # --- generate -------------------------------------------------------------------------------

    def _generate(self, expr: Generate, scope: _Scope) -> Any:
        options = expr.options
        instruction_prop = options.get("input")
        instruction = self._eval(instruction_prop.value, scope) if instruction_prop is not None else None
        uses = scope.visible_uses()
        items = []
        for index, record in enumerate(uses):
            node = record.node
            value = self._eval(node.value, record.scope)
            items.append(
                ContextItem(
                    value=self._prompt_value(value, f"context[{index}].value", node.span),
                    label=node.label,
                    source=expression_source(node.value),
                    budget=_context_budget(node.budget),
                )
            )
        model = scope.config_value("model")
        role = scope.config_value("role")
        description = scope.config_value("description")
        for key, value in (("model", model), ("role", role), ("description", description)):
            if value is None:
                raise self._error(f"generate requires {key} in the current scope", expr.span)
        config = GenerateConfig(
            max_output=self._output_budget(options),
            attempts=int(self._option(options, "attempts", scope, 1)),
            temperature=self._option(options, "temperature", scope, None),
            think=self._option(options, "think", scope, False),
            strict=self._option(options, "strict", scope, False),
            debug=self._option(options, "debug", scope, False),
        )
        output = None
        locations: dict[str, str] = {}
        if expr.shape is not None:
            output = shape_contract({f.name: _type_text(f.type) for f in expr.shape.fields})
            locations = {f.name: f"{f.span.start.line}:{f.span.start.column}" for f in expr.shape.fields}
            locations[""] = f"{expr.span.start.line}:{expr.span.start.column}"
        prompt = self._prompt(
            {
                "identity": Identity(role=str(role), description=str(description)),
                "context": items,
                "instruction": self._prompt_value(instruction, "instruction", expr.span),
                "output": output,
                "config": config,
            },
            uses,
            expr.span,
        )
        agent = self._current_root(scope).agent
        agent_name = agent.name if agent is not None else ANONYMOUS_MAIN_AGENT
        site = Site(self._file().name, expr.span.start.line, expr.span.start.column, agent_name)
        shown = _ShownClips(self.render)
        try:
            result = generate(
                prompt,
                render=shown.render,
                adapter=self.adapter,
                model=model.uri if isinstance(model, Binding) else None,
                locations=locations,
                timeout=self.timeout,
                stream=self.stream,
                watchers=self.watchers,
                chain=self.chain,
                site=site,
            )
        except PromptwireError as exc:
            self._record(exc.calls)
            if isinstance(exc, ModelRouteError):  # the fix is in the program's model, or the run's flags
                raise self._error(str(exc), expr.span) from None
            if not isinstance(exc, ModelOutputError):
                raise
            where = _failed_check_span(exc, expr)
            raise self._error(f"{exc} at {where.start.line}:{where.start.column}", where) from None
        self._record(result.calls)
        value = js_numbers(result.value)  # the model's numbers, as JSON.parse gives them to the program
        self.trace.append(
            generate_event(
                prompt,
                result,
                _json_value(value),  # a copy: the caller's later changes to the value are not its
                shown.clips,
                shown.last,
                agent=agent_name,
                model={"name": model.name, "uri": model.uri} if isinstance(model, Binding) else None,
                budgets=[record.node.budget for record in uses],
                max_output=options.max_output,
            )
        )
        return value

    def _record(self, calls: Iterable[ModelCall]) -> None:
        """A generate's attempts: kept for the caller, and a ``notes`` trace event for each whose
        request the adapter changed."""
        made = list(calls)
        self.calls.extend(made)
        self.trace.extend(notes_events(made))

    def _output_budget(self, options: GenerateOptions) -> CoreBudget | None:
        """``max_output`` as the provider limit the reference sends: ``max(1, floor(...))`` (a unit
        other than ``k`` counts plainly). The checks refused a limit past 2^53, which no provider takes."""
        budget = options.max_output
        if budget is None:
            return None
        return _counted(budget) if _budget_count(budget) >= 1 else CoreBudget(amount=1)

    def _prompt(self, fields: dict[str, Any], uses: list[_UseRecord], span: Span) -> Prompt:
        """The core prompt of a generate; a value the prompt model refuses (nested deeper than
        it prints) is a runtime error at the ``use`` that gave it, or at the generate."""
        try:
            return assembled_prompt(fields)
        except FieldError as exc:
            where = span
            if exc.field.startswith("context["):
                where = uses[int(exc.field[len("context[") : exc.field.index("]")])].node.span
            raise self._error(f"Cannot build the prompt: {exc}", where) from None

    def _prompt_value(self, value: Any, field: str, span: Span) -> Any:
        """``value`` as JSON data for the prompt's ``field``, refused as the prompt's check refuses
        it (``Cannot build the prompt: <field>: ...``) where its repeats write out too much."""
        try:
            return _json_value(value)
        except _Unprintable as exc:
            raise self._error(f"Cannot build the prompt: {field}: {exc}", span) from None

    def _option(self, options: Any, key: str, scope: _Scope, default: Any) -> Any:
        prop = options.get(key)
        return default if prop is None else self._eval(prop.value, scope)

    def _current_root(self, scope: _Scope) -> _Scope:
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def _file(self) -> SourceFile:
        """The file of the code running now: the called agent's, or the program's before any call."""
        return self._here or self.program.file_of()

    def _error(self, message: str, span: Span, file: SourceFile | None = None) -> RunError:
        """A runtime error at ``span`` of ``file`` (by default, the file of the code running now)."""
        file = file or self._file()
        return RunError(
            RUNTIME_ERROR,
            message,
            file=file.name,
            line=span.start.line,
            column=span.start.column,
            source_line=line_text(file.text, span.start.line) if file.text else None,
        )


def _is_index(value: Any) -> bool:
    """JavaScript's ``typeof value === "number" && Number.isInteger(value) && value >= 0``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return value >= 0 and (isinstance(value, int) or (math.isfinite(value) and value.is_integer()))


def _truthy(value: Any) -> bool:
    if value is None or value is False or value == "" or value == []:
        return False
    return not (isinstance(value, int | float) and not isinstance(value, bool) and value == 0)


class _ProgramData(Mapping[str, Any]):
    """What ``†`` references in a tool call's arguments read: ``input``, the entry function's input,
    and ``state``, the variables visible where the call is made (as JSON). A model's reply can then
    hand a tool ``"†input.document"`` instead of a copy. ``state`` is built on first read: most
    calls hold no reference."""

    def __init__(self, input_value: Any, scope: _Scope) -> None:
        self._input = input_value
        self._scope = scope
        self._state: dict[str, Any] | None = None

    def __getitem__(self, kind: str) -> Any:
        if kind == "input":
            return self._input
        if kind == "state":
            if self._state is None:
                self._state = self._variables()
            return self._state
        raise KeyError(kind)

    def __iter__(self) -> Iterator[str]:
        return iter(("input", "state"))

    def __len__(self) -> int:
        return 2

    def _variables(self) -> dict[str, Any]:
        chain: list[_Scope] = []
        scope: _Scope | None = self._scope
        while scope is not None:
            chain.append(scope)
            scope = scope.parent
        variables: dict[str, Any] = {}
        for each in reversed(chain):  # inner names hide outer ones
            variables.update({name: value for name, value in each.names.items() if not isinstance(value, Binding)})
        return {name: _json_value(value) for name, value in variables.items()}


def _json_value(value: Any) -> Any:
    """A value as JSON data: bindings become their descriptive objects (AgentScript's sanitize).

    A list or object met again inside itself (``o.self = o``, ``xs.add(xs)``) becomes the text
    ``"[Circular]"``, as the reference writes it; the same value met in two places is written out in
    both. What the copies of parts met again add is bounded as a prompt's repeats are (see
    :mod:`promptwire.core.nesting`): ``a = [x, x]; b = [a, a]``... forty times over is 41 lists as
    written and 2**40 values copied, so past ``MAX_REPEATED_VALUES`` of them :class:`_Unprintable`
    is raised instead of a conversion that would never end.
    """
    return _Sanitizer().value(value, repeated=False)


class _Unprintable(Exception):
    """A value whose parts met in several places write out as more than any output may hold."""


class _Sanitizer:
    """One conversion: the containers converted so far, and the values their copies have added."""

    __slots__ = ("copied", "open", "seen")

    def __init__(self) -> None:
        self.open: set[int] = set()
        self.seen: set[int] = set()
        self.copied = 0

    def value(self, value: Any, *, repeated: bool) -> Any:
        """``value`` converted inside the containers open now; ``repeated`` inside a part already
        converted once, whose every value is a copy."""
        if repeated:
            self.copied += 1
            if self.copied > MAX_REPEATED_VALUES:
                raise _Unprintable(REPEATED_VALUES_REFUSED)
        if isinstance(value, Binding):
            return value.to_json()
        if not isinstance(value, list | dict):
            return value
        key = id(value)
        if key in self.open:
            return "[Circular]"
        repeated = repeated or key in self.seen
        self.seen.add(key)
        self.open.add(key)
        try:
            if isinstance(value, list):
                return [self.value(item, repeated=repeated) for item in value]
            return {name: self.value(item, repeated=repeated) for name, item in value.items()}
        finally:
            self.open.discard(key)


def _failed_check_span(error: ModelOutputError, generate: Generate) -> Span:
    """Where a generate whose attempts ran out fails, as the reference locates it: a check on a
    field (missing, or of the wrong type) at that field of the shape, whose place its message
    already ends with; a check on the whole result (not an object, a strict extra field) and a
    reply that is not JSON at the generate."""
    if isinstance(error, ResultError) and generate.shape is not None:
        for shape_field in generate.shape.fields:
            if shape_field.name == error.field:
                return shape_field.span
    return generate.span


def _effects_of(result: Any) -> list[Any] | None:
    """A tool event's ``effects`` as the reference traces them: the result's own ``effects`` list
    (``File.write``, ``File.patch``; ``[]`` for a patch whose search text is absent), else null
    (a read, a list, an undo's ``{"ok": true}``, find, grep, sed, env, HTTP)."""
    if isinstance(result, dict) and isinstance(result.get("effects"), list):
        effects: list[Any] = result["effects"]
        return effects
    return None


def _memory_count(result: Any) -> int | None:
    """A memory event's ``count`` as the reference traces it: how many records a query returned,
    null for an add (whose result is the envelope)."""
    return len(result) if isinstance(result, list) else None


def _type_text(shape_type: ShapeType) -> str:
    if isinstance(shape_type, ListType):
        return f"list[{_type_text(shape_type.item)}]"
    assert isinstance(shape_type, NamedType)
    return shape_type.name


def _budget_count(budget: Budget) -> int:
    """What a budget counts in AgentScript: ``floor(amount * 1000)`` for the unit ``k`` exactly, else
    ``floor(amount)``; any other unit (``K``, ``kb``, ``tokens``) is a plain count."""
    return math.floor(budget.amount * (1000 if budget.unit == "k" else 1))


def _context_budget(budget: Budget | None) -> CoreBudget | None:
    """A ``use ... max B`` budget as the core's count of UTF-16 units. One that comes to 0
    (``max 0.0004k``) means no clipping, as the reference tests ``!maxChars``; so does one larger
    than any text can be."""
    if budget is None:
        return None
    return _counted(budget) if 1 <= _budget_count(budget) <= MAX_BUDGET else None


def _counted(budget: Budget) -> CoreBudget:
    """``budget`` for the core, which knows only the unit ``k``: any other unit counts plainly."""
    return CoreBudget(amount=budget.amount, unit="k" if budget.unit == "k" else None)


def json_of(value: Any) -> Mapping[str, Any] | Any:
    """The program's value as JSON data (for ``--output trace``), with the stack room the run had:
    a program may return a value nested as deep as it could build one."""
    with _call_room():
        try:
            return _json_value(value)
        except RecursionError:
            raise PromptwireError("The program's value is nested too deeply to show") from None
        except _Unprintable as exc:
            raise PromptwireError(f"The program's value is too large to write out: {exc}") from None
