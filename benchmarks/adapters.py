"""promptwire's per-call overhead over a bare SDK call, against a local fake provider.

For each adapter: N calls made with the SDK directly (one client, the same request body), and N
calls through ``promptwire.calls.generate`` (render, build the request, send with the SDK, parse the
reply, check it against the contract), alternating call by call on the same server after a warm-up;
prints the median time per call of each and the ratio. Target (issue 8): at most 1.10. Run it on an
otherwise idle machine. The server runs in a process of its own (``--in-process`` puts it in this
one, where its threads compete with the client for the interpreter lock and inflate both sides).

A first pass alternates the bare call with the adapter's ``send`` alone (the same request through
the adapter's cached SDK client, no render, no parsing): ``send ratio`` near 1.00 shows that the
SDK path costs the same both ways, so ``own us`` (promptwire minus bare, from the second pass) is
promptwire's own work per call: rendering, building the request, parsing and checking the reply.
``build us`` is the render and ``build_request`` alone, in a tight loop: the request promptwire
writes, whose bytes the bare call is given. ``hot us`` is the same work as ``own us`` in a tight loop, the reply kept instead of fetched. Timed between round
trips it costs two to three times as much, because whatever runs in between (the SDK, the network
stack, another process) leaves the CPU's caches holding its own code and data: a real call pays
that too. ``benchmarks/wake_cost.py`` shows it: a sleep, touching a few megabytes of memory and an
SDK round trip all make the render ~1.5 times dearer than right after itself. ``own us`` is the
figure the target is about; ``hot us`` is the part of it that promptwire's code decides alone.

Run from the repository root: ``python benchmarks/adapters.py [CALLS] [--in-process] [--format=NAME]``
(the format the prompt is rendered in: ``agentscript`` by default; issue 28 measures ``messages``).
Azure's row sends through the SDK's Azure client (``AzureOpenAI``, the deployment in the URL) to the
fake provider's Azure paths, with the API version of ``OPENAI_API_VERSION`` (``2024-10-21`` unless set).
"""

from __future__ import annotations

import contextlib
import functools
import os
import statistics
import subprocess
import sys
import time
import timeit
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

from promptwire import PluginHost, Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.azure import AzureChatAdapter
from promptwire.adapters.bedrock import BedrockAdapter
from promptwire.adapters.gemini import GeminiAdapter
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.calls.generate import generate
from promptwire.renderers.agentscript import shape_contract
from promptwire.testing.bedrock_server import fake_bedrock
from promptwire.testing.gemini_server import gemini_server
from promptwire.testing.provider_servers import fake_provider

PROMPT = Prompt(
    identity={"role": "Checker", "description": "Check."},
    context=[{"value": {"rows": list(range(50))}, "label": "data"}],
    instruction="Check.",
    output=shape_contract({"ok": "boolean"}),
    config={"max_output": 100},
)


def _interleaved_medians(runs: list[Callable[[], object]], calls: int) -> list[float]:
    """Median time per call of each, all alternating call by call, so that drift in the machine
    (another process, the CPU clock) falls on all alike."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(calls):
        for run, sink in zip(runs, times, strict=True):
            start = time.perf_counter()
            run()
            sink.append(time.perf_counter() - start)
    return [statistics.median(series) for series in times]


SERVE = """
import sys
from promptwire.testing.bedrock_server import fake_bedrock
from promptwire.testing.gemini_server import gemini_server
from promptwire.testing.provider_servers import fake_provider
with fake_provider() as server, fake_bedrock() as bedrock, gemini_server() as google:
    print(server.root, bedrock.root, google.root, flush=True)
    sys.stdin.read()
