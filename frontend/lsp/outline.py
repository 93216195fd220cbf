"""The structure of one parsed ``.as`` file: what is declared where, what each name refers to, what
folds, where each ``generate`` is.

Everything here reads the tree :func:`..agentscript.parse` builds; nothing is evaluated. A tree
keeps the span of each declaration, not of its name, so a name's place is found in the source from
the declaration's start (the name follows its keyword). Offsets are code-point offsets into the
file's text, as a :class:`~..agentscript.positions.Span` holds them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
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

__all__ = ["Name", "Outline", "Site"]

_WORD = re.compile(r"[A-Za-z0-9_-]")
"""A character that may continue a name (AgentScript's names hold hyphens)."""
FOLDED = frozenset({Repeat, ForIn, LoopUntil, If, ObjectExpr, ListExpr})
"""The nodes inside a function whose lines fold when they span more than one (besides a ``generate``)."""


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
        self.folds: list[tuple[int, int]] = []
        """The start and end offsets of each block that may fold (it does when it spans lines)."""
        if len(program.imports) > 1:
            self.folds.append((program.imports[0].span.start_offset, program.imports[-1].span.end_offset))
        for item in program.imports:
            self.names.append(self._declared("import", item.name, item, None, after=item.resource))
        for agent in program.agents:
            self._agent(agent)
        self.names.sort(key=lambda name: name.start)
        self._starts = [name.start for name in self.names]
        self._declarations: dict[str, list[Name]] = {}
        for name in self.names:
            if name.declared:
                self._declarations.setdefault(name.name, []).append(name)

    def declarations(self) -> Iterator[Name]:
        return (name for names in self._declarations.values() for name in names)

    def at(self, offset: int) -> Name | None:
        """The name under ``offset`` (its end included, where an editor's cursor rests after typing it).
        Names do not overlap, so the one starting last at or before ``offset`` is the only candidate."""
        index = bisect_right(self._starts, offset) - 1
        if index >= 0 and offset <= self.names[index].end:
            return self.names[index]
        return None

    def site_at(self, offset: int) -> Site | None:
        """The innermost ``generate`` around ``offset``."""
        around = [site for site in self.sites if site.node.span.start_offset <= offset <= site.node.span.end_offset]
        return min(around, key=lambda site: site.node.span.end_offset - site.node.span.start_offset, default=None)

    def declaration_of(self, name: Name) -> Name | None:
        """Where ``name`` is declared in this file: a function of its agent, an agent, an import
        or a label of its agent, in that order (``None``: nowhere here, a local or an unknown)."""
        if name.declared:
            return name
        candidates = self._declarations.get(name.name, ())
        for kind in ("function", "agent", "import") if name.kind != "label" else ("label",):
            for declared in candidates:
                if declared.kind == kind and (kind not in ("function", "label") or declared.agent == name.agent):
                    return declared
        return None

    def _agent(self, agent: Agent) -> None:
        self.folds.append(_offsets(agent.span))
        if agent.name != ANONYMOUS_MAIN_AGENT:
            self.names.append(self._declared("agent", agent.name, agent, None, after="agent"))
        for config in agent.config:
            self._expression_names(config.value, agent.name)
        for function in agent.functions:
            self.folds.append(_offsets(function.span))
            if function.name != ANONYMOUS_MAIN_FUNC:
                self.names.append(self._declared("function", function.name, function, agent.name, after="func"))
            labels: list[Name] = []
            for node in _walk(function.body):
                kind = type(node)  # the most common first: names, then members
                if kind is Identifier:
                    self.names.append(Name("name", node.name, *_offsets(node.span), agent.name, False, node))
                elif kind is Member:
                    end = node.span.end_offset
                    start = end - len(node.property)
                    if self.source[start:end] == node.property:
                        self.names.append(Name("member", node.property, start, end, agent.name, False, node))
                elif kind is Use and node.label is not None:
                    label = self._label(node, agent.name)
                    if label is not None:
                        labels.append(label)
                        self.names.append(label)
                elif kind is Generate:
                    self.sites.append(Site(node, agent, function, tuple(labels)))
                    self.folds.append(_offsets(node.span))
                elif kind in FOLDED:
                    self.folds.append(_offsets(node.span))

    def _expression_names(self, expr: Any, agent: str) -> None:
        for node in _walk((expr,)):
            if isinstance(node, Identifier):
                self.names.append(Name("name", node.name, *_offsets(node.span), agent, False, node))

    def _declared(
        self, kind: str, name: str, node: Agent | Function | Import, agent: str | None, *, after: str
    ) -> Name:
        """The declaration of ``name``: the first whole word ``name`` after the keyword ``after``."""
        start, end = _offsets(node.span)
        at = self.source.find(after, start, end)
        at = self.source.find(name, at + len(after) if at >= 0 else start, end)
        while at >= 0 and not self._whole_word(at, at + len(name)):
            at = self.source.find(name, at + 1, end)
        return Name(kind, name, *((at, at + len(name)) if at >= 0 else (start, start)), agent, True, node)

    def _whole_word(self, start: int, end: int) -> bool:
        """Whether ``start:end`` is a whole word (a name's characters do not go on either side)."""
        before = self.source[start - 1 : start] if start else ""
        after = self.source[end : end + 1]
        return not (_WORD.fullmatch(before) or _WORD.fullmatch(after))

    def _label(self, use: Use, agent: str) -> Name | None:
        assert use.label is not None
        start, end = _offsets(use.span)
        at = self.source.rfind(use.label, start, end)
        if at < 0:
            return None
        return Name("label", use.label, at, at + len(use.label), agent, True, use)


def _offsets(span: Span) -> tuple[int, int]:
    return span.start_offset, span.end_offset


def _walk(nodes: Any) -> Iterator[Any]:
    """Every node in ``nodes`` (a tuple of nodes) and below, in source order. Iterative: a deeply
    nested program must not exhaust Python's stack (the parser bounds nesting, the walk needs no bound)."""
    stack: list[Any] = list(reversed(nodes))
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        yield node
        children: list[Any] = []
        for name in _child_fields(type(node)):
            value = getattr(node, name)
            if type(value) is tuple:  # a node's tuples hold nodes (its span, a NamedTuple, is not read)
                children.extend(value)
            elif value is not None:
                children.append(value)
        extend(reversed(children))


def _child_fields(kind: type[Any]) -> tuple[str, ...]:
    """The fields of node class ``kind`` that hold nodes: not its span, names, texts or numbers."""
    found = _FIELDS.get(kind)
    if found is None:
        names = fields(kind) if hasattr(kind, "__dataclass_fields__") else ()
        found = _FIELDS[kind] = tuple(
            f.name for f in names if f.name not in _NOT_NODES and f.type not in ("str", "float", "bool", "str | None")
        )
    return found


_NOT_NODES = frozenset({"span", "item_span", "file", "name", "key", "label", "raw", "max_output"})
_FIELDS: dict[type[Any], tuple[str, ...]] = {}
