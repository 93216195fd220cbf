"""``asrender batch --count-tokens``: every row's calls counted by the provider's count endpoint
through its real SDK over real HTTP (the fake provider's strict count route), each row's line
holding its counts and the summary their total; nothing but the counts is sent, a provider without
a count endpoint is refused before any row runs, and a counted batch is not resumed from an
uncounted one's results."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_counts import fake_count
from promptwire.testing.provider_servers import FakeProvider, fake_provider

PROGRAM = """import llm M from "anthropic://ok"
main agent A {
    model M
    role "Greeter"
    description "Greet people."
    main func(input) {
        use input.name as name
        greeting = generate({ input: "Greet them." })
        generate({ input: "Greet them again." })
    }
}
"""
CHECKER = """import llm Local from "ollama://tiny"
agent Checker {
    model Local
    role "Checker"
    description "Checks a greeting."
    func check(greeting) {
        return generate({ input: greeting })
    }
}
"""
ROWS = ['{"id": "ann", "name": "Ann"}', '{"id": "bo", "name": "Bo"}', '{"id": "cy", "name": "Cy Young"}']


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    with fake_provider() as running:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", running.root)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        yield running


def _batch(tmp_path: Path, *flags: str, out: str = "out.jsonl") -> tuple[int, Path]:
    program = tmp_path / "greet.as"
    program.write_text(PROGRAM, encoding="utf-8")
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(ROWS) + "\n", encoding="utf-8")
    results = tmp_path / out
    return main(["batch", str(program), "--inputs", str(rows), "--out", str(results), *flags]), results


def test_each_rows_line_holds_its_counts_and_the_summary_their_total(
    tmp_path: Path, server: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    code, results = _batch(tmp_path, "--provider", "anthropic", "--count-tokens")
    err = capsys.readouterr().err
    assert code == 0
    assert server.paths == ["/v1/messages/count_tokens"] * 6  # two calls a row, counted; nothing sent
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines] == ["ann", "bo", "cy"]
    expected = [fake_count(raw) for raw in server.raw_bodies]
    counted = [call["input_tokens"] for line in lines for call in line["token_count"]["calls"]]
    assert sorted(counted) == sorted(expected)  # each count is the one the endpoint answered
    for line in lines:
        calls = line["token_count"]["calls"]
        assert [(call["provider"], call["model"], call["site"]) for call in calls] == [
            ("anthropic", "ok", f"{tmp_path / 'greet.as'}:8:20"),
            ("anthropic", "ok", f"{tmp_path / 'greet.as'}:9:9"),
        ]
        assert line["token_count"]["total"] == sum(call["input_tokens"] for call in calls)
    total = sum(line["token_count"]["total"] for line in lines)
    assert f", {total} input tokens counted;" in err
    assert lines[2]["token_count"]["total"] > lines[1]["token_count"]["total"]  # a longer name, more tokens


def test_a_provider_without_a_count_endpoint_is_refused_before_any_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, results = _batch(tmp_path, "--provider", "openai", "--model", "ok", "--count-tokens")
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("asrender: provider 'openai' has no token-count endpoint")
    assert "Traceback" not in err and not results.exists()


def test_counting_needs_a_provider_and_a_run_here(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        _batch(tmp_path, "--count-tokens")
    assert exit.value.code == 2
    assert "--count-tokens needs --provider" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit:
        _batch(tmp_path, "--provider", "anthropic", "--count-tokens", "--batch-file", "anthropic", "b.jsonl")
    assert exit.value.code == 2
    assert "not a round of a provider's batch API" in capsys.readouterr().err


def test_a_counted_batch_is_not_resumed_from_a_dry_runs_results(
    tmp_path: Path, server: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dry run's lines hold no counts: resuming them with --count-tokens would leave rows uncounted."""
    assert _batch(tmp_path, "--provider", "anthropic", "--dry-run")[0] == 0
    capsys.readouterr()
    code, results = _batch(tmp_path, "--provider", "anthropic", "--count-tokens")
    assert code != 0
    assert "--resume-anyway" in capsys.readouterr().err
    assert server.paths == []  # refused before any row was counted
    assert all("token_count" not in json.loads(line) for line in results.read_text(encoding="utf-8").splitlines())


def test_under_auto_a_call_that_cannot_be_counted_is_named_in_its_rows_line(
    tmp_path: Path, server: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each row's second call goes to Ollama, which has no count endpoint: every row still runs, its
    line names that call with why, the summary says how many calls its total leaves out, and the
    exit status is 1 (a total that is not the whole must not pass for it)."""
    mixed = PROGRAM.replace(
        '        generate({ input: "Greet them again." })', "        Checker.check(greeting)"
    ).replace("main agent A", CHECKER + "main agent A")
    (tmp_path / "greet.as").write_text(mixed, encoding="utf-8")
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(ROWS) + "\n", encoding="utf-8")
    results = tmp_path / "out.jsonl"
    argv = ["batch", str(tmp_path / "greet.as"), "--inputs", str(rows), "--out", str(results)]
    code = main([*argv, "--provider", "auto", "--count-tokens"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert server.paths == ["/v1/messages/count_tokens"] * 3  # one countable call a row
    lines = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert [line["status"] for line in lines] == ["ok"] * 3
    for line in lines:
        [counted] = line["token_count"]["calls"]
        [uncounted] = line["token_count"]["not_counted"]
        assert counted["provider"] == "anthropic" and line["token_count"]["total"] == counted["input_tokens"]
        assert (uncounted["provider"], uncounted["model"]) == ("ollama", "tiny")
        assert uncounted["reason"].startswith("provider 'ollama' has no token-count endpoint")
    total = sum(line["token_count"]["total"] for line in lines)
    assert f", {total} input tokens counted (3 calls not counted: no count endpoint);" in err
