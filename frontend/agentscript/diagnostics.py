"""Errors and diagnostics of the AgentScript front end, printed like a compiler's.

Every problem is shown as ``file.as:LINE:COL: error[CODE]: message``, then the source line and a caret.
``LINE:COL`` and ``message`` are the reference's own (UTF-16 columns, exact texts), so tools written
against the reference still find them; :attr:`Diagnostic.reference_text` and
:attr:`ParseError.reference_message` spell them exactly as the reference prints them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field

from ...core.errors import PromptwireError, SourceError
from ...core.printable import one_line
from ...core.records import dataclass_record
from .positions import SourceFile, Span, line_text, shown_line

__all__ = [
    "MAX_SHOWN_DIAGNOSTICS",
    "PARSE_ERROR",
    "AgentScriptError",
    "CheckError",
    "Diagnostic",
    "ParseError",
    "format_diagnostic",
    "format_diagnostics",
]

PARSE_ERROR = "PARSE_ERROR"
DEFAULT_FILE = "<source>"

MAX_SHOWN_DIAGNOSTICS = 100
"""How many diagnostics a check prints before it only counts the rest. A hundred findings are more
than anyone reads before fixing the first; a generated program with thousands of mistakes would
otherwise print each one with its source line (5,000 duplicate parameters on one 10 kB line made
75 MB of output)."""


def _render(file: str, line: int, column: int, code: str, message: str, source_line: str | None) -> str:
    # The head is one line whatever the file name or the message quotes (a path, an agent name
    # with a newline): it cannot forge a line of its own.
    head = one_line(f"{file}:{line}:{column}: error[{code}]: {message}")
    if source_line is None:
        return head
    text, padding = shown_line(source_line.rstrip("\r"), column)
    return f"{head}\n{text}\n{padding}^"


class AgentScriptError(SourceError):
    """One located error with a code: ``file:LINE:COL: error[CODE]: message``, source line, caret."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        file: str,
        line: int,
        column: int,
        source_line: str | None = None,
    ) -> None:
        self.code = code  # set first: SourceError.__init__ calls render()
        super().__init__(message, file=file, line=line, column=column, source_line=source_line)

    def render(self) -> str:
        return _render(self.file, self.line, self.column, self.code, self.message, self.source_line)


class ParseError(AgentScriptError):
    """The program is not AgentScript: a lexical or syntax error (the reference's ``ParseError``)."""

    def __init__(self, message: str, *, file: str, line: int, column: int, source_line: str | None = None) -> None:
        super().__init__(PARSE_ERROR, message, file=file, line=line, column=column, source_line=source_line)

    @property
    def reference_message(self) -> str:
        """The message exactly as the reference's ``ParseError`` spells it: ``<text> at L:C``."""
        return f"{self.message} at {self.line}:{self.column}"


@dataclass_record(frozen=True, slots=True)
class Diagnostic:
    """One finding of the static checks: a reference code, its exact message and where it points.

    ``file`` is the file of ``span`` when that is not the checked program's own (a finding inside
    an imported agent), else ``None``.
    """

    code: str
    message: str
    span: Span
    severity: str = "error"
    file: SourceFile | None = field(default=None, repr=False, compare=False)

    def __init__(
        self,
        code: str,
        message: str,
        span: Span,
        severity: str = "error",
        file: SourceFile | None = None,
    ) -> None:
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "message", message)
        object.__setattr__(self, "span", span)
        object.__setattr__(self, "severity", severity)
        object.__setattr__(self, "file", file)

    @property
    def line(self) -> int:
        return self.span.start.line

    @property
    def column(self) -> int:
        return self.span.start.column

    @property
    def reference_text(self) -> str:
        """The line the reference prints for this finding: ``ERROR CODE at L:C: message``."""
        return f"{self.severity.upper()} {self.code} at {self.line}:{self.column}: {self.message}"


def format_diagnostic(diagnostic: Diagnostic, source: str | None, path: str | None = None) -> str:
    """One diagnostic as the compiler-style block (the source line is shown when ``source`` is given).

    ``source`` and ``path`` are the checked program's; a finding in another file shows that file's.
    """
    if diagnostic.file is not None:
        source, path = diagnostic.file.text, diagnostic.file.name
    shown = None if source is None else line_text(source, diagnostic.line)
    return _render(path or DEFAULT_FILE, diagnostic.line, diagnostic.column, diagnostic.code, diagnostic.message, shown)


def format_diagnostics(
    diagnostics: Sequence[Diagnostic], source: str | None, path: str | None = None, *, limit: int | None = None
) -> str:
    """The diagnostics of a run, in the order the checks found them, one block each.

    With ``limit``, only the first ``limit`` are shown and a last line counts the others. The source
    is split into lines once, so the cost is the output's, whatever the number of diagnostics.
    """
    split: dict[str | None, list[str] | None] = {}  # each file's lines, split once

    def lines_of(text: str | None) -> list[str] | None:
        if text not in split:
            split[text] = None if text is None else text.split("\n")
        return split[text]

    shown = diagnostics if limit is None else diagnostics[:limit]
    blocks = []
    for diagnostic in shown:
        # A finding in an imported file shows that file's name and line.
        text, name = (diagnostic.file.text, diagnostic.file.name) if diagnostic.file is not None else (source, path)
        lines = lines_of(text)
        blocks.append(
            _render(
                name or DEFAULT_FILE,
                diagnostic.line,
                diagnostic.column,
                diagnostic.code,
                diagnostic.message,
                None if lines is None else _line(lines, diagnostic.line),
            )
        )
    hidden = len(diagnostics) - len(shown)
    if hidden:
        blocks.append(f"... {hidden} more error{'' if hidden == 1 else 's'} not shown ({len(diagnostics)} in all)")
    return "\n".join(blocks)


def _line(lines: Sequence[str], line: int) -> str:
    return lines[line - 1] if 0 < line <= len(lines) else ""


class CheckError(PromptwireError):
    """The program parsed but failed the static checks; carries every diagnostic of the run.

    Its text, what a user is shown, holds the first :data:`MAX_SHOWN_DIAGNOSTICS` and counts the
    rest; :attr:`diagnostics` and :attr:`reference_message` hold them all.
    """

    def __init__(self, diagnostics: Sequence[Diagnostic], source: str | None, path: str | None = None) -> None:
        self.diagnostics = tuple(diagnostics)
        self.source = source
        self.path = path
        super().__init__(format_diagnostics(self.diagnostics, source, path, limit=MAX_SHOWN_DIAGNOSTICS))

    def file_of(self, diagnostic: Diagnostic) -> str:
        """The name of the file ``diagnostic`` points into (the checked program's, or an imported one)."""
        return diagnostic.file.name if diagnostic.file is not None else self.path or DEFAULT_FILE

    @property
    def reference_message(self) -> str:
        """The reference's ``SemanticError`` text: one ``ERROR CODE at L:C: message`` line each."""
        return "\n".join(diagnostic.reference_text for diagnostic in self.diagnostics)
