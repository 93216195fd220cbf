"""The Agently format's speed: against agently 4.1.4.10 itself, and against ``json.dumps`` on big inputs.

Run ``python benchmarks/agently_render.py [--part prompts|methods|big|all] [--rounds 15]`` from the
repository root with promptwire installed; install ``agently==4.1.4.10`` for the side-by-side
figures (without it the Agently rows are left out). ``rows()`` returns the same figures as table rows
for ``benchmarks/run.py``. Everything is measured side by side in one run, the two sides alternating
round by round, and each figure is the median over the rounds: the machine may be shared and busy.

* ``prompts`` (issue 28 target: median >= 50x, every prompt >= 20x): each of ``CASES`` (varied
  prompts: system, developer, history, tools, info, instruct, examples, output schemas,
  attachments, role and title mappings) as one request renders it: the prompt object built from
  the data, then ``to_text()`` and ``to_messages()`` (what Agently's model requester asks for); the
  ratio is Agently's time over promptwire's. Every case's output is checked equal on both sides
  first. A fresh object each time, so nothing one call leaves on an object helps the next round.
* ``methods``: every public method (on a fresh object) over the whole corpus (the export methods
  are thin wrappers of Agently's own steps, so they have no target).
* ``big`` (target: the render at most 2x ``json.dumps(value, indent=2)`` of the same value, time
  linear in the input, memory a small multiple of the output): a 100,000-row context, a
  120,000-turn history, 50,000 tools and a 100,000-entry info, through the registered ``agently``
  renderer (``render(prompt, "agently")``: text and messages) and through ``AgentlyPrompt``
  (build, ``to_text`` and ``to_messages``); ``--sizes`` scales them (default 10k, 100k and 1M, the
  table's input size column).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
import tracemalloc
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from promptwire import Prompt
from promptwire.renderers.agently import AgentlyPrompt
from promptwire.renderers.agently.renderer import renderer

PROMPT_TARGET = 50.0  # the median over CASES of Agently's time / promptwire's
PROMPT_FLOOR = 20.0  # no case below
BIG_TARGET = 2.0  # the render's time / json.dumps(value, indent=2)'s, at most


class Step(BaseModel):
    name: str = Field(min_length=2, description="step name")
    done: bool


class Plan(BaseModel):
    title: str = Field(max_length=30, description="plan title")
    steps: list[Step] = Field(min_length=1)


REPLY = {"thinking": (str, "describe how will you plan to reply?"), "reply": (str, "your final reply")}
HISTORY = [
    {"role": "user", "content": "My order is late."},
    {"role": "assistant", "content": "Sorry to hear that. What is the order number?"},
    {"role": "user", "content": [{"type": "text", "text": "It is T-42."}]},
    {"role": "assistant", "content": "Thanks, looking it up."},
]
SEARCH_TOOL = {
    "name": "search",
    "desc": "search the knowledge base",
    "kwargs": {"query": (str, "what to look for"), "limit": (int, "max results")},
    "returns": [{"title": (str,), "url": (str, "page url")}],
}
LONG_TEXT = (
    "Our refund policy: items can be returned within 30 days of delivery, in their original packaging, "
    "with the receipt. Refunds go to the original payment method within 5 business days; store credit "
    "is issued at once. Final-sale items (marked 'FS') cannot be returned."
)


@dataclass
class Case:
    """One prompt of the corpus: Agently prompt data, its settings, and what it stands for."""

    name: str
    data: dict[str, Any]
    settings: dict[str, Any] = field(default_factory=dict)


CASES: list[Case] = [
    Case("hello", {"input": "Hello", "instruct": "reply something", "info": "I'm a human", "output": REPLY}),
    Case(
        "support desk",
        {
            "system": "You are a support agent for ${INPUT.customer}.",
            "chat_history": HISTORY,
            "info": {"policy": "Refunds within 30 days", "tier": "gold", "region": "EU"},
            "instruct": ["Be brief.", "Quote the policy.", "Use ${INFO.policy}."],
            "input": {"customer": "Acme", "ticket": "T-42", "items": [{"sku": "A-1", "qty": 2}, {"sku": "B-7"}]},
            "output": {
                "answer": (str, "the reply to the customer", True),
                "refund": (bool, "whether to refund", "not_null"),
                "actions": [{"kind": (str, "action kind"), "detail": (str,)}],
            },
        },
    ),
    Case(
        "tools, hybrid",
        {
            "tools": [SEARCH_TOOL],
            "action_results": {"search": ["doc one", "doc two"]},
            "input": "Find the refund policy.",
            "output": {"summary": (str, "one paragraph"), "sources": [(str, "url")]},
            "output_format": "hybrid",
        },
    ),
    Case("pydantic plan, yaml_literal", {"input": "Plan the launch.", "output": Plan, "output_format": "yaml_literal"}),
    Case(
        "attachment, xml_field",
        {
            "attachment": [
                {"type": "text", "text": "What is in this picture?"},
                {"type": "image_url", "image_url": "u"},
            ],
            "input": "Describe it.",
            "output": {"caption": (str, "a caption"), "objects": [(str, "object")]},
            "output_format": "xml_field",
        },
    ),
    Case(
        "examples (quoted scalars)",
        {
            "instruct": "Answer with the number of items.",
            "examples": [
                {"input": "two apples and two pears", "output": "4"},
                {"input": "nothing at all", "output": "0"},
                {"input": "yes: a dozen eggs", "output": "12"},
                {"input": "- one loaf", "output": "1"},
            ],
            "input": "three plums",
            "output": {"count": (int, "how many")},
        },
    ),
    Case(
        "system + developer",
        {
            "system": "You are a careful assistant.\nYou never invent facts.",
            "developer": {"style": "plain", "max_words": 120, "forbidden": ["emoji", "markdown tables"]},
            "input": "Summarise the meeting notes.",
        },
    ),
    Case(
        "long history, strict roles",
        {
            "chat_history": [
                {"role": "user" if turn % 2 else "assistant", "content": f"turn {turn}: about item {turn * 7}"}
                for turn in range(24)
            ],
            "input": "And the last one?",
            "output": REPLY,
        },
    ),
    Case("info list", {"info": ["The user is a beginner.", "Prefers short answers.", "Speaks French."], "input": "Hi"}),
    Case(
        "custom sections",
        {
            "persona": {"name": "Ada", "traits": ["curious", "exact"], "since": 2019},
            "constraints": ["no more than 3 sentences", "cite a source: always"],
            "input": "Who are you?",
        },
    ),
    Case(
        "nested json output",
        {
            "input": "Extract the order.",
            "output": {
                "order": {
                    "id": (str, "order id", True),
                    "lines": [{"sku": (str, "sku"), "qty": (int, "quantity"), "tags": [(str, "tag")]}],
                    "customer": {"name": (str, "full name"), "address": {"city": (str,), "zip": (str, "")}},
                },
                "confidence": (float, "0 to 1"),
            },
            "ensure_all_keys": True,
        },
    ),
    Case(
        "flat_markdown",
        {
            "input": "Write the release note.",
            "output": {"title": (str, "title"), "body": (str, "body")},
            "output_format": "flat_markdown",
        },
    ),
    Case(
        "auto format",
        {
            "instruct": "Classify.",
            "input": "The cat sat.",
            "output": {"label": (str, "label"), "score": (float,)},
            "output_format": "auto",
        },
    ),
    Case(
        "role + title mapping",
        {
            "system": "Be nice.",
            "chat_history": HISTORY[:2],
            "info": {"mood": "calm"},
            "input": "Go on.",
            "output": REPLY,
        },
        {
            "prompt.role_mapping": {"user": "human", "assistant": "ai"},
            "prompt.prompt_title_mapping": {"input": "QUESTION", "info": "FACTS"},
        },
    ),
    Case(
        "current time",
        {"input": "What day is it?", "info": {"tz": "UTC"}},
        {"prompt.add_current_time": True},
    ),
    Case("output=str", {"input": "Name a colour.", "output": str}),
    Case(
        "unicode instruct",
        {"instruct": ["用中文回答。", "Réponds brièvement — s'il te plaît.", "Keine Emojis 😀"], "input": "你好"},
    ),
    Case("input only, dict", {"input": {"question": "What is 2 + 2?", "context": ["arithmetic", "school"]}}),
    Case(
        "five tools",
        {
            "tools": [
                {
                    "name": f"tool_{index}",
                    "desc": f"does thing number {index}",
                    "kwargs": {
                        "target": (str, "what to act on"),
                        "options": {"force": (bool,), "depth": (int, "levels")},
                    },
                }
                for index in range(5)
            ],
            "input": "Clean up the cache.",
            "output": {"tool": (str, "the tool to call"), "args": (dict, "its arguments")},
        },
    ),
    Case(
        "action results with quoting",
        {
            "action_results": {
                "lookup": [
                    {"id": "007", "status": "on", "note": "ok: shipped", "price": 12.5},
                    {"id": "1e3", "note": ""},
                ],
                "weather": {"today": "rain\nwind from the west", "temp": "-3"},
            },
            "input": "Report.",
        },
    ),
    Case(
        "long texts (folding)",
        {
            "system": LONG_TEXT,
            "info": {"policy": LONG_TEXT},
            "instruct": [LONG_TEXT, "Keep it short."],
            "input": LONG_TEXT,
        },
    ),
    Case(
        "markdown, examples of text",
        {
            "examples": ["Q: what is 1+1? A: 2", "Q: capital of France? A: Paris", "#1 rule: be kind"],
            "input": "Q: what is 2+2?",
            "output_format": "markdown",
            "output": {"answer": (str, "the answer")},
        },
    ),
]

METHODS: dict[str, Callable[[Any], Any]] = {
    "to_text": lambda p: p.to_text(),
    "to_messages": lambda p: p.to_messages(),
    "to_messages(rich)": lambda p: p.to_messages(rich_content=True),
    "to_serializable_prompt_data": lambda p: p.to_serializable_prompt_data(),
    "to_json_prompt": lambda p: p.to_json_prompt(),
    "to_yaml_prompt": lambda p: p.to_yaml_prompt(),
    "to_prompt_object": lambda p: p.to_prompt_object().model_dump(),
    "(build only)": lambda p: p,
}

_NOT_COMPARED = ("to_prompt_object", "(build only)")  # a pydantic model each, and the objects themselves
CLOCK = "2024-01-01 00:00:00 Monday"


def agently_factory() -> Callable[[Case], Any] | None:
    """Builds Agently's own prompt object for a case (None when agently 4.1.4.10 is not installed)."""
    try:
        from agently import Agently
        from agently.core import Prompt as AgentlyCorePrompt
        from agently.utils import TimeInfo
    except ImportError:
        return None
    Agently.set_settings("plugins.PromptGenerator.activate", "AgentlyPromptGenerator")
    TimeInfo.get_current_time = staticmethod(lambda: CLOCK)  # both sides print the same time

    def build(case: Case) -> Any:
        prompt = AgentlyCorePrompt(Agently.plugin_manager, Agently.settings)
        for key, value in case.data.items():
            prompt[key] = value
        for key, value in case.settings.items():
            prompt.settings.set(key, value)
        return prompt

    return build


