"""``asrender snapshot DIR``: regressions found in review of the first version (see
tests/test_snapshot_command.py for the main behaviour)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from promptwire.frontend.asrender.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

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


def asrender(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
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
    assert asrender(capsys, "snapshot", "p", "--update")[0] == 0
    _program(tmp_path / "p", "ONE\rstill one\u2028same line\nend")
    code, out, _ = asrender(capsys, "snapshot", "p")
    assert code == 1
    assert "-one\rstill one\u2028same line\n+ONE\rstill one\u2028same line\n" in out
    assert "No newline at end of file" not in out


def test_nothing_is_written_without_update(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _program(tmp_path / "p", "x")
    code, out, _ = asrender(capsys, "snapshot", "p")
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
    code, alone, err = asrender(
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
    code, _, err = asrender(capsys, "snapshot", "p", "--update")
    assert (code, err) == (0, "")
    assert (folder / "__prompts__" / "summarise-file.as.agentscript.txt").read_text() == alone


def test_a_relative_template_path_is_the_callers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    _program(tmp_path / "p", "x")
    shutil.copy(EXAMPLES / "templates" / "plain.j2", tmp_path)
    code, _, err = asrender(capsys, "snapshot", "p", "--update", "-f", "template", "-o", "template=plain.j2")
    assert (code, err) == (0, "")


@pytest.mark.parametrize("update", [False, True])
def test_an_unusable_store_is_one_line_that_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], update: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    _program(tmp_path / "p", "x")
    (tmp_path / "p" / "__prompts__").write_text("not a folder")
    code, _, err = asrender(capsys, "snapshot", "p", *(["--update"] if update else []))
    assert code == 2
    assert len(err.splitlines()) == 1 and "__prompts__" in err
    assert "internal error" not in err
