"""An output ``asrender`` writes (``--out``, ``--batch-file``, ``--record``) is never one of the
run's inputs, by name or through a link: the command is refused before anything is opened, and
every file is left as it was (each of these was emptied, with exit 0)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from promptwire.frontend.asrender.cli import main

PROGRAM = """import llm M from "openai://gpt-4o-mini"
main agent A {
    model M
    role "R"
    description "D"
    main func(input) {
        return generate({ input: "x" }) -> {
            ok boolean
        }
    }
}
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    found = {
        "program": tmp_path / "p.as",
        "rows": tmp_path / "rows.jsonl",
        "out": tmp_path / "results.jsonl",
        "answers": tmp_path / "answers.jsonl",
        "input": tmp_path / "input.json",
        "prompt": tmp_path / "prompt.json",
    }
    found["program"].write_text(PROGRAM, encoding="utf-8")
    found["rows"].write_text('{"text": "a"}\n', encoding="utf-8")
    found["out"].write_text('{"id":1,"line":1,"status":"ok","value":{"ok":true},"calls":[]}\n', encoding="utf-8")
    found["answers"].write_text("", encoding="utf-8")
    found["input"].write_text('{"text": "a"}', encoding="utf-8")
    found["prompt"].write_text('{"instruction": "Say ok."}', encoding="utf-8")
    return found


def _contents(files: dict[str, Path]) -> dict[str, bytes]:
    return {name: path.read_bytes() for name, path in files.items()}


def _refused(capsys: pytest.CaptureFixture[str], files: dict[str, Path], argv: list[str], said: str) -> None:
    before = _contents(files)
    with pytest.raises(SystemExit) as exit:
        main(argv)
    err = capsys.readouterr().err
    assert exit.value.code == 2 and said in err and "is the same file as" in err, err
    assert _contents(files) == before


def _batch(files: dict[str, Path], *argv: str) -> list[str]:
    return ["batch", str(files["program"]), "--inputs", str(files["rows"]), *argv]


def test_out_naming_the_rows_through_a_link_is_refused(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "link.jsonl"
    link.symlink_to(files["rows"])
    _refused(capsys, files, _batch(files, "--out", str(link)), f"--out {link} is the same file as --inputs")


def test_out_naming_the_program_is_refused(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    _refused(capsys, files, _batch(files, "--out", str(files["program"])), "as the program")


@pytest.mark.parametrize("target", ["rows", "out", "answers", "program"])
def test_a_batch_file_naming_an_input_or_the_results_is_refused(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str], target: str
) -> None:
    argv = _batch(files, "--out", str(files["out"]), "--batch-file", "openai", str(files[target]))
    _refused(capsys, files, [*argv, "--batch-results", str(files["answers"])], "--batch-file")


def test_a_hard_link_to_the_rows_is_the_rows(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other-name.jsonl"
    os.link(files["rows"], other)
    _refused(capsys, files | {"other": other}, _batch(files, "--out", str(other)), "--inputs")


@pytest.mark.parametrize(("flag", "target"), [(None, "program"), ("--input-file", "input")])
def test_record_naming_the_program_or_its_input_is_refused(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str | None, target: str
) -> None:
    link = tmp_path / "input-link.json"
    link.symlink_to(files["input"])
    argv = [str(files["program"]), "--input-file", str(link), "--provider", "openai", "--record", str(files[target])]
    _refused(capsys, files, argv, "--record")


def test_record_naming_the_prompt_file_is_refused(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(files["prompt"]), "--provider", "openai", "--model", "m", "--record", str(files["prompt"])]
    _refused(capsys, files, argv, "as the prompt file")
    assert json.loads(files["prompt"].read_text(encoding="utf-8")) == {"instruction": "Say ok."}