def ours(case: Case) -> AgentlyPrompt:
    return AgentlyPrompt(case.data, case.settings, clock=lambda: CLOCK)


def request(build: Callable[[Case], Any], case: Case) -> tuple[str, Any]:
    """One request: the prompt object built, then what Agently's model requester asks of it."""
    prompt = build(case)
    return prompt.to_text(), prompt.to_messages()


def _loops(run: Callable[[], object], budget: float = 0.002) -> int:
    """How many calls make about ``budget`` seconds (at least one): short calls are timed in batches."""
    start = time.process_time()
    run()
    once = time.process_time() - start
    return max(1, int(budget / max(once, 1e-7)))


def interleaved_medians(runs: list[Callable[[], object]], rounds: int) -> list[float]:
    """Median seconds per call of each run, the runs alternating round by round.

    The garbage collector is paused while timing, as ``timeit`` pauses it: its passes cost in
    proportion to everything alive in the process, not to the call that happens to trigger them.
    """
    loops = [_loops(run) for run in runs]
    times: list[list[float]] = [[] for _ in runs]
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            for run, count, sink in zip(runs, loops, times, strict=True):
                start = time.process_time()
                for _ in range(count):
                    run()
                sink.append((time.process_time() - start) / count)
                gc.collect()
    finally:
        gc.enable()
    return [statistics.median(sink) for sink in times]


