"""promptwire's AgentlyPrompt against agently 4.1.4.10's own generator, on one corpus, in one run.

Run ``python benchmarks/agently_render.py [--repeat 30]`` with promptwire installed; install
``agently==4.1.4.10`` to get the side-by-side columns (without it only promptwire is timed).
Each method renders the whole corpus once per round (prompt objects are built once, before timing,
as an application would; the last row times building and rendering together); the table shows the
median time per render over the rounds, and the ratio Agently / promptwire. Before timing, every method's output is checked equal on both sides.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from promptwire.renderers.agently import AgentlyPrompt


class Step(BaseModel):
    name: str = Field(min_length=2, description="step name")
    done: bool


class Plan(BaseModel):
    title: str = Field(max_length=30, description="plan title")
    steps: list[Step] = Field(min_length=1)


REPLY = {"thinking": (str, "describe how will you plan to reply?"), "reply": (str, "your final reply")}

CORPUS: list[dict[str, Any]] = [
    {"input": "Hello", "instruct": "reply something", "info": "I'm a human", "output": REPLY},
    {
        "system": "You are a support agent for ${INPUT.customer}.",
        "chat_history": [
            {"role": "user", "content": "My order is late."},
            {"role": "assistant", "content": "Sorry to hear that. What is the order number?"},
            {"role": "user", "content": [{"type": "text", "text": "It is T-42."}]},
            {"role": "assistant", "content": "Thanks, looking it up."},
        ],
        "info": {"policy": "Refunds within 30 days", "tier": "gold", "region": "EU"},
        "instruct": ["Be brief.", "Quote the policy.", "Use ${INFO.policy}."],
        "input": {"customer": "Acme", "ticket": "T-42", "items": [{"sku": "A-1", "qty": 2}, {"sku": "B-7", "qty": 1}]},
        "output": {
            "answer": (str, "the reply to the customer", True),
            "refund": (bool, "whether to refund", "not_null"),
            "actions": [{"kind": (str, "action kind"), "detail": (str,)}],
        },
    },
    {
        "tools": [
            {
                "name": "search",
                "desc": "search the knowledge base",
                "kwargs": {"query": (str, "what to look for"), "limit": (int, "max results")},
                "returns": [{"title": (str,), "url": (str, "page url")}],
            }
        ],
        "action_results": {"search": ["doc one", "doc two"]},
        "input": "Find the refund policy.",
        "output": {"summary": (str, "one paragraph"), "sources": [(str, "url")]},
        "output_format": "hybrid",
    },
    {"input": "Plan the launch.", "output": Plan, "output_format": "yaml_literal"},
    {
        "attachment": [{"type": "text", "text": "What is in this picture?"}, {"type": "image_url", "image_url": "u"}],
        "input": "Describe it.",
        "output": {"caption": (str, "a caption"), "objects": [(str, "object")]},
        "output_format": "xml_field",
    },
]

METHODS: dict[str, Callable[[Any], Any]] = {
    "to_text": lambda p: p.to_text(),
    "to_messages": lambda p: p.to_messages(),
    "to_messages(rich)": lambda p: p.to_messages(rich_content=True),
    "to_serializable_prompt_data": lambda p: p.to_serializable_prompt_data(),
    "to_json_prompt": lambda p: p.to_json_prompt(),
    "to_yaml_prompt": lambda p: p.to_yaml_prompt(),
    "to_prompt_object": lambda p: p.to_prompt_object().model_dump(),
}


def agently_factory() -> Callable[[dict[str, Any]], Any] | None:
    try:
        from agently import Agently
        from agently.core import Prompt
    except ImportError:
        return None
    Agently.set_settings("plugins.PromptGenerator.activate", "AgentlyPromptGenerator")

    def build(data: dict[str, Any]) -> Any:
        prompt = Prompt(Agently.plugin_manager, Agently.settings)
        prompt.update(data)
        return prompt

    return build


def median_per_render(prompts: list[Any], method: Callable[[Any], Any], repeat: int) -> float:
    rounds = []
    for _ in range(repeat):
        start = time.perf_counter()
        for prompt in prompts:
            method(prompt)
        rounds.append((time.perf_counter() - start) / len(prompts))
    return statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=30, help="timed rounds per method (default 30)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    ours = [AgentlyPrompt(data) for data in CORPUS]
    build_theirs = agently_factory()
    theirs = [build_theirs(data) for data in CORPUS] if build_theirs is not None else None
    if theirs is not None:
        for name, method in METHODS.items():
            for index, (mine, real) in enumerate(zip(ours, theirs, strict=True)):
                if name != "to_prompt_object" and method(mine) != method(real):
                    raise SystemExit(f"output differs: {name} on corpus item {index}")

    print(f"corpus: {len(CORPUS)} prompts, {args.repeat} rounds, median time per render")
    header = f"{'method':<30}{'promptwire':>14}"
    if theirs is not None:
        header += f"{'agently 4.1.4.10':>20}{'ratio':>10}"
    print(header)
    for name, method in METHODS.items():
        mine_time = median_per_render(ours, method, args.repeat)
        line = f"{name:<30}{mine_time * 1e6:>11.1f} us"
        if theirs is not None:
            their_time = median_per_render(theirs, method, args.repeat)
            line += f"{their_time * 1e6:>17.1f} us{their_time / mine_time:>9.1f}x"
        print(line)
    # Building the prompt object is part of a render for a one-shot caller: time it too.
    mine_time = median_per_render(CORPUS, lambda data: AgentlyPrompt(data).to_text(), args.repeat)
    line = f"{'build + to_text':<30}{mine_time * 1e6:>11.1f} us"
    if build_theirs is not None:
        factory = build_theirs
        their_time = median_per_render(CORPUS, lambda data: factory(data).to_text(), args.repeat)
        line += f"{their_time * 1e6:>17.1f} us{their_time / mine_time:>9.1f}x"
    print(line)
    if theirs is None:
        print("(agently is not installed: pip install agently==4.1.4.10 for the side-by-side columns)")


if __name__ == "__main__":
    main()
