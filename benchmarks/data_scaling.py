"""Big prompts given as data, through the entry points users call, against ``json.dumps(value, indent=2)``.

Issue 41: ``promptwire.render(data, format)``, ``build_request(data, "openai")`` and
``generate(data, "offline")`` from plain data (validation included, as a user pays it) within 2x
of ``json.dumps(value, indent=2)`` of the same value, for every built-in format and four values:

* ``tools``: 50,000 tool definitions of a name and a description each;
* ``context rows``: one context item holding 100,000 rows;
* ``history turns``: a history of 120,000 text turns;
* ``tool conversation``: a history of 120,000 turns in the chat-API shape, a third of them tool
  calls (``tool_calls``) and a third their results (``tool_call_id``);

and Agently's render of the tools from a prebuilt ``Prompt`` (its tools section). Each figure is the
best of several rounds in CPU seconds, every entry point and the yardstick taken in turn each round
(:mod:`side_by_side`). ``--scales`` times other sizes too (``0.1,10``: 10k... to 1M items) to show the time grows linearly: the growth figure is the time per item at the largest size
over the time per item at the smallest, for the entry point and for ``json.dumps``.

Run from the repository root: ``python benchmarks/data_scaling.py [--scales 0.1,1,10]``.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from side_by_side import best_seconds, json_indented, rounds_for

import promptwire
from promptwire import PluginHost, Prompt

FORMATS = ("agentscript", "agens", "messages", "agently")


def tools(count: int) -> list[dict[str, Any]]:
    return [{"name": f"tool_{i}", "description": f"Looks up record {i} by its key."} for i in range(count)]


def rows(count: int) -> list[dict[str, Any]]:
    return [{"id": i, "name": f"item {i}", "price": i * 0.25, "in_stock": i % 3 != 0} for i in range(count)]


def turns(count: int) -> list[dict[str, Any]]:
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"Message {i}: where is order {i * 7}?"}
        for i in range(count)
    ]


def tool_conversation(count: int) -> list[dict[str, Any]]:
    """``count`` turns (a multiple of three): a question, the assistant's call, the tool's result."""
    history: list[dict[str, Any]] = []
    for i in range(count // 3):
        history.append({"role": "user", "content": f"Where is order {i * 7}?"})
        call = {"id": f"call_{i}", "name": "find_order", "arguments": {"order": i * 7}}
        history.append({"role": "assistant", "content": "", "tool_calls": [call]})
        history.append({"role": "tool", "tool_call_id": f"call_{i}", "content": f"Order {i * 7} left on day {i}."})
    return history


@dataclass
class Case:
    name: str
    items: int  # at scale 1
    value: Callable[[int], Any]
    prompt: Callable[[Any], dict[str, Any]]


CASES = (
    Case("tools", 50_000, tools, lambda value: {"tools": value}),
    Case("context rows", 100_000, rows, lambda value: {"context": [{"value": value, "label": "rows"}]}),
    Case("history turns", 120_000, turns, lambda value: {"history": value}),
    Case("tool conversation", 120_000, tool_conversation, lambda value: {"history": value}),
)


def entry_points(host: PluginHost) -> dict[str, Callable[[dict[str, Any]], object]]:
    """What is timed: each entry point with plain data in (a new dict each call: nothing cached)."""
    timed: dict[str, Callable[[dict[str, Any]], object]] = {
        f"render {name}": (lambda data, name=name: promptwire.render(data, name, host=host)) for name in FORMATS
    }
    timed["build_request openai"] = lambda data: promptwire.build_request(data, "openai", "gpt-4o", host=host)
    timed["generate offline"] = lambda data: promptwire.generate(data, "offline", responses=["Done."], host=host)
    return timed


@dataclass
class Timing:
    case: str
    what: str
    items: int
    seconds: float
    yardstick: float


def time_case(case: Case, scale: float, host: PluginHost, only: tuple[str, ...] = ()) -> list[Timing]:
    """Each entry point (or those named in ``only``) on ``case`` at ``scale``, and the yardstick, side by side."""
    items = max(3, round(case.items * scale))
    value = case.value(items)
    runs: dict[str, Callable[[], object]] = {"yardstick": lambda: json_indented(value)}
    for what, run in entry_points(host).items():
        if not only or what in only:
            runs[what] = lambda run=run: run({"instruction": "Summarise.", **case.prompt(value)})
    if case.name == "tools" and not only:
        prompt = Prompt.model_validate({"tools": value})
        runs["agently from a prebuilt Prompt"] = lambda: host.renderer("agently").render(prompt)
    best = best_seconds(runs, rounds_for(items))
    yardstick = best.pop("yardstick")
    return [Timing(case.name, what, items, seconds, yardstick) for what, seconds in best.items()]


def growth(small: Timing, large: Timing) -> tuple[float, float]:
    """Time per item at the larger size over time per item at the smaller: the entry point's, json.dumps's."""
    per = large.items / small.items
    return large.seconds / small.seconds / per, large.yardstick / small.yardstick / per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scales", default="1", help="sizes relative to the issue's, e.g. 0.1,1,10 (default 1)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # formats that leave a field out say so
    host = PluginHost(entry_points=False)
    print(f"{'case':<18} {'entry point':<32} {'items':>9} {'seconds':>8} {'json.dumps':>10} {'ratio':>6}")
    for case in CASES:
        timings = [t for scale in map(float, args.scales.split(",")) for t in time_case(case, scale, host)]
        for t in timings:
            print(
                f"{t.case:<18} {t.what:<32} {t.items:>9,} {t.seconds:8.3f} {t.yardstick:10.3f}"
                f" {t.seconds / t.yardstick:6.2f}"
            )
        sizes = sorted({t.items for t in timings})
        if len(sizes) > 1:
            for what in dict.fromkeys(t.what for t in timings):
                mine = [t for t in timings if t.what == what]
                ours, theirs = growth(min(mine, key=lambda t: t.items), max(mine, key=lambda t: t.items))
                print(f"{case.name:<18} {what:<32} growth {sizes[0]:,}->{sizes[-1]:,}: {ours:.2f} (json {theirs:.2f})")


if __name__ == "__main__":
    main()
