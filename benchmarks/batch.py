"""``asrender batch`` offline: rows per second with 1 and 2 jobs against one ``asrender`` process
per row, and peak memory at 10,000 and 1,000,000 rows (it must not grow with the rows).

Each figure is one whole ``python -m promptwire batch`` process over a rows file of the
strict-invoice example's inputs (each row its own invoice number), its results written with
``--prompt digest``; the per-process figure is the mean of ``PER_PROCESS`` runs of ``asrender
PROGRAM --input ROW``. Peak RSS is the batch process's own (``ru_maxrss`` of the waited child).

``--live`` measures instead live rows per second at ``--concurrency`` 1, 16 and 64 against the
fake provider (``promptwire.testing.provider_servers``) answering every call after 100 ms, against
the ideal (concurrency / 0.1 s).

Run from the repository root: ``python benchmarks/batch.py [--million | --live]`` (without
``--million`` the large run is 100,000 rows: a million took 26 minutes here, on a shared 2-core machine).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PROGRAM = EXAMPLES / "strict-invoice.as"
ASRENDER = [sys.executable, "-m", "promptwire"]
PER_PROCESS = 20
LIVE_PROGRAM = """import llm M from "openai://gpt-4o-mini"
main agent A {
    model M
    role "Clerk"
    description "Says whether an invoice is fine."
    main func(input) {
        use input.invoice as invoice
        generate({ input: "Is it fine?" }) -> {
            ok boolean
        }
    }
}
"""


def _rows(path: Path, count: int) -> Path:
    invoice = json.loads((EXAMPLES / "strict-invoice.input.json").read_text(encoding="utf-8"))["invoice"]
    with path.open("w", encoding="utf-8") as stream:
        for number in range(count):
            stream.write(json.dumps({"invoice": invoice.replace("2026-0117", f"2026-{number:07d}")}) + "\n")
    return path


def _batch(rows: Path, out: Path, jobs: int) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of one batch process."""
    out.unlink(missing_ok=True)
    command = [*ASRENDER, "batch", str(PROGRAM), "--inputs", str(rows), "--out", str(out), "--prompt", "digest"]
    start = time.perf_counter()
    process = subprocess.Popen([*command, "--jobs", str(jobs)], stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"batch failed: {command}")
    return seconds, usage.ru_maxrss / 1024


def _per_process(rows: Path) -> float:
    lines = rows.read_text(encoding="utf-8").splitlines()[:PER_PROCESS]
    start = time.perf_counter()
    for line in lines:
        subprocess.run([*ASRENDER, str(PROGRAM), "--input", line], stdout=subprocess.DEVNULL, check=True)
    return len(lines) / (time.perf_counter() - start)


def _live(rows: Path, out: Path) -> None:
    from promptwire.testing.provider_servers import fake_provider

    program = rows.parent / "live.as"
    program.write_text(LIVE_PROGRAM, encoding="utf-8")  # answered {"ok": true} by the fake provider
    with fake_provider() as server:
        environment = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-bench"}
        for concurrency, count in ((1, 50), (16, 800), (64, 2000)):
            lines = rows.read_text(encoding="utf-8").splitlines()[:count]
            subset = rows.parent / f"live{count}.jsonl"
            subset.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
            out.unlink(missing_ok=True)
            command = [*ASRENDER, "batch", str(program), "--inputs", str(subset), "--out", str(out), "--prompt",
                       "digest", "--provider", "openai", "--model", "delay100", "--concurrency", str(concurrency)]  # fmt: skip
            start = time.perf_counter()
            subprocess.run(command, stderr=subprocess.DEVNULL, check=True, env=environment)
            rate = count / (time.perf_counter() - start)
            print(f"live --concurrency {concurrency}, {count} rows, 100 ms a call: {rate:.1f} rows/s "
                  f"(ideal {concurrency / 0.1:.0f}, {rate / (concurrency / 0.1):.0%})")  # fmt: skip


def main() -> None:
    if "--live" in sys.argv:
        with tempfile.TemporaryDirectory() as folder:
            _live(_rows(Path(folder) / "rows.jsonl", 2000), Path(folder) / "out.jsonl")
        return
    large = 1_000_000 if "--million" in sys.argv else 100_000
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        small = _rows(here / "small.jsonl", 10_000)
        print(f"one asrender process per row: {_per_process(small):.1f} rows/s")
        for jobs in (1, 2):
            seconds, peak = _batch(small, here / "out.jsonl", jobs)
            print(f"batch --jobs {jobs}, 10,000 rows: {10_000 / seconds:.0f} rows/s, peak RSS {peak:.0f} MiB")
        big = _rows(here / "big.jsonl", large)
        seconds, peak = _batch(big, here / "out.jsonl", 1)
        print(f"batch --jobs 1, {large:,} rows: {large / seconds:.0f} rows/s, peak RSS {peak:.0f} MiB")
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"(largest child of all: {children:.0f} MiB)")


if __name__ == "__main__":
    main()
