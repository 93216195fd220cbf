"""Big inputs in every built-in format against the standard library's yardstick: time, growth, memory.

Four cases, each one big value of a prompt: a context item holding 100,000 rows, a history of
120,000 turns, 50,000 tool definitions and an info section of 100,000 entries (issue 28), plus a
value nested 999 levels deep (the deepest a prompt allows). Each format's render of the prompt is
timed against ``json.dumps(value, indent=2)`` of the same value, side by side in one run: the best
of several rounds in CPU seconds, each format and the yardstick taken in turn each round
(:mod:`side_by_side`); prompts are built and validated once, outside the timing. A ratio above 1.00 means the format is slower than
the yardstick; the target is at most 2.00.

``--scales`` runs each case at other sizes too (``0.1,1,10``: 10k / 100k / 1M rows), to show that
the time grows linearly: ``growth`` is the time per item at the largest size over the time per item
at the smallest, for the format and for ``json.dumps``. ``--memory`` measures the peak of memory
allocated during one render (``tracemalloc``) against the size of what it produced (the messages'
text and the tool definitions as JSON, in characters), at scale 1.

A format that cannot express a case's field leaves it out (with a warning on the render): its row
shows what that costs, which is next to nothing.

Run: ``python benchmarks/render_scaling.py [--scales 0.1,1,10] [--memory] [--formats a,b]``.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from side_by_side import best_seconds, json_indented, rounds_for

from promptwire import PluginHost, Prompt
from promptwire.core.rendered import RenderedPrompt

FORMATS = ("agentscript", "agens", "messages", "agently")


@dataclass
class Case:
    name: str
    items: int  # at scale 1
    value: Callable[[int], Any]
    prompt: Callable[[Any], dict[str, Any]]
    field: str  # the prompt field the value goes to


def _rows(count: int) -> list[dict[str, Any]]:
    return [{"id": i, "name": f"item {i}", "price": i * 0.25, "in_stock": i % 3 != 0} for i in range(count)]


def _turns(count: int) -> list[dict[str, Any]]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"Message {i}: where is order {i * 7}?"}
        for i in range(count)
    ]


def _tools(count: int) -> list[dict[str, Any]]:
    return [
        {
            "name": f"tool_{i}",
            "description": f"Looks up record {i} by its key.",
            "parameters": {
                "type": "object",
                "properties": {"key": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["key"],
            },
        }
        for i in range(count)
    ]


def _info(count: int) -> dict[str, str]:
    return {f"fact {i}": f"value of fact {i}" for i in range(count)}


def _deep(levels: int) -> Any:
    value: Any = "leaf"
    for index in range(levels):
        value = [value] if index % 2 else {"k": value}
    return value


CASES = (
    Case("context rows", 100_000, _rows, lambda v: {"context": [{"value": v, "label": "rows"}]}, "context"),
    Case("history turns", 120_000, _turns, lambda v: {"history": v}, "history"),
    Case("tools", 50_000, _tools, lambda v: {"tools": v}, "tools"),
    Case("info entries", 100_000, _info, lambda v: {"sections": [{"kind": "info", "value": v}]}, "sections"),
)
DEEP = Case("999-deep value", 1, lambda _: _deep(997), lambda v: {"context": [{"value": v, "label": "d"}]}, "context")


@dataclass
class Timing:
    case: str
    format: str
    items: int
    seconds: float
    yardstick: float
    expressed: bool


def _prompt(case: Case, value: Any) -> Prompt:
    return Prompt.model_validate({"instruction": "Summarise.", **case.prompt(value)})


def time_case(case: Case, scale: float, formats: tuple[str, ...], host: PluginHost) -> list[Timing]:
    """Each format's render of ``case`` at ``scale`` from a prebuilt prompt, and the yardstick, side by side."""
    items = max(1, round(case.items * scale))
    value = case.value(items)
    prompt = _prompt(case, value)
    runs: dict[str, Callable[[], object]] = {"yardstick": lambda: json_indented(value)}
    for name in formats:
        runs[name] = functools.partial(host.renderer(name).render, prompt)
    best = best_seconds(runs, rounds_for(items))
    yardstick = best.pop("yardstick")
    return [
        Timing(case.name, name, items, seconds, yardstick, case.field in host.renderer(name).fields)
        for name, seconds in best.items()
    ]


