"""Cold start of ``asrender`` commands against the floor of any pydantic command.

The floor is ``python -c "from pydantic import BaseModel"`` plus one model class. Every command runs
as a whole process, alternating with the floor, after a warm-up; the medians and each command's
difference from the floor are printed. The README's example (offline, and with ``--format
messages``) should start within 40 ms of the floor; ``check`` and ``parse`` import no pydantic at
all, so they may come in under it.

Run from the repository root: ``python benchmarks/cold_start.py [RUNS]``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FLOOR = [sys.executable, "-c", "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int\n"]
ASRENDER = [sys.executable, "-m", "promptwire"]
RUN = ["evidence-qa.as", "--input-file", "evidence-qa.input.json", "--responses", "evidence-qa.responses.json"]
COMMANDS = {
    "check": ["check", "evidence-qa.as"],
    "parse": ["parse", "evidence-qa.as"],
    "offline run": RUN,
    "--format messages": [*RUN, "--format", "messages"],
    "dry run (openai)": [*RUN, "--provider", "openai", "--dry-run"],
}


def _once(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=EXAMPLES, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    commands = {name: ASRENDER + args for name, args in COMMANDS.items()}
    for command in [FLOOR, *commands.values()]:  # warm-up: caches, bytecode
        _once(command)
    floor: list[float] = []
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            floor.append(_once(FLOOR))
            times[name].append(_once(command))
    f = statistics.median(floor)
    print(f"{'floor (pydantic + one model)':30} {1000 * f:6.1f} ms")
    for name, measured in times.items():
        o = statistics.median(measured)
        print(f"{'asrender ' + name:30} {1000 * o:6.1f} ms   {1000 * (o - f):+6.1f} ms")


if __name__ == "__main__":
    main()
