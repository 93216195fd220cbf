"""A live ``asrender batch`` against a plain ``AsyncOpenAI`` script, both against a local server that
answers at once (issue 41, live batches).

Both sides are whole processes, timed end to end over the same rows file: ``python -m promptwire
batch PROGRAM --inputs ROWS --out OUT --provider openai --concurrency 128 --prompt digest`` as
users call it, and :data:`BARE_SCRIPT`, which reads the same rows, sends each row the same request
body with ``AsyncOpenAI().chat.completions.create`` at most 128 at once, reads the reply's JSON and
writes a line per row. Throughput is rows per second of wall time; as the machine is shared, the
client process's own CPU seconds (user + system, from ``wait4``) are shown too: the run is
CPU-bound, so rows per CPU second is the steadier figure of the two.

The server is :func:`minimal_server`, not :mod:`promptwire.testing.provider_servers`: that one is a
``ThreadingHTTPServer`` that records every request and builds each reply from the request, a
thread per connection: 1.16 CPU seconds for 1,000 calls of the AsyncOpenAI script at concurrency
128 (which took 8.6), a tenth of a core beside the client, which ``--jobs 2`` on two cores needs.
This one is an asyncio protocol in a process of its own that answers every POST with the same
prebuilt chat completion (``{"ok": true}``, the program's contract), keeping the connection
alive: 0.28 CPU seconds for the same 1,000 calls. Both sides are measured against it.

``--jobs N`` runs the live batch in N processes; the scaling figure is N-job rows/s over one job's,
measured in the same run. On a machine with other work, a job finds no free core and the figure
says so (the load average is printed).

Run from the repository root: ``python benchmarks/live_batch.py [ROWS] [--jobs N] [--pin]``
(``--pin``: the client on core 0 and the server on core 1, for the one-core comparison).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PROGRAM = """import llm M from "openai://gpt-4o-mini"
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

INVOICE = (
    "INVOICE 2026-{number:07d}\nConsulting, 3 days ........ 2,400.00\nTravel .................... 180.00\n"
    "TOTAL EUR 2,580.00 - due 2026-12-01, not yet paid"
)

CONCURRENCY = 128

BARE_SCRIPT = r'''
"""The yardstick: the same rows, the same request bodies, AsyncOpenAI's own client, a line a row."""
import asyncio, json, sys
from openai import AsyncOpenAI

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": False}
SYSTEM = "You are Clerk.\nSays whether an invoice is fine."
SCHEMA_TEXT = json.dumps(SCHEMA, indent=2)


async def one(client, number, text):
    row = json.loads(text)
    row_id = row.pop("id", number)
    content = f"Context:\n[invoice]\nsource: input.invoice\n{row['invoice']}\nInstruction:\nIs it fine?\nReturn JSON matching this schema:\n{SCHEMA_TEXT}"
    body = {
        "model": "gpt-4o-mini",
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "agentscript_generate", "strict": False, "schema": SCHEMA}},
    }
    reply = await client.chat.completions.create(**body)
    value = json.loads(reply.choices[0].message.content)
    line = {"id": row_id, "line": number, "status": "ok", "value": value, "request": body,
            "reply": reply.choices[0].message.content, "usage": reply.usage.model_dump()}
    return (json.dumps(line, separators=(",", ":")) + "\n").encode()


async def main(rows, out, concurrency):
    client = AsyncOpenAI()
    pending = set()
    with open(rows, encoding="utf-8") as lines, open(out, "ab") as results:
        for number, text in enumerate(lines, 1):
            if len(pending) >= concurrency:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                results.write(b"".join(task.result() for task in done))
            pending.add(asyncio.create_task(one(client, number, text)))
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            results.write(b"".join(task.result() for task in done))
    await client.close()


asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
'''

SERVER = r"""
import asyncio, json, sys

content = json.dumps({"ok": True})
body = json.dumps({
    "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4o-mini",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
}).encode()
REPLY = (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
         + str(len(body)).encode() + b"\r\n\r\n" + body)


class Answer(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.buffer = b""

    def data_received(self, data):
        self.buffer += data
        while True:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            head = self.buffer[:head_end].lower()
            at = head.find(b"content-length:")
            length = int(head[at + 15:head.find(b"\r\n", at) if head.find(b"\r\n", at) > 0 else None]) if at >= 0 else 0
            end = head_end + 4 + length
            if len(self.buffer) < end:
                return
            self.buffer = self.buffer[end:]
            self.transport.write(REPLY)


async def main():
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Answer, "127.0.0.1", 0, backlog=1024)
    print(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    await loop.run_in_executor(None, sys.stdin.read)  # until the benchmark closes our stdin
    server.close()


asyncio.run(main())
"""


