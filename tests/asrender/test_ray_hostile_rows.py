"""promptwire.batch's Ray steps and hostile rows: a row holding what JSON cannot (a date, as
``ray.data.read_json`` reads ``"2024-01-01"``; bytes; a decimal), a row whose id is null or a
float, a reply that is a list, text or a number: each fails that row only, under its own id, as
``asrender batch`` does; the other rows of the batch run. The steps are called directly with a
pyarrow table (what ``map_batches`` hands them); one test reads a JSON file through Ray itself
when ``PROMPTWIRE_RAY_TESTS=1``."""

from __future__ import annotations

import datetime
import decimal
import json
import os
from pathlib import Path
from typing import Any

import pytest

PROGRAM = """import llm M from "openai://gpt-4o-mini"
main agent A {
    model M
    role "R"
    description "D"
    main func(input) {
        return generate({ input: "Is it ok?" }) -> {
            ok boolean
        }
    }
}
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "p.as"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def _results(program: Path, rows: dict[str, list[Any]]) -> list[dict[str, Any]]:
    pyarrow = pytest.importorskip("pyarrow")
    from promptwire.batch import RunRows

    columns = RunRows(str(program))(pyarrow.table(rows))
    return [
        json.loads(result) | {"column_id": ident}
        for result, ident in zip(columns["result"], columns["id"], strict=True)
    ]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (datetime.date(2024, 1, 1), "when: a date is no JSON value (Ray Data reads date-like text as a timestamp"),
        (b"\x00\x01", "when: a bytes is no JSON value"),
        (decimal.Decimal("1.10"), "when: a Decimal is no JSON value"),
    ],
)
def test_a_row_holding_what_json_cannot_fails_alone_under_its_own_id(program: Path, value: Any, said: str) -> None:
    results = _results(program, {"id": [1, 2], "when": [value, None]})
    assert [(result["id"], result["status"]) for result in results] == [(1, "bad"), (2, "ok")]
    assert said in results[0]["error"] and results[0]["column_id"] == 1


@pytest.mark.parametrize("ids", [[None, 1], [1.5, 1.0]])
def test_a_row_with_a_null_or_float_id_comes_back_under_its_own_id(program: Path, ids: list[Any]) -> None:
    results = _results(program, {"id": ids, "text": ["a", "b"]})
    assert [result["id"] for result in results] == ids  # not row 1's place in the batch: 1
    assert [result["column_id"] for result in results] == ids
    assert results[0]["status"] == "bad" and "a row's id must be text or an integer" in results[0]["error"]


@pytest.mark.parametrize("reply", [[1, 2], "not an object", 7])
def test_check_reply_fails_the_row_on_a_reply_that_is_no_object(program: Path, reply: Any) -> None:
    from promptwire.batch import BuildRequest, CheckReply

    row = BuildRequest(str(program), model="ok")({"id": "a", "text": "x"})
    checked = CheckReply(str(program), model="ok")({**row, "http_response": reply})
    result = json.loads(checked["result"])
    assert (checked["status"], result["id"], result["status"]) == ("failed", "a", "failed")
    assert "LLM provider response is not a JSON object" in result["error"]


def test_build_request_fails_a_row_holding_a_date_under_its_own_id(program: Path) -> None:
    from promptwire.batch import BuildRequest, CheckReply

    row = BuildRequest(str(program), model="ok")({"id": 9, "when": datetime.datetime(2024, 1, 1)})
    assert row["payload"] == {}
    checked = CheckReply(str(program), model="ok")(row)
    result = json.loads(checked["result"])
    assert (checked["status"], result["id"]) == ("bad", 9) and "a datetime is no JSON value" in result["error"]


@pytest.mark.skipif(os.environ.get("PROMPTWIRE_RAY_TESTS") != "1", reason="a Ray cluster: set PROMPTWIRE_RAY_TESTS=1")
def test_ray_reads_a_date_and_only_that_row_fails(program: Path, tmp_path: Path) -> None:
    import ray

    from promptwire.batch import ray_map, result_lines

    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": 1, "when": "2024-01-01"}\n{"id": 2, "when": null}\n', encoding="utf-8")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        results = result_lines(ray_map(ray.data.read_json(str(rows)), str(program), actors=1))
    finally:
        ray.shutdown()
    assert {key: value["status"] for key, value in results.items()} == {1: "bad", 2: "ok"}
