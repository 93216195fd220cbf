"""asrender FILE --from openai-chat|openai-responses|anthropic|ollama|gemini|bedrock: a provider's own request body
rendered as the conversation it is (or in the format --format names), dry-run into any provider's
body with its notes, and sent like any prompt file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from reader_bodies import BODIES

from promptwire.frontend.asrender.cli import main
from promptwire.testing.bedrock_server import fake_bedrock
from promptwire.testing.provider_servers import fake_provider

ADAPTERS = {
    "openai-chat": "openai",
    "openai-responses": "openai-responses",
    "anthropic": "anthropic",
    "ollama": "ollama",
    "gemini": "gemini",
    "bedrock": "bedrock",
}
"""The adapter that writes each reader's provider's requests."""
MODEL_FIELDS = {"bedrock": "modelId", "gemini": None}
"""Where a body names its model, where it is not ``model`` (a Gemini body names none: its URL does)."""


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _file(tmp_path: Path, data: Any, name: str = "body.json") -> str:
    path = tmp_path / name
    text = yaml.safe_dump(data) if name.endswith(".yaml") else json.dumps(data)
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("reader", sorted(BODIES))
def test_a_providers_body_renders_as_the_conversation_it_is(
    reader: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = _run(capsys, _file(tmp_path, BODIES[reader]), "--from", reader, "-O", "json")
    assert code == 0
    rendered = json.loads(out)
    assert rendered["format"] == "conversation"
    last = rendered["messages"][-1]
    assert (last["role"], last["content"]) == ("user", "And tomorrow?")
    assert (
        err
        == f"asrender: warning: format 'conversation' cannot express these prompt fields, which were left out: native.{reader}\n"
    )


def test_format_still_chooses_another_and_yaml_reads_as_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    file = _file(tmp_path, BODIES["anthropic"], "body.yaml")
    code, out, _ = _run(capsys, file, "--from", "anthropic", "--format", "messages", "-O", "json")
    assert code == 0 and json.loads(out)["format"] == "messages"
    code, out, _ = _run(capsys, file, "--from", "anthropic")
    assert code == 0
    assert out.startswith("--- system ---\n-- part: text --\nYou are a weather assistant.\n")


def test_prompt_data_keeps_its_default_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = _run(capsys, _file(tmp_path, {"instruction": "hi"}), "-O", "json")
    assert code == 0 and json.loads(out)["format"] == "agentscript"


@pytest.mark.parametrize("reader", sorted(BODIES))
def test_a_dry_run_shows_the_body_for_the_providers_model_and_its_notes(
    reader: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    file = _file(tmp_path, BODIES[reader])
    field = MODEL_FIELDS.get(reader, "model")
    model = BODIES[reader][field] if field is not None else "gemini-2.5-flash"
    given = ["--model", model] if field is None else []
    code, out, err = _run(
        capsys, file, "--from", reader, "--provider", ADAPTERS[reader], *given, "--dry-run", "-O", "json"
    )
    assert (code, err) == (0, "")
    (call,) = json.loads(out)
    assert (call["provider"], call["model"]) == (ADAPTERS[reader], model)
    if field is not None:
        assert call["body"][field] == model
    assert (
        f"format 'conversation' cannot express these prompt fields, which were left out: native.{reader}"
        in call["notes"]
    )


@pytest.mark.parametrize("reader", ["gemini", "bedrock"])
def test_a_gemini_or_bedrock_body_renders_as_messages(
    reader: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = _run(
        capsys, _file(tmp_path, BODIES[reader]), "--from", reader, "--format", "messages", "-O", "json"
    )
    assert code == 0
    rendered = json.loads(out)
    assert rendered["format"] == "messages"
    roles = [message["role"] for message in rendered["messages"]]
    assert roles[0] == "system" and roles[-1] == "user"
    parts = [
        part for message in rendered["messages"] if isinstance(message["content"], list) for part in message["content"]
    ]
    calls = [part["id"] for part in parts if part["type"] == "tool_call"]
    results = [(part["call_id"], part.get("is_error", False)) for part in parts if part["type"] == "tool_result"]
    assert calls == (["call_0", "fc_lyon"] if reader == "gemini" else ["tooluse_01A", "tooluse_01B"])
    assert results == [(calls[0], False), (calls[1], True)]
    assert f"native.{reader}" in err


def test_model_chooses_another_model_and_provider_another_provider(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    file = _file(tmp_path, BODIES["openai-chat"])
    code, out, _ = _run(
        capsys,
        file,
        "--from",
        "openai-chat",
        "--provider",
        "anthropic",
        "--model",
        "claude-x",
        "--dry-run",
        "-O",
        "json",
    )
    assert code == 0
    (call,) = json.loads(out)
    assert (call["provider"], call["body"]["model"]) == ("anthropic", "claude-x")


def test_a_body_is_sent_like_any_prompt_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    body = {
        "model": "gpt-4.1",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
    }
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        code, _, _ = _run(capsys, _file(tmp_path, body), "--from", "openai-chat", "--provider", "openai", "-O", "json")
    assert code == 0
    (sent,) = server.requests
    assert (sent["model"], sent["messages"]) == ("gpt-4.1", body["messages"])


@pytest.mark.parametrize("extra", [{}, {"store": True}])
def test_the_bodys_model_taken_for_the_call_is_not_reported_left_out(
    extra: dict[str, Any], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = {"model": "gpt-4.1", **extra, "messages": [{"role": "user", "content": "Hi"}]}
    file = _file(tmp_path, body)
    code, out, err = _run(capsys, file, "--from", "openai-chat", "--provider", "openai", "--dry-run", "-O", "json")
    assert (code, err) == (0, "")
    (call,) = json.loads(out)
    assert (call["model"], call["body"]["model"]) == ("gpt-4.1", "gpt-4.1")
    left_out = [note for note in call["notes"] if "left out: native.openai-chat" in note]
    assert len(left_out) == (1 if extra else 0)  # what else the body held is still said


def test_bad_data_is_one_line_naming_the_field(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": 3}}
    body = {"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [call]}]}
    file = _file(tmp_path, body)
    code, out, err = _run(capsys, file, "--from", "openai-chat")
    assert (code, out) == (1, "")
    assert err == f"asrender: {file}: messages[1].tool_calls[0].function.arguments: must be the arguments' JSON text\n"


def test_batch_rows_read_as_provider_bodies_are_conversations(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        json.dumps({"model": "m", "messages": [{"role": "user", "content": "Hi"}]}) + "\n", encoding="utf-8"
    )
    out = tmp_path / "out.jsonl"
    code, _, _ = _run(capsys, "batch", str(rows), "--out", str(out), "--from", "openai-chat")
    assert code == 0
    (call,) = json.loads(out.read_text(encoding="utf-8"))["calls"]
    assert call["prompt"]["format"] == "conversation"
    assert call["prompt"]["messages"] == [{"role": "user", "content": "Hi"}]


@pytest.mark.parametrize(
    ("reader", "row"),
    [
        ("gemini", {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}),
        ("bedrock", {"modelId": "m", "messages": [{"role": "user", "content": [{"text": "Hi"}]}]}),
    ],
)
def test_batch_rows_read_as_gemini_or_bedrock_bodies_are_conversations(
    reader: str, row: dict[str, Any], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rows = tmp_path / "rows.jsonl"
    bad = {"contents": [{"role": "system", "parts": []}]} if reader == "gemini" else {"messages": [{"role": "tool"}]}
    rows.write_text(json.dumps(row) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code, _, err = _run(capsys, "batch", str(rows), "--out", str(out), "--from", reader)
    assert code == 1
    first, second = (json.loads(line) for line in out.read_text(encoding="utf-8").splitlines())
    (call,) = first["calls"]
    assert (call["prompt"]["format"], call["prompt"]["messages"]) == (
        "conversation",
        [{"role": "user", "content": "Hi"}],
    )
    field = "contents[0].role: must be 'user' or 'model'" if reader == "gemini" else "messages[0].role: must be"
    assert second["status"] == "failed" and second["error"].startswith(field)
    assert f"row 2 failed: {field}" in err


def _rows(tmp_path: Path, rows: list[Any]) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _results(out: Path) -> dict[int, dict[str, Any]]:
    results = (json.loads(line) for line in out.read_text(encoding="utf-8").splitlines())
    return {result["line"]: result for result in results}


def _chat(model: str | None, text: str) -> dict[str, Any]:
    return {**({} if model is None else {"model": model}), "messages": [{"role": "user", "content": text}]}


def _openai_batch(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, rows: Path, out: Path, *flags: str
) -> tuple[int, str, list[Any]]:
    """``asrender batch ROWS --from openai-chat --provider openai FLAGS`` against the fake provider:
    the exit code, stderr, and the request bodies the provider received."""
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        code, _, err = _run(
            capsys, "batch", str(rows), "--out", str(out), "--from", "openai-chat", "--provider", "openai", *flags
        )
    return code, err, server.requests


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_batch_rows_are_sent_to_the_model_each_body_names(
    jobs: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """As ``asrender FILE --from READER --provider P`` takes the body's model, each row of a batch
    takes its own: no --model is needed, and the model taken is not reported left out."""
    rows = _rows(tmp_path, [_chat("ok", "a"), _chat("delay1", "b"), _chat("ok", "c")])
    out = tmp_path / "out.jsonl"
    code, err, requests = _openai_batch(capsys, monkeypatch, rows, out, "--jobs", jobs)
    assert code == 0, err
    assert sorted((body["model"], body["messages"][0]["content"]) for body in requests) == [
        ("delay1", "b"),
        ("ok", "a"),
        ("ok", "c"),
    ]
    for line, model in ((1, "ok"), (2, "delay1"), (3, "ok")):
        (call,) = _results(out)[line]["calls"]
        assert (call["request"]["model"], call["request"]["body"]["model"]) == (model, model)
        assert not [note for note in call["request"]["notes"] if "native.openai-chat" in note]


def test_a_batchs_model_replaces_every_rows_own_as_it_replaces_a_single_bodys(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rows = _rows(tmp_path, [_chat("e500", "a"), _chat(None, "b")])
    out = tmp_path / "out.jsonl"
    code, err, requests = _openai_batch(capsys, monkeypatch, rows, out, "--model", "ok")
    assert code == 0, err
    assert [body["model"] for body in requests] == ["ok", "ok"]
    (call,) = _results(out)[1]["calls"]
    left_out = "format 'conversation' cannot express these prompt fields, which were left out: native.openai-chat"
    assert left_out in call["request"]["notes"]  # the row's own model, not sent: said, as for a single body


def test_a_batch_row_naming_no_model_fails_alone_with_what_to_give(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rows = _rows(tmp_path, [_chat("ok", "a"), _chat(None, "b")])
    out = tmp_path / "out.jsonl"
    code, err, requests = _openai_batch(capsys, monkeypatch, rows, out)
    assert code == 1
    assert [body["model"] for body in requests] == ["ok"]
    results = _results(out)
    assert results[1]["status"] == "ok"
    message = "the row names no model (its 'model'): give --model, or name one in the row"
    assert (results[2]["status"], results[2]["error"]) == ("failed", message)
    assert f"{rows}:2: row 2 failed: {message}\n" in err


def test_batch_bedrock_rows_are_sent_to_the_model_id_each_names(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def row(model: str) -> dict[str, Any]:
        return {"modelId": model, "messages": [{"role": "user", "content": [{"text": "Hi"}]}]}

    rows = _rows(tmp_path, [row("amazon.nova-lite-v1:0"), row("anthropic.claude-3-5-haiku-20241022-v1:0")])
    out = tmp_path / "out.jsonl"
    for name, value in {
        "AWS_ACCESS_KEY_ID": "AKIDTESTKEY",
        "AWS_SECRET_ACCESS_KEY": "aws-test-secret",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_CONFIG_FILE": "/nonexistent",
        "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    with fake_bedrock() as server:
        code, _, err = _run(
            capsys, "batch", str(rows), "--out", str(out), "--from", "bedrock", "--provider", "bedrock",
            "--base-url", server.root, "--concurrency", "1",
        )  # fmt: skip
    assert code == 0, err
    assert sorted(body["modelId"] for body in server.requests) == [
        "amazon.nova-lite-v1:0",
        "anthropic.claude-3-5-haiku-20241022-v1:0",
    ]
    (call,) = _results(out)[1]["calls"]
    assert call["request"]["model"] == "amazon.nova-lite-v1:0"


def test_a_model_uri_a_body_names_reaches_no_server_the_user_did_not_allow(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A body's model is the body's, as a program's model URI is the program's: one naming a
    server other than the one configured is refused (nothing is sent), single or in a batch,
    unless --allow-net allows it. --model is the user's own choice and is not checked."""
    body = {"model": "ollama://127.0.0.1:9/m", "messages": [{"role": "user", "content": "Hi"}]}
    refused = "names the server http://127.0.0.1:9, which is not the one configured"
    code, _, err = _run(capsys, _file(tmp_path, body), "--from", "ollama", "--provider", "ollama")
    assert code == 1 and refused in err and "needs --allow-net 127.0.0.1:9" in err
    rows, results = _rows(tmp_path, [body]), tmp_path / "out.jsonl"
    code, _, err = _run(capsys, "batch", str(rows), "--out", str(results), "--from", "ollama", "--provider", "ollama")
    assert code == 1 and refused in _results(results)[1]["error"]


def test_the_reader_says_where_a_body_names_its_model_for_every_batch_not_only_the_command_lines(
    tmp_path: Path,
) -> None:
    """The Python batch (and Ray's ``RunRows``, built on the same row runner) asks each row of the
    model its body names: the reader knows the field (``model_field``), not the command line."""
    from promptwire.plugins.manager import default_host
    from promptwire.runs.batch import Batch, run_batch
    from promptwire.runs.options import RunOptions

    assert default_host().reader("bedrock").model_field == "modelId"
    assert getattr(default_host().reader("prompt"), "model_field", None) is None
    rows, out = _rows(tmp_path, [_chat("gpt-a", "a"), _chat("gpt-b", "b")]), tmp_path / "out.jsonl"
    options = RunOptions(adapter="openai", dry_run=True, format="conversation")
    summary = run_batch(Batch(rows=str(rows), options=options, reader="openai-chat"), str(out), report=print)
    assert (summary.ok, summary.failed) == (2, 0)
    assert [result["calls"][0]["request"]["body"]["model"] for _, result in sorted(_results(out).items())] == [
        "gpt-a",
        "gpt-b",
    ]
