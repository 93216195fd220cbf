"""The AgentScript lexer: token rules with the reference's quirks, UTF-16 columns, lexical errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire.core.errors import SourceError
from promptwire.frontend.agentscript.diagnostics import ParseError
from promptwire.frontend.agentscript.lexer import EOF, IDENTIFIER, KEYWORD, NUMBER, STRING, SYMBOL, tokenize

from hypothesis_profile import examples


def kinds_and_values(source: str) -> list[tuple[str, str]]:
    return [(token.kind, token.value) for token in tokenize(source) if token.kind != EOF]


def test_a_hyphen_belongs_to_the_identifier() -> None:
    assert kinds_and_values("step-1 a-b x - y") == [
        (IDENTIFIER, "step-1"),
        (IDENTIFIER, "a-b"),
        (IDENTIFIER, "x"),
        (SYMBOL, "-"),
        (IDENTIFIER, "y"),
    ]


@pytest.mark.parametrize(
    ("source", "tokens"),
    [
        ("2k", [(NUMBER, "2k")]),
        ("1.5k", [(NUMBER, "1.5k")]),
        ("10tokens", [(NUMBER, "10tokens")]),
        ("1e5", [(NUMBER, "1e5")]),
        ("2k-3", [(NUMBER, "2k-3")]),  # the glued run takes hyphens too
        ("2-x", [(NUMBER, "2"), (SYMBOL, "-"), (IDENTIFIER, "x")]),
        ("1.", [(NUMBER, "1.")]),  # the dot is taken even without a digit after it
        ("1.5.3", [(NUMBER, "1.5"), (SYMBOL, "."), (NUMBER, "3")]),
    ],
)
def test_a_number_glues_on_a_directly_following_name(source: str, tokens: list[tuple[str, str]]) -> None:
    assert kinds_and_values(source) == tokens


def test_keywords_are_their_own_kind_but_as_and_model_are_names() -> None:
    assert kinds_and_values("max list as model none") == [
        (KEYWORD, "max"),
        (KEYWORD, "list"),
        (IDENTIFIER, "as"),
        (IDENTIFIER, "model"),
        (KEYWORD, "none"),
    ]


def test_two_character_symbols_win_over_one_character_ones() -> None:
    assert [value for _, value in kinds_and_values("== != -> = ! < - *")] == ["==", "!=", "->", "=", "!", "<", "-", "*"]


@pytest.mark.parametrize(
    ("source", "value"),
    [
        (r'"a\nb\tc\rd"', "a\nb\tc\rd"),
        (r'"say \"hi\""', 'say "hi"'),
        (r"'it\'s'", "it's"),
        (r'"back\\slash"', "back\\slash"),
        (r'"\q and \u0041"', "q and u0041"),  # unknown escapes give the character itself
        ('"two\nlines"', "two\nlines"),
    ],
)
def test_string_escapes_follow_the_reference(source: str, value: str) -> None:
    assert kinds_and_values(source) == [(STRING, value)]


def test_only_double_slash_starts_a_comment() -> None:
    assert kinds_and_values("a // comment == ignored\nb") == [(IDENTIFIER, "a"), (IDENTIFIER, "b")]
    with pytest.raises(ParseError, match="Unexpected character '#'"):
        tokenize("a # no")


def test_columns_count_utf16_units_and_only_newline_ends_a_line() -> None:
    # The emoji is two UTF-16 units; the carriage return is an ordinary column.
    tokens = tokenize('"\U0001f600" x\r\n  y')
    string, x, y, eof = tokens
    assert (string.start.column, string.end.column) == (1, 5)
    assert (x.start.line, x.start.column, x.start.offset) == (1, 6, 4)
    assert (y.start.line, y.start.column) == (2, 3)
    assert eof.kind == EOF and eof.start == eof.end


def test_a_multi_line_string_ends_on_its_last_line() -> None:
    string = tokenize('x = "a\nbc"')[2]
    assert (string.start.line, string.start.column) == (1, 5)
    assert (string.end.line, string.end.column) == (2, 4)


@pytest.mark.parametrize(
    ("source", "message", "where"),
    [
        ('x = "open', "Unterminated string literal", (1, 5)),
        ("x = 'open\\", "Unterminated escape sequence", (1, 5)),  # both point at the opening quote
        ("a\n  /* no */", "Unexpected character '/'", (2, 3)),
        ("a > b", "Unexpected character '>'", (1, 3)),  # '>' arrives in 0.1.7
    ],
)
def test_lexical_errors_name_the_reference_text_and_position(source: str, message: str, where: tuple[int, int]) -> None:
    with pytest.raises(ParseError) as caught:
        tokenize(source, "bad.as")
    error = caught.value
    assert isinstance(error, SourceError)
    assert (error.message, (error.line, error.column)) == (message, where)
    assert error.reference_message == f"{message} at {where[0]}:{where[1]}"
    assert str(error).startswith(f"bad.as:{where[0]}:{where[1]}: error[PARSE_ERROR]: {message}\n")


_PIECES = [
    "x", "step-1", "use", "2k", "1.", "{", "}", "==", "->", ",", '"s"', "'a\nb'", '"a\\"b"', "\n", "\n\n",
    " ", "\t", "\r", "// note\n", "//", "\U0001f600", "é", '"\U0001f600\n\U0001f600"',
]  # fmt: skip


def _position(source: str, offset: int) -> tuple[int, int]:
    """Line and UTF-16 column of ``offset``, counted from scratch."""
    line_start = source.rfind("\n", 0, offset) + 1
    units = len(source[line_start:offset].encode("utf-16-le")) // 2
    return source.count("\n", 0, offset) + 1, units + 1


@settings(max_examples=examples(4))
@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_every_position_is_where_the_token_is(source: str) -> None:
    """The lexer follows lines token by token; each position must agree with one counted from the
    start of the text, across blank lines, comments, strings that span lines and astral characters."""
    try:
        tokens = tokenize(source)
    except ParseError:
        return  # '"' pieces can leave a string open
    for token in tokens:
        assert (token.line, token.column) == _position(source, token.offset)
        assert (token.end_line, token.end_column) == _position(source, token.end_offset)
        if token.kind != EOF:
            assert source[token.offset : token.end_offset].startswith(("'", '"', token.value[:1]))
    assert tokens[-1].offset == len(source)
