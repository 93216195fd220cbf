"""Latency of ``asrender lsp`` as an editor sees it, for the README's example and a 2 MB program.

Run ``python benchmarks/lsp_latency.py [--mb 2] [--runs 5]`` from the repository root with
``promptwire[lsp]`` installed. The server is driven over stdio by the tests' client
(tests/lsp_client.py), and each figure is the median wall-clock time of ``--runs`` tries, in
milliseconds, from the message sent to the answer read, and in brackets the processor time the
server process spent meanwhile (the evaluation's child process not counted):

* ``open -> diagnostics``: a file opened, until its diagnostics arrive (the 0.15 s debounce included);
* ``edit -> diagnostics``: one character changed, until the diagnostics of that version arrive;
* ``burst of 20 edits``: twenty changes 20 ms apart, until the last one's diagnostics arrive, and
  how many times diagnostics were published for them (the debounce: once, ideally);
* ``hover (name)``, ``definition``, ``symbols``, ``folding``, ``completion``: one request each;
* ``hover (generate), first`` and ``again``: the offline run in its child process, then the same
  hover answered from that run (small program only: the large one's tools need permissions).

The 2 MB program is benchmarks/as_parse.py's (realistic agents, repeated). Wall-clock figures
depend on the machine and its load; nothing asserts on them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from as_parse import build  # noqa: E402

from lsp_client import LspClient  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def _server_cpu(pid: int) -> float:
    """Seconds of processor the server has used (user and system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def _median_ms(action: Callable[[], object], runs: int, pid: int) -> str:
    """The median wall-clock time of ``action`` and, in brackets, the server's processor time for
    it (the machine may be shared: the second is what the server itself spent)."""
    times, cpu = [], []
    for _ in range(runs):
        start, used = time.perf_counter(), _server_cpu(pid)
        action()
        times.append(time.perf_counter() - start)
        cpu.append(_server_cpu(pid) - used)
    return f"{statistics.median(times) * 1000:.0f} ({statistics.median(cpu) * 1000:.0f} cpu)"


def measure(name: str, program: Path, runs: int, *, hover_generate: bool) -> list[tuple[str, str]]:
    text = program.read_text(encoding="utf-8")
    lines = text.split("\n")
    generate_line = next(index for index, line in enumerate(lines) if "generate(" in line)
    name_line = next(index for index, line in enumerate(lines) if line.startswith(("main agent", "agent")))
    name_character = lines[name_line].index("agent ") + len("agent ") + 1
    client = LspClient(cwd=program.parent)
    rows: list[tuple[str, str]] = []
    try:
        client.initialize(program.parent)
        pid = client.process.pid
        version = 1
        uri = program.as_uri()

        def open_file() -> None:
            nonlocal version
            version += 1
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            client.open(program, text, version)
            client.diagnostics(uri, version=version, timeout=600)

        rows.append(("open -> diagnostics", _median_ms(open_file, runs, pid)))
        # A character typed on the first line, in a comment: the program stays as it was.
        edit_at = {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}

        def edit() -> None:
            nonlocal version
            version += 1
            client.change(uri, version, [{"range": edit_at, "text": "\n" if version % 2 else ""}])
            client.diagnostics(uri, version=version, timeout=600)

        client.change(uri, version + 1, [{"range": edit_at, "text": "\n"}])
        version += 1
        client.diagnostics(uri, version=version, timeout=600)
        rows.append(("edit -> diagnostics", _median_ms(edit, runs, pid)))

        published = []

        def burst() -> None:
            nonlocal version
            first = version + 1
            for _ in range(20):
                version += 1
                client.change(uri, version, [{"range": edit_at, "text": "\n" if version % 2 else ""}])
                time.sleep(0.02)
            count = 0
            while True:
                message = client.notifications.get(timeout=600)
                if message["method"] != "textDocument/publishDiagnostics" or message["params"]["uri"] != uri:
                    continue
                if (message["params"].get("version") or 0) >= first:
                    count += 1
                if message["params"].get("version") == version:
                    break
            published.append(count)

        rows.append(("burst of 20 edits -> diagnostics", f"{_median_ms(burst, runs, pid)}, {max(published)} published"))
        at = client.at(uri, name_line, name_character)
        rows.append(("hover (name)", _median_ms(lambda: client.request("textDocument/hover", at), runs, pid)))
        rows.append(("definition", _median_ms(lambda: client.request("textDocument/definition", at), runs, pid)))
        document = {"textDocument": {"uri": uri}}
        rows.append(("symbols", _median_ms(lambda: client.request("textDocument/documentSymbol", document), runs, pid)))
        rows.append(("folding", _median_ms(lambda: client.request("textDocument/foldingRange", document), runs, pid)))
        inside = client.at(uri, generate_line, lines[generate_line].index("generate(") + len("generate({"))
        rows.append(("completion", _median_ms(lambda: client.request("textDocument/completion", inside), runs, pid)))
        if hover_generate:
            open_file()  # the text as on disk again: the edits above moved its lines
            on = client.at(uri, generate_line, lines[generate_line].index("generate") + 1)
            rows.append(
                ("hover (generate), first", _median_ms(lambda: client.request("textDocument/hover", on), 1, pid))
            )
            rows.append(
                ("hover (generate), again", _median_ms(lambda: client.request("textDocument/hover", on), runs, pid))
            )
        client.shutdown()
    finally:
        client.close()
    return [(f"{name}: {what}", figure) for what, figure in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rows = measure("small (README example)", ROOT / "examples" / "evidence-qa.as", args.runs, hover_generate=True)
    with tempfile.TemporaryDirectory() as temporary:
        large = Path(temporary) / "large.as"
        large.write_text(build(args.mb), encoding="utf-8")
        rows += measure(f"{large.stat().st_size / 1e6:.1f} MB", large, args.runs, hover_generate=False)
    width = max(len(what) for what, _ in rows)
    print(f"{'request':<{width}}  ms, wall (server cpu), median of {args.runs}")
    for what, figure in rows:
        print(f"{what:<{width}}  {figure}")


if __name__ == "__main__":
    main()
