"""promptwire's per-call overhead over a bare SDK call, against a local fake provider.

For each adapter: N calls made with the SDK directly (one client, the same request body), and N
calls through ``promptwire.core.generate`` (render, build the request, send with the SDK, parse the
reply, check it against the contract), alternating call by call on the same server after a warm-up;
prints the median time per call of each and the ratio. Target (issue 8): at most 1.10. Run it on an
otherwise idle machine. The server runs in a process of its own (``--in-process`` puts it in this
one, where its threads compete with the client for the interpreter lock and inflate both sides).

Run from the repository root: ``python benchmarks/adapters.py [CALLS] [--in-process]``.
"""

from __future__ import annotations

import contextlib
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from provider_servers import fake_provider

from promptwire import Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.core.generate import generate
from promptwire.renderers.agentscript import renderer, shape_contract

PROMPT = Prompt(
    identity={"role": "Checker", "description": "Check."},
    context=[{"value": {"rows": list(range(50))}, "label": "data"}],
    instruction="Check.",
    output=shape_contract({"ok": "boolean"}),
    config={"max_output": 100},
)


def _paired_medians(bare: Callable[[], object], ours: Callable[[], object], calls: int) -> tuple[float, float]:
    """Median time per call of each, the two alternating call by call, so that drift in the machine
    (another process, the CPU clock) falls on both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for index in range(2 * calls):
        run, sink = (bare, times[0]) if index % 2 == 0 else (ours, times[1])
        start = time.perf_counter()
        run()
        sink.append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


SERVE = """
import sys
sys.path.insert(0, sys.argv[1])
from provider_servers import fake_provider
with fake_provider() as server:
    print(server.root, flush=True)
    sys.stdin.read()
"""


@contextlib.contextmanager
def server_process() -> Iterator[Any]:
    """The fake provider in a process of its own; it stops when its standard input closes."""
    process = subprocess.Popen(
        [sys.executable, "-c", SERVE, sys.path[0]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdin is not None
    root = process.stdout.readline().strip()
    try:
        yield SimpleNamespace(root=root, base_url=f"{root}/v1")
    finally:
        process.stdin.close()
        process.wait(timeout=10)


def main() -> None:
    args = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    calls = int(args[0]) if args else 1000
    import anthropic
    import ollama
    import openai

    with fake_provider() if "--in-process" in sys.argv else server_process() as server:
        print(f"server: {'in this process' if '--in-process' in sys.argv else 'its own process'}")
        adapters = {
            "openai": OpenAIAdapter(api_key="k", base_url=server.base_url),
            "anthropic": AnthropicAdapter(api_key="k", base_url=server.root),
            "ollama": OllamaAdapter(host=server.root),
        }
        clients: dict[str, Callable[..., object]] = {
            "openai": openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0).chat.completions.create,
            "anthropic": anthropic.Anthropic(api_key="k", base_url=server.root, max_retries=0).messages.create,
            "ollama": ollama.Client(host=server.root, timeout=30).chat,
        }
        print(f"{'adapter':<10} {'bare SDK ms':>12} {'promptwire ms':>14} {'ratio':>6}")
        for name, adapter in adapters.items():
            request = adapter.build_request(renderer.render(PROMPT), PROMPT.config, PROMPT.output, "ok")
            create = clients[name]
            for _ in range(20):  # warm both sides: connection pools, pydantic validators
                create(**request.kwargs)
                generate(PROMPT, render=renderer.render, adapter=adapter, model="ok")
            b, o = _paired_medians(
                lambda create=create, request=request: create(**request.kwargs),
                lambda adapter=adapter: generate(PROMPT, render=renderer.render, adapter=adapter, model="ok"),
                calls,
            )
            print(f"{name:<10} {1000 * b:12.3f} {1000 * o:14.3f} {o / b:6.2f}")


if __name__ == "__main__":
    main()
