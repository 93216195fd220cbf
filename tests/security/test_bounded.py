"""Nothing a program or a model's reply supplies may take unbounded time or memory in the tools.

| payload | defence |
|---|---|
| a glob such as ``*a*a*a*a*a*a*b`` (30 s on a 100-character name with the regex) | a two-pointer wildcard matcher: (path × pattern) steps, same answers as the regex |
| ``Sed.run`` of a few lines of a huge file (300 MiB peak for 100 MiB) | read in chunks: memory holds the lines returned |
| ``File.read`` of a huge file | refused above the run's limit (``--max-input-size``), see test_files.py |

The big file is 16 MiB by default; ``PROMPTWIRE_BIG_FILE_MIB=100`` runs the reported case (CI).
"""

from __future__ import annotations

import os
import re
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from time_bounds import AT_ONCE  # tests/time_bounds.py (pytest's pythonpath)

from promptwire.core.permissions import Permissions
from promptwire.core.tools import ToolRequest
from promptwire.tools import sandbox
from promptwire.tools.sandbox import glob_matcher, line_range, lines_of
from promptwire.tools.shell import shell_tool

from hypothesis_profile import examples

BIG_MIB = int(os.environ.get("PROMPTWIRE_BIG_FILE_MIB", "16"))


def regex_glob(pattern: str) -> Any:
    """The matcher as AgentScript (and this package, before) built it: a regular expression. ``\\Z``
    where the old code wrote ``$``: JavaScript's ``$`` (AgentScript's) is the end of the text, where
    Python's also matched before a final newline (a file name ending in one)."""
    body = "".join(".*" if char == "*" else "." if char == "?" else re.escape(char) for char in pattern)
    compiled = re.compile(f"(^|/){body}\\Z", re.DOTALL)
    return lambda value: compiled.search(value) is not None


@settings(max_examples=examples(30))
@given(st.text(alphabet="ab/*?.", max_size=8), st.text(alphabet="ab/.\n", max_size=10))
def test_the_glob_matcher_answers_as_the_regular_expression_did(pattern: str, value: str) -> None:
    assert glob_matcher(pattern)(value) == regex_glob(pattern)(value)


def run(work: Path, command: str, args: dict[str, Any]) -> Any:
    return shell_tool(ToolRequest("T", f"sh://{command}", "run", [args]), Permissions(work)).result


@pytest.mark.parametrize("command", ["find", "grep"])
def test_a_pathological_glob_takes_no_time(tmp_path: Path, command: str) -> None:
    (tmp_path / ("a" * 100)).write_text("x\n", encoding="utf-8")
    glob = "*a*a*a*a*a*a*b"
    started = time.monotonic()
    found = run(tmp_path, command, {"path": ".", "name": glob, "include": glob, "pattern": "x"})
    assert found in ({"ok": True, "files": []}, {"ok": True, "matches": []})
    assert time.monotonic() - started < AT_ONCE  # backtracking on this glob takes hours


@settings(max_examples=examples(4))
@given(
    st.binary(max_size=40).map(lambda data: data.replace(b"z", b"\n").replace(b"y", b"\r")),
    st.integers(1, 12),
    st.integers(1, 12),
    st.integers(1, 7),
)
def test_a_line_range_read_in_chunks_is_the_range_of_the_whole_text(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, start: int, count: int, chunk: int
) -> None:
    path = tmp_path_factory.mktemp("sed") / "f"
    path.write_bytes(data)
    expected = lines_of(data.decode("utf-8", errors="replace"))[start - 1 : start - 1 + count]
    original = sandbox._CHUNK
    sandbox._CHUNK = chunk  # lines split across chunk boundaries, "\r" and "\n" apart
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            assert line_range(fd, start, count, 1 << 20, "f") == expected
        finally:
            os.close(fd)
    finally:
        sandbox._CHUNK = original


def test_a_line_range_of_a_big_file_costs_the_lines_not_the_file(tmp_path: Path) -> None:
    line = b"0123456789" * 10 + b"\n"
    block = line * (1024 * 1024 // len(line))
    with open(tmp_path / "big.log", "wb") as handle:
        for _ in range(BIG_MIB):
            handle.write(block)
    middle = BIG_MIB * len(block) // len(line) // 2
    tracemalloc.start()
    try:
        result = run(tmp_path, "sed", {"path": "big.log", "start": middle, "max": 3})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result == {"ok": True, "text": "\n".join([line[:-1].decode()] * 3), "start": middle, "end": middle + 2}
    assert peak < 1024 * 1024, f"{peak} bytes for a {BIG_MIB} MiB file"  # reading the whole file took 3 times its size
