"""asrender batch --batch-file / --batch-results: the providers' batch input written byte for byte
as a live call sends it, their results files read back (every kind of entry), rounds by replay."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from promptwire.core.json_text import to_bytes
from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_servers import REPLIES, fake_provider

TWO_CALLS = """import llm M from "openai://gpt-4o-mini"
main agent A {
    model M
    role "R"
    description "D"
    main func(input) {
        use input.text as text
        first = generate({ input: "Classify it.", attempts: 2 }) -> {
            ok boolean
        }
        use first as verdict
        generate({ input: "Explain the verdict." })
    }
}
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "two.as"
    path.write_text(TWO_CALLS, encoding="utf-8")
    return path


def _rows(path: Path, count: int) -> Path:
    path.write_text("".join(json.dumps({"text": f"row {n}"}) + "\n" for n in range(1, count + 1)), encoding="utf-8")
    return path


def _batch(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["batch", *argv])
    out, err = capsys.readouterr()
    assert out == ""
    return code, err


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _openai_ok(custom_id: str, text: str) -> dict[str, Any]:
    body = REPLIES["/v1/chat/completions"]({"model": "gpt-4o-mini"})
    body["choices"][0]["message"]["content"] = text
    response = {"status_code": 200, "request_id": "req_1", "body": body}
    return {"id": f"batch_req_{custom_id}", "custom_id": custom_id, "response": response, "error": None}


def _asked(round_file: Path) -> dict[str, str]:
    """The custom ids of a round's batch file by their row and call (``row1-call1``): each ends in
    the first 32 hex digits of its request's digest."""
    ids = [json.loads(line)["custom_id"] for line in round_file.read_text(encoding="utf-8").splitlines()]
    assert all(re.fullmatch(r"row\d+-call\d+-[0-9a-f]{32}", custom_id) for custom_id in ids)
    return {custom_id.rsplit("-", 1)[0]: custom_id for custom_id in ids}


def _write(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    return path


@pytest.mark.parametrize(("kind", "route", "keys"), [
    ("openai", "/v1/chat/completions", ["custom_id", "method", "url", "body"]),
    ("anthropic", "/v1/messages", ["custom_id", "params"]),
])  # fmt: skip
def test_each_request_is_byte_for_byte_what_a_live_call_sends(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    program: Path,
    tmp_path: Path,
    kind: str,
    route: str,
    keys: list[str],
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", 3)
    requests = tmp_path / "requests.jsonl"
    code, err = _batch(capsys, str(program), "--inputs", str(rows), "--out", str(tmp_path / "out.jsonl"),
                       "--batch-file", kind, str(requests))  # fmt: skip
    assert code == 0 and "3 rows wait for another round, their next calls written to" in err
    lines = requests.read_bytes().splitlines()
    with fake_provider() as server:
        for variable in ("OPENAI", "ANTHROPIC"):
            monkeypatch.setenv(f"{variable}_BASE_URL", server.base_url if variable == "OPENAI" else server.root)
            monkeypatch.setenv(f"{variable}_API_KEY", "sk-test")
        main([str(program), "--input", json.dumps({"text": "row 2"}), "--provider", kind, "-O", "trace"])
        capsys.readouterr()
        sent = server.raw_bodies[0]
    entries = [json.loads(line) for line in lines]
    assert [list(entry) for entry in entries] == [keys] * 3
    assert list(_asked(requests)) == ["row1-call1", "row2-call1", "row3-call1"]
    if kind == "openai":
        assert {(entry["method"], entry["url"]) for entry in entries} == {("POST", route)}
        field = b',"body":'
    else:
        field = b',"params":'
    assert lines[1].split(field, 1)[1] == sent + b"}"  # the very bytes, not just the same JSON


def test_openai_results_of_every_kind_are_read_and_the_next_round_asks_what_is_left(
    capsys: pytest.CaptureFixture[str], program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", 5)
    out = tmp_path / "out.jsonl"
    round1 = tmp_path / "round1.jsonl"
    _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out), "--batch-file", "openai", str(round1))
    ids = _asked(round1)
    results1 = _write(tmp_path / "results1.jsonl", [
        _openai_ok(ids["row1-call1"], '{"ok": true}'),
        {"id": "batch_req_2", "custom_id": ids["row2-call1"], "response": {"status_code": 400, "request_id": "r",
         "body": {"error": {"message": "bad model", "type": "invalid_request_error", "code": None}}}, "error": None},
        {"id": "batch_req_3", "custom_id": ids["row3-call1"], "response": None,
         "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}},
        {"id": "batch_req_4", "custom_id": ids["row4-call1"], "response": None,
         "error": {"code": "batch_cancelled", "message": "This request was cancelled."}},
        _openai_ok(ids["row5-call1"], "not JSON at all"),
    ])  # fmt: skip
    round2 = tmp_path / "round2.jsonl"
    code, err = _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out), "--batch-file", "openai",
                       str(round2), "--batch-results", str(results1))  # fmt: skip
    assert code == 1
    assert f"{rows}:2: row 2 failed: BadRequestError [openai 400]: LLM provider request failed (400): " in err
    assert "4 rows wait for another round" in err
    ids = _asked(round2)
    asked = {entry["custom_id"].rsplit("-", 1)[0]: entry["body"] for entry in _lines(round2)}
    assert list(asked) == ["row1-call2", "row3-call1", "row4-call1", "row5-call2"]
    assert "Explain the verdict." in asked["row1-call2"]["messages"][1]["content"]  # its second generate
    repair = asked["row5-call2"]["messages"][1]["content"]
    assert "LLM provider did not return JSON: not JSON at all" in repair  # the repair call of attempt 2
    (failed,) = _lines(out)
    assert (failed["id"], failed["status"]) == (2, "failed")
    results2 = _write(tmp_path / "results2.jsonl", [
        _openai_ok(ids["row1-call2"], "Because."),
        _openai_ok(ids["row3-call1"], '{"ok": false}'),
        _openai_ok(ids["row4-call1"], '{"ok": true}'),
        _openai_ok(ids["row5-call2"], '{"ok": true}'),
    ])  # fmt: skip
    round3 = tmp_path / "round3.jsonl"
    _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out), "--batch-file", "openai", str(round3),
           "--batch-results", str(results1), "--batch-results", str(results2))  # fmt: skip
    done = {result["id"]: result for result in _lines(out)}
    assert done[1]["status"] == "ok" and done[1]["value"] == "Because."
    assert [call["attempt"] for call in done[1]["calls"]] == [1, 1]
    assert set(done) == {1, 2}
    assert list(_asked(round3)) == ["row3-call2", "row4-call2", "row5-call3"]
    results3 = _write(tmp_path / "results3.jsonl", [_openai_ok(_asked(round3)["row5-call3"], "Fixed.")])
    _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out), "--batch-results", str(results1),
           "--batch-results", str(results2), "--batch-results", str(results3), "--provider", "openai")  # fmt: skip
    repaired = next(result for result in _lines(out) if result["id"] == 5)
    assert [(call["attempt"], call["error"] is not None) for call in repaired["calls"]] == [
        (1, True),
        (2, False),
        (1, False),
    ]
    assert repaired["value"] == "Fixed."


