"""Every file ``asrender`` writes by name (``--record``, ``--out``, ``--batch-file``) is opened as
``--record`` opens its file: never through a symbolic link planted at the name, never a FIFO (no
hang), a device or a file with other hard links, never under /proc, /sys or /dev."""

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
        return generate({ input: input.text }) -> {
            ok boolean
        }
    }
}
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "p.as"
    path.write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "rows.jsonl").write_text('{"text": "a"}\n{"text": "b"}\n', encoding="utf-8")
    return path


def _batch(capsys: pytest.CaptureFixture[str], program: Path, *argv: str) -> tuple[int, str]:
    rows = program.parent / "rows.jsonl"
    code = main(["batch", str(program), "--inputs", str(rows), *argv])
    return code, capsys.readouterr().err


def test_a_batch_file_never_follows_a_link_planted_at_its_name(
    program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "profile"
    profile.write_text("export PATH=/usr/bin\n", encoding="utf-8")
    planted = tmp_path / "round1.jsonl"
    planted.symlink_to(profile)
    out = tmp_path / "results.jsonl"
    code, err = _batch(capsys, program, "--out", str(out), "--batch-file", "openai", str(planted))
    assert code == 1 and "a symbolic link" in err and "Traceback" not in err
    assert profile.read_text(encoding="utf-8") == "export PATH=/usr/bin\n"


def test_a_batch_file_that_is_a_fifo_is_refused_at_once(
    program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "round1.jsonl"
    os.mkfifo(fifo)
    code, err = _batch(capsys, program, "--out", str(tmp_path / "r.jsonl"), "--batch-file", "openai", str(fifo))
    assert code == 1 and "not a regular file" in err


def test_a_batch_file_with_other_hard_links_is_refused(
    program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = tmp_path / "kept.txt"
    kept.write_text("keep\n", encoding="utf-8")
    os.link(kept, tmp_path / "round1.jsonl")
    code, err = _batch(
        capsys, program, "--out", str(tmp_path / "r.jsonl"), "--batch-file", "openai", str(tmp_path / "round1.jsonl")
    )
    assert code == 1 and "other hard links" in err and kept.read_text(encoding="utf-8") == "keep\n"


def test_a_batch_file_is_written_as_before_when_its_name_is_free(
    program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = tmp_path / "round1.jsonl"
    requests.write_text("an earlier round's requests\n", encoding="utf-8")  # a regular file is replaced
    code, err = _batch(capsys, program, "--out", str(tmp_path / "r.jsonl"), "--batch-file", "openai", str(requests))
    assert code == 0, err
    assert [json.loads(line)["custom_id"].split("-")[0] for line in requests.read_text().splitlines()] == [
        "row1",
        "row2",
    ]


@pytest.mark.parametrize("text", ["my notes", "# settings\nverbose = true", '{"theme": "dark"}'])
def test_out_on_a_file_that_is_not_results_is_refused_even_without_a_last_newline(
    program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    out = tmp_path / "notes.txt"
    out.write_text(text, encoding="utf-8")
    code, err = _batch(capsys, program, "--out", str(out))
    assert code == 1 and "not a result line; give --out a new file" in err
    assert out.read_text(encoding="utf-8") == text


def test_out_never_follows_a_link_not_even_a_dangling_one(
    program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    dangling = tmp_path / "results.jsonl"
    dangling.symlink_to(outside / "made.jsonl")
    code, err = _batch(capsys, program, "--out", str(dangling))
    assert code == 1 and "a symbolic link" in err
    assert list(outside.iterdir()) == []


def test_out_that_is_a_fifo_is_refused_not_an_internal_error(
    program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "results.jsonl"
    os.mkfifo(fifo)
    code, err = _batch(capsys, program, "--out", str(fifo))
    assert code == 1 and "not a regular file" in err and "internal error" not in err


def test_a_killed_batchs_unfinished_line_is_still_cut_off(
    program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.jsonl"
    for cut in ('{"id":1,"li', "{"):
        out.write_text(cut, encoding="utf-8")
        code, err = _batch(capsys, program, "--out", str(out))
        assert code == 0 and "2 ok" in err, err
        assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == [1, 2]
