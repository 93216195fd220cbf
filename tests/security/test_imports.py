"""``import agent`` reads through the run's permissions, in a run and in ``asrender check`` alike.

A program someone else wrote names the files it imports. Read by name, ``import agent X from
"/etc/passwd"`` printed a line of that file in its parse error, and ``/proc/self/environ`` the
environment. Now every imported file is read as ``import file`` is: files of the program's own
folder, anything else only with ``--allow-read``, never /proc, /sys, /dev, a FIFO or a symlink out.

| payload (the import's path) | without flags | with ``--allow-read`` of it (or of ``/``) |
|---|---|---|
| ``../other/secret.as`` (a file beside the folder) | needs --allow-read | read |
| an absolute path elsewhere | needs --allow-read | read |
| a symlink in the folder leading out | escapes | escapes (allowing its target reads it) |
| a symlink in the folder leading inside | read | read |
| ``/proc/self/environ``, ``/dev/zero``, ``/sys/kernel/hostname`` | never opened | never opened |
| a FIFO in the folder | not a regular file (no hang) | not a regular file |
| a NUL byte in the path | escapes | escapes |
| a file larger than ``--max-input-size`` | too large | too large |
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from promptwire.frontend.asrender.cli import main

SECRET = "hunter2-must-never-print"
PROGRAM = """\
import llm M from "openai://gpt-4o-mini"
import agent X from "{path}"

main agent A {{
    model M
    role "R"
    description "D"
    main func() {{
        X()
    }}
}}
"""
AGENT = """\
import llm M from "openai://gpt-4o-mini"
agent X {
    model M
    role "Helper"
    description "Helps."
    main func() {
        generate({ input: "imported" })
    }
}
"""


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``prog/`` (the program's folder, with a helper, a FIFO and links) beside ``other/`` (a
    secret, and a valid agent), from ``tmp_path`` as the current folder."""
    (tmp_path / "prog").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "secret.as").write_text(f"{SECRET}\n", encoding="utf-8")
    (tmp_path / "other" / "agent.as").write_text(AGENT, encoding="utf-8")
    (tmp_path / "prog" / "helper.as").write_text(AGENT, encoding="utf-8")
    (tmp_path / "prog" / "out.as").symlink_to(tmp_path / "other" / "secret.as")
    (tmp_path / "prog" / "in.as").symlink_to("helper.as")
    os.mkfifo(tmp_path / "prog" / "pipe.as")
    with open(tmp_path / "prog" / "huge.as", "wb") as huge:
        huge.truncate(2 * 1024 * 1024)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _asrender(capsys: pytest.CaptureFixture[str], tree: Path, path: str, *flags: str) -> dict[str, tuple[int, str]]:
    """The program importing ``path``, checked and run: each command's status and stderr."""
    (tree / "prog" / "p.as").write_text(PROGRAM.format(path=path), encoding="utf-8")
    seen = {}
    for command in (["check", "prog/p.as"], ["prog/p.as"]):
        code = main([*command, *flags])
        out, err = capsys.readouterr()
        assert SECRET not in out + err
        seen[command[0]] = (code, err)
    return seen


def _refused(seen: dict[str, tuple[int, str]], reason: str) -> None:
    """Both commands refused with the same located error, whose message ends with ``reason``."""
    (check_code, check_err), (run_code, run_err) = seen["check"], seen["prog/p.as"]
    assert check_err == run_err, "check must read imports exactly as a run does"
    head, source, caret = check_err.splitlines()
    assert (check_code, run_code) == (1, 1)
    assert head.startswith("prog/p.as:2:1: error[IMPORT_ERROR]: Failed to load agent import 'X' from "), head
    assert head.endswith(reason), head
    assert source.startswith("import agent X from ") and caret == "^"


REFUSED = [
    (
        "../other/secret.as",
        "Reading {tree}/other/secret.as needs --allow-read (asrender ... --allow-read other/secret.as)",
    ),
    ("{tree}/other/secret.as", "needs --allow-read (asrender ... --allow-read other/secret.as)"),
    ("out.as", "Path escapes the files this run may read: out.as (a symlink or '..' leads out)"),
    ("/proc/self/environ", "is under /proc, /sys, /dev: never opened"),
    ("/dev/zero", "is under /proc, /sys, /dev: never opened"),
    ("/sys/kernel/hostname", "is under /proc, /sys, /dev: never opened"),
    ("pipe.as", "pipe.as is not a regular file (FIFOs, sockets and devices are never opened)"),
    ("\x00.as", "Path escapes the files this run may read: '{tree}/prog/\\x00.as'"),
    ("huge.as", "huge.as is larger than 67108864 bytes"),
]


@pytest.mark.parametrize(("path", "reason"), REFUSED, ids=[path for path, _ in REFUSED])
def test_an_import_outside_what_the_run_may_read_is_one_located_refusal(
    capsys: pytest.CaptureFixture[str], tree: Path, path: str, reason: str
) -> None:
    if path == "huge.as":
        flags: tuple[str, ...] = ("--max-input-size", "1M")
        reason = "huge.as is larger than 1048576 bytes"
    else:
        flags = ()
    _refused(_asrender(capsys, tree, path.format(tree=tree), *flags), reason.format(tree=tree))


@pytest.mark.parametrize(
    ("path", "allowed"), [("/proc/self/environ", "/"), ("/dev/zero", "/dev"), ("pipe.as", "/"), ("out.as", "prog")]
)
def test_allow_read_never_opens_proc_a_fifo_or_a_link_out_of_it(
    capsys: pytest.CaptureFixture[str], tree: Path, path: str, allowed: str
) -> None:
    seen = _asrender(capsys, tree, path, "--allow-read", allowed)
    assert seen["check"][0] == seen["prog/p.as"][0] == 1
    assert "error[IMPORT_ERROR]" in seen["check"][1]


@pytest.mark.parametrize("path", ["helper.as", "./in.as", "../other/agent.as"])
def test_an_allowed_import_is_read_by_check_and_run(capsys: pytest.CaptureFixture[str], tree: Path, path: str) -> None:
    flags = ("--allow-read", "other") if path.startswith("..") else ()
    seen = _asrender(capsys, tree, path, *flags)
    assert seen == {"check": (0, ""), "prog/p.as": (0, "")}


def test_allow_read_lets_a_file_be_read_and_its_errors_quote_it(capsys: pytest.CaptureFixture[str], tree: Path) -> None:
    """The person running it said yes: the file is read, and its parse error shows its line."""
    (tree / "prog" / "p.as").write_text(PROGRAM.format(path="../other/secret.as"), encoding="utf-8")
    assert main(["check", "prog/p.as", "--allow-read", "other/secret.as"]) == 1
    assert capsys.readouterr().err.startswith("other/secret.as:1:1: error[PARSE_ERROR]: Expected 'import'")
