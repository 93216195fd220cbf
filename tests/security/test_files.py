"""File tools under attack: every payload a path can carry, and the defence it must meet.

The run here may write its whole workspace (``--allow-write``), so each refusal below is the
sandbox's, not a missing permission's. After every payload the folder outside the workspace must be
exactly as it was, and nothing may hang (a FIFO, a device).
"""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from promptwire.core import confined
from promptwire.core.permissions import NotAllowed, Permissions
from promptwire.core.tools import ToolError, ToolRequest
from promptwire.tools.files import file_tool
from promptwire.tools.shell import shell_tool

SECRET = "OUTSIDE-SECRET"


@pytest.fixture
def work(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "work"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("alpha\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET, encoding="utf-8")
    before = _tree(tmp_path / "outside")
    yield root
    assert _tree(tmp_path / "outside") == before  # nothing outside read into, written, made or removed


def _tree(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.fixture(autouse=True)
def never_hangs() -> Iterator[None]:
    """A payload that blocks (a FIFO opened for reading, say) fails the test instead of hanging it."""

    def hung(*_: Any) -> None:
        raise TimeoutError("the call hung")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def call(work: Path, uri: str, method: str, *args: Any, context: Permissions | None = None) -> Any:
    context = context or Permissions(work, write=(work,))
    tool = shell_tool if uri.startswith("sh:") else file_tool
    return tool(ToolRequest("T", uri, method, list(args)), context).result


def _link(name: str, target: str) -> Callable[[Path], None]:
    def plant(work: Path) -> None:
        (work / name).symlink_to(target.replace("{outside}", str(work.parent / "outside")))

    return plant


def _nothing(work: Path) -> None:
    pass


ESCAPES = "^Path escapes workspace: "

# (payload, setup, method, arguments, the defence: the error it must meet)
PAYLOADS: list[tuple[str, Callable[[Path], None], str, dict[str, Any], str]] = [
    ("..", _nothing, "read", {"path": "../outside/secret.txt"}, ESCAPES),
    ("a lone ..", _nothing, "list", {"path": ".."}, ESCAPES),
    (".. inside the path", _nothing, "read", {"path": "docs/../../outside/secret.txt"}, ESCAPES),
    ("out and back in", _nothing, "read", {"path": "../work/docs/a.md"}, ESCAPES),
    ("an absolute path elsewhere", _nothing, "read", {"path": "/etc/passwd"}, ESCAPES),
    (
        "%2e%2e is a name, never decoded",
        _nothing,
        "read",
        {"path": "%2e%2e/outside/secret.txt"},
        "^ENOENT: no such file or directory, open '.*/%2e%2e/outside/secret.txt'$",
    ),
    ("a NUL byte", _nothing, "read", {"path": "docs/a.md\x00../../x"}, r"^Path escapes workspace: 'docs"),
    ("a symlink to a file outside", _link("leak", "../outside/secret.txt"), "read", {"path": "leak"}, ESCAPES),
    ("an absolute symlink outside", _link("leak", "{outside}/secret.txt"), "read", {"path": "leak"}, ESCAPES),
    ("a symlinked folder outside", _link("out", "../outside"), "read", {"path": "out/secret.txt"}, ESCAPES),
    ("listing a symlinked folder outside", _link("out", "../outside"), "list", {"path": "out"}, ESCAPES),
    ("a symlink loop", _link("loop", "loop"), "read", {"path": "loop"}, ESCAPES),
    (
        "writing through a symlink",
        _link("leak", "../outside/secret.txt"),
        "write",
        {"path": "leak", "content": "x"},
        ESCAPES,
    ),
    (
        "writing into a symlinked folder",
        _link("out", "../outside"),
        "write",
        {"path": "out/new.txt", "content": "x"},
        ESCAPES,
    ),
    (
        "writing a dangling symlink",
        _link("new", "../outside/new.txt"),
        "write",
        {"path": "new", "content": "x"},
        ESCAPES,
    ),
    (
        "patching through a symlink",
        _link("leak", "../outside/secret.txt"),
        "patch",
        {"path": "leak", "search": "O", "replace": "0"},
        ESCAPES,
    ),
    ("/proc through a symlink", _link("env", "/proc/self/environ"), "read", {"path": "env"}, ESCAPES),
    ("/dev/zero through a symlink", _link("zero", "/dev/zero"), "read", {"path": "zero"}, ESCAPES),
]


@pytest.mark.parametrize(("payload", "setup", "method", "args", "defence"), PAYLOADS, ids=[p[0] for p in PAYLOADS])
def test_path_payloads(
    work: Path, payload: str, setup: Callable[[Path], None], method: str, args: dict[str, Any], defence: str
) -> None:
    setup(work)
    with pytest.raises(ToolError, match=defence):
        call(work, "file://.", method, args)


def test_a_symlink_that_stays_inside_is_followed(work: Path) -> None:
    (work / "alias.md").symlink_to("docs/a.md")
    assert call(work, "file://.", "read", {"path": "alias.md"}) == "alpha\n"
    assert (
        call(work, "file://.", "write", {"path": "alias.md", "content": "beta\n"})["effects"][0]["path"] == "docs/a.md"
    )


@pytest.mark.parametrize("pid", [os.getpid(), os.getpid() + 1])
def test_a_planted_temporary_file_is_never_written_through(work: Path, pid: int) -> None:
    # The old name of the temporary file was `.out.txt.<pid>.tmp`, opened with a plain open.
    (work / f".out.txt.{pid}.tmp").symlink_to(work.parent / "outside" / "secret.txt")
    call(work, "file://.", "write", {"path": "out.txt", "content": "mine"})
    assert (work / "out.txt").read_text(encoding="utf-8") == "mine"
    assert (work / f".out.txt.{pid}.tmp").is_symlink()  # left alone, not followed, not removed


def test_a_hard_link_to_a_file_outside_is_replaced_not_written_through(work: Path) -> None:
    os.link(work.parent / "outside" / "secret.txt", work / "hard.txt")
    assert call(work, "file://.", "read", {"path": "hard.txt"}) == SECRET  # the same file: it was readable
    call(work, "file://.", "write", {"path": "hard.txt", "content": "mine"})
    assert (work / "hard.txt").read_text(encoding="utf-8") == "mine"  # a new file; the other name keeps its own


@pytest.mark.parametrize(
    ("uri", "method", "args"),
    [
        ("file://.", "read", {"path": "pipe"}),
        ("file://.", "patch", {"path": "pipe", "search": "a", "replace": "b"}),
        ("file://.", "write", {"path": "pipe", "content": "x"}),
        ("sh://sed", "run", {"path": "pipe"}),
    ],
)
def test_a_fifo_is_refused_and_never_blocks(work: Path, uri: str, method: str, args: dict[str, Any]) -> None:
    os.mkfifo(work / "pipe")
    with pytest.raises(ToolError, match=r"^pipe is not a regular file"):
        call(work, uri, method, args)


def test_grep_and_find_walk_past_fifos_and_sockets(work: Path) -> None:
    os.mkfifo(work / "docs" / "pipe")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(work / "docs" / "sock"))
        assert call(work, "sh://grep", "run", {"path": ".", "pattern": "alpha"})["matches"] == [
            {"path": "docs/a.md", "line": 1, "text": "alpha"}
        ]
        assert call(work, "sh://find", "run", {"path": "docs"})["files"] == [
            "docs",
            "docs/a.md",
            "docs/pipe",
            "docs/sock",
        ]
        with pytest.raises(ToolError, match=r"^docs/sock is not a regular file"):
            call(work, "file://.", "read", {"path": "docs/sock"})


@pytest.mark.parametrize(("root", "path"), [("/", "proc/self/environ"), ("/", "dev/zero"), ("/proc/self", "environ")])
def test_proc_sys_and_dev_are_never_opened_whatever_the_workspace(work: Path, root: str, path: str) -> None:
    with pytest.raises(ToolError, match="never opened"):
        call(work, "file://.", "read", {"path": path}, context=Permissions(Path(root)))


def test_a_walk_never_enters_a_folder_that_is_never_opened(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As a walk from / skips /proc, /sys and /dev (walking all of / is too long for a test).
    monkeypatch.setattr(confined, "NEVER_OPENED", (str(work / "docs"),))
    assert call(work, "sh://find", "run", {"path": "."})["files"] == ["."]
    assert call(work, "sh://grep", "run", {"path": ".", "pattern": "alpha"})["matches"] == []


def test_a_file_larger_than_the_read_limit_is_refused_and_a_line_range_still_read(work: Path) -> None:
    (work / "big.txt").write_text("line\n" * 1000, encoding="utf-8")
    small = Permissions(work, max_read_bytes=4000)
    with pytest.raises(ToolError, match=r"^big\.txt is larger than 4000 bytes, the most a file tool reads whole"):
        call(work, "file://.", "read", {"path": "big.txt"}, context=small)
    assert call(work, "sh://sed", "run", {"path": "big.txt", "start": 999, "max": 5}, context=small) == {
        "ok": True,
        "text": "line\nline\n",
        "start": 999,
        "end": 1001,
    }


@pytest.mark.parametrize(
    ("effect", "defence"),
    [
        ({"action": "write", "path": "docs", "undoable": True, "previous": "x"}, "^Cannot write docs: Is a directory$"),
        ({"action": "write", "path": "../outside/secret.txt", "undoable": True, "previous": "x"}, ESCAPES),
        ({"action": "write", "path": "/etc/passwd", "undoable": True, "existed": False}, ESCAPES),
    ],
)
def test_a_forged_undo_is_refused(work: Path, effect: dict[str, Any], defence: str) -> None:
    with pytest.raises(ToolError, match=defence):
        call(work, "file://.", "undo", [effect])
    assert (work / "docs" / "a.md").read_text(encoding="utf-8") == "alpha\n"


@pytest.mark.parametrize(
    ("method", "args"),
    [
        ("write", {"path": "new.txt", "content": "x"}),
        ("patch", {"path": "docs/a.md", "search": "alpha", "replace": "omega"}),
        ("undo", [{"action": "write", "path": "docs/a.md", "undoable": True, "previous": "x"}]),
        ("undo", [{"action": "write", "path": "docs/a.md", "undoable": True, "existed": False}]),
    ],
)
def test_nothing_is_written_without_permission(work: Path, method: str, args: Any) -> None:
    read_only = Permissions(work)
    with pytest.raises(NotAllowed, match=r" needs --allow-write \(asrender \.\.\. --allow-write [^ ]+\)$"):
        call(work, "file://.", method, args, context=read_only)
    assert sorted(os.listdir(work)) == ["docs"] and (work / "docs" / "a.md").read_text(encoding="utf-8") == "alpha\n"


def test_a_write_permission_for_one_folder_allows_that_folder_only(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)  # the flag a refusal suggests is typed from where asrender runs
    only_out = Permissions(work, write=(work / "out",))
    call(work, "file://.", "write", {"path": "out/deep/new.txt", "content": "x"}, context=only_out)
    assert (work / "out" / "deep" / "new.txt").read_text(encoding="utf-8") == "x"
    with pytest.raises(
        NotAllowed, match=r"^Writing docs/a\.md needs --allow-write \(asrender \.\.\. --allow-write docs/a\.md\)$"
    ):
        call(work, "file://.", "write", {"path": "docs/a.md", "content": "x"}, context=only_out)
    (work / "out" / "escape").symlink_to("../docs")
    with pytest.raises(
        NotAllowed, match=r"^Writing docs/b\.md needs --allow-write"
    ):  # a link out of the granted folder
        call(work, "file://.", "write", {"path": "out/escape/b.md", "content": "x"}, context=only_out)
