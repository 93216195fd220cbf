"""Timing several runs against each other in one process, the way the big-input benchmarks do.

Each round takes every run once, in turn, and each run's figure is its best round: a change in the
machine's state between rounds (another process taking the core, the cache, a heap grown by the
run before) touches every side alike, where timing one side's repeats and then the other's let a
slow minute fall on one side only: ``json.dumps`` of the same 50,000 tools took from 0.147 s to
0.267 s between rounds in one process while other work ran, and was timed once, before the entry
points, whose ratios it set.

Times are CPU seconds of this process (``time.process_time``), with the garbage collector paused as
``timeit`` pauses it: on a shared machine whose cores are all busy, a run of a second may wait for
a core half of the time, and wall times of the same code moved threefold between runs while CPU
times moved by a few percent.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from promptwire.core.nesting import nesting_room


def rounds_for(items: int) -> int:
    """Rounds for a value of ``items``: more for small values, whose single runs last milliseconds and
    carry a growth figure's whole denominator (best of three of 10,000 items moved a growth figure
    from 0.55 to 1.45 between rounds of the same code), one for the largest (a run of seconds)."""
    if items > 200_000:
        return 1
    if items >= 50_000:
        return 3
    return 9


def best_seconds(runs: Mapping[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Each run's best CPU seconds over ``rounds`` rounds, every run taken once a round, in turn."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for name, run in runs.items():
            best[name] = min(best[name], _cpu_seconds(run))
    return best


def json_indented(value: Any) -> str:
    """The yardstick: ``json.dumps(value, indent=2)``, with room for the deepest value a prompt allows."""
    with nesting_room():
        return json.dumps(value, indent=2)


def _cpu_seconds(run: Callable[[], object]) -> float:
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.process_time()
        run()
        return time.process_time() - start
    finally:
        if enabled:
            gc.enable()
