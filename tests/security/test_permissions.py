"""The permission record and asrender's ``--allow-*`` flags: deny by default, one line naming the flag.

| what a program tries | default | allowed by |
|---|---|---|
| read a file of the workspace or of its own folder | yes | |
| read any other file | no | ``--allow-read PATH`` |
| read /proc, /sys, /dev, a FIFO, a socket, a device | never | |
| write or remember anything | no | ``--allow-write [PATH]`` |
| read an environment variable | no | ``--allow-env NAME`` |
| reach an HTTP origin | no | ``--allow-net [ORIGIN]`` |

The front end's ``import file`` and ``import agent`` will read through
:meth:`Permissions.read_text`; what it does is pinned here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from promptwire.core.confined import NotRegularFile, TooLarge
from promptwire.core.permissions import ANY_ORIGIN, NotAllowed, Permissions, parse_origin
from promptwire.frontend.asrender.cli import main

from agentscript_source import as_program


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A workspace, a program's folder and a folder elsewhere, each with a file."""
    made = []
    for name in ("work", "program", "elsewhere"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "data.txt").write_text(f"{name} data", encoding="utf-8")
        made.append(tmp_path / name)
    return made[0], made[1], made[2]


def test_the_default_reads_the_workspace_and_the_program_folder_only(folders: tuple[Path, Path, Path]) -> None:
    work, program, elsewhere = folders
    default = Permissions(work, program_folder=program)
    assert default.read_text("data.txt") == "work data"  # relative: from the workspace
    assert default.read_text(program / "data.txt") == "program data"
    with pytest.raises(NotAllowed, match=r"^Path escapes the files this run may read: "):
        default.read_text(f"{program}/../program/data.txt")  # no '..' above the folder walked, even to come back
    with pytest.raises(NotAllowed) as refused:
        default.read_text(elsewhere / "data.txt")
    shown = elsewhere / "data.txt"
    assert str(refused.value) == f"Reading {shown} needs --allow-read (asrender ... --allow-read {shown})"
    assert (default.env, default.net, default.write) == (frozenset(), frozenset(), ())
    assert Permissions(work, read=(elsewhere / "data.txt",)).read_text(elsewhere / "data.txt") == "elsewhere data"


def test_a_symlink_from_an_allowed_folder_to_another_is_not_followed(folders: tuple[Path, Path, Path]) -> None:
    work, program, elsewhere = folders
    (program / "link.txt").symlink_to(elsewhere / "data.txt")
    with pytest.raises(NotAllowed, match=r"^Path escapes the files this run may read: .*link\.txt \(a symlink"):
        Permissions(work, program_folder=program).read_text(program / "link.txt")


@pytest.mark.parametrize("path", ["/proc/self/environ", "/proc/self/cmdline", "/sys/kernel/hostname", "/dev/zero"])
def test_proc_sys_and_dev_are_never_read_even_when_allowed(folders: tuple[Path, Path, Path], path: str) -> None:
    allowed = Permissions(folders[0], read=(Path("/"),))
    with pytest.raises(NotRegularFile, match="never opened"):
        allowed.read_text(path)


def test_fifos_and_big_files_are_refused_by_the_front_end_reader(folders: tuple[Path, Path, Path]) -> None:
    work = folders[0]
    os.mkfifo(work / "pipe.as")
    with pytest.raises(NotRegularFile, match=r"^pipe\.as is not a regular file"):
        Permissions(work).read_text("pipe.as")
    with pytest.raises(TooLarge):
        Permissions(work, max_read_bytes=4).read_text("data.txt")


