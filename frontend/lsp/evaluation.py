"""A program's model calls for the editor: an offline run in a child process, bounded and killable.

Hovering over a file someone else wrote must be as safe as ``asrender serve``: the run is the
inspector's (see :mod:`.scratch_run`: a scratch copy, nothing allowed beyond it, nothing sent), and
it runs in a process of its own so that it can be bounded and stopped: at most
:data:`MEMORY_LIMIT` bytes of address space and :data:`CPU_LIMIT` seconds of processor, killed
after the evaluation's wall-clock timeout, and killed at once when the awaiting task is cancelled
(the text changed, or the editor cancelled its request).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CPU_LIMIT", "MEMORY_LIMIT", "Call", "Evaluation", "EvaluationFailed", "evaluate", "kill_all"]

MEMORY_LIMIT = 2 * 2**30
"""Bytes of address space an evaluation may map (the interpreter with pydantic maps about 150 MB)."""
CPU_LIMIT = 30
"""Seconds of processor an evaluation may use, whatever its wall-clock timeout."""


class EvaluationFailed(Exception):
    """The evaluation did not end with an answer: out of time or memory, or killed."""


@dataclass(frozen=True)
class Call:
    """One model call of the run: where it was made (the file as the user names it, 1-based line
    and UTF-16 column of its ``generate``), its attempt, the text ``asrender`` prints for it and
    its context items (label, source, budget, the clipped text and sizes)."""

    file: str
    line: int
    column: int
    attempt: int
    block: str
    context: list[dict[str, Any]]


@dataclass(frozen=True)
class Evaluation:
    """A run's calls, the sibling files it used (``None``: none, mock values instead), what the
    scratch copy left out, and the run's error, if it failed (its calls so far are kept)."""

    calls: list[Call]
    input: str | None
    replies: str | None
    error: str | None = None
    left_out: list[str] = field(default_factory=list)

    def at(self, file: str, line: int, column: int) -> list[Call]:
        """The calls made by the ``generate`` at ``file:line:column``, retries included."""
        return [call for call in self.calls if (call.file, call.line, call.column) == (file, line, column)]

    def sources(self) -> str:
        """Where the run's input and replies came from, in words."""
        given = f"input from {self.input}" if self.input else "no input file: input is {}"
        replies = f"replies from {self.replies}" if self.replies else "no replies file: mock values"
        return f"{given}; {replies}"


async def evaluate(
    path: Path, source: str, *, format_name: str = "agentscript", provider: str | None = None, timeout: float = 10.0
) -> Evaluation:
    """Run ``source`` (the program at ``path``, as the editor holds it) offline in a child process."""
    request = json.dumps({"path": str(path), "source": source, "format": format_name, "provider": provider})
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        f"{__package__}.scratch_run",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=path.parent if path.parent.is_dir() else None,
        preexec_fn=_limits,
        start_new_session=True,
    )
    _RUNNING.add(process)
    try:
        out, err = await asyncio.wait_for(process.communicate(request.encode()), timeout)
    except TimeoutError:
        raise EvaluationFailed(f"the run took longer than {timeout:g} s and was stopped") from None
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
        _RUNNING.discard(process)
    if process.returncode != 0:
        reason = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {process.returncode}"]
        raise EvaluationFailed(f"the run failed: {reason[0]}")
    answer = json.loads(out)
    return Evaluation(
        [Call(**call) for call in answer["calls"]],
        answer["input"],
        answer["replies"],
        answer["error"],
        answer["left_out"],
    )


_RUNNING: set[asyncio.subprocess.Process] = set()
"""The evaluations' child processes still running."""


def kill_all() -> None:
    """Kill every evaluation still running: the server is ending (its event loop may never run
    again to see them out), and a child of its own session would otherwise outlive it."""
    for process in list(_RUNNING):
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
    _RUNNING.clear()


def _limits() -> None:
    """In the child, before it runs: its memory and processor time bounded."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT))
    os.nice(5)
