"""The AgentScript 0.1.5 lexer: source text to a list of tokens ending with ``eof``.

The token rules are the reference's, quirks included, because programs that the reference accepts or
rejects must fare the same here:

* a hyphen is an identifier character (``step-1`` is one name);
* a number glues on a directly following identifier run (``2k``, ``1.5k``, ``1e5``, ``2k-3``), and a
  ``.`` after the digits is taken even when no digit follows (``1.``);
* strings may span lines; ``\\n \\r \\t \\\\ \\" \\'`` are escapes and any other escaped character stands
  for itself (``\\q`` is ``q``);
* ``//`` starts a comment; ``#``, ``/*`` and a lone ``-`` are not comments.

One compiled pattern does the scanning, because the lexer runs over every byte of every program.
The parser reads the tokens as :class:`Tokens`, parallel lists made by :func:`scan`, and asks for
positions only where a node begins or ends; :func:`tokenize` gives the same tokens one object each,
for tests and tools.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .diagnostics import DEFAULT_FILE, ParseError
from .positions import LineMap, Position, Span, line_text

__all__ = [
    "EOF",
    "IDENTIFIER",
    "KEYWORD",
    "KEYWORDS",
    "NAME",
    "NUMBER",
    "STRING",
    "SYMBOL",
    "SYMBOLS",
    "Token",
    "Tokens",
    "scan",
    "tokenize",
]

IDENTIFIER = "identifier"
KEYWORD = "keyword"
STRING = "string"
NUMBER = "number"
SYMBOL = "symbol"
EOF = "eof"
NAME = "name"
"""The kind :func:`scan` gives identifiers and keywords alike; :func:`tokenize` tells them apart."""

KEYWORDS = frozenset(
    {
        "import", "main", "agent", "func", "use", "loop", "until", "repeat", "for", "in", "return", "if",
        "else", "and", "or", "not", "generate", "from", "true", "false", "none", "string", "number",
        "boolean", "json", "list", "max",
    }
)  # fmt: skip
SYMBOLS = frozenset({"{", "}", "(", ")", "[", "]", ".", ",", ":", "=", "!", "<", "-", "*", "==", "!=", "->"})
QUOTES = frozenset({'"', "'"})
ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}
_new = tuple.__new__  # a NamedTuple's own constructor is a Python function; this is the C one

# One match per token: the blanks and comments before it, then the token. Folding the blanks into the
# token's match halves the trips through the Python loop, which is what the lexer's time goes to.
# Every quantifier is possessive: nothing after a run can match what the run gave back (the token is
# optional, its alternatives start with different characters), and not keeping the places to
# backtrack to saves a fifth of the scan.
_TOKEN = re.compile(
    r"""
    (?:[ \t\r\n]++|//[^\n]*+)*+
    (?:
        (?P<word>[A-Za-z_][A-Za-z0-9_-]*+)
      | (?P<number>[0-9]++(?:\.[0-9]*+)?+(?:[A-Za-z_][A-Za-z0-9_-]*+)?+)
      | (?P<symbol>==|!=|->|[{}()\[\].,:=!<\-*])
      | (?P<string>"(?:[^"\\]++|\\[\s\S])*+"|'(?:[^'\\]++|\\[\s\S])*+')
      | (?P<bad>[\s\S])
    )?
    """,
    re.VERBOSE,
)
_STRING = 4  # the groups before it need no work: their text is their value
_KINDS = (EOF, NAME, NUMBER, SYMBOL, STRING, EOF)
"""Each group's kind, by its number (``match.lastindex``). The last group is a character that starts
no token: scan records it like a token, for the error's position, and raises."""
_ESCAPE = re.compile(r"\\([\s\S])")


class Token(NamedTuple):
    """One token as :func:`tokenize` gives it: its kind, its value (strings unquoted and unescaped)
    and where it lies. The parser reads :class:`Tokens` instead; this is the form for tests and tools.
    """

    kind: str
    value: str
    line: int
    column: int
    offset: int
    end_line: int
    end_column: int
    end_offset: int

    @property
    def start(self) -> Position:
        return _new(Position, (self.line, self.column, self.offset))

    @property
    def end(self) -> Position:
        return _new(Position, (self.end_line, self.end_column, self.end_offset))