def test_anthropic_results_of_every_kind_are_read(
    capsys: pytest.CaptureFixture[str], program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", 4)
    out = tmp_path / "out.jsonl"
    message = REPLIES["/v1/messages"]({"model": "gpt-4o-mini"})
    first = tmp_path / "first.jsonl"
    _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out), "--batch-file", "anthropic", str(first))
    ids = _asked(first)
    results = _write(tmp_path / "results.jsonl", [
        {"custom_id": ids["row1-call1"], "result": {"type": "succeeded", "message": message}},
        {"custom_id": ids["row2-call1"], "result": {"type": "errored", "error": {"type": "error", "error": {
            "type": "overloaded_error", "message": "Overloaded"}}}},
        {"custom_id": ids["row3-call1"], "result": {"type": "expired"}},
        {"custom_id": ids["row4-call1"], "result": {"type": "canceled"}},
    ])  # fmt: skip
    following = tmp_path / "next.jsonl"
    code, err = _batch(capsys, str(program), "--inputs", str(rows), "--out", str(out), "--batch-file", "anthropic",
                       str(following), "--batch-results", str(results))  # fmt: skip
    assert code == 1
    assert f"{rows}:2: row 2 failed: ServerError [anthropic 529]: LLM provider request failed (529): " in err
    assert list(_asked(following)) == ["row1-call2", "row3-call1", "row4-call1"]
    assert list(_lines(following)[0]) == ["custom_id", "params"]


