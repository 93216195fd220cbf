"""The trace (``asrender --output trace``) of tool, memory and generate events, byte for byte
(issue 36, facts 1, 2 and 8).

``tests/data/as/traces/NAME.as`` with ``NAME.case.json`` (the fact, the ``input``, the ``flags`` the
run needs, ``files`` written beside the program, ``env`` variables and canned ``responses``) and
``NAME.trace.json``: what ``asrender NAME.as --output trace`` prints, run from the program's folder
(``{root}`` stands for its absolute path; memory ids and times are pinned). The expected bytes were
worked out from the reference's trace rules, not printed by promptwire.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.asrender.cli import main
from promptwire.tools import memory_records

TRACES = Path(__file__).parents[1] / "data" / "as" / "traces"
CASES: dict[str, dict[str, Any]] = {
    path.name.removesuffix(".case.json"): json.loads(path.read_text(encoding="utf-8"))
    for path in sorted(TRACES.glob("*.case.json"))
}


@pytest.fixture(autouse=True)
def pinned_memory_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = (f"00000000-0000-4000-8000-{n:012d}" for n in itertools.count(1))
    monkeypatch.setattr(memory_records, "new_id", lambda: next(ids))
    monkeypatch.setattr(memory_records, "now", lambda: "2026-01-02T03:04:05.678Z")


def trace_of(name: str, root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    """``asrender NAME.as --output trace`` run in ``root`` as the case says: status, stdout, stderr."""
    case = CASES[name]
    shutil.copyfile(TRACES / f"{name}.as", root / f"{name}.as")
    for file, text in case.get("files", {}).items():
        (root / file).parent.mkdir(parents=True, exist_ok=True)
        (root / file).write_text(text, encoding="utf-8")
    for variable, value in case.get("env", {}).items():
        monkeypatch.setenv(variable, value)
    argv = [f"{name}.as", "--input", json.dumps(case["input"]), "--output", "trace", *case["flags"]]
    if "responses" in case:
        (root / "responses.json").write_text(json.dumps(case["responses"]), encoding="utf-8")
        argv += ["--responses", "responses.json"]
    monkeypatch.chdir(root)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_trace_is_the_references(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = (TRACES / f"{name}.trace.json").read_text(encoding="utf-8").replace("{root}", str(tmp_path))
    assert trace_of(name, tmp_path, monkeypatch) == (0, expected, "")
