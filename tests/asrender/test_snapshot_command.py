"""``asrender snapshot DIR``: the review step for prompt changes, run as a user runs it (a process of
its own), then its edges run in this process: a diff of odd line breaks, nothing written without
``--update``, a hidden file a program reads, a template path, a store that cannot be used."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from promptwire.frontend.asrender.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROGRAMS = sorted(
    name
    for name in (path.relative_to(EXAMPLES).as_posix() for path in EXAMPLES.rglob("*.as"))
    if not name.startswith("plugins/")
)


def asrender(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "promptwire", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def programs(tmp_path: Path) -> Path:
    """The example programs, their inputs, replies and the files their tools read."""
    folder = tmp_path / "prompts"
    shutil.copytree(EXAMPLES, folder, ignore=shutil.ignore_patterns("plugins", "*.jsonl"))
    return folder


def test_a_first_review_writes_nothing_and_names_what_update_would_store(programs: Path) -> None:
    before = _tree(programs)
    done = asrender("snapshot", "prompts", cwd=programs.parent)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:-1] == [
        f"{name}: no stored render (asrender snapshot prompts --update stores it)" for name in PROGRAMS
    ]
    n = len(PROGRAMS)
    assert lines[-1] == f"{n} programs: 0 unchanged, 0 changed, {n} new, 0 removed; {n} differ"
    assert _tree(programs) == before  # not even the memory of lessons.as


def test_update_stores_what_asrender_prints_for_each_program(programs: Path) -> None:
    done = asrender("snapshot", "prompts", "--update", cwd=programs.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "stored __prompts__/code-review.as.agentscript.txt"
    elsewhere = shutil.copytree(programs, programs.parent / "elsewhere")  # lessons.as writes its memory
    for name in PROGRAMS:
        program = elsewhere / name
        allowed = ["--allow-write", f"{program.stem}.jsonl"] if program.stem == "lessons" else []
        shown = asrender(
            program.name,
            "--input-file",
            f"{program.stem}.input.json",
            "--responses",
            f"{program.stem}.responses.json",
            *allowed,
            cwd=program.parent,
        )
        assert shown.returncode == 0, shown.stderr
        stored = (programs / "__prompts__" / f"{name}.agentscript.txt").read_text(encoding="utf-8")
        assert stored == shown.stdout, name
    again = asrender("snapshot", "prompts", cwd=programs.parent)
    assert (again.returncode, again.stdout) == (
        0,
        f"{len(PROGRAMS)} programs: {len(PROGRAMS)} unchanged, 0 changed, 0 new, 0 removed\n",
    )


def test_a_changed_prompt_is_a_unified_diff_and_exit_1(programs: Path) -> None:
    asrender("snapshot", "prompts", "--update", cwd=programs.parent)
    program = programs / "strict-invoice.as"
    program.write_text(program.read_text().replace("Extract the invoice fields.", "Extract every invoice field."))
    done = asrender("snapshot", "prompts", cwd=programs.parent)
    assert done.returncode == 1, done.stderr
    diff = done.stdout.split("@@", 1)
    assert diff[0] == (
        "--- __prompts__/strict-invoice.as.agentscript.txt (stored)\n+++ strict-invoice.as (rendered now)\n"
    )
    assert "\n-Extract the invoice fields.\n+Extract every invoice field.\n" in done.stdout
    n = len(PROGRAMS)
    assert done.stdout.endswith(f"{n} programs: {n - 1} unchanged, 1 changed, 0 new, 0 removed; 1 differ\n")
    assert asrender("snapshot", "prompts", "--update", cwd=programs.parent).stdout.startswith(
        "updated __prompts__/strict-invoice.as.agentscript.txt\n"
    )
    assert asrender("snapshot", "prompts", cwd=programs.parent).returncode == 0


def test_a_removed_program_is_reported_and_its_render_deleted_by_update(programs: Path) -> None:
    asrender("snapshot", "prompts", "--update", cwd=programs.parent)
    (programs / "react-loop.as").unlink()
    done = asrender("snapshot", "prompts", cwd=programs.parent)
    assert done.returncode == 1
    assert "react-loop.as: stored render of a program that no longer exists (--update deletes it)\n" in done.stdout
    updated = asrender("snapshot", "prompts", "--update", cwd=programs.parent)
    assert "deleted __prompts__/react-loop.as.agentscript.txt\n" in updated.stdout
    assert not (programs / "__prompts__" / "react-loop.as.agentscript.txt").exists()


def test_a_broken_program_is_located_and_the_others_still_reviewed(programs: Path) -> None:
    asrender("snapshot", "prompts", "--update", cwd=programs.parent)
    (programs / "nested").mkdir()
    (programs / "nested" / "broken.as").write_text(
        "main agent A {\n    main func(input) {\n        return (\n    }\n}\n"
    )
    done = asrender("snapshot", "prompts", cwd=programs.parent)
    assert done.returncode == 2
    n = len(PROGRAMS)
    assert done.stdout == f"{n + 1} programs: {n} unchanged, 0 changed, 0 new, 0 removed, 1 failed\n"
    first, located, source, caret = done.stderr.splitlines()[:4]
    assert first == f"{programs / 'nested' / 'broken.as'}: cannot render".replace(str(programs.parent) + "/", "")
    assert located == "broken.as:3:16: error[PARSE_ERROR]: Expected expression"
    assert (source.strip(), caret.index("^") - source.index("return")) == ("return (", 7)
    assert "Traceback" not in done.stderr


def test_another_format_is_stored_beside_the_first(programs: Path) -> None:
    done = asrender("snapshot", "prompts", "--update", "--format", "messages", cwd=programs.parent)
    assert done.returncode == 0, done.stderr
    stored = sorted(
        p.relative_to(programs / "__prompts__").as_posix() for p in (programs / "__prompts__").rglob("*.txt")
    )
    assert stored == [f"{n}.messages.txt" for n in PROGRAMS]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere"], "asrender: nowhere: not a directory\n"),
        (["prompts", "--format", "nope"], "asrender: error: --format: unknown renderer 'nope' (available: "),
        (["prompts", "-o", "oops"], "asrender: error: --option takes KEY=VALUE, got 'oops'\n"),
    ],
)
def test_bad_invocations_are_one_line(programs: Path, args: list[str], message: str) -> None:
    done = asrender("snapshot", *args, cwd=programs.parent)
    assert done.returncode in (1, 2)
    assert done.stderr.startswith(message) and done.stdout == ""
    assert not (programs / "__prompts__").exists()


# --- Edges, in this process ---------------------------------------------------------------------

PROGRAM = """import llm Model from "openai://gpt-4o-mini"

