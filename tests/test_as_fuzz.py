"""Whatever text comes in, the lexer, parser and checks fail only with promptwire's own errors.

A CLI user must never see a traceback, so arbitrary text and damaged versions of real programs may
raise nothing but :class:`PromptwireError` subclasses (a ``ParseError`` for bad syntax); every program
that parses must also get through the checks and both printers.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire.core.errors import PromptwireError
from promptwire.frontend.language import check, expression_source, parse, to_json
from promptwire.frontend.syntax import Use
from promptwire.frontend.syntax_json import write_json

DATA = Path(__file__).parent / "data" / "as"
PROGRAMS = [path.read_text(encoding="utf-8") for path in sorted(DATA.rglob("*.as"))]
FRAGMENTS = [
    "{", "}", "(", ")", "[", "]", ".", ",", ":", "=", "==", "->", "<", "not", "use", "max", "as", "2k", "1e5",
    '"s"', "'", '"', "\\", "\n", "generate", "main", "agent", "func", "import", "model", "role", "if", "else",
    "for", "in", "loop", "until", "repeat", "*", "return", "-", "//", "#", "\U0001f600", "input",
]  # fmt: skip


def _exercise(source: str, label_rule: str = "release") -> None:
    try:
        program = parse(source, "fuzz.as", label_rule=label_rule)
    except PromptwireError:
        return
    for diagnostic in check(program):
        assert diagnostic.reference_text
    pieces: list[str] = []
    write_json(program, pieces.append)
    assert json.loads("".join(pieces)) == to_json(program)
    for agent in program.agents:
        for function in agent.functions:
            for statement in function.body:
                if isinstance(statement, Use):
                    expression_source(statement.value)


@given(st.text())
def test_arbitrary_text(source: str) -> None:
    _exercise(source)


@given(st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=60).map(" ".join))
def test_token_soup(source: str) -> None:
    _exercise(source)
    _exercise(source, "late")


@settings(max_examples=300)
@given(st.sampled_from(PROGRAMS), st.data())
def test_damaged_reference_programs(program: str, data: st.DataObject) -> None:
    text = program
    for _ in range(data.draw(st.integers(1, 4))):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, min(len(text), start + 12)))
        insert = data.draw(st.sampled_from(["", *FRAGMENTS]))
        text = text[:start] + insert + text[end:]
    _exercise(text)
    _exercise(text, "late")
