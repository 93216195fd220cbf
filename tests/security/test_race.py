"""Time of check, time of use: a second process swaps folders and files for symlinks that point out of
the workspace, for the whole run, while the tools read, write, list, find, grep and remember.

Checking a path and then opening it by name lost this race hundreds of times in 40,000 reads: the
folder checked was a symlink by the time it was opened. Every tool now walks its path from an open
folder without following a symlink out, so the count of escapes must be zero, however the system
calls interleave.

The default run lasts 2 seconds. CI runs it longer: ``PROMPTWIRE_STRESS_SECONDS=60 python -m pytest
-p no:cacheprovider tests/security/test_race.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from promptwire.core.errors import PromptwireError
from promptwire.core.permissions import Permissions
from promptwire.core.tools import ToolRequest
from promptwire.tools.files import file_tool
from promptwire.tools.jsonl_store import jsonl_memory
from promptwire.tools.shell import shell_tool

SECONDS = float(os.environ.get("PROMPTWIRE_STRESS_SECONDS", "2"))
OUTSIDE = "OUTSIDE-SECRET"

SWAPPER = """
import contextlib, ctypes, os, sys, time
work, outside, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
os.chdir(work)
os.symlink(outside, "swap.link")
os.symlink(os.path.join(outside, "secret.txt"), "inside/f.link")
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2


def exchange(a, b):
    # Atomically swap two names (Linux renameat2), so neither is ever missing; elsewhere, two renames.
    if getattr(libc, "renameat2", None) and libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE) == 0:
        return
    with contextlib.suppress(OSError):
        os.rename(a, a + ".away")
        os.rename(b, a)
        os.rename(a + ".away", b)


swaps = 0
end = time.monotonic() + seconds
print("ready", flush=True)
while time.monotonic() < end:
    exchange("swap", "swap.link")  # a folder on the way becomes a symlink out
    exchange("swap", "swap.link")  # and a folder again
    exchange("inside/f.txt", "inside/f.link")  # the last name becomes a symlink out
    exchange("inside/f.txt", "inside/f.link")  # and a file again
    if not os.path.islink("inside/f.link"):  # a write renamed its file over the link: plant it again
        with contextlib.suppress(OSError):
            os.unlink("inside/f.link")
            os.symlink(os.path.join(outside, "secret.txt"), "inside/f.link")
    swaps += 1
print(swaps, flush=True)
"""


def _attempts(work: Path, outside: Path) -> list[tuple[str, Callable[[], Any], Callable[[Any], bool]]]:
    """Each attempt, and how to tell from its result that it escaped."""
    context = Permissions(work, write=(work,))

    def tool(uri: str, method: str, args: Any) -> Any:
        request = ToolRequest("T", uri, method, [args])
        return (shell_tool if uri.startswith("sh:") else file_tool)(request, context).result

    def remember() -> Any:
        return jsonl_memory(ToolRequest("M", "file://swap/m.jsonl", "add", [{"n": 1}]), context).result

    def leaked(result: Any) -> bool:
        return OUTSIDE in repr(result) or "outside-only" in repr(result)

    return [
        ("read through a folder", lambda: tool("file://.", "read", {"path": "swap/secret.txt"}), leaked),
        ("read a swapped file", lambda: tool("file://.", "read", {"path": "inside/f.txt"}), leaked),
        ("list", lambda: tool("file://.", "list", {"path": "swap"}), leaked),
        ("sed", lambda: tool("sh://sed", "run", {"path": "swap/secret.txt"}), leaked),
        ("grep", lambda: tool("sh://grep", "run", {"path": "swap", "pattern": "SECRET"}), leaked),
        ("find", lambda: tool("sh://find", "run", {"path": "swap"}), leaked),
        ("write through a folder", lambda: tool("file://.", "write", {"path": "swap/new.txt", "content": "x"}), leaked),
        ("write a swapped file", lambda: tool("file://.", "write", {"path": "inside/f.txt", "content": "x"}), leaked),
        ("remember", remember, leaked),
    ]


def test_no_escape_while_another_process_swaps_folders_and_files_for_symlinks(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "swap").mkdir(parents=True)
    (work / "inside").mkdir()
    outside.mkdir()
    (work / "swap" / "secret.txt").write_text("inside\n", encoding="utf-8")
    (work / "inside" / "f.txt").write_text("inside\n", encoding="utf-8")
    (outside / "secret.txt").write_text(OUTSIDE + "\n", encoding="utf-8")
    (outside / "outside-only.txt").write_text(OUTSIDE + "\n", encoding="utf-8")
    before = {path.name: path.read_bytes() for path in outside.iterdir()}

    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(work), str(outside), str(SECONDS)], stdout=subprocess.PIPE, text=True
    )
    assert swapper.stdout is not None and swapper.stdout.readline() == "ready\n"
    attempts = escapes = refused = 0
    escaped: list[str] = []
    cases = _attempts(work, outside)
    while swapper.poll() is None:
        for name, attempt, leaked in cases:
            attempts += 1
            try:
                result = attempt()
            except PromptwireError:
                refused += 1  # escapes, "no such file" while a name is away: refused, never followed
                continue
            if leaked(result):
                escapes += 1
                escaped.append(name)
    swaps = int(swapper.stdout.read().strip())
    assert swapper.wait() == 0

    after = {path.name: path.read_bytes() for path in outside.iterdir()}
    print(f"{attempts} attempts ({refused} refused) against {swaps} swaps in {SECONDS:g} s: {escapes} escapes")
    assert (escapes, escaped[:5]) == (0, [])
    assert after == before  # nothing outside written, made or changed
    assert swaps > 0 and attempts > len(cases)
