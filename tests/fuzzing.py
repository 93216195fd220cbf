"""What the fuzz targets share: the alarm that bounds one input's time, and ``asrender`` run as the
shell runs it, with the check that its stderr holds only the lines it writes.

Each target lives in its subject's folder (``tests/security/test_*_fuzz.py``,
``tests/agentscript/test_as_fuzz.py``); how many inputs each tries is
``hypothesis_profile.fuzz_examples``.
"""

from __future__ import annotations

import contextlib
import io
import re
import signal
import sys
from collections.abc import Iterator

from promptwire.frontend.asrender.cli import main

__all__ = ["TooSlow", "asrender", "check_stderr", "within"]

SECONDS = 20.0
"""The most one input may take before a target fails (generous: the machine is shared)."""


class TooSlow(BaseException):
    """Raised by the alarm: a BaseException, so that promptwire's own ``except Exception`` lets it through."""


@contextlib.contextmanager
def within(seconds: float, what: object) -> Iterator[None]:
    """Fail with :class:`TooSlow` naming ``what`` if the block runs longer than ``seconds``."""

    def expire(signum: int, frame: object) -> None:
        raise TooSlow(f"{what!r} ran for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
HEAD = re.compile(r"^\S.*:\d+:\d+: error(\[[A-Z_]+\])?: ")
CARET = re.compile(r"^[ \t]*\^$")
DEBUG_START = "--- AgentScript generate debug: "
DEBUG_END = "--- end AgentScript generate debug ---"
CANNOT_RENDER = re.compile(r"^\S.*: cannot render$")


def check_stderr(err: str) -> None:
    """stderr is made only of the lines ``asrender`` writes: ``asrender: ...`` lines, located error
    blocks (a head, its source line and a caret), debug blocks and a snapshot's ``NAME: cannot
    render`` head; never a traceback, never ``internal error``, never a raw control."""
    assert "Traceback" not in err and "internal error" not in err, err
    assert not RAW.search(err), err
    if not err:
        return
    assert err.endswith("\n"), err
    lines = err[:-1].split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("asrender: ") or CANNOT_RENDER.match(line) or re.match(r"^\.\.\. \d+ more error", line):
            index += 1
        elif line.startswith(DEBUG_START):
            index = lines.index(DEBUG_END, index) + 1
            while index < len(lines) and lines[index].startswith("note: "):
                index += 1
        elif HEAD.match(line):
            has_source = index + 2 < len(lines) and CARET.match(lines[index + 2])
            index += 3 if has_source else 1
        else:
            raise AssertionError(f"line {index + 1} of stderr is none of asrender's: {line!r}\n{err}")


def asrender(argv: list[str], stdin: bytes = b"", seconds: float = SECONDS) -> tuple[int, str, str]:
    """``main(argv)`` as the shell runs it (a bad command line is status 2), bounded by the alarm:
    the exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    saved_stdin = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with within(seconds, ["asrender", *argv]), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else 1
    finally:
        sys.stdin = saved_stdin
    return code, out.getvalue(), err.getvalue()
