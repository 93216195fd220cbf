"""``asrender parse`` and ``asrender check`` against program size: time, peak memory, output.

Run ``python benchmarks/asrender_scaling.py [--sizes 0.1,0.4,1.6]`` with promptwire installed. For
each size (MB of source) it writes three programs and runs the command on each in a fresh process,
as a user would, with standard output thrown away:

* ``parse realistic``: agents like ``as_parse.py``'s (imports, uses, loops, generates with shapes);
* ``parse numbers``: one list of numbers, the most nodes (and JSON) per byte of source;
* ``check errors``: one duplicate parameter every two bytes, thousands of diagnostics.

Each row shows wall time, the process's peak RSS (``ru_maxrss``, start-up included) and what it
printed; the per-MB columns show whether a command stays linear: they should hold steady as the
size grows. Wall time, not CPU time, because writing the output is part of the cost.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from as_parse import build  # the benchmark next door builds realistic programs

OPEN = "main agent A {\n    main func(input) {\n"
CLOSE = "\n    }\n}\n"


def numbers(size: int) -> str:
    return OPEN + "        x = [" + "1 " * (size // 2) + "]" + CLOSE


def duplicate_parameters(size: int) -> str:
    return "main agent A {\n    main func(" + "a " * (size // 2) + ") {\n    }\n}\n"


def measure(argv: list[str]) -> None:
    """In the child: run asrender with its output in a scratch file; report seconds, peak RSS and
    the bytes it wrote (stdout and stderr: ``check`` reports on stderr)."""
    from promptwire.frontend.asrender.cli import main

    report = sys.stderr
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    with tempfile.TemporaryFile() as out:
        for fd in saved:
            os.dup2(out.fileno(), fd)
        sys.stderr = open(os.dup(2), "w", encoding="utf-8")  # noqa: SIM115  (closed with the process)
        start = time.perf_counter()
        try:
            main(argv)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            seconds = time.perf_counter() - start
            for fd, original in saved.items():
                os.dup2(original, fd)
        written = out.seek(0, os.SEEK_END)
    figures = {
        "seconds": seconds,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "out_mb": written / 1e6,
    }
    print(json.dumps(figures), file=report, flush=True)


def run(argv: list[str]) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--measure", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    return json.loads(done.stderr.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    if sys.argv[1:2] == ["--measure"]:
        measure(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0.1,0.4,1.6", help="program sizes in MB (default 0.1,0.4,1.6)")
    args = parser.parse_args()
    cases = {
        "parse realistic": ("parse", build),
        "parse numbers": ("parse", lambda mb: numbers(int(mb * 1e6))),
        "check errors": ("check", lambda mb: duplicate_parameters(int(mb * 1e6))),
    }
    print(f"{'case':<16} {'MB':>5} {'seconds':>8} {'s/MB':>6} {'peak RSS':>9} {'RSS/MB':>7} {'out MB':>9}")
    with tempfile.TemporaryDirectory() as folder:
        for name, (command, make) in cases.items():
            for size in (float(text) for text in args.sizes.split(",")):
                path = Path(folder) / f"program-{size}.as"
                path.write_text(make(size), encoding="utf-8")
                mb = path.stat().st_size / 1e6
                got = run([command, str(path)])
                print(
                    f"{name:<16} {mb:5.2f} {got['seconds']:8.2f} {got['seconds'] / mb:6.2f} "
                    f"{got['rss_mb']:7.0f}MB {got['rss_mb'] / mb:7.0f} {got['out_mb']:9.3f}"
                )


if __name__ == "__main__":
    main()
