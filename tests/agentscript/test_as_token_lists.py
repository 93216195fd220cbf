"""The token lists the parser reads, held to a plain lexer and to positions counted from scratch.

The parser gets no object per token: ``scan`` keeps kinds, values and start offsets in lists, and
a position is worked out only when the parser asks for one (``Tokens.start``, ``end``,
``span``) from a table of line starts. These properties check that representation against the
obvious one: a character-by-character lexer written here, and lines and UTF-16 columns counted
from the start of the text, for every token, every error and every node of a parsed tree.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire.frontend.agentscript import parse
from promptwire.frontend.agentscript.diagnostics import ParseError
from promptwire.frontend.agentscript.lexer import EOF, NAME, NUMBER, STRING, SYMBOL, scan
from promptwire.frontend.agentscript.positions import Position, Span

from agentscript_source import as_program
from hypothesis_profile import examples

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_DIGITS = "0123456789"
_NAME_CHARS = _LETTERS + _DIGITS + "-"
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}

Reference = tuple[str, str, int, int]  # kind, value, start offset, end offset


def _run(source: str, index: int, chars: str) -> int:
    """Where the run of ``chars`` that starts at ``index`` ends."""
    while index < len(source) and source[index] in chars:
        index += 1
    return index


def _string(source: str, start: int) -> tuple[str, int] | None:
    """The value of the string whose quote is at ``start`` and the offset past it (None: unclosed)."""
    quote = source[start]
    index = start + 1
    value: list[str] = []
    while index < len(source) and source[index] != quote:
        if source[index] == "\\" and index + 1 < len(source):
            value.append(_ESCAPES.get(source[index + 1], source[index + 1]))
            index += 2
        else:
            value.append(source[index])
            index += 1
    return ("".join(value), index + 1) if index < len(source) else None


def reference_tokens(source: str) -> list[Reference] | int:
    """The tokens of ``source`` one character at a time, or the offset of the first that starts none."""
    tokens: list[Reference] = []
    index = 0
    while index < len(source):
        char = source[index]
        start = index
        if char in " \t\r\n":
            index += 1
            continue
        if source.startswith("//", index):
            found = source.find("\n", index)
            index = len(source) if found < 0 else found
            continue
        if char in _LETTERS:
            index = _run(source, index, _NAME_CHARS)
            tokens.append((NAME, source[start:index], start, index))
        elif char in _DIGITS:
            index = _run(source, index, _DIGITS)
            if source.startswith(".", index):
                index = _run(source, index + 1, _DIGITS)
            if index < len(source) and source[index] in _LETTERS:
                index = _run(source, index, _NAME_CHARS)
            tokens.append((NUMBER, source[start:index], start, index))
        elif char in "\"'":
            string = _string(source, start)
            if string is None:
                return start
            value, index = string
            tokens.append((STRING, value, start, index))
        elif source.startswith(("==", "!=", "->"), index):
            index += 2
            tokens.append((SYMBOL, source[start:index], start, index))
        elif char in "{}()[].,:=!<-*":
            index += 1
            tokens.append((SYMBOL, char, start, index))
        else:
            return start
    return tokens


def position(source: str, offset: int) -> Position:
    """The position of ``offset`` counted from the start of the text: UTF-16 columns, ``\\n`` lines."""
    line_start = source.rfind("\n", 0, offset) + 1
    units = len(source[line_start:offset].encode("utf-16-le")) // 2
    return Position(source.count("\n", 0, offset) + 1, units + 1, offset)


_PIECES = [
    "x", "step-1", "use", "2k", "1.", "1.5k", "7", "{", "}", "(", ")", "[", "]", "==", "!=", "->", ",", ".", ":",
    "=", "<", "*", "-", '"s"', "'a\nb'", '"a\\"b"', "'\\q\\n'", "\n", "\n\n", " ", "\t", "\r", "// note\n", "//",
    "\U0001f600", "é", '"\U0001f600\n\U0001f600"', "'", '"', "#",
]  # fmt: skip
_SOURCES = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=examples(4))
@given(_SOURCES)
def test_scan_gives_the_plain_lexers_tokens_and_positions(source: str) -> None:
    expected = reference_tokens(source)
    if isinstance(expected, int):
        try:
            scan(source)
        except ParseError as error:
            assert Position(error.line, error.column, expected) == position(source, expected)
            assert error.source_line == source.split("\n")[error.line - 1]
            return
        raise AssertionError(f"no error for the character at {expected}")
    tokens = scan(source)
    end = len(source)
    assert [(kind, value, start) for kind, value, start, _ in expected] + [(EOF, "", end)] == list(
        zip(tokens.kinds, tokens.values, tokens.starts, strict=True)
    )
    for index, (_, _, start, stop) in enumerate([*expected, (EOF, "", end, end)]):
        assert tokens.end_offset(index) == stop
        assert tokens.start(index) == position(source, start)
        assert tokens.end(index) == position(source, stop)
        span = tokens.span(index)
        assert (span.start, span.end) == (position(source, start), position(source, stop))


_LINES = [
    "x = 1", "x = \"a\U0001f600b\"", "y = x.a.b", "use x max 2k as some label", "use x as 'quoted \U0001f600'",
    "z = [1, 'two', x]", "o = { a: x, \"b c\": [x] }", "if x == 1 and not y { x = 2 } else { x = 3 }",
    "for item in x max 3 { use item as item }", "loop until x < 3 max 2 { x = 4 }", "repeat * 2 { x = 5 }",
    "r = generate({ input: \"go\", max_output: 1k }) -> { a string, b list[number] }", "return x",
    "f(x)[0]", "s = 'two\nlines'", "q = ['\U0001f600', x.y, 2k] == x", "", "// a comment \U0001f600", "\t\r",
]  # fmt: skip
_BROKEN = ["x =", "x = {", ")", "é = 1", "use x as", "repeat * 1.5 { }", "x = 'open", "f(x"]


@st.composite
def _bodies(draw: st.DrawFn) -> str:
    """Lines of statements, half the time with one broken line among them."""
    lines = draw(st.lists(st.sampled_from(_LINES), max_size=12))
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(_BROKEN)))
    return "\n".join(lines)


def _spans(node: Any) -> list[Span]:
    """Every span in a tree, found through its slots."""
    found: list[Span] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Span):
            found.append(item)
        elif isinstance(item, tuple | list):
            stack.extend(item)
        elif hasattr(item, "__dataclass_fields__"):
            stack.extend(
                getattr(item, name) for name in item.__dataclass_fields__ if name not in ("source", "path", "file")
            )
    return found


@settings(max_examples=examples(2))
@given(_bodies(), st.sampled_from(["release", "late"]))
def test_every_node_and_error_is_where_its_offset_says(body: str, label_rule: str) -> None:
    """A tree's positions carry offsets; each line and column must be what counting from the start
    of the text gives for that offset, and an error must point at the start of a token or the end."""
    source = as_program(body)
    try:
        program = parse(source, label_rule=label_rule)
    except ParseError as error:
        expected = reference_tokens(source)
        starts = [len(source)] if isinstance(expected, int) else [start for _, _, start, _ in expected]
        places = {position(source, offset)[:2] for offset in [*starts, len(source)]}
        if isinstance(expected, int):
            places.add(position(source, expected)[:2])
        assert (error.line, error.column) in places
        assert error.source_line == source.split("\n")[error.line - 1]
        return
    for span in _spans(program):
        assert span.start == position(source, span.start.offset)
        assert span.end == position(source, span.end.offset)
        assert span.start.offset <= span.end.offset
