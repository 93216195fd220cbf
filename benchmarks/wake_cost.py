"""What waiting costs the code that runs next: the AgentScript render of the adapters benchmark's
prompt, timed right after each of several things, in one run, chosen at random call by call.

``benchmarks/adapters.py`` finds promptwire's own work per call two to three times dearer between
round trips than in a tight loop. This shows why: after ``touch memory`` (summing 200 lists of
1,000 ints, a few megabytes), after ``sleep`` (0.7 ms, about one round trip to the fake server, the
process idle) and after ``sdk call`` (the ollama round trip itself) the render costs about the
same, and more than after ``nothing``: it is the caches, which anything in between fills with its
own code and data, not the wait. A short loop of arithmetic, which touches almost nothing, is the
yardstick: it barely changes. (``nothing`` is not a tight loop either: the call before it was
preceded by one of the others.)

Run from the repository root: ``python benchmarks/wake_cost.py [CALLS]``.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable

from adapters import PROMPT, server_process
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.renderers.agentscript import renderer


def _arithmetic() -> int:
    total = 0
    for number in range(700):
        total += number
    return total


def _render() -> object:
    return renderer.render(PROMPT)


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    import ollama

    junk = [list(range(1000)) for _ in range(200)]
    with server_process() as server:
        request = OllamaAdapter(host=server.root).build_request(_render(), PROMPT.config, PROMPT.output, "ok")
        client = ollama.Client(host=server.root, timeout=30)
        before: dict[str, Callable[[], object]] = {
            "nothing": lambda: None,
            "touch memory": lambda: sum(map(sum, junk)),
            "sleep": lambda: time.sleep(0.0007),
            "sdk call": lambda: client.chat(**request.kwargs),
        }
        timed = {"render": _render, "arithmetic": _arithmetic}
        cases = [(first, name) for first in before for name in timed]
        times: dict[tuple[str, str], list[float]] = {case: [] for case in cases}
        rng = random.Random(1)  # the same order every run
        for case in cases * 20:  # warm-up
            timed[case[1]]()
        for _ in range(calls):
            first, name = case = rng.choice(cases)
            before[first]()
            start = time.perf_counter()
            timed[name]()
            times[case].append(time.perf_counter() - start)
    print(f"{'after':<14} {'render us':>10} {'ratio':>6} {'arithmetic us':>14} {'ratio':>6}")
    hot = {name: statistics.median(times[("nothing", name)]) for name in timed}
    for first in before:
        row = [statistics.median(times[(first, name)]) for name in timed]
        print(
            f"{first:<14} {1e6 * row[0]:10.1f} {row[0] / hot['render']:6.2f}"
            f" {1e6 * row[1]:14.1f} {row[1] / hot['arithmetic']:6.2f}"
        )


if __name__ == "__main__":
    main()
