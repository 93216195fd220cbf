"""Clipping a ~50 MB list of objects to ``max 4k``, against serialising it first (the naive way).

Run ``python benchmarks/clip_large.py [--mb 50] [--limit 4000]`` with promptwire installed
(``pip install -e .``). Prints, measured side by side in one run:

* ``clip``: what rendering pays (the clipped text, no full walk);
* ``original_size``: the lazy full-size walk a trace pays once on first access;
* ``naive``: ``value_text(value)`` (the full pretty JSON text), then cutting it;
* ``json.dumps``: Python's own ``json.dumps(indent=2)`` (pure Python when indenting), for scale.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import TypeVar

from promptwire.renderers.agentscript.clipping import clip, value_text
from promptwire.renderers.agentscript.jsjson import utf16_len

T = TypeVar("T")


def build(target_mb: float) -> list[dict[str, object]]:
    """Objects shaped like tool results: strings, ints, floats, a nested list and object."""
    rows: list[dict[str, object]] = []
    size = 2
    i = 0
    while size < target_mb * 1_000_000:
        item: dict[str, object] = {
            "id": i,
            "path": f"src/module_{i % 977}/file_{i}.py",
            "line": i % 4000,
            "score": (i % 1000) / 7,
            "text": f"def function_{i}(argument): return argument * {i}  # ünïcödé ✓",
            "tags": ["alpha", "beta", str(i % 13)],
            "meta": {"ok": i % 2 == 0, "owner": None, "10": "integer-like key first"},
        }
        rows.append(item)
        size += len(value_text([item])) - 2  # this item's share of the list's pretty text
        i += 1
    return rows


def timed(label: str, action: Callable[[], T], repeat: int = 1) -> tuple[float, T]:
    best = float("inf")
    result: T | None = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - start)
    assert result is not None
    print(f"{label:<34} {best * 1000:10.2f} ms")
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=50.0, help="approximate size of the pretty text")
    parser.add_argument("--limit", type=int, default=4000, help="the budget (max 4k = 4000)")
    args = parser.parse_args()

    value = build(args.mb)
    print(f"value: list of {len(value):,} objects, limit {args.limit:,} UTF-16 units")

    fast, result = timed("clip(value, limit) [best of 5]", lambda: clip(value, args.limit), repeat=5)
    walk, original_size = timed("Clip.original_size (lazy walk)", lambda: result.original_size)
    naive, text = timed("naive value_text(value)", lambda: value_text(value))
    timed("json.dumps(indent=2), for scale", lambda: json.dumps(value, indent=2, ensure_ascii=False))

    assert result.clipped and result.clipped_size <= args.limit
    assert original_size == utf16_len(text), "lazy size must equal the naive text's length"
    print(f"full text: {len(text) / 1e6:.1f} M characters ({original_size:,} UTF-16 units)")
    print(f"clipped:   {len(result.value):,} items, {result.clipped_size:,} units")  # type: ignore[arg-type]
    print(f"speed-up of clip over naive: {naive / fast:,.0f}x")
    print(f"original_size walk vs naive text: {walk / naive:.2f}x the time")


if __name__ == "__main__":
    main()
