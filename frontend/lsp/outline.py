"""The structure of one parsed ``.as`` file: what is declared where, what each name refers to, what
folds, where each ``generate`` is.

Everything here reads the tree :func:`..agentscript.parse` builds; nothing is evaluated. A tree
keeps the span of each declaration, not of its name, so a name's place is found in the source from
the declaration's start (the name follows its keyword). Offsets are code-point offsets into the
file's text, as a :class:`~..agentscript.positions.Span` holds them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

from ..agentscript.positions import Span
from ..agentscript.syntax import (
    ANONYMOUS_MAIN_AGENT,
    ANONYMOUS_MAIN_FUNC,
    Agent,
    ForIn,
    Function,
    Generate,
    Identifier,
    If,
    Import,
    ListExpr,
    LoopUntil,
    Member,
    ObjectExpr,
    Program,
    Repeat,
    Use,
)

__all__ = ["Name", "Outline", "Site", "folding_spans"]

FOLDED = (Agent, Function, Generate, Repeat, ForIn, LoopUntil, If, ObjectExpr, ListExpr)
"""The nodes whose lines fold when they span more than one."""


@dataclass(frozen=True, slots=True)
class Name:
    """A name where it is written: ``kind`` is what it names (``agent``, ``function``, ``import``,
    ``label``), ``agent`` the agent it is written in (``None`` outside one), ``declared`` whether
    this is its declaration, ``node`` the declaration (or the use) it belongs to."""

    kind: str
    name: str
    start: int
    end: int
    agent: str | None
    declared: bool
    node: Any


@dataclass(frozen=True, slots=True)
class Site:
    """A ``generate``: where it is, in which agent and function, and the labels of the ``use``
    statements of its function before it (the context it is given, when they all ran)."""

    node: Generate
    agent: Agent
    function: Function
    labels: tuple[Name, ...]


class Outline:
    """The declarations, the names used and the ``generate`` sites of one parsed file."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.source = program.source
        self.names: list[Name] = []
        self.sites: list[Site] = []
        for item in program.imports:
            self.names.append(self._declared("import", item.name, item, None, after=item.resource))
        for agent in program.agents:
            self._agent(agent)
        self.names.sort(key=lambda name: name.start)

    def declarations(self) -> Iterator[Name]:
        return (name for name in self.names if name.declared)

    def at(self, offset: int) -> Name | None:
        """The name under ``offset`` (its end included, where an editor's cursor rests after typing it)."""
        for name in self.names:
            if name.start <= offset <= name.end:
                return name
        return None

    def site_at(self, offset: int) -> Site | None:
        """The ``generate`` whose keyword is under ``offset``, else the innermost one around it."""
        around = [site for site in self.sites if site.node.span.start_offset <= offset <= site.node.span.end_offset]
        return min(around, key=lambda site: site.node.span.end_offset - site.node.span.start_offset, default=None)

    def declaration_of(self, name: Name) -> Name | None:
        """Where ``name`` is declared in this file: a function of its agent, an agent, an import
        or a label of its agent, in that order (``None``: nowhere here, a local or an unknown)."""
        if name.declared:
            return name
        order = ("function", "agent", "import") if name.kind != "label" else ("label",)
        for kind in order:
            for declared in self.declarations():
                if declared.kind != kind or declared.name != name.name:
                    continue
                if kind in ("function", "label") and declared.agent != name.agent:
                    continue
                return declared
        return None

    def uses_of(self, declared: Name) -> list[Name]:
        """Every name in this file that refers to ``declared``, its declaration included."""
        return [name for name in self.names if self.declaration_of(name) == declared]

    def _agent(self, agent: Agent) -> None:
        if agent.name != ANONYMOUS_MAIN_AGENT:
            self.names.append(self._declared("agent", agent.name, agent, None, after="agent"))
        for config in agent.config:
            self._expression_names(config.value, agent.name)
        for function in agent.functions:
            if function.name != ANONYMOUS_MAIN_FUNC:
                self.names.append(self._declared("function", function.name, function, agent.name, after="func"))
            labels: list[Name] = []
            for node in _walk(function.body):
                if isinstance(node, Use) and node.label is not None:
                    label = self._label(node, agent.name)
                    if label is not None:
                        labels.append(label)
                        self.names.append(label)
                elif isinstance(node, Generate):
                    self.sites.append(Site(node, agent, function, tuple(labels)))
                elif isinstance(node, Identifier):
                    self.names.append(Name("name", node.name, *_offsets(node.span), agent.name, False, node))
                elif isinstance(node, Member):
                    end = node.span.end_offset
                    start = end - len(node.property)
                    if self.source[start:end] == node.property:
                        self.names.append(Name("member", node.property, start, end, agent.name, False, node))

    def _expression_names(self, expr: Any, agent: str) -> None:
        for node in _walk((expr,)):
            if isinstance(node, Identifier):
                self.names.append(Name("name", node.name, *_offsets(node.span), agent, False, node))

    def _declared(
        self, kind: str, name: str, node: Agent | Function | Import, agent: str | None, *, after: str
    ) -> Name:
        """The declaration of ``name``: the first whole word ``name`` after the keyword ``after``."""
        start, end = _offsets(node.span)
        keyword = self.source.find(after, start, end)
        found = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])").search(self.source, max(keyword, start), end)
        at = (found.start(), found.end()) if found else (start, start)
        return Name(kind, name, *at, agent, True, node)

    def _label(self, use: Use, agent: str) -> Name | None:
        assert use.label is not None
        start, end = _offsets(use.span)
        at = self.source.rfind(use.label, start, end)
        if at < 0:
            return None
        return Name("label", use.label, at, at + len(use.label), agent, True, use)


def folding_spans(program: Program) -> list[tuple[int, int]]:
    """The start and end offsets of each block that may fold (one that spans lines does), and of
    the run of imports."""
    spans: list[tuple[int, int]] = []
    if len(program.imports) > 1:
        spans.append((program.imports[0].span.start_offset, program.imports[-1].span.end_offset))
    spans += [_offsets(node.span) for node in _walk(program.agents) if isinstance(node, FOLDED)]
    return spans


def _offsets(span: Span) -> tuple[int, int]:
    return span.start_offset, span.end_offset


def _walk(nodes: Any) -> Iterator[Any]:
    """Every node in ``nodes`` (a tuple of nodes) and below, in source order. Iterative: a deeply
    nested program must not exhaust Python's stack (the parser bounds nesting, the walk needs no bound)."""
    stack: list[Any] = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        children: list[Any] = []
        for name in _child_fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, tuple) and not isinstance(value, Span):
                children.extend(item for item in value if hasattr(item, "__dataclass_fields__"))
            elif hasattr(value, "__dataclass_fields__"):
                children.append(value)
        stack.extend(reversed(children))


def _child_fields(kind: type[Any]) -> tuple[str, ...]:
    """The fields of node class ``kind`` that may hold nodes (not its span, name or text)."""
    found = _FIELDS.get(kind)
    if found is None:
        skip = {"span", "item_span", "file", "name", "key", "label", "raw"}
        names = fields(kind) if hasattr(kind, "__dataclass_fields__") else ()
        found = _FIELDS[kind] = tuple(f.name for f in names if f.name not in skip)
    return found


_FIELDS: dict[type[Any], tuple[str, ...]] = {}