"""


@contextlib.contextmanager
def servers_in_process() -> Iterator[Any]:
    """The fake servers in this process (``--in-process``)."""
    with fake_provider() as server, fake_bedrock() as bedrock, gemini_server() as google:
        yield SimpleNamespace(root=server.root, base_url=server.base_url, bedrock=bedrock.root, google=google.root)


@contextlib.contextmanager
def server_process() -> Iterator[Any]:
    """The fake provider, the fake Bedrock Runtime and the fake Gemini API in a process of their
    own; they stop when its standard input closes."""
    process = subprocess.Popen([sys.executable, "-c", SERVE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdin is not None
    root, bedrock, google = process.stdout.readline().split()
    try:
        yield SimpleNamespace(root=root, base_url=f"{root}/v1", bedrock=bedrock, google=google)
    finally:
        process.stdin.close()
        process.wait(timeout=10)


class _Canned:
    """The adapter with its reply kept: ``send`` returns it without a round trip."""

    def __init__(self, adapter: Any, raw: object) -> None:
        self.name, self.build_request, self.parse_reply = adapter.name, adapter.build_request, adapter.parse_reply
        self.send = lambda request, timeout: raw


def _hot_own_time(adapter: Any, raw: object, render: Callable[[Prompt], Any]) -> float:
    """Seconds of promptwire's own work per call in a tight loop (no round trip between calls, so
    the caches stay warm): the figure a machine with no cost to waking up would show."""
    canned = functools.partial(generate, PROMPT, render=render, adapter=_Canned(adapter, raw), model="ok")
    return min(timeit.repeat(canned, number=1000, repeat=7)) / 1000


def _build_time(adapter: Any, render: Callable[[Prompt], Any]) -> float:
    """Seconds per render and ``build_request`` of the prompt, in a tight loop."""

    def build() -> object:
        return adapter.build_request(render(PROMPT), PROMPT.config, PROMPT.output, "ok")

    return min(timeit.repeat(build, number=1000, repeat=7)) / 1000


def measure(fmt: str = "agentscript", calls: int = 1000, in_process: bool = False) -> list[dict[str, float]]:
    """One row per adapter: the median bare SDK call, the send check, the median call through
    ``generate`` with the prompt rendered in ``fmt``, the build time and the hot own time (seconds)."""
    import anthropic
    import boto3
    import ollama
    import openai

    for name, value in (
        ("AWS_ACCESS_KEY_ID", "k"),
        ("AWS_SECRET_ACCESS_KEY", "k"),
        ("AWS_DEFAULT_REGION", "us-east-1"),
    ):
        os.environ.setdefault(name, value)  # the fake Bedrock takes any credentials; boto3 needs some

    render = PluginHost(entry_points=False).renderer(fmt).render
    version = os.environ.setdefault("OPENAI_API_VERSION", "2024-10-21")
    rows = []
    with servers_in_process() if in_process else server_process() as server:
        adapters = {
            "openai": OpenAIAdapter(api_key="k", base_url=server.base_url),
            "anthropic": AnthropicAdapter(api_key="k", base_url=server.root),
            "ollama": OllamaAdapter(host=server.root),
            "bedrock": BedrockAdapter(base_url=server.bedrock),
            "gemini": GeminiAdapter(api_key="k", base_url=server.google),
            "azure": AzureChatAdapter(api_key="k", base_url=server.root),
        }
        azure = openai.AzureOpenAI(api_key="k", azure_endpoint=server.root, api_version=version, max_retries=0)
        converse = boto3.client("bedrock-runtime", endpoint_url=server.bedrock, config=_no_retries()).converse
        clients: dict[str, Callable[..., object]] = {
            "openai": openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0).chat.completions.create,
            "anthropic": anthropic.Anthropic(api_key="k", base_url=server.root, max_retries=0).messages.create,
            "ollama": ollama.Client(host=server.root, timeout=30).chat,
            "bedrock": converse,  # the Converse request as built: modelId and the body, images as base64 text
            "gemini": _bare_gemini(server.google),
            # the SDK's own Azure call: the deployment as ``model``, which the client moves into the URL
            "azure": functools.partial(azure.chat.completions.create, model="ok"),
        }
        for name, adapter in adapters.items():
            request = adapter.build_request(render(PROMPT), PROMPT.config, PROMPT.output, "ok")
            bare = functools.partial(clients[name], **request.kwargs)
            send = functools.partial(adapter.send, request, None)
            ours = functools.partial(generate, PROMPT, render=render, adapter=adapter, model="ok")
            for _ in range(20):  # warm every side: connection pools, pydantic validators
                for run in (bare, send, ours):
                    run()
            b0, s = _interleaved_medians([bare, send], calls)  # the check: the SDK path alone
            b, o = _interleaved_medians([bare, ours], calls)  # the figure
            hot = _hot_own_time(adapter, send(), render)
            build = _build_time(adapter, render)
            row = {"adapter": name, "bare": b, "send ratio": s / b0, "promptwire": o, "build": build, "hot": hot}
            rows.append(row)  # type: ignore[arg-type]
    return rows


def _bare_gemini(root: str) -> Callable[..., object]:
    """The bare google-genai call of a Gemini request body: ``models.generate_content`` with the
    body's contents, and its system instruction, tools and generation config as the SDK's config
    (read from the body's JSON, which the SDK's types take by their camelCase names)."""
    from google import genai
    from google.genai import types

    client = genai.Client(
        vertexai=False, api_key="k", http_options=types.HttpOptions(base_url=root + "/", api_version="v1beta")
    )

    def call(contents: Any, **body: Any) -> object:
        config = types.GenerateContentConfig.model_validate({**body.pop("generationConfig", {}), **body})
        return client.models.generate_content(model="ok", contents=contents, config=config)

    return call


def _no_retries() -> Any:
    from botocore.config import Config

    return Config(retries={"total_max_attempts": 1, "mode": "standard"})


def main() -> None:
    args = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    calls = int(args[0]) if args else 1000
    fmt = next((arg.partition("=")[2] for arg in sys.argv[1:] if arg.startswith("--format=")), "agentscript")
    in_process = "--in-process" in sys.argv
    print(f"server: {'in this process' if in_process else 'its own process'}; format: {fmt}")
    print(
        f"{'adapter':<10} {'bare SDK ms':>12} {'send ratio':>11} {'promptwire ms':>14} {'ratio':>6} {'own us':>7}"
        f" {'build us':>9} {'hot us':>7}"
    )
    for row in measure(fmt, calls, in_process):
        b, o = row["bare"], row["promptwire"]
        print(
            f"{row['adapter']:<10} {1000 * b:12.3f} {row['send ratio']:11.2f} {1000 * o:14.3f} {o / b:6.2f}"
            f" {1e6 * (o - b):7.0f} {1e6 * row['build']:9.1f} {1e6 * row['hot']:7.1f}"
        )


if __name__ == "__main__":
    main()
