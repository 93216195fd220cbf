"""What ``asrender`` prints for every example file in every built-in format, pinned byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from promptwire import PluginHost
from promptwire.frontend.cli import main

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.yaml"))
FORMATS = PluginHost(entry_points=False).renderers.names()


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


PROGRAMS = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.as"))
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
) -> None:
    # Run from the examples folder, as a user would, so call sites print as "name.as:L:C".
    monkeypatch.chdir(program.parent)
    argv = [program.name, *RUNS[run]]
    for flag, suffix in (("--input-file", ".input.json"), ("--responses", ".responses.json")):
        sibling = program.with_suffix(suffix)
        if sibling.exists():
            argv += [flag, sibling.name]
    code = main(argv)
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out == snapshot
