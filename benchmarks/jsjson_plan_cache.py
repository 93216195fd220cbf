"""Does jsjson's key-plan cache pay for itself? Renders rows that share their keys with the cache on
and off, side by side in one run (best of three), and prints the ratio.

Run: ``python benchmarks/jsjson_plan_cache.py [ROWS]``.
"""

from __future__ import annotations

import sys
import timeit

from promptwire.renderers.agentscript import jsjson


def _best(rows: list[dict[str, object]]) -> float:
    """Best of three single runs, each starting with an empty cache."""
    return min(timeit.repeat(lambda: jsjson.pretty(rows), setup=jsjson._PLANS.clear, number=1, repeat=3))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    rows: list[dict[str, object]] = [
        {"id": i, "name": f"item {i}", "price": i * 0.5, "tags": ["a"], "10": "indexed key first"} for i in range(count)
    ]
    cached = _best(rows)
    limit = jsjson._PLAN_CACHE_MAX_KEYS
    jsjson._PLAN_CACHE_MAX_KEYS = -1  # every object plans its own keys
    try:
        uncached = _best(rows)
    finally:
        jsjson._PLAN_CACHE_MAX_KEYS = limit
    print(f"{count} rows of 5 keys: cache on {cached:.3f} s, off {uncached:.3f} s, off/on {uncached / cached:.2f}")


if __name__ == "__main__":
    main()
