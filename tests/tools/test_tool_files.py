"""``file://`` and the workspace sandbox: AgentScript's results and texts, and no way out.

Every escape a path can try is refused with ``Path escapes workspace``: ``..``, an absolute path
elsewhere, a symlink (to a file or a folder) that points out, a new file written through a
symlinked folder, a write onto a dangling symlink. Effects carry what ``undo`` needs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire.core.confined import PathEscapes, Root, locate
from promptwire.core.tools import ToolContext, ToolError, ToolRequest
from promptwire.tools.files import file_tool

from hypothesis_profile import examples


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("alpha\nbeta\n", encoding="utf-8")
    (root / "b.txt").write_text("bravo", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("outside", encoding="utf-8")
    return root


def call(workspace: Path, method: str, *args: Any) -> Any:
    """A call by a run that may write the workspace (``asrender --allow-write``)."""
    return file_tool(ToolRequest("File", "file://.", method, list(args)), ToolContext(workspace, write=(workspace,)))


def test_read_returns_the_text_and_list_the_sorted_names(workspace: Path) -> None:
    assert call(workspace, "read", {"path": "docs/a.md"}).result == "alpha\nbeta\n"
    (workspace / "Z").write_text("", encoding="utf-8")
    assert call(workspace, "list", {"path": "."}).result == ["Z", "b.txt", "docs"]


def test_read_gives_the_text_as_stored(workspace: Path) -> None:
    # As Node's readFile(path, "utf8"), and as `import file` reads: newlines as they are (a lone \r
    # too), a byte-order mark kept as U+FEFF, a byte that is not UTF-8 as U+FFFD.
    (workspace / "raw.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\rthree\xff\n")
    assert call(workspace, "read", {"path": "raw.txt"}).result == "\ufeffone\r\ntwo\rthree\ufffd\n"


def test_write_then_undo_removes_a_new_file(workspace: Path) -> None:
    outcome = call(workspace, "write", {"path": "out/new.md", "content": "hello"})
    (effect,) = outcome.result["effects"]
    assert outcome.result["ok"] is True and outcome.effects is None  # traced from the result, as AgentScript does
    assert effect == {
        "id": "file-write:out/new.md",
        "tool": "File",
        "action": "write",
        "path": "out/new.md",
        "undoable": True,
        "existed": False,
        "previous": None,
    }
    assert (workspace / "out" / "new.md").read_text(encoding="utf-8") == "hello"
    assert call(workspace, "undo", [effect]).result == {"ok": True}
    assert not (workspace / "out" / "new.md").exists()


def test_write_over_a_file_and_patch_undo_in_list_order(workspace: Path) -> None:
    write = call(workspace, "write", {"path": "b.txt", "content": "charlie $& delta"}).result["effects"][0]
    assert write["existed"] is True and write["previous"] == "bravo"
    patch = call(workspace, "patch", {"path": "b.txt", "search": "delta", "replace": "echo $&"}).result["effects"][0]
    # The replacement is inserted as written: no JavaScript `$&` expansion.
    assert (workspace / "b.txt").read_text(encoding="utf-8") == "charlie $& echo $&"
    assert patch["id"] == "file-patch:b.txt" and patch["previous"] == "charlie $& delta"
    call(workspace, "undo", [patch, write, {"action": "other"}])
    assert (workspace / "b.txt").read_text(encoding="utf-8") == "bravo"


def test_patch_replaces_the_first_occurrence_only(workspace: Path) -> None:
    call(workspace, "patch", {"path": "docs/a.md", "search": "a", "replace": "A"})
    assert (workspace / "docs" / "a.md").read_text(encoding="utf-8") == "Alpha\nbeta\n"


def test_a_patch_that_finds_nothing_is_a_result_not_an_error(workspace: Path) -> None:
    outcome = call(workspace, "patch", {"path": "b.txt", "search": "zulu", "replace": "x"})
    assert outcome.result == {"ok": False, "error": "patch search text not found", "effects": []}
    assert (workspace / "b.txt").read_text(encoding="utf-8") == "bravo"


@pytest.mark.parametrize(
    ("method", "args", "message"),
    [
        ("read", [], "File.read expects one json object argument"),
        ("read", ["docs/a.md"], "File.read expects one json object argument"),
        ("read", [{}], "File.read.path is required"),
        ("read", [{"path": ""}], "File.read.path is required"),
        ("write", [{"path": "x"}], "File.write.content is required"),
        ("write", [{"path": "x", "content": ""}], "File.write.content is required"),
        ("patch", [{"path": "b.txt", "search": "b"}], "File.patch.replace is required"),
        ("delete", [{"path": "b.txt"}], "Unsupported file method 'delete'. Supported: read, list, write, patch, undo"),
        ("undo", [{"path": "b.txt"}], "File.undo expects a list of effects"),
        # Node's words, the path resolved from the workspace (issue 36, fact 6)
        ("read", [{"path": "missing.md"}], "ENOENT: no such file or directory, open '{workspace}/missing.md'"),
        ("read", [{"path": "docs/../gone.md"}], "ENOENT: no such file or directory, open '{workspace}/gone.md'"),
        ("read", [{"path": "docs"}], "EISDIR: illegal operation on a directory, read"),
        ("list", [{"path": "missing"}], "ENOENT: no such file or directory, scandir '{workspace}/missing'"),
        ("list", [{"path": "b.txt"}], "ENOTDIR: not a directory, scandir '{workspace}/b.txt'"),
    ],
)
def test_bad_calls_get_agentscripts_messages(workspace: Path, method: str, args: list[Any], message: str) -> None:
    with pytest.raises(ToolError) as caught:
        call(workspace, method, *args)
    assert str(caught.value) == message.format(workspace=workspace)


ESCAPES = ["../secret.txt", "docs/../../secret.txt", "/etc/passwd", "..", "./../work/../secret.txt"]


@pytest.mark.parametrize("path", ESCAPES)
@pytest.mark.parametrize("method", ["read", "list", "write", "patch"])
def test_paths_out_of_the_workspace_are_refused(workspace: Path, path: str, method: str) -> None:
    with pytest.raises(ToolError, match=r"^Path escapes workspace: "):
        call(workspace, method, {"path": path, "content": "x", "search": "o", "replace": "0"})
    assert (workspace.parent / "secret.txt").read_text(encoding="utf-8") == "outside"


def test_symlinks_pointing_out_are_refused_for_every_method(workspace: Path) -> None:
    (workspace / "link.txt").symlink_to(workspace.parent / "secret.txt")
    (workspace / "linkdir").symlink_to(workspace.parent)
    (workspace / "dangling").symlink_to(workspace.parent / "not-yet.txt")
    attempts = [
        ("read", {"path": "link.txt"}),
        ("list", {"path": "linkdir"}),
        ("write", {"path": "link.txt", "content": "pwned"}),
        ("write", {"path": "linkdir/new.txt", "content": "pwned"}),
        ("write", {"path": "dangling", "content": "pwned"}),
        ("patch", {"path": "link.txt", "search": "out", "replace": "in"}),
        ("undo", [{"action": "write", "path": "linkdir/secret.txt", "undoable": True, "previous": "pwned"}]),
    ]
    for method, args in attempts:
        with pytest.raises(ToolError, match=r"^Path escapes workspace: "):
            call(workspace, method, args)
    assert (workspace.parent / "secret.txt").read_text(encoding="utf-8") == "outside"
    assert not (workspace.parent / "new.txt").exists() and not (workspace.parent / "not-yet.txt").exists()


def test_symlinks_inside_the_workspace_are_followed(workspace: Path) -> None:
    (workspace / "alias.md").symlink_to(workspace / "docs" / "a.md")
    assert call(workspace, "read", {"path": "alias.md"}).result == "alpha\nbeta\n"


def test_a_write_leaves_no_temporary_file(workspace: Path) -> None:
    call(workspace, "write", {"path": "b.txt", "content": "new"})
    assert sorted(os.listdir(workspace)) == ["b.txt", "docs"]


@settings(max_examples=examples(2))
@given(st.text(alphabet=st.sampled_from(list("ab./\\~ \x00-")), max_size=20) | st.text(max_size=12))
def test_any_path_resolves_inside_the_workspace_or_is_refused(path: str) -> None:
    root = Path(os.environ.get("TMPDIR", "/tmp")).resolve() / "promptwire-sandbox-property"
    root.mkdir(exist_ok=True)
    with Root(root) as opened:
        try:
            names = opened.names(path)
            with locate(opened, names) as found:
                resolved = Path(found.real)
        except (PathEscapes, OSError):
            return
    assert resolved == root or root in resolved.parents


def test_the_refusal_says_allow_read_does_not_widen_file_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The flag a reader would try is named, with what it does widen: docs/security.md says the same.
    from promptwire.frontend.asrender.cli import main

    (tmp_path / "work").mkdir()
    (tmp_path / "outside.txt").write_text("outside", encoding="utf-8")
    (tmp_path / "work" / "read.as").write_text(
        'import llm M from "openai://m"\nimport tool File from "file://."\n\n'
        'main agent A {\n    model M\n    main func(input) {\n        File.read({ path: "../outside.txt" })\n    }\n}\n',
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path / "work")
    assert main(["read.as", "--allow-read", "../outside.txt"]) == 1
    first = capsys.readouterr().err.splitlines()[0]
    assert first.endswith(
        "Path escapes workspace: ../outside.txt (file tools reach only the folder of the program run;"
        " --allow-read widens imports and memories, not them)"
    )
