"""Programs loaded from many files as AgentScript 0.1.5 loads them (issue 36, fact 7).

``tests/data/as/loading/CASE/`` holds a program of several files (``main.as`` is the entry) and
``expected.json``: the fact it pins, the ``input`` of its run, and what ``asrender check main.as``
and ``asrender main.as`` print, run from the case's folder (``code``, ``out``, ``err``; ``{root}``
stands for the folder's absolute path). The expected texts were worked out from the reference's
loading rules, not printed by promptwire: an imported file is a source of agents (never checked
alone, only the named agent taken), its imports are followed and merged where its ``import agent``
line stands, the loaded program has one namespace, identical imports merge, an agent already taken
is skipped, the entry file loaded again gives ``DUPLICATE_AGENT``, a file imported again while it
loads is a cycle, and loading errors are wrapped once per level.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.asrender.cli import main

CASES_FOLDER = Path(__file__).parents[1] / "data" / "as" / "loading"
CASES: dict[str, dict[str, Any]] = {
    path.parent.name: json.loads(path.read_text(encoding="utf-8"))
    for path in sorted(CASES_FOLDER.glob("*/expected.json"))
}


def _asrender(*argv: str) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return {"code": code, "out": out.getvalue(), "err": err.getvalue()}


def _expected(shown: dict[str, Any], root: Path) -> dict[str, Any]:
    return {
        "code": shown["code"],
        "out": shown.get("out", "").replace("{root}", str(root)),
        "err": shown.get("err", "").replace("{root}", str(root)),
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_program_of_many_files_loads_as_the_reference_loads_it(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = CASES[name]
    root = tmp_path / name
    shutil.copytree(CASES_FOLDER / name, root, ignore=shutil.ignore_patterns("expected.json"))
    monkeypatch.chdir(root)
    assert _asrender("check", "main.as") == _expected(case["check"], root)
    assert _asrender("main.as", "--input", json.dumps(case["input"])) == _expected(case["run"], root)


def test_every_case_states_its_fact() -> None:
    assert len(CASES) >= 8
    for name, case in CASES.items():
        assert case["fact"].strip(), name
