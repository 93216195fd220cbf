"""``asrender snapshot DIR``: the review step for prompt changes, run as a user runs it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
        (["prompts", "--format", "nope"], "asrender: unknown renderer 'nope' (available: "),
        (["prompts", "-o", "oops"], "asrender: error: --option takes KEY=VALUE, got 'oops'\n"),
    ],
)
def test_bad_invocations_are_one_line(programs: Path, args: list[str], message: str) -> None:
    done = asrender("snapshot", *args, cwd=programs.parent)
    assert done.returncode in (1, 2)
    assert done.stderr.startswith(message) and done.stdout == ""
    assert not (programs / "__prompts__").exists()
