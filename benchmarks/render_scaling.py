"""Render time against the standard library's yardstick, in every registered format.

For a prompt holding a 200,000-item list, and one holding a value nested 999 levels deep (the
deepest a prompt allows, with the context item around it), each format's render is timed against
``json.dumps(value, indent=2)`` on the same value, side by side in one run (best of three). A ratio
above 1.00 means the format is slower than the yardstick. Prompts are built once, outside the timing.

Run: ``python benchmarks/render_scaling.py [ITEMS]``.
"""

from __future__ import annotations

import json
import sys
import timeit
import warnings
from collections.abc import Callable
from typing import Any

from promptwire import PluginHost, Prompt
from promptwire.core.nesting import nesting_room


def _best(run: Callable[[], object]) -> float:
    """Best of three single runs (the garbage collector paused, as timeit does for both sides)."""
    return min(timeit.repeat(run, number=1, repeat=3))


def _deep(levels: int) -> Any:
    value: Any = "leaf"
    for index in range(levels):
        value = [value] if index % 2 else {"k": value}
    return value


def main() -> None:
    items = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    host = PluginHost(entry_points=False)
    cases = {
        f"{items:,}-item list": [{"id": i, "name": f"item {i}", "ok": i % 2 == 0} for i in range(items)],
        "999-deep value": _deep(997),
    }
    warnings.simplefilter("ignore")
    print(f"{'case':<22} {'format':<12} {'render s':>9} {'json.dumps s':>13} {'ratio':>6}")
    for case, value in cases.items():
        prompt = Prompt(instruction="Summarise.", context=[{"value": value, "label": "data"}])
        with nesting_room():
            yardstick = _best(lambda value=value: json.dumps(value, indent=2))
        for name in host.names("renderers"):
            renderer = host.renderer(name)
            seconds = _best(lambda renderer=renderer, prompt=prompt: renderer.render(prompt))
            print(f"{case:<22} {name:<12} {seconds:9.3f} {yardstick:13.3f} {seconds / yardstick:6.2f}")


if __name__ == "__main__":
    main()
