"""``sh://find``, ``grep`` and ``sed``: AgentScript's results, in Python, inside the workspace;
``sh://bash`` and friends refused; no process is ever started."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from promptwire.core.tools import ToolContext, ToolError, ToolRequest
from promptwire.tools.sandbox import ONLY_THE_WORKSPACE
from promptwire.tools.shell import shell_tool


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1  # TODO: name\nprint(x)\n", encoding="utf-8")
    (root / "src" / "pkg" / "mod.py").write_text("# todo lower\n# TODO upper\r\nend", encoding="utf-8")
    (root / "src" / "notes.md").write_text("TODO in markdown\n", encoding="utf-8")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("TODO in git\n", encoding="utf-8")
    (tmp_path / "outside.py").write_text("TODO outside\n", encoding="utf-8")
    (root / "src" / "out").symlink_to(tmp_path)
    return root


def run(workspace: Path, command: str, args: Any) -> Any:
    return shell_tool(ToolRequest("T", f"sh://{command}", "run", [args]), ToolContext(workspace)).result


def test_find_lists_files_and_folders_in_byte_order_without_following_symlinks(workspace: Path) -> None:
    assert run(workspace, "find", {"path": "src"}) == {
        "ok": True,
        "files": ["src", "src/app.py", "src/notes.md", "src/pkg", "src/pkg/mod.py"],
    }
    assert run(workspace, "find", {"path": ".", "type": "dir"})["files"] == [".", ".git", "src", "src/pkg"]


def test_find_globs_match_the_end_of_the_path_and_cross_folders(workspace: Path) -> None:
    assert run(workspace, "find", {"path": ".", "name": "*.py"})["files"] == ["src/app.py", "src/pkg/mod.py"]
    assert run(workspace, "find", {"path": ".", "name": "src/*d*"})["files"] == ["src/notes.md", "src/pkg/mod.py"]
    assert run(workspace, "find", {"path": ".", "name": "app.p?", "type": "file"})["files"] == ["src/app.py"]
    assert run(workspace, "find", {"path": ".", "max": 2})["files"] == [".", ".git"]


def test_grep_is_plain_case_sensitive_text_with_line_numbers(workspace: Path) -> None:
    assert run(workspace, "grep", {"path": ".", "pattern": "TODO", "include": "*.py"}) == {
        "ok": True,
        "matches": [
            {"path": "src/app.py", "line": 1, "text": "x = 1  # TODO: name"},
            {"path": "src/pkg/mod.py", "line": 2, "text": "# TODO upper"},
        ],
    }
    assert [m["path"] for m in run(workspace, "grep", {"path": ".", "pattern": "TODO"})["matches"]] == [
        ".git/HEAD",
        "src/app.py",
        "src/notes.md",
        "src/pkg/mod.py",
    ]
    assert run(workspace, "grep", {"path": "src", "pattern": "(x)", "max": 1})["matches"] == [
        {"path": "src/app.py", "line": 2, "text": "print(x)"}
    ]


def test_grep_skips_files_over_a_mebibyte(workspace: Path) -> None:
    (workspace / "big.txt").write_text("TODO\n" + "x" * (1024 * 1024), encoding="utf-8")
    assert run(workspace, "grep", {"path": "big.txt", "pattern": "TODO"})["matches"] == []


def test_sed_reads_a_range_of_lines(workspace: Path) -> None:
    assert run(workspace, "sed", {"path": "src/pkg/mod.py", "start": 2, "max": 5}) == {
        "ok": True,
        "text": "# TODO upper\nend",
        "start": 2,
        "end": 3,
    }
    assert run(workspace, "sed", {"path": "src/app.py"})["end"] == 3  # the final newline leaves an empty line


@pytest.mark.parametrize("shell", ["sh", "bash", "zsh", "fish"])
def test_shells_are_forbidden(workspace: Path, shell: str) -> None:
    with pytest.raises(ToolError, match=f"^Forbidden shell tool '{shell}'$"):
        run(workspace, shell, {"command": "rm -rf /"})


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        ("rm", {"path": "."}, "Unsupported shell tool 'rm'. Supported: find, grep, sed"),
        ("find", "src", "Find.run expects one json object argument"),
        ("find", {}, "Find.run.path is required"),
        ("grep", {"path": "."}, "Grep.run.pattern is required"),
        ("grep", {"path": ".", "pattern": "x", "max": 0}, "Expected a positive integer, got 0"),
        ("grep", {"path": ".", "pattern": "x", "include": 3}, "Expected a string, got 3"),
        ("sed", {"path": "src/app.py", "start": 1.5}, "Expected a positive integer, got 1.5"),
        ("find", {"path": "../"}, "Path escapes workspace: ../" + ONLY_THE_WORKSPACE),
        ("grep", {"path": "/", "pattern": "TODO"}, "Path escapes workspace: /" + ONLY_THE_WORKSPACE),
        ("sed", {"path": "src/out/outside.py"}, "Path escapes workspace: src/out/outside.py" + ONLY_THE_WORKSPACE),
    ],
)
def test_bad_calls_and_escapes_are_refused(workspace: Path, command: str, args: Any, message: str) -> None:
    with pytest.raises(ToolError) as caught:
        run(workspace, command, args)
    assert str(caught.value) == message


def test_no_process_is_started(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a process was started")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    for command in ("find", "grep", "sed"):
        run(workspace, command, {"path": "src/app.py", "pattern": "x"})