main agent A {
    model Model
    role "R"
    description "D"

    main func(input) {
        generate({ input: input.text }) -> { ok boolean }
    }
}
"""


def asrender_here(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _program(folder: Path, text: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "a.as").write_text(PROGRAM)
    (folder / "a.input.json").write_text(json.dumps({"text": text}))
    (folder / "a.responses.json").write_text('[{"ok": true}]')


def test_a_diff_marks_no_newline_only_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _program(tmp_path / "p", "one\rstill one\u2028same line\nend")
    assert asrender_here(capsys, "snapshot", "p", "--update")[0] == 0
    _program(tmp_path / "p", "ONE\rstill one\u2028same line\nend")
    code, out, _ = asrender_here(capsys, "snapshot", "p")
    assert code == 1
    assert "-one\rstill one\u2028same line\n+ONE\rstill one\u2028same line\n" in out
    assert "No newline at end of file" not in out


def test_nothing_is_written_without_update(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _program(tmp_path / "p", "x")
    code, out, _ = asrender_here(capsys, "snapshot", "p")
    assert (code, out.splitlines()[0]) == (1, "a.as: no stored render (asrender snapshot p --update stores it)")
    assert sorted(path.name for path in (tmp_path / "p").iterdir()) == ["a.as", "a.input.json", "a.responses.json"]


def test_a_program_reading_a_hidden_file_renders_as_asrender_renders_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "p"
    folder.mkdir()
    shutil.copy(EXAMPLES / "summarise-file.as", folder)
    shutil.copy(EXAMPLES / "summarise-file.responses.json", folder)
    (folder / "summarise-file.input.json").write_text('{"path": ".notes/plan.md"}')
    (folder / ".notes").mkdir()
    (folder / ".notes" / "plan.md").write_text("Ship the hidden plan.\n")
    monkeypatch.chdir(folder)
    code, alone, err = asrender_here(
        capsys,
        "summarise-file.as",
        "--input-file",
        "summarise-file.input.json",
        "--responses",
        "summarise-file.responses.json",
    )
    assert (code, err) == (0, "")
    assert "Ship the hidden plan." in alone
    monkeypatch.chdir(tmp_path)
    code, _, err = asrender_here(capsys, "snapshot", "p", "--update")
    assert (code, err) == (0, "")
    assert (folder / "__prompts__" / "summarise-file.as.agentscript.txt").read_text() == alone


def test_a_relative_template_path_is_the_callers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _program(tmp_path / "p", "x")
    shutil.copy(EXAMPLES / "templates" / "plain.j2", tmp_path)
    code, _, err = asrender_here(capsys, "snapshot", "p", "--update", "-f", "template", "-o", "template=plain.j2")
    assert (code, err) == (0, "")


@pytest.mark.parametrize("update", [False, True])
def test_an_unusable_store_is_one_line_that_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], update: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    _program(tmp_path / "p", "x")
    (tmp_path / "p" / "__prompts__").write_text("not a folder")
    code, _, err = asrender_here(capsys, "snapshot", "p", *(["--update"] if update else []))
    assert code == 2
    assert len(err.splitlines()) == 1 and "__prompts__" in err
    assert "internal error" not in err
