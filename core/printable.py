"""Text shown as one line, whatever it holds: how a message quotes a name or a value someone else chose.

A file name, an agent name or a key such as ``"x\\nasrender: all good\\x1b[2J"`` quoted in a message
must not start a second line that looks like one of ours, move the cursor or clear the screen, nor
turn the rest of the line around (bidirectional controls). So C0 and C1 controls, DEL, the line and
paragraph separators, bidirectional controls and lone surrogates are shown as escapes (``\\x1b``,
``\\u202e``). The terminal writer of ``asrender`` and the located errors of AgentScript both use it.
"""

from __future__ import annotations

import functools
import re

__all__ = ["escape_unsafe", "half_characters", "one_line", "unsafe", "unsafe_in_block"]


@functools.cache
def unsafe() -> re.Pattern[str]:
    """C0 and C1 controls, DEL, line/paragraph separators, bidi controls, lone surrogates.

    Compiled when first asked for, as :func:`unsafe_in_block` is: each takes about half a
    millisecond to compile, and a run that prints nothing unsafe never needs either."""
    return re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@functools.cache
def unsafe_in_block() -> re.Pattern[str]:
    """:func:`unsafe` but newline and tab: what is escaped in a block of several lines whose line
    breaks are its own (a located error's source line and caret, a debug block's prompt)."""
    return re.compile(
        "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
    )


@functools.cache
def half_characters() -> re.Pattern[str]:
    """Lone surrogates alone: what no UTF-8 encoder takes (pydantic-core's among them), escaped in a
    message that must be text anywhere, replaced in what ``asrender`` prints. Compiled when first
    asked for, as :func:`unsafe` is: the compiler sets the 2,048 code points of the range one by one
    (2.3M instructions), and text that is ASCII has none to look for."""
    return re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(text: str) -> str:
    """``text`` as one printable line: controls, separators, bidi controls and surrogates escaped."""
    return unsafe().sub(_escape, text)


def escape_unsafe(text: str, pattern: re.Pattern[str] | None = None) -> str:
    """``text`` with what ``pattern`` matches shown as escapes (by default :func:`unsafe_in_block`:
    all that is unsafe but newlines and tabs)."""
    return (pattern or unsafe_in_block()).sub(_escape, text)
