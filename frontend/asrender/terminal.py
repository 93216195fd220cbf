"""Everything ``asrender`` writes, made safe for a terminal and honest about failures.

Messages on stderr quote user data (field names, values, file names): a key such as
``"x\\nasrender: all good\\x1b[2J"`` must not forge a second line or clear the screen, so every
message is one line with control characters, bidirectional overrides and lone surrogates shown as
escapes. Output on stdout is the prompt itself: written byte for byte to a file or a pipe, with
terminal controls escaped only when stdout is a terminal. Half a character (a surrogate pair cut
by a budget) is written as its ``\\udXXX`` escape in every JSON output, as AgentScript sends it
(:mod:`promptwire.core.json_text` writes all of them); in the text display, which no encoding can
carry it in, it shows as U+FFFD. A write that fails (closed stdout, full disk) is reported as such.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import sys
import warnings
from collections.abc import Iterator
from typing import NoReturn, TextIO

from ...core.json_text import safe_json
from ...core.printable import escape_unsafe, half_characters, one_line

__all__ = [
    "CliError",
    "DebugStream",
    "OutputError",
    "error_block",
    "error_line",
    "finish_output",
    "is_terminal",
    "json_text",
    "one_line",
    "safe_json",
    "usage_error",
    "warnings_as_lines",
    "write_output",
]


@functools.cache
def _unsafe_in_text() -> re.Pattern[str]:
    """On a terminal, the prompt's own newlines and tabs stay; everything else unsafe is escaped.
    Compiled when first asked for (see :func:`~promptwire.core.printable.unsafe`): output that is
    not a terminal never needs it."""
    return re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


# JSON writers escape C0 controls (and half characters) in strings themselves; their own newlines
# are the layout.
class OutputError(Exception):
    """Standard output cannot be written (closed, full, gone)."""


class CliError(Exception):
    """A user-caused failure, already worded for the terminal: ``asrender`` prints it as one line
    and exits with status 1."""


def usage_error(message: str) -> NoReturn:
    """A bad command line: one ``asrender: error:`` line on stderr and exit status 2, as argparse's
    own errors end (see ``cli._Parser``)."""
    error_line(f"error: {message}")
    raise SystemExit(2)


def error_line(message: str) -> None:
    """Print one ``asrender:`` line on stderr; a failing stderr is ignored (nothing else to tell)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(f"asrender: {one_line(message)}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def warnings_as_lines(ours: type[Warning]) -> Iterator[None]:
    """Each warning of class ``ours`` raised meanwhile as one ``asrender: warning:`` line, every time
    (Python's own form names a source line of ours, which is no use to a user); others as Python shows them."""
    with warnings.catch_warnings():
        warnings.simplefilter("always", ours)
        python_shows = warnings.showwarning

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: TextIO | None = None,
            line: str | None = None,
        ) -> None:
            if issubclass(category, ours):
                error_line(f"warning: {message}")
            else:
                python_shows(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield


def json_text(value: object) -> str:
    """Indented JSON with every unsafe character escaped as JSON does (``\\u2028``, ``\\udc80``):
    the same data, and nothing in it that a terminal acts on or an encoder refuses."""
    from ...core.json_text import dumps
    from ...core.nesting import nesting_room

    with nesting_room():  # json's indenting encoder recurses per level; a prompt may nest MAX_DEPTH
        return safe_json(dumps(value, indent=2))


def error_block(text: str) -> None:
    """Print a compiler-style block (a located error, its source line and a caret) on stderr: its
    own line breaks and tabs stay (the caret must land under the column), anything else unsafe in
    a source line is escaped. A located error's first line quotes names as one line already
    (:func:`promptwire.core.printable.one_line`), so it cannot start another."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(escape_unsafe(text), file=sys.stderr, flush=True)


class DebugStream(io.TextIOBase):
    """Where a ``generate`` with ``debug: true`` writes its debug block: stderr, each write with the
    prompt's own newlines and tabs kept and every other control, separator, bidirectional control
    and half character escaped, as in an error block. The block shows the prompt's lines as they
    are (any printable text), between its ``---`` lines."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stderr.write(escape_unsafe(text))
            sys.stderr.flush()
        return len(text)


def write_output(text: str) -> None:
    """Write the prompt text to stdout as it is (U+FFFD for a lone surrogate; escapes on a tty)."""
    stream = sys.stdout
    if stream is None:
        raise OutputError("standard output is closed")
    if not text.isascii():
        text = half_characters().sub("\ufffd", text)
    if is_terminal(stream):
        text = escape_unsafe(text, _unsafe_in_text())
    try:
        stream.write(text)
    except BrokenPipeError:  # the reader has gone (``| head``): not an error, and nothing to say
        _silence_stdout()
        raise
    except OSError as exc:
        raise OutputError(exc.strerror or str(exc)) from None
    except ValueError as exc:  # a closed file object
        raise OutputError(str(exc)) from None


def finish_output() -> None:
    """Flush stdout now, so a full disk is reported while we can still say so."""
    stream = sys.stdout
    if stream is None:
        return
    try:
        stream.flush()
    except BrokenPipeError:
        _silence_stdout()
        raise
    except OSError as exc:
        _silence_stdout()
        raise OutputError(exc.strerror or str(exc)) from None
    except ValueError:
        pass


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's own flush at exit does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def is_terminal(stream: object) -> bool:
    """Whether ``stream`` is a terminal (a person reading it as it is written)."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False
