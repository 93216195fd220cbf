"""Spans hold offsets and their source's line map, and work out positions only when read; to every
caller they must still behave as a pair of positions: equal when the positions are (whichever parse
made them), hashed alike, shown as positions, and kept through pickling, copying and ``replace``."""

from __future__ import annotations

import copy
import dataclasses
import operator
import pickle

from promptwire.frontend.agentscript import check, parse, to_json
from promptwire.frontend.agentscript.parser import parse_expression
from promptwire.frontend.agentscript.positions import Position
from promptwire.frontend.agentscript.syntax import Identifier, Member

from agentscript_source import as_program

# Two findings (an unknown name, a bad budget) and an astral character before the second.
PROGRAM = as_program(
    """
    use nope as first
    x = "\U0001f600" use x max 0k as second
    """
)


def test_two_parses_of_one_source_give_equal_spans_and_findings() -> None:
    first, second = parse(PROGRAM), parse(PROGRAM)
    agent, again = first.agents[0], second.agents[0]
    assert agent.span == again.span and hash(agent.span) == hash(again.span)
    assert not operator.ne(agent.span, again.span)  # a tuple's own != would compare the line maps
    assert check(first) == check(second) != []
    assert {finding.span for finding in check(first)} == {finding.span for finding in check(second)}


def test_spans_at_the_same_offsets_in_different_lines_differ() -> None:
    """Equality is the positions', not the offsets': both end at offset 4."""
    flat = parse_expression("ab.x")
    broken = parse_expression("a\n.x")
    assert isinstance(flat, Member) and isinstance(broken, Member)
    assert (flat.span.start_offset, flat.span.end_offset) == (broken.span.start_offset, broken.span.end_offset)
    assert flat.span != broken.span
    assert flat.span.end == Position(1, 5, 4) and broken.span.end == Position(2, 3, 4)


def test_a_node_shows_its_positions() -> None:
    assert repr(parse_expression("a.b")) == (
        "Member(object=Identifier(name='a', span=Span(start=Position(line=1, column=1, offset=0), "
        "end=Position(line=1, column=2, offset=1))), property='b', "
        "span=Span(start=Position(line=1, column=1, offset=0), end=Position(line=1, column=4, offset=3)))"
    )


def test_astral_columns_are_counted_when_a_position_is_read() -> None:
    string = parse_expression("'\U0001f600\U0001f600'")
    assert string.span.end == Position(1, 7, 4)  # two emoji: four UTF-16 units inside the quotes
    (finding,) = [item for item in check(PROGRAM) if item.code == "INVALID_BUDGET"]
    assert (finding.line, finding.column) == (10, 18)  # the 'use' after one emoji on its line


def test_pickling_and_copying_keep_the_tree_and_its_positions() -> None:
    program = parse(PROGRAM)
    expected = to_json(program)
    for made in (pickle.loads(pickle.dumps(program)), copy.deepcopy(program), copy.copy(program)):
        assert to_json(made) == expected
        assert check(made) == check(program)
    name = Identifier("a", program.agents[0].span)
    assert dataclasses.replace(name, name="b").span == program.agents[0].span