@contextmanager
def minimal_server(core: int | None = None) -> Iterator[str]:
    """The minimal server in a process of its own (on ``core`` when given); yields its root URL."""
    process = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdin is not None
    if core is not None:
        os.sched_setaffinity(process.pid, {core})
    root = process.stdout.readline().strip()
    try:
        yield root
    finally:
        process.stdin.close()
        process.wait(timeout=10)


def write_rows(path: Path, count: int) -> Path:
    with path.open("w", encoding="utf-8") as stream:
        for number in range(count):
            stream.write(json.dumps({"invoice": INVOICE.format(number=number)}) + "\n")
    return path


@dataclass
class Timing:
    rows: int
    wall: float
    cpu: float
    """The client process's user + system seconds (its children's too: ``--jobs``' workers)."""

    @property
    def rate(self) -> float:
        return self.rows / self.wall

    @property
    def cpu_rate(self) -> float:
        return self.rows / self.cpu


def _timed(command: list[str], environment: dict[str, str], rows: int, core: int | None) -> Timing:
    start = time.perf_counter()
    process = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if core is not None:
        os.sched_setaffinity(process.pid, {core})
    _, err = process.communicate()
    wall = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"{command[:4]} failed ({process.returncode}): {err.decode()[-2000:]}")
    return Timing(rows, wall, 0.0)


def _run(command: list[str], environment: dict[str, str], rows: int, core: int | None) -> Timing:
    """One whole process (and its children), timed: wall seconds and CPU seconds."""
    before = os.times()
    timing = _timed(command, environment, rows, core)
    after = os.times()
    timing.cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return timing


def measure(
    rows: int = 4000, *, concurrency: int = CONCURRENCY, jobs: tuple[int, ...] = (), pin: bool = False, rounds: int = 2
) -> dict[str, Timing]:
    """Best of ``rounds`` of each side, alternating: ``"bare"``, ``"asrender"``, and ``"jobs N"`` for
    each of ``jobs``. With ``pin``, the one-process sides run on core 0 and the server on core 1."""
    with tempfile.TemporaryDirectory() as folder, minimal_server(1 if pin else None) as root:
        here = Path(folder)
        program = here / "live.as"
        program.write_text(PROGRAM, encoding="utf-8")
        bare = here / "bare.py"
        bare.write_text(BARE_SCRIPT, encoding="utf-8")
        inputs = write_rows(here / "rows.jsonl", rows)
        out = here / "out.jsonl"
        environment = {**os.environ, "OPENAI_BASE_URL": f"{root}/v1", "OPENAI_API_KEY": "sk-bench"}
        asrender = [sys.executable, "-m", "promptwire", "batch", str(program), "--inputs", str(inputs), "--out",
                    str(out), "--prompt", "digest", "--provider", "openai", "--concurrency", str(concurrency)]  # fmt: skip
        sides = {
            "bare": [sys.executable, str(bare), str(inputs), str(out), str(concurrency)],
            "asrender": asrender,
            **{f"jobs {n}": [*asrender, "--jobs", str(n)] for n in jobs},
        }
        best: dict[str, Timing] = {}
        for _ in range(rounds):
            for name, command in sides.items():
                out.unlink(missing_ok=True)
                core = 0 if pin and not name.startswith("jobs") else None
                timing = _run(command, environment, rows, core)
                lines = out.read_bytes().count(b"\n")
                if lines != rows:
                    raise SystemExit(f"{name}: {lines} result lines for {rows} rows")
                if name not in best or timing.wall < best[name].wall:
                    best[name] = timing
        return best


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("rows", nargs="?", type=int, default=4000)
    parser.add_argument("--jobs", type=int, action="append", default=[])
    parser.add_argument("--pin", action="store_true")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(f"before: {_load()}")
    best = measure(args.rows, jobs=tuple(args.jobs), pin=args.pin, rounds=args.rounds)
    bare = best["bare"]
    for name, timing in best.items():
        print(
            f"{name:<10} {timing.rate:7.0f} rows/s ({timing.rate / bare.rate:.2f}x bare)  "
            f"{timing.cpu_rate:7.0f} rows/CPU s ({timing.cpu_rate / bare.cpu_rate:.2f}x bare)"
        )
    for name in (name for name in best if name.startswith("jobs")):
        print(f"{name} over one job: {best[name].rate / best['asrender'].rate:.2f}x")
    print(f"after: {_load()}")


if __name__ == "__main__":
    main()