def output_size(rendered: RenderedPrompt) -> int:
    """Characters a model receives: each message's text (parts as JSON) and the tools as JSON."""
    size = sum(
        len(message.content) if isinstance(message.content, str) else len(json.dumps(message.content))
        for message in rendered.messages
    )
    return size + sum(len(json.dumps(tool.model_dump(exclude_none=True))) for tool in rendered.tools)


def peak_memory(run: Callable[[], object]) -> tuple[int, object]:
    """Bytes allocated at the peak of ``run`` (beyond what was allocated before it), and its result."""
    gc.collect()
    tracemalloc.start()
    try:
        result = run()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


@dataclass
class Memory:
    case: str
    format: str
    peak: int
    output: int
    yardstick_peak: int
    yardstick_output: int
    expressed: bool


def memory_case(case: Case, formats: tuple[str, ...], host: PluginHost) -> list[Memory]:
    value = case.value(case.items)
    prompt = _prompt(case, value)
    json_peak, text = peak_memory(lambda: json.dumps(value, indent=2))
    rows = []
    for name in formats:
        renderer = host.renderer(name)
        peak, rendered = peak_memory(lambda renderer=renderer: renderer.render(prompt))
        assert isinstance(rendered, RenderedPrompt)
        expressed = case.field in renderer.fields
        rows.append(Memory(case.name, name, peak, output_size(rendered), json_peak, len(str(text)), expressed))
    return rows


def growth(timings: list[Timing]) -> tuple[float, float]:
    """Time per item at the largest size over time per item at the smallest: the format's, json.dumps's."""
    small, large = min(timings, key=lambda t: t.items), max(timings, key=lambda t: t.items)
    per = large.items / small.items
    return large.seconds / small.seconds / per, large.yardstick / small.yardstick / per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scales", default="1", help="sizes relative to the issue's, e.g. 0.1,1,10 (default 1)")
    parser.add_argument("--memory", action="store_true", help="also measure peak memory against output size")
    parser.add_argument("--formats", default=",".join(FORMATS), help="comma-separated formats")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    formats = tuple(args.formats.split(","))
    scales = [float(scale) for scale in args.scales.split(",")]
    host = PluginHost(entry_points=False)
    print(f"{'case':<16} {'format':<12} {'items':>9} {'render s':>9} {'json.dumps s':>13} {'ratio':>6}")
    for case in (*CASES, DEEP):
        timings = []
        for scale in scales if case is not DEEP else [1.0]:
            for row in time_case(case, scale, formats, host):
                timings.append(row)
                note = "" if row.expressed else "  (left out by this format)"
                print(
                    f"{row.case:<16} {row.format:<12} {row.items:>9,} {row.seconds:9.3f} {row.yardstick:13.3f}"
                    f" {row.seconds / row.yardstick:6.2f}{note}"
                )
        if len(scales) > 1 and case is not DEEP:
            for name in formats:
                ours, theirs = growth([t for t in timings if t.format == name])
                print(
                    f"{case.name:<16} {name:<12} growth per item, smallest to largest: {ours:.2f} (json.dumps {theirs:.2f})"
                )
    if args.memory:
        print(f"\n{'case':<16} {'format':<12} {'peak MB':>8} {'output MB':>10} {'peak/output':>12} {'json.dumps':>11}")
        for case in CASES:
            for row in memory_case(case, formats, host):
                print(
                    f"{row.case:<16} {row.format:<12} {row.peak / 1e6:8.1f} {row.output / 1e6:10.2f}"
                    f" {row.peak / max(row.output, 1):12.1f} {row.yardstick_peak / row.yardstick_output:11.1f}"
                )


if __name__ == "__main__":
    main()