class Tokens:
    """The tokens of one source as parallel lists, indexed by token number; the last is ``eof``.

    A token is a kind (``name`` for identifiers and keywords alike: the parser never tells them
    apart), a value and the offset it starts at. Three list slots instead of one object per token,
    because a program of megabytes has hundreds of thousands of tokens and the parser reads only the
    kinds and values of most of them. A node's span holds the offsets of the tokens at its edges
    (:meth:`end_offset`, :meth:`span`); lines and columns are worked out from ``line_map`` only when
    asked for (:class:`~.positions.Span`, :meth:`start`, :meth:`end`). Only a string's end is kept,
    since its value (unquoted, unescaped) is shorter than its text; any other token's text is its
    value.
    """

    __slots__ = ("_string_ends", "kinds", "line_map", "starts", "values")

    def __init__(self, source: str) -> None:
        self.kinds: list[str] = []
        self.values: list[str] = []
        self.starts: list[int] = []
        self._string_ends: dict[int, int] = {}  # token number -> end offset, for strings
        self.line_map = LineMap(source)

    def end_offset(self, index: int) -> int:
        """The offset just past token ``index``."""
        if self.kinds[index] is STRING:
            return self._string_ends[index]
        return self.starts[index] + len(self.values[index])

    def start(self, index: int) -> Position:
        """Where token ``index`` starts."""
        return self.line_map.at(self.starts[index])

    def end(self, index: int) -> Position:
        """Just past token ``index`` (a string's end may lie on a later line than its start)."""
        return self.line_map.at(self.end_offset(index))

    def span(self, index: int) -> Span:
        """From the start of token ``index`` to its end (a string's may lie on a later line)."""
        start = self.starts[index]
        if self.kinds[index] is STRING:
            return _new(Span, (start, self._string_ends[index], self.line_map))
        return _new(Span, (start, start + len(self.values[index]), self.line_map))


def _unescape(match: re.Match[str]) -> str:
    char = match.group(1)
    return ESCAPES.get(char, char)


def _string_value(text: str) -> str:
    """The value of a string token's ``text``: quotes off, escapes replaced."""
    value = text[1:-1]
    return _ESCAPE.sub(_unescape, value) if "\\" in value else value


def _unterminated(source: str, start: int) -> str:
    """Which of the reference's two string errors applies to the quote at ``start``."""
    quote = source[start]
    index = start + 1
    while index < len(source):
        char = source[index]
        if char == quote:
            break
        if char == "\\":
            if index + 1 >= len(source):
                return "Unterminated escape sequence"
            index += 1
        index += 1
    return "Unterminated string literal"


def _lexical_error(source: str, path: str | None, position: Position) -> ParseError:
    """The error for the character at ``position``, which starts no token."""
    offset = position.offset
    char = source[offset]
    message = _unterminated(source, offset) if char in QUOTES else f"Unexpected character '{char}'"
    return ParseError(
        message,
        file=path or DEFAULT_FILE,
        line=position.line,
        column=position.column,
        source_line=line_text(source, position.line),
    )


def scan(source: str, path: str | None = None) -> Tokens:
    """Split ``source`` into :class:`Tokens`; raise :class:`ParseError` at the first character that
    fits no rule. This loop runs once per token of every program, so it does the least it can: it
    records where each token starts, and neither its line nor its column."""
    tokens = Tokens(source)
    kinds = tokens.kinds.append
    values = tokens.values.append
    starts = tokens.starts.append
    for match in _TOKEN.finditer(source):
        group = match.lastindex
        if group is None:
            break  # only blanks were left
        start = match.start(group)
        kinds(_KINDS[group])
        starts(start)
        if group < _STRING:
            values(match[group])
        elif group == _STRING:
            end = match.end(group)
            tokens._string_ends[len(tokens.starts) - 1] = end
            values(_string_value(source[start:end]))
        else:
            raise _lexical_error(source, path, tokens.start(len(tokens.starts) - 1))
    kinds(EOF)
    values("")
    starts(len(source))
    return tokens


def tokenize(source: str, path: str | None = None) -> list[Token]:
    """Split ``source`` into tokens; raise :class:`ParseError` at the first character that fits no rule."""
    tokens = scan(source, path)
    return [
        Token(_token_kind(kind, value), value, *tokens.start(index), *tokens.end(index))
        for index, (kind, value) in enumerate(zip(tokens.kinds, tokens.values, strict=True))
    ]


def _token_kind(kind: str, value: str) -> str:
    """The kind :func:`tokenize` gives: a name is a keyword or an identifier."""
    if kind is not NAME:
        return kind
    return KEYWORD if value in KEYWORDS else IDENTIFIER
