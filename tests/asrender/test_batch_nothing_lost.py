"""Resuming a batch, and its rounds through a provider's batch API, never lose a row silently:
ids two rows share are refused before any row runs, a results file is bound to the program, the
rows and the options that made it, an answer from ``--batch-results`` answers only the request it
was asked for, and a last result that lacks only its newline is kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_servers import REPLIES

PROGRAM = """import llm M from "openai://gpt-4o-mini"
main agent A {
    model M
    role "R"
    description "D"
    main func(input) {
        return generate({ input: "QUESTION" }) -> {
            ok boolean
        }
    }
}
"""


def _program(folder: Path, question: str = "Is it ok?") -> Path:
    path = folder / "p.as"
    path.write_text(PROGRAM.replace("QUESTION", question), encoding="utf-8")
    return path


def _rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _batch(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["batch", *argv])
    return code, capsys.readouterr().err


def _ids(path: Path) -> list[Any]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        ([{"id": 1, "x": "a"}, {"id": 1, "x": "b"}], "id 1 on lines 1, 2"),
        ([{"x": "a"}, {"x": "b"}, {"id": 2, "x": "c"}], "id 2 on lines 2, 3"),  # line 2 has no id: it is 2
        ([{"id": "a"}, {"id": "b"}, {"id": "a"}, {"id": "b"}], 'id "a" on lines 1, 3; id "b" on lines 2, 4'),
    ],
)
def test_rows_sharing_an_id_are_refused_before_any_row_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rows: list[dict[str, Any]], said: str
) -> None:
    program, data = _program(tmp_path), _rows(tmp_path / "rows.jsonl", rows)
    out = tmp_path / "out.jsonl"
    code, err = _batch(capsys, str(program), "--inputs", str(data), "--out", str(out))
    assert code == 1 and f"{data}: rows share an id: {said}." in err
    assert out.read_bytes() == b""  # nothing ran
    requests = tmp_path / "round1.jsonl"
    code, err = _batch(
        capsys, str(program), "--inputs", str(data), "--out", str(out), "--batch-file", "openai", str(requests)
    )
    assert code == 1 and "rows share an id" in err and not requests.exists()


def test_results_of_another_program_rows_or_options_are_refused_unless_kept_anyway(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = _rows(tmp_path / "rows.jsonl", [{"id": n, "x": str(n)} for n in range(1, 4)])
    out = tmp_path / "out.jsonl"
    assert _batch(capsys, str(_program(tmp_path)), "--inputs", str(data), "--out", str(out))[0] == 0
    before = out.read_bytes()
    (tmp_path / "other").mkdir()
    other_program = _program(tmp_path / "other", "Other?")
    other_rows = _rows(tmp_path / "other-rows.jsonl", [{"id": n, "x": "changed"} for n in range(1, 4)])
    for argv in (
        [str(other_program), "--inputs", str(data)],
        [str(_program(tmp_path)), "--inputs", str(other_rows)],
        [str(_program(tmp_path)), "--inputs", str(data), "--format", "messages"],
        [str(_program(tmp_path)), "--inputs", str(data), "--provider", "openai", "--dry-run"],
    ):
        code, err = _batch(capsys, *argv, "--out", str(out))
        assert code == 1 and "holds results made by another program, from other rows or with other options" in err
        assert "--resume-anyway" in err and out.read_bytes() == before
    code, err = _batch(capsys, str(other_program), "--inputs", str(data), "--out", str(out), "--resume-anyway")
    assert code == 0 and "3 done before" in err and out.read_bytes() == before


def test_a_resumed_batch_with_the_same_program_and_rows_skips_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    program, data = _program(tmp_path), _rows(tmp_path / "rows.jsonl", [{"x": "a"}, {"x": "b"}])
    out = tmp_path / "out.jsonl"
    _batch(capsys, str(program), "--inputs", str(data), "--out", str(out))
    with data.open("a", encoding="utf-8") as rows:
        rows.write('{"x": "c"}\n')  # a row added since: run, the others kept
    code, err = _batch(capsys, str(program), "--inputs", str(data), "--out", str(out))
    assert code == 0 and "1 ok, 0 failed, 0 bad, 2 done before" in err
    assert _ids(out) == [1, 2, 3]


def test_a_last_result_lacking_only_its_newline_is_kept(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    program, data = _program(tmp_path), _rows(tmp_path / "rows.jsonl", [{"x": "a"}, {"x": "b"}, {"x": "c"}])
    out = tmp_path / "out.jsonl"
    _batch(capsys, str(program), "--inputs", str(data), "--out", str(out))
    whole = out.read_bytes()
    out.write_bytes(whole[:-1])  # killed between the last line's bytes and its newline
    code, err = _batch(capsys, str(program), "--inputs", str(data), "--out", str(out))
    assert code == 0 and "0 ok, 0 failed, 0 bad, 3 done before" in err
    assert out.read_bytes() == whole


def _answer(custom_id: str, text: str) -> dict[str, Any]:
    body = REPLIES["/v1/chat/completions"]({"model": "gpt-4o-mini"})
    body["choices"][0]["message"]["content"] = text
    return {"id": "b1", "custom_id": custom_id, "response": {"status_code": 200, "body": body}, "error": None}


def test_an_old_answer_never_answers_a_changed_request(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = _rows(tmp_path / "rows.jsonl", [{"x": "a"}])
    out, round1, round2 = tmp_path / "out.jsonl", tmp_path / "round1.jsonl", tmp_path / "round2.jsonl"
    _batch(
        capsys, str(_program(tmp_path)), "--inputs", str(data), "--out", str(out), "--batch-file", "openai", str(round1)
    )
    (asked,) = [json.loads(line) for line in round1.read_text(encoding="utf-8").splitlines()]
    answers = tmp_path / "answers1.jsonl"
    answers.write_text(json.dumps(_answer(asked["custom_id"], '{"ok": true}')) + "\n", encoding="utf-8")
    changed = _program(tmp_path, "Is it really ok?")  # the program changed between the rounds
    code, err = _batch(capsys, str(changed), "--inputs", str(data), "--out", str(out), "--batch-file", "openai",
                       str(round2), "--batch-results", str(answers))  # fmt: skip
    assert code == 0 and "1 rows wait for another round" in err
    assert out.read_bytes() == b""  # not written ok with the old program's answer
    (again,) = [json.loads(line) for line in round2.read_text(encoding="utf-8").splitlines()]
    assert again["custom_id"] != asked["custom_id"]
    assert "Is it really ok?" in json.dumps(again["body"])


def test_a_row_longer_than_max_input_size_is_a_bad_row_never_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    program = _program(tmp_path)
    data = tmp_path / "rows.jsonl"
    big = json.dumps({"x": "y" * 2_000_000})
    data.write_text('{"x": "a"}\n' + big + '\n{"x": "c"}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code, err = _batch(capsys, str(program), "--inputs", str(data), "--out", str(out), "--max-input-size", "1M")
    assert code == 1 and "2 ok, 0 failed, 1 bad" in err
    lines = {line["id"]: line for line in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    assert lines[2]["status"] == "bad"
    assert lines[2]["error"] == f"the row is {len(big) + 1:,} bytes, more than --max-input-size (1,048,576 bytes)"
    assert [lines[1]["status"], lines[3]["status"]] == ["ok", "ok"]