# --- the parts -----------------------------------------------------------------------------------


def prompt_rows(rounds: int) -> list[dict[str, Any]]:
    """One row per case (build, to_text, to_messages), then the median over the cases."""
    build = agently_factory()
    if build is None:
        return []
    rows: list[dict[str, Any]] = []
    for case in CASES:
        if request(ours, case) != request(build, case):
            raise SystemExit(f"output differs on case {case.name!r}")
        mine_time, their_time = interleaved_medians(
            [lambda case=case: request(ours, case), lambda case=case: request(build, case)], rounds
        )
        ratio = their_time / mine_time
        rows.append(
            _row(f"prompt: {case.name}", mine_time, their_time, ratio, f">= {PROMPT_FLOOR:.0f}x", ratio >= PROMPT_FLOOR)
        )
    ratios = [row["ratio"] for row in rows]
    median = statistics.median(ratios)
    rows.append(
        _row(
            f"prompts: median of {len(ratios)}",
            statistics.median(row["promptwire"] for row in rows),
            statistics.median(row["yardstick"] for row in rows),
            median,
            f">= {PROMPT_TARGET:.0f}x",
            median >= PROMPT_TARGET,
        )
    )
    return rows


def method_rows(rounds: int) -> list[dict[str, Any]]:
    build = agently_factory()
    if build is None:
        return []
    rows: list[dict[str, Any]] = []
    for name, method in METHODS.items():
        for case in CASES:
            if name not in _NOT_COMPARED and method(ours(case)) != method(build(case)):
                raise SystemExit(f"output differs: {name} on case {case.name!r}")

        def run_mine(method: Callable[[Any], Any] = method) -> None:
            for case in CASES:
                method(ours(case))

        def run_theirs(method: Callable[[Any], Any] = method, build: Callable[[Case], Any] = build) -> None:
            for case in CASES:
                method(build(case))

        mine_time, their_time = interleaved_medians([run_mine, run_theirs], rounds)
        count = len(CASES)
        rows.append(_row(f"method: {name}", mine_time / count, their_time / count, their_time / mine_time, "", None))
    return rows


