"""Cold start of ``asrender`` on an example program against the floor of any pydantic command.

The floor is ``python -c "from pydantic import BaseModel"`` plus one model class. Both commands run
as whole processes, alternately, after a warm-up; the medians and their difference are printed.
Target (issue 7): at most 80 ms more than the floor.

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
ASRENDER = [
    sys.executable,
    "-m",
    "promptwire",
    "evidence-qa.as",
    "--input-file",
    "evidence-qa.input.json",
    "--format",
    "messages",
]


def _once(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=EXAMPLES, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    _once(FLOOR), _once(ASRENDER)  # warm-up: caches, bytecode
    floor, ours = [], []
    for _ in range(runs):
        floor.append(_once(FLOOR))
        ours.append(_once(ASRENDER))
    f, o = statistics.median(floor), statistics.median(ours)
    print(f"floor (pydantic + one model) {1000 * f:6.1f} ms")
    print(f"asrender evidence-qa.as      {1000 * o:6.1f} ms   +{1000 * (o - f):.1f} ms, ratio {o / f:.2f}")


if __name__ == "__main__":
    main()
