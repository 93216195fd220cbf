"""Chat messages from data: promptwire's ``messages`` format against a compiled Jinja2 template.

The same 12 messages both ways, from the same plain data: a system message (identity), ten history
turns, and the user turn (a context value as pretty JSON, then the instruction). promptwire takes
the data through ``promptwire.render(data, format="messages")`` (validation included) and returns
``message.to_dict()`` for each message; the Jinja2 side renders two templates compiled once (the
system and the user text) around the history turns, as a hand-rolled prompt builder would. Both
outputs are checked equal before timing. The two are timed alternately, round by round; each figure
is the best round's time per call (the garbage collector paused for both, as ``timeit`` does).
Target (issue 41): at most 1.5x the template (issue 28's was 2x).

Run from the repository root: ``python benchmarks/chat_render.py [CALLS]``.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

import jinja2

import promptwire

DATA: dict[str, Any] = {
    "identity": {"role": "Support agent", "description": "Answers billing questions for Acme's customers."},
    "history": [
        {"role": "user" if turn % 2 == 0 else "assistant", "content": f"Turn {turn}: about invoice INV-{1000 + turn}."}
        for turn in range(10)
    ],
    "context": [{"value": {"plan": "pro", "seats": 4, "open_invoices": ["INV-1008", "INV-1009"]}, "label": "account"}],
    "instruction": "Answer the customer's last question in two sentences.",
}

_ENV = jinja2.Environment(autoescape=False, keep_trailing_newline=True)
_ENV.filters["pretty"] = lambda value: json.dumps(value, indent=2, ensure_ascii=False)
SYSTEM = _ENV.from_string("You are {{ identity.role }}.\n{{ identity.description }}")
USER = _ENV.from_string(
    "Context:\n{% for item in context %}[{{ item.label }}]\n{{ item.value | pretty }}\n{% endfor %}"
    "Instruction:\n{{ instruction }}"
)


def with_jinja(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": SYSTEM.render(data)},
        *({"role": turn["role"], "content": turn["content"]} for turn in data["history"]),
        {"role": "user", "content": USER.render(data)},
    ]


def with_promptwire(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [message.to_dict() for message in promptwire.render(data, "messages").messages]


def alternating_best(runs: list[Callable[[], object]], calls: int, rounds: int = 7) -> list[float]:
    """Best seconds per call of each, timed in alternating rounds of ``calls`` calls, so that drift
    in a shared machine falls on all alike; the collector is paused during each round."""
    import gc

    best = [float("inf")] * len(runs)
    for _ in range(rounds):
        for index, run in enumerate(runs):
            enabled = gc.isenabled()
            gc.disable()
            try:
                start = time.perf_counter()
                for _ in range(calls):
                    run()
                elapsed = time.perf_counter() - start
            finally:
                if enabled:
                    gc.enable()
            best[index] = min(best[index], elapsed / calls)
    return best


def measure(calls: int = 2000) -> tuple[float, float]:
    """Seconds per call: promptwire, then the Jinja2 template."""
    ours, theirs = with_promptwire(DATA), with_jinja(DATA)
    if ours != theirs:
        raise SystemExit(f"the two differ:\n{ours}\n{theirs}")
    return tuple(alternating_best([lambda: with_promptwire(DATA), lambda: with_jinja(DATA)], calls))  # type: ignore[return-value]


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    ours, theirs = measure(calls)
    print(f"{len(with_jinja(DATA))} messages, best of 7 rounds of {calls} calls")
    print(f"promptwire messages   {ours * 1e6:8.1f} us")
    print(f"Jinja2 template       {theirs * 1e6:8.1f} us")
    print(f"ratio                 {ours / theirs:8.2f}  (target at most 1.50)")


if __name__ == "__main__":
    main()