# --- big inputs ------------------------------------------------------------------------------------


def _rows_value(size: int) -> list[dict[str, Any]]:
    return [
        {"id": i, "name": f"item {i}", "price": i * 0.25, "ok": i % 2 == 0, "tags": ["a", "b"]} for i in range(size)
    ]


def _history_value(size: int) -> list[dict[str, Any]]:
    return [
        {"role": "user" if turn % 2 == 0 else "assistant", "content": f"message number {turn}, with some words"}
        for turn in range(size)
    ]


def _tools_value(size: int) -> list[dict[str, Any]]:
    return [
        {
            "name": f"tool_{index}",
            "description": f"does thing {index}",
            "parameters": {
                "type": "object",
                "properties": {
                    "target": {"type": "string", "description": "what to act on"},
                    "limit": {"type": "integer"},
                },
                "required": ["target"],
            },
        }
        for index in range(size)
    ]


def _info_value(size: int) -> dict[str, Any]:
    return {f"key_{index}": f"value number {index}" for index in range(size)}


@dataclass
class BigCase:
    """One big input: the value (the yardstick dumps it), a core Prompt and Agently data holding it."""

    name: str
    value: Any
    prompt: Callable[[], Prompt]
    data: Callable[[], dict[str, Any]]


def big_cases(size: int) -> Iterator[BigCase]:
    rows = _rows_value(size)
    yield BigCase(
        f"{size:,}-row context",
        rows,
        lambda: Prompt(instruction="Summarise.", context=[{"value": rows, "label": "data"}]),
        lambda: {"input": "Summarise.", "data": rows},
    )
    history = _history_value(size * 6 // 5)
    yield BigCase(
        f"{len(history):,}-turn history",
        history,
        lambda: Prompt(instruction="Go on.", history=history),
        lambda: {"input": "Go on.", "chat_history": history},
    )
    tools = _tools_value(size // 2)
    agently_tools = [
        {
            "name": tool["name"],
            "desc": tool["description"],
            "kwargs": {"target": (str, "what to act on"), "limit": (int,)},
        }
        for tool in tools
    ]
    yield BigCase(
        f"{size // 2:,} tools",
        tools,
        lambda: Prompt(instruction="Pick one.", tools=tools),
        lambda: {"input": "Pick one.", "tools": agently_tools},
    )
    info = _info_value(size)
    yield BigCase(
        f"{size:,}-entry info",
        info,
        lambda: Prompt(instruction="Use it.", sections=[{"kind": "info", "key": "facts", "value": info}]),
        lambda: {"input": "Use it.", "info": info},
    )


def _peak_bytes(run: Callable[[], Any]) -> tuple[int, Any]:
    gc.collect()
    tracemalloc.start()
    try:
        result = run()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


def big_rows(sizes: list[int], rounds: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for size in sizes:
        for case in big_cases(size):
            prompt = case.prompt()

            def yardstick(value: Any = case.value) -> str:
                return json.dumps(value, indent=2)

            def render(prompt: Prompt = prompt) -> Any:
                return renderer.render(prompt)

            def drop_in(data: Callable[[], dict[str, Any]] = case.data) -> Any:
                built = AgentlyPrompt(data())
                return built.to_text(), built.to_messages()

            times = interleaved_medians([yardstick, render, drop_in], rounds)
            yard = times[0]
            # Memory: the peak of each, the input aside, beside the size of what it returns.
            yard_peak, dumped = _peak_bytes(yardstick)
            render_peak, rendered = _peak_bytes(render)
            drop_in_peak, (text, _) = _peak_bytes(drop_in)
            out = len(rendered.text) + sum(len(str(message.content)) for message in rendered.messages)
            for label, seconds, peak, size_out in (
                ("render", times[1], render_peak, out),
                ("AgentlyPrompt", times[2], drop_in_peak, len(text)),
            ):
                ratio = seconds / yard
                row = _row(
                    f"big: {case.name}, {label}", seconds, yard, ratio, f"<= {BIG_TARGET:.0f}x", ratio <= BIG_TARGET
                )
                row["memory"] = (
                    f"peak {peak / 1e6:.0f} MB, json.dumps {yard_peak / 1e6:.0f} MB; "
                    f"out {size_out / 1e6:.1f} M chars (json {len(dumped) / 1e6:.1f} M)"
                )
                rows.append(row)
    return rows


# --- output ----------------------------------------------------------------------------------------


def _row(what: str, mine: float, yard: float, ratio: float, target: str, passed: bool | None) -> dict[str, Any]:
    return {"what": what, "promptwire": mine, "yardstick": yard, "ratio": ratio, "target": target, "pass": passed}


def rows(
    parts: tuple[str, ...] = ("prompts", "big"), rounds: int = 15, sizes: tuple[int, ...] = (100_000,)
) -> list[dict[str, Any]]:
    """The benchmark as table rows: what, promptwire (s), yardstick (s), ratio, target, pass.

    ``ratio`` is yardstick / promptwire for the prompts and methods (Agently's time over ours),
    and promptwire / yardstick for the big inputs (our time over ``json.dumps``'s).
    """
    warnings.simplefilter("ignore")
    found: list[dict[str, Any]] = []
    if "prompts" in parts:
        found.extend(prompt_rows(rounds))
    if "methods" in parts:
        found.extend(method_rows(rounds))
    if "big" in parts:
        found.extend(big_rows(list(sizes), max(3, rounds // 5)))
    return found


def _seconds(value: float) -> str:
    return f"{value * 1e6:10.1f} us" if value < 0.01 else f"{value:10.3f} s "


def print_table(found: list[dict[str, Any]]) -> None:
    print(f"{'what':<52}{'promptwire':>14}{'yardstick':>14}{'ratio':>9}  {'target':<8}pass")
    for row in found:
        passed = {True: "yes", False: "NO", None: ""}[row["pass"]]
        line = f"{row['what']:<52}{_seconds(row['promptwire'])}{_seconds(row['yardstick'])}{row['ratio']:8.1f}x  {row['target']:<8}{passed}"
        if "memory" in row:
            line += f"  ({row['memory']})"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--part", choices=["prompts", "methods", "big", "all"], default="all")
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds (default 15; big inputs a fifth)")
    parser.add_argument(
        "--sizes", default="10000,100000,1000000", help="big input sizes, comma-separated (default 10k,100k,1M)"
    )
    args = parser.parse_args()
    parts = ("prompts", "methods", "big") if args.part == "all" else (args.part,)
    sizes = tuple(int(size) for size in args.sizes.split(","))
    if agently_factory() is None:
        print("(agently is not installed: pip install agently==4.1.4.10 for the side-by-side figures)")
    print_table(rows(parts, args.rounds, sizes))


if __name__ == "__main__":
    main()