def test_writes_need_a_grant_and_stay_inside_it(
    folders: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    work, _, elsewhere = folders
    monkeypatch.chdir(work)  # the flag a refusal suggests is typed from where asrender runs
    with pytest.raises(
        NotAllowed, match=r"^Writing new\.jsonl needs --allow-write \(asrender \.\.\. --allow-write new\.jsonl\)$"
    ):
        Permissions(work).open_appending("new.jsonl")
    with Permissions(work, write=(work / "out",)).open_appending("out/deep/new.jsonl") as handle:
        handle.write(b"x\n")
    assert (work / "out" / "deep" / "new.jsonl").read_bytes() == b"x\n"
    with pytest.raises(NotAllowed, match=r"^Writing .*elsewhere/data\.txt needs --allow-write"):
        Permissions(work, write=(work,)).open_appending(elsewhere / "data.txt")


def test_the_flag_a_refusal_suggests_is_the_path_from_where_asrender_runs(
    folders: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # asrender examples/lessons.as from the repository root: the workspace is examples/, and the
    # flag that allows its memory is --allow-write examples/lessons.jsonl, not lessons.jsonl.
    work, _, elsewhere = folders
    (work / "examples").mkdir()
    monkeypatch.chdir(work)
    with pytest.raises(
        NotAllowed, match=r"^Writing m\.jsonl needs --allow-write \(asrender \.\.\. --allow-write examples/m\.jsonl\)$"
    ):
        Permissions(work / "examples").open_appending("m.jsonl")
    # Outside the folder asrender runs in, the flag names the absolute path.
    (elsewhere / "secret.txt").write_text("s", encoding="utf-8")
    with pytest.raises(NotAllowed) as refused:
        Permissions(work / "examples").read_bytes(elsewhere / "secret.txt")
    assert str(refused.value).endswith(f"(asrender ... --allow-read {elsewhere / 'secret.txt'})")


@pytest.mark.parametrize(
    ("text", "origin"),
    [
        ("https://api.example.com", ("https", "api.example.com", 443)),
        ("HTTP://Example.com:8080", ("http", "example.com", 8080)),
        ("example.com", (None, "example.com", None)),
        ("127.0.0.1:8000", (None, "127.0.0.1", 8000)),
        ("[::1]:80", (None, "::1", 80)),
    ],
)
def test_origins(text: str, origin: tuple[str | None, str, int | None]) -> None:
    assert parse_origin(text) == origin


@pytest.mark.parametrize("text", ["ftp://example.com", "https://", "example.com/path", "user@example.com", "x:99999"])
def test_what_is_not_an_origin(text: str) -> None:
    with pytest.raises(ValueError):
        parse_origin(text)


def test_network_permissions() -> None:
    base = Path.cwd()
    Permissions(base, net=frozenset({ANY_ORIGIN})).check_origin("http://anything.test:1/x")
    Permissions(base, net=frozenset({"api.test"})).check_origin("https://API.test/v1")
    with pytest.raises(NotAllowed, match=r"^Connecting to https://api\.test:8443 needs --allow-net"):
        Permissions(base, net=frozenset({"api.test"})).check_origin("https://api.test:8443/v1")
    with pytest.raises(NotAllowed, match=r"^Connecting to http://api\.test needs --allow-net"):
        Permissions(base, net=frozenset({"https://api.test"})).check_origin("http://api.test/v1")


PROGRAM = as_program('File.write({ path: input.path, content: "written" })', 'import tool File from "file://."')


def test_asrender_refuses_a_write_in_one_located_line_naming_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "writer.as").write_text(PROGRAM, encoding="utf-8")
    assert main(["writer.as", "--input", '{"path": "out/report.md"}']) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[0] == (
        "writer.as:10:9: error[RUNTIME_ERROR]: Tool File.write (file://.) failed: "
        "Writing out/report.md needs --allow-write (asrender ... --allow-write out/report.md)"
    )
    assert "Traceback" not in err and not (tmp_path / "out").exists()
    assert main(["writer.as", "--input", '{"path": "out/report.md"}', "--allow-write", "out/"]) == 0
    assert (tmp_path / "out" / "report.md").read_text(encoding="utf-8") == "written"
    assert main(["writer.as", "--input", '{"path": "other.md"}', "--allow-write", "out/"]) == 1
    assert "Writing other.md needs --allow-write" in capsys.readouterr().err
    assert main(["writer.as", "--input", '{"path": "other.md"}', "--allow-write"]) == 0  # bare: the current folder


def test_asrender_flags_are_checked_and_for_programs_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "writer.as").write_text(PROGRAM, encoding="utf-8")
    with pytest.raises(SystemExit) as usage:
        main(["writer.as", "--allow-net", "ftp://example.com"])
    assert usage.value.code == 2
    assert "argument --allow-net: an origin is http:// or https://, not ftp://" in capsys.readouterr().err
    (tmp_path / "p.json").write_text("{}", encoding="utf-8")
    with pytest.raises(SystemExit) as usage:
        main(["p.json", "--allow-write"])
    assert usage.value.code == 2
    assert "--allow-write apply to .as programs only" in capsys.readouterr().err


def test_snapshot_and_serve_run_programs_with_nothing_beyond_their_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from promptwire.frontend.asrender.inspector.state import program_state

    monkeypatch.setenv("PW_SNAPSHOT_SECRET", "sk-secret")
    folder = tmp_path / "programs"
    folder.mkdir()
    (folder / "env.as").write_text(
        PROGRAM.replace('import tool File from "file://."', 'import tool Env from "env://"').replace(
            'File.write({ path: input.path, content: "written" })', 'Env.get({ name: "PW_SNAPSHOT_SECRET" })'
        ),
        encoding="utf-8",
    )
    assert main(["snapshot", str(folder)]) == 2  # a program failed
    out, err = capsys.readouterr()
    assert "needs --allow-env (asrender ... --allow-env PW_SNAPSHOT_SECRET)" in out + err
    error = program_state(folder, "env.as")["error"]
    assert error is not None and "needs --allow-env" in error["message"]
    assert "sk-secret" not in out + err + repr(error)


def test_a_python_run_reads_the_memory_beside_its_program_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptwire.runs.run import run

    program = tmp_path / "agents" / "recall.as"
    program.parent.mkdir()
    program.write_text(
        PROGRAM.replace('import tool File from "file://."', 'import memory Notes from "file://notes.jsonl"').replace(
            'File.write({ path: input.path, content: "written" })', "Notes.query({})"
        ),
        encoding="utf-8",
    )
    envelope = {"id": "1", "created_at": "t", "updated_at": "t", "record": {"text": "kept"}}
    (program.parent / "notes.jsonl").write_text(json.dumps(envelope) + "\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert run(program, {}).value == [envelope]
