"""promptwire.batch on a real local Ray cluster (127.0.0.1, the machine's 2 CPUs): the same rows
give the same result lines as ``asrender batch``, offline over 10,000 rows and live over HTTP.

Ray is an extra (``promptwire[ray]``) and a cluster takes a while to start, so these run when
``PROMPTWIRE_RAY_TESTS=1`` (CI sets it, with the extra installed), and fail then if Ray is missing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptwire.testing.provider_servers import FakeProvider, fake_provider

pytestmark = pytest.mark.skipif(
    os.environ.get("PROMPTWIRE_RAY_TESTS") != "1", reason="a Ray cluster: set PROMPTWIRE_RAY_TESTS=1"
)

PROGRAM = """import llm M from "openai://ok"
main agent A {
    model M
    role "R"
    description "D"
    main func(input) {
        use input.text as text
        generate({ input: "Classify it." }) -> {
            ok boolean
        }
    }
}
"""


@pytest.fixture(scope="module")
def cluster() -> Iterator[FakeProvider]:
    """A local Ray cluster whose workers reach a fake provider (they inherit the environment
    ``ray.init`` is called in)."""
    import ray

    with fake_provider() as server:
        saved = {name: os.environ.get(name) for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
        os.environ.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-test")
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            yield server
        finally:
            ray.shutdown()
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def _by_id(lines: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {line["id"]: {key: value for key, value in line.items() if key not in ("line", "source")} for line in lines}


def _asrender(
    server: FakeProvider, program: Path, rows: list[dict[str, Any]], folder: Path, *argv: str
) -> dict[Any, dict[str, Any]]:
    """``asrender batch`` on the same rows, pointed at the workers' fake provider (each test starts
    with no provider environment: see conftest.py)."""
    path = folder / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = folder / "out.jsonl"
    command = [sys.executable, "-m", "promptwire", "batch", str(program), "--inputs", str(path), "--out", str(out)]
    environment = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test"}
    subprocess.run([*command, *argv], capture_output=True, timeout=600, check=False, env=environment)
    return _by_id([json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()])


def test_ten_thousand_rows_offline_equal_asrender_batch(cluster: FakeProvider, tmp_path: Path) -> None:
    import ray

    from promptwire.batch import ray_map, result_lines

    program = tmp_path / "classify.as"
    program.write_text(PROGRAM, encoding="utf-8")
    rows = [{"id": number, "text": f"row {number}"} for number in range(10_000)]
    results = result_lines(ray_map(ray.data.from_items(rows), str(program), actors=2, prompt="digest"))
    expected = _asrender(cluster, program, rows, tmp_path, "--prompt", "digest")
    assert len(results) == 10_000
    assert results == expected


def test_live_rows_over_http_equal_asrender_batch(cluster: FakeProvider, tmp_path: Path) -> None:
    import ray

    from promptwire.batch import ray_map, result_lines

    program = tmp_path / "classify.as"
    program.write_text(PROGRAM, encoding="utf-8")
    rows = [{"id": f"r{number}", "text": f"row {number}"} for number in range(200)]
    expected = _asrender(cluster, program, rows, tmp_path, "--provider", "openai", "--model", "delay20")
    asked = len(cluster.requests)
    results = result_lines(
        ray_map(ray.data.from_items(rows), str(program), actors=2, provider="openai", model="delay20", concurrency=16)
    )
    assert len(cluster.requests) - asked == 200
    assert results == expected
    assert {result["status"] for result in results.values()} == {"ok"}


ONE_CALL = PROGRAM.replace("openai://ok", "openai://gpt-4o-mini")


def test_the_llm_processor_steps_around_an_http_stage_equal_asrender_batch(
    cluster: FakeProvider, tmp_path: Path
) -> None:
    """BuildRequest and CheckReply around an HTTP stage posting each ``payload`` as ray.data.llm's
    does (its own stage needs aiohttp and a real endpoint; this one posts with httpx to the fake)."""
    import ray

    from promptwire.batch import BuildRequest, CheckReply

    program = tmp_path / "one.as"
    program.write_text(ONE_CALL, encoding="utf-8")
    url = f"{cluster.base_url}/chat/completions"

    def http_stage(row: dict[str, Any]) -> dict[str, Any]:
        import httpx

        return {**row, "http_response": httpx.post(url, json=row["payload"], timeout=30).json()}

    rows = [{"id": f"r{number}", "text": f"row {number}"} for number in range(100)]
    steps = (
        ray.data.from_items(rows)
        .map(BuildRequest(str(program), model="ok"))
        .map(http_stage)
        .map(CheckReply(str(program), model="ok"))
    )
    results = {row["id"]: json.loads(row["result"]) for row in steps.iter_rows()}
    expected = _asrender(cluster, program, rows, tmp_path, "--provider", "openai", "--model", "ok")
    assert {key: (value["status"], value["value"]) for key, value in results.items()} == {
        key: (value["status"], value["value"]) for key, value in expected.items()
    }
    assert [call["request"] for call in results["r5"]["calls"]] == [call["request"] for call in expected["r5"]["calls"]]
