"""asrender --output json and asrender batch: each call says how many leading bytes of its request
body repeat the previous call's to the same provider and model, and which field parts them, checked
against the bytes the fake provider received over real HTTP (and a dry run's bodies)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptwire.core.json_text import to_bytes
from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_servers import FakeProvider, fake_provider

# Two generates whose prompts differ in one context value only: the day's figures.
PROGRAM = """import llm M from "openai://ok"
import llm Other from "openai://other"

main agent A {
    model M
    role "Analyst"
    description "Summarise the day's figures."

    main func(input) {
        ask(input.monday)
        ask(input.tuesday)
        Checker(input.tuesday)
    }

    func ask(day) {
        use day as figures
        generate({ input: "Summarise the figures." })
    }
}

agent Checker {
    model Other
    role "Checker"
    description "Check."

    main func(day) {
        use day as figures
        generate({ input: "Summarise the figures." })
    }
}
"""
INPUT = '{"monday": "sales 12", "tuesday": "sales 15"}'
# Where the two days part, per provider: the user message (OpenAI's follows the system message).
PARTS_AT = {"openai": "messages[1].content", "anthropic": "messages[0].content"}


def _shared(first: bytes, second: bytes) -> int:
    count = 0
    for one, other in zip(first, second, strict=False):
        if one != other:
            break
        count += 1
    return count


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "days.as"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    with fake_provider() as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", running.root)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        yield running


def _expected(bodies: list[bytes], provider: str) -> list[dict[str, Any] | None]:
    monday, tuesday, _ = bodies
    return [
        None,  # the first call to this provider and model
        {
            "previous_call": 1,
            "same_bytes": _shared(monday, tuesday),
            "of": len(tuesday),
            "first_difference": PARTS_AT[provider],
        },
        None,  # another model: a cache of its own
    ]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_run_says_which_field_broke_the_prefix_of_the_bytes_sent(
    provider: str, program: Path, server: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(capsys, str(program), "--input", INPUT, "--provider", provider, "-O", "json")
    assert (code, err) == (0, "")
    bodies = server.raw_bodies
    assert len(bodies) == 3
    assert [call["cache_prefix"] for call in json.loads(out)] == _expected(bodies, provider)
    # The bodies part at the day's figure: "sales 12", "sales 15".
    monday, tuesday, _ = bodies
    same = _shared(monday, tuesday)
    assert (monday[same - 7 : same + 1], tuesday[same - 7 : same + 1]) == (b"sales 12", b"sales 15")


def test_a_dry_run_compares_the_bodies_it_shows(program: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, str(program), "--input", INPUT, "--provider", "anthropic", "--dry-run", "-O", "json")
    assert (code, err) == (0, "")
    calls = json.loads(out)
    bodies = [to_bytes(call["body"]) for call in calls]
    assert [call["cache_prefix"] for call in calls] == _expected(bodies, "anthropic")


def test_a_failed_run_shows_the_prefix_of_the_calls_it_made(
    program: Path, server: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    # The checker's model fails (a 429 without retry): the two calls before it are still compared.
    failing = program.read_text(encoding="utf-8").replace("openai://other", "openai://e429q")
    program.write_text(failing, encoding="utf-8")
    code, out, _ = _run(capsys, str(program), "--input", INPUT, "--provider", "openai", "-O", "json")
    assert code == 1
    calls = json.loads(out)
    assert [call["cache_prefix"] for call in calls] == _expected(server.raw_bodies, "openai")


def _rows(path: Path) -> Path:
    rows = [
        {"id": "mon-tue", "monday": "sales 12", "tuesday": "sales 15"},
        {"id": "same", "monday": "sales 12", "tuesday": "sales 12"},
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _batch_prefixes(out: Path) -> dict[str, list[Any]]:
    results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {result["id"]: [call["cache_prefix"] for call in result["calls"]] for result in results}


@pytest.mark.parametrize("concurrency", ["1", "2"])
def test_a_batch_row_compares_its_calls_with_its_own(
    concurrency: str, program: Path, server: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    argv = ["batch", str(program), "--inputs", str(_rows(tmp_path / "rows.jsonl")), "--out", str(out)]
    code = main([*argv, "--provider", "openai", "--concurrency", concurrency])
    capsys.readouterr()
    assert code == 0
    assert len(server.raw_bodies) == 6
    # The rows' bodies come in any order; Monday's is the same in both rows.
    (monday,) = {body for body in server.raw_bodies if b'"model":"ok"' in body and b"sales 12" in body}
    (tuesday,) = {body for body in server.raw_bodies if b'"model":"ok"' in body and b"sales 15" in body}
    prefixes = _batch_prefixes(out)
    assert prefixes["mon-tue"] == _expected([monday, tuesday, b""], "openai")
    # The row whose two days are the same sends the same body twice: every byte is shared.
    same = {"previous_call": 1, "same_bytes": len(monday), "of": len(monday), "first_difference": None}
    assert prefixes["same"] == [None, same, None]


def test_a_dry_run_batch_gives_the_same_lines_in_one_process_or_several(
    program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _rows(tmp_path / "rows.jsonl")
    one, several = tmp_path / "one.jsonl", tmp_path / "several.jsonl"
    base = ["batch", str(program), "--inputs", str(rows), "--provider", "anthropic", "--dry-run"]
    assert main([*base, "--out", str(one)]) == 0
    assert main([*base, "--out", str(several), "--jobs", "2"]) == 0
    capsys.readouterr()
    assert one.read_bytes() == several.read_bytes()
    results = [json.loads(line) for line in one.read_text(encoding="utf-8").splitlines()]
    calls = results[0]["calls"]
    bodies = [to_bytes(call["request"]["body"]) for call in calls]
    assert [call["cache_prefix"] for call in calls] == _expected(bodies, "anthropic")
