"""Every ``asrender examples/...`` command the README and docs/cli.md give works as written, from the
repository root, and between them they show how to run every example program."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from promptwire.frontend.asrender.cli import main

ROOT = Path(__file__).resolve().parents[2]
PAGES = "\n".join((ROOT / page).read_text(encoding="utf-8") for page in ("README.md", "docs/cli.md"))
# In code blocks and inline code alike: `asrender [check] examples/...` up to the end of the command.
COMMANDS = [match.group(1) for match in re.finditer(r"\basrender ((?:check |parse )?examples/[^`\n]*)", PAGES)]


def test_the_readme_shows_how_to_run_every_example_program() -> None:
    named = {word for command in COMMANDS for word in shlex.split(command, comments=True) if word.endswith(".as")}
    programs = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "examples").rglob("*.as")
        if "plugins" not in path.relative_to(ROOT / "examples").parts
    }
    assert named == programs


@pytest.mark.parametrize("command", COMMANDS)
def test_a_readme_command_works_from_the_repository_root(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # In a copy of the examples, so that lessons.as keeps its memory there and not in the checkout.
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("plugins", "*.jsonl"))
    monkeypatch.chdir(tmp_path)
    code = main(shlex.split(command, comments=True))
    out, err = capsys.readouterr()
    assert code == 0, err
    assert all(line.startswith("asrender: warning: ") for line in err.splitlines()), err
    assert out or command.startswith("check ")
