"""``asrender NAME.as`` takes ``NAME.input.json`` and ``NAME.responses.json`` from beside the program,
as ``snapshot`` and ``serve`` do, says so on stderr, and lets the flags win."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from promptwire.frontend.asrender.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _asrender(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def program(tmp_path: Path) -> Path:
    for name in ("evidence-qa.as", "evidence-qa.input.json", "evidence-qa.responses.json"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path / "evidence-qa.as"


def test_a_program_alone_runs_with_its_sibling_input_and_replies(
    program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    explicit = _asrender(
        capsys,
        str(program),
        "--input-file",
        str(program.with_name("evidence-qa.input.json")),
        "--responses",
        str(program.with_name("evidence-qa.responses.json")),
    )
    code, out, err = _asrender(capsys, str(program))
    assert (code, out) == (0, explicit[1])
    assert explicit[2] == ""
    input_file, replies = program.with_name("evidence-qa.input.json"), program.with_name("evidence-qa.responses.json")
    assert err == (
        f"asrender: using {input_file} and {replies}, found beside the program "
        "(give --input-file or --responses for others)\n"
    )


def test_the_flags_win_over_the_siblings(program: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inline = '{"question": "Why?", "evidence": ["Because."], "notes": ""}'
    code, out, err = _asrender(capsys, str(program), "--input", inline, "--output", "json")
    assert code == 0
    assert "Why?" in out and "Which release first shipped" not in out
    assert "using " + str(program.with_name("evidence-qa.responses.json")) in err
    assert "input.json" not in err
    code, out, err = _asrender(capsys, str(program), "--responses", str(program.with_name("evidence-qa.input.json")))
    assert code == 1  # the flag's file is used (an object is no array of replies), not the sibling
    assert "canned responses must be a JSON array" in err


def test_a_providers_run_takes_the_input_but_not_the_canned_replies(
    program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _asrender(capsys, str(program), "--provider", "openai", "--dry-run", "--output", "json")
    assert code == 0
    assert "Which release first shipped" in out
    assert err.startswith(f"asrender: using {program.with_name('evidence-qa.input.json')}, found beside the program")
    assert "responses.json" not in err


def test_without_siblings_nothing_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(EXAMPLES / "evidence-qa.as", tmp_path)
    code, _, err = _asrender(
        capsys, str(tmp_path / "evidence-qa.as"), "--input", '{"question": "q", "evidence": [], "notes": ""}'
    )
    assert (code, err) == (0, "")


def test_a_sibling_linking_out_of_the_folder_is_refused(program: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = program.parent / "outside" / "secret.json"
    secret.parent.mkdir()
    secret.write_text('{"question": "the secret", "evidence": [], "notes": ""}', encoding="utf-8")
    folder = program.parent / "inside"
    folder.mkdir()
    shutil.move(program, folder / program.name)
    (folder / "evidence-qa.input.json").symlink_to(secret)
    code, out, err = _asrender(capsys, str(folder / "evidence-qa.as"), "--output", "json")
    assert code == 1
    assert "the secret" not in out
    assert "evidence-qa.input.json" in err
