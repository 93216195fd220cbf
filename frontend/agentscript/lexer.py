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
    "NUMBER",
    "STRING",
    "SYMBOL",
    "SYMBOLS",
    "Token",
    "tokenize",
]

IDENTIFIER = "identifier"
KEYWORD = "keyword"
STRING = "string"
NUMBER = "number"
SYMBOL = "symbol"
EOF = "eof"

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
      | (?P<string>"(?:[^"\\]++|\\[\s\S])*+"|'(?:[^'\\]++|\\[\s\S])*+')
      | (?P<symbol>==|!=|->|[{}()\[\].,:=!<\-*])
      | (?P<bad>[\s\S])
    )?
    """,
    re.VERBOSE,
)
_WORD, _NUMBER, _STRING, _SYMBOL = 1, 2, 3, 4
_ESCAPE = re.compile(r"\\([\s\S])")


class Token(NamedTuple):
    """One token: its kind, its value (strings unquoted and unescaped) and where it lies.

    The numbers are stored flat and :attr:`start` / :attr:`end` build positions on demand: most
    tokens (commas, colons, brackets) never become the edge of a node, and three objects per token
    were a third of the lexer's time.
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

    @property
    def span(self) -> Span:
        start = _new(Position, (self.line, self.column, self.offset))
        return _new(Span, (start, _new(Position, (self.end_line, self.end_column, self.end_offset))))


def _unescape(match: re.Match[str]) -> str:
    char = match.group(1)
    return ESCAPES.get(char, char)


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


def _next_newline(source: str, start: int, size: int) -> int:
    """Where the first ``\\n`` at or after ``start`` is; ``size`` when there is none."""
    found = source.find("\n", start)
    return size if found < 0 else found


def tokenize(source: str, path: str | None = None) -> list[Token]:
    """Split ``source`` into tokens; raise :class:`ParseError` at the first character that fits no rule."""
    tokens: list[Token] = []
    append = tokens.append
    new = _new
    columns = LineMap(source)
    column = columns.column
    plain = not columns.has_astral  # then a column is a plain difference of offsets
    line = 1
    line_start = 0
    size = len(source)
    # The next line break at or after the current line's start: a token before it is on the current
    # line, so most tokens cost one comparison instead of a search of the blanks before them.
    newline = _next_newline(source, 0, size)
    for match in _TOKEN.finditer(source):
        group = match.lastindex
        if group is None:
            break  # only blanks were left
        offset, end_offset = match.span(group)
        if offset > newline:
            line += source.count("\n", newline, offset)
            line_start = source.rfind("\n", newline, offset) + 1
            newline = _next_newline(source, offset, size)
        text = source[offset:end_offset]
        start_column = offset - line_start + 1 if plain else column(offset, line_start)
        if group == _WORD:
            kind = KEYWORD if text in KEYWORDS else IDENTIFIER
            append(new(Token, (kind, text, line, start_column, offset, line, start_column + len(text), end_offset)))
        elif group == _SYMBOL:
            append(new(Token, (SYMBOL, text, line, start_column, offset, line, start_column + len(text), end_offset)))
        elif group == _NUMBER:
            append(new(Token, (NUMBER, text, line, start_column, offset, line, start_column + len(text), end_offset)))
        elif group == _STRING:
            value = text[1:-1]
            if "\\" in value:
                value = _ESCAPE.sub(_unescape, value)
            start_line = line
            if newline < end_offset:  # the string spans lines
                line += text.count("\n")
                line_start = offset + text.rfind("\n") + 1
                newline = _next_newline(source, end_offset, size)
            end_column = column(end_offset, line_start)
            append(new(Token, (STRING, value, start_line, start_column, offset, line, end_column, end_offset)))
        else:
            message = _unterminated(source, offset) if text in QUOTES else f"Unexpected character '{text}'"
            raise ParseError(
                message,
                file=path or DEFAULT_FILE,
                line=line,
                column=start_column,
                source_line=line_text(source, line),
            )
    if newline < size:  # blanks or comments after the last token hold line breaks
        line += source.count("\n", newline)
        line_start = source.rfind("\n") + 1
    end_column = column(len(source), line_start)
    append(Token(EOF, "", line, end_column, len(source), line, end_column, len(source)))
    return tokens