def test_a_results_file_that_is_not_one_is_refused_by_line(
    capsys: pytest.CaptureFixture[str], program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", 1)
    results = tmp_path / "results.jsonl"
    results.write_text('{"custom_id": "row1-call1", "result": {"type": "succeeded", "message": {}}}\n{"nope": 1}\n')
    code, err = _batch(capsys, str(program), "--inputs", str(rows), "--out", str(tmp_path / "o.jsonl"),
                       "--provider", "anthropic", "--batch-results", str(results))  # fmt: skip
    assert (code, err) == (1, f"asrender: {results}:2: not a anthropic batch result (missing 'custom_id')\n")


def test_a_program_that_writes_is_refused_unless_its_writes_may_repeat(
    capsys: pytest.CaptureFixture[str], program: Path, tmp_path: Path
) -> None:
    rows = _rows(tmp_path / "rows.jsonl", 1)
    command = ["batch", str(program), "--inputs", str(rows), "--out", str(tmp_path / "o.jsonl"),
               "--batch-file", "openai", str(tmp_path / "r.jsonl"), "--allow-write"]  # fmt: skip
    with pytest.raises(SystemExit):
        main(command)
    assert "add --replay-writes to allow it" in capsys.readouterr().err
    assert main([*command, "--replay-writes"]) == 0
    for argv, message in (
        (["--batch-file", "gemini", "f"], "--batch-file takes openai or anthropic"),
        (["--batch-file", "anthropic", "f", "--provider", "openai"], "takes anthropic requests, not openai's"),
        (["--batch-results", "f"], "--batch-results needs --provider"),
    ):
        with pytest.raises(SystemExit):
            main(["batch", str(program), "--inputs", str(rows), "--out", str(tmp_path / "o2.jsonl"), *argv])
        assert message in capsys.readouterr().err


def _openai_round(client: Any, requests: Path, answers: Path) -> None:
    """One round through OpenAI's Files and Batches endpoints with the real SDK: upload, create,
    poll, download the output and error files."""
    with requests.open("rb") as stream:
        uploaded = client.files.create(file=stream, purpose="batch")
    batch = client.batches.create(input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h")
    while batch.status not in ("completed", "failed", "expired", "cancelled"):
        batch = client.batches.retrieve(batch.id)
    files = [batch.output_file_id, batch.error_file_id]
    answers.write_bytes(b"".join(client.files.content(file_id).read() for file_id in files if file_id))


def _anthropic_round(client: Any, requests: Path, answers: Path) -> None:
    """One round through Anthropic's Message Batches with the real SDK: create, poll, results."""
    asked = [json.loads(line) for line in requests.read_text(encoding="utf-8").splitlines()]
    batch = client.messages.batches.create(requests=asked)
    while batch.processing_status != "ended":
        batch = client.messages.batches.retrieve(batch.id)
    results = client.messages.batches.results(batch.id)
    answers.write_text("".join(result.to_json(indent=None) + "\n" for result in results), encoding="utf-8")


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_rounds_end_to_end_through_the_providers_batch_endpoints_and_sdks(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, program: Path, tmp_path: Path, kind: str
) -> None:
    import anthropic
    import openai

    rows = _rows(tmp_path / "rows.jsonl", 3)
    out = tmp_path / "out.jsonl"
    with fake_provider() as server:
        if kind == "openai":
            client: Any = openai.OpenAI(api_key="sk-test", base_url=server.base_url, max_retries=0)
            send = _openai_round
        else:
            client = anthropic.Anthropic(api_key="sk-test", base_url=server.root, max_retries=0)
            send = _anthropic_round
        results: list[str] = []
        for round_number in range(1, 6):
            requests = tmp_path / f"round{round_number}.jsonl"
            argv = [str(program), "--inputs", str(rows), "--out", str(out), "--batch-file", kind, str(requests),
                    "--model", "ok"]  # fmt: skip
            code, err = _batch(capsys, *argv, *(arg for path in results for arg in ("--batch-results", path)))
            assert code == 0, err
            if not requests.read_bytes():
                break
            answers = tmp_path / f"answers{round_number}.jsonl"
            send(client, requests, answers)
            results.append(str(answers))
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root)
        monkeypatch.setenv(f"{kind.upper()}_API_KEY", "sk-test")
        live = tmp_path / "live.jsonl"
        _batch(capsys, str(program), "--inputs", str(rows), "--out", str(live), "--provider", kind, "--model", "ok")
    assert round_number == 3  # two calls a row: two rounds, and a third that asks nothing
    by_batch = sorted((r["id"], r["status"], r["value"], len(r["calls"])) for r in _lines(out))
    assert by_batch == sorted((r["id"], r["status"], r["value"], len(r["calls"])) for r in _lines(live))
    assert by_batch == [(n, "ok", '{"ok": true}', 2) for n in (1, 2, 3)]
    batched = {r["id"]: r["calls"] for r in _lines(out)}
    for result in _lines(live):
        assert [call["request"] for call in batched[result["id"]]] == [call["request"] for call in result["calls"]]


def test_ray_llm_steps_build_the_live_request_and_check_the_reply_against_the_contract(
    monkeypatch: pytest.MonkeyPatch, program: Path, tmp_path: Path
) -> None:
    """promptwire.batch.BuildRequest and CheckReply, the pre- and postprocess of a ray.data.llm
    processor, are plain functions of a row: tested here without Ray."""
    import pickle

    from promptwire.batch import BuildRequest, CheckReply

    build = pickle.loads(pickle.dumps(BuildRequest(str(program), model="ok")))  # as Ray ships them
    check = pickle.loads(pickle.dumps(CheckReply(str(program), model="ok")))
    row = build({"id": "a", "text": "row 1"})
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        main([str(program), "--input", json.dumps({"text": "row 1"}), "--provider", "openai", "--model", "ok"])
        assert to_bytes(row["payload"]) == server.raw_bodies[0]  # the request a live call sends
    assert row["messages"] == row["payload"]["messages"]
    answered = check({**row, "http_response": REPLIES["/v1/chat/completions"](row["payload"])})
    assert answered["status"] == "waiting"  # its second generate: the next request, for another pass
    assert "Explain the verdict." in answered["payload"]["messages"][1]["content"]
    repaired = check({**row, "generated_text": "no JSON here"})  # an engine's text, failing the contract
    assert repaired["status"] == "waiting"
    assert "LLM provider did not return JSON: no JSON here" in repaired["payload"]["messages"][1]["content"]
    bad = build({"id": "b", "other": 1})
    done = check(bad)
    assert done["status"] == "failed" and "Unknown object property 'text'" in json.loads(done["result"])["error"]
