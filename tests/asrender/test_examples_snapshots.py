"""What ``asrender`` prints for every example file in every built-in format, pinned byte for byte."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from promptwire import PluginHost
from promptwire.frontend.asrender.cli import main
from promptwire.tools import memory_records

from corpus import layout_formats

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))
FORMATS = layout_formats(PluginHost(entry_points=False))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_asrender_example(
    example: Path, fmt: str, capsys: pytest.CaptureFixture[str], snapshot: SnapshotAssertion
) -> None:
    code = main(["render", str(example), "--format", fmt])
    out, err = capsys.readouterr()
    assert code == 0
    # What a format leaves out is reported on stderr, one plain line each; stdout is the prompt.
    assert all(line.startswith("asrender: warning: ") for line in err.splitlines())
    assert out == snapshot


@pytest.fixture(autouse=True)
def pinned_memory_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Memory records get ids and times; pinned, so the examples that add one render the same bytes."""
    ids = (f"00000000-0000-4000-8000-{n:012d}" for n in itertools.count(1))
    monkeypatch.setattr(memory_records, "new_id", lambda: next(ids))
    monkeypatch.setattr(memory_records, "now", lambda: "2026-01-02T03:04:05.678Z")


EXAMPLE_FOLDER = Path(__file__).resolve().parents[2] / "examples"
# Every example program, those of a sub-folder too (examples/newsroom: a program and the agent it imports).
PROGRAMS = sorted(
    path for path in EXAMPLE_FOLDER.rglob("*.as") if "plugins" not in path.relative_to(EXAMPLE_FOLDER).parts
)
PERMISSIONS = {"lessons": ["--allow-write", "lessons.jsonl"]}
"""What an example needs beyond reading its folder, as README shows it (lessons.as keeps a memory)."""
RUNS = {
    "agentscript": ["--format", "agentscript"],
    "messages-json": ["--format", "messages", "--output", "json"],
    "trace": ["--output", "trace"],
}


@pytest.mark.parametrize("run", RUNS)
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_asrender_program(
    program: Path,
    run: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    snapshot: SnapshotAssertion,
    tmp_path: Path,
) -> None:
    # Run from a copy of the program's folder, as a user would from the folder itself, so call sites
    # print as "name.as:L:C", tools read the example project, and memory is written to the copy.
    examples = tmp_path / "examples"
    shutil.copytree(program.parent, examples, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(examples)
    argv = [program.name, *RUNS[run], *PERMISSIONS.get(program.stem, [])]
    for flag, suffix in (("--input-file", ".input.json"), ("--responses", ".responses.json")):
        sibling = program.with_suffix(suffix)
        if sibling.exists():
            argv += [flag, sibling.name]
    code = main(argv)
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out.replace(str(examples), "<examples>") == snapshot


def test_lessons_are_kept_across_runs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, snapshot: SnapshotAssertion, tmp_path: Path
) -> None:
    # The second run of examples/lessons.as finds the lesson the first run stored beside the program.
    examples = Path(__file__).resolve().parents[2] / "examples"
    for name in ("lessons.as", "lessons.input.json", "lessons.responses.json"):
        shutil.copy(examples / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    argv = ["lessons.as", "--input-file", "lessons.input.json", "--responses", "lessons.responses.json"]
    assert main(argv) == 1  # the memory is read, but adding to it needs --allow-write
    assert (
        "Writing lessons.jsonl needs --allow-write (asrender ... --allow-write lessons.jsonl)"
        in capsys.readouterr().err
    )
    assert not (tmp_path / "lessons.jsonl").exists()
    argv += PERMISSIONS["lessons"]
    assert main(argv) == 0
    capsys.readouterr()
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "Retries need backoff" in out.partition("Instruction:")[0]
    assert out == snapshot
    stored = [json.loads(line) for line in (tmp_path / "lessons.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [item["id"] for item in stored] == [
        "00000000-0000-4000-8000-000000000001",
        "00000000-0000-4000-8000-000000000002",
    ]
