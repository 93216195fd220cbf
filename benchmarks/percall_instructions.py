"""promptwire's ``generate`` against the bare SDK call, in instructions per call (callgrind).

``benchmarks/adapters.py`` times both sides on the clock, which moves by 40% between identical
runs on a shared machine. This counts them instead: for each adapter, a process under
``valgrind --tool=callgrind`` builds the same clients as ``adapters.py``, makes 20 calls of the
side measured to warm it (connection pools, validators, caches), then makes CALLS more inside one
``functools.reduce``; callgrind collects only inside that C function (``--toggle-collect``), so the
count is exactly the CALLS calls, and each side is the same harness but for the call it makes. The
fake servers run in a process of their own, not counted. Sides:

* ``bare``: the SDK's own call with the request promptwire builds (as ``adapters.py``);
* ``send``: the adapter's ``send`` of that request alone (its cached SDK client, no render, no
  parsing): the SDK path as ``generate`` takes it, which may differ from ``bare`` (Bedrock's body
  goes to botocore already written, so botocore neither checks nor serialises it), so that
  ``generate`` minus ``send`` is promptwire's own work per call;
* ``generate``: ``promptwire.calls.generate`` of the prompt through the adapter;
* ``render``, ``build``, ``bytes``, ``parse``: promptwire's own pieces of a call alone (the
  render, ``build_request`` of a render, ``to_bytes`` of the request's body, ``parse_reply`` of
  a kept reply), to show where ``generate``'s own instructions go.

Run from the repository root: ``python benchmarks/percall_instructions.py [CALLS] [ADAPTER...]
[--sides=bare,generate,...]`` (defaults: 200 calls; bedrock, anthropic and ollama; bare and
generate). Prints instructions per call of each side and ``generate / bare``. Needs valgrind.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adapters import PROMPT, _no_retries, server_process

ADAPTERS = ("bedrock", "anthropic", "ollama")
SIDES = ("bare", "send", "generate", "render", "build", "bytes", "parse")
WARM = 20


def _side(name: str, side: str, root: str, bedrock: str) -> Callable[[], object]:
    """The call that ``side`` makes once, for adapter ``name`` on the fake servers."""
    from promptwire import PluginHost
    from promptwire.calls.generate import generate
    from promptwire.core.json_text import to_bytes

    render = PluginHost(entry_points=False).renderer("agentscript").render
    adapter: Any
    if name == "bedrock":
        import boto3

        from promptwire.adapters.bedrock import BedrockAdapter

        adapter = BedrockAdapter(base_url=bedrock)
        bare: Callable[..., object] = boto3.client(
            "bedrock-runtime", endpoint_url=bedrock, config=_no_retries()
        ).converse
    elif name == "anthropic":
        import anthropic

        from promptwire.adapters.anthropic import AnthropicAdapter

        adapter = AnthropicAdapter(api_key="k", base_url=root)
        bare = anthropic.Anthropic(api_key="k", base_url=root, max_retries=0).messages.create
    elif name == "ollama":
        import ollama

        from promptwire.adapters.ollama import OllamaAdapter

        adapter = OllamaAdapter(host=root)
        bare = ollama.Client(host=root, timeout=30).chat
    else:
        raise SystemExit(f"no adapter {name!r}: one of {', '.join(ADAPTERS)}")
    rendered = render(PROMPT)
    request = adapter.build_request(rendered, PROMPT.config, PROMPT.output, "ok")
    sides: dict[str, Callable[[], object]] = {
        "bare": functools.partial(bare, **request.kwargs),
        "send": functools.partial(adapter.send, request, None),
        "generate": functools.partial(generate, PROMPT, render=render, adapter=adapter, model="ok"),
        "render": functools.partial(render, PROMPT),
        "build": functools.partial(adapter.build_request, rendered, PROMPT.config, PROMPT.output, "ok"),
        "bytes": functools.partial(to_bytes, request.kwargs),
    }
    if side == "parse":
        raw = adapter.send(request, None)
        return functools.partial(adapter.parse_reply, raw)
    return sides[side]


def child(name: str, side: str, calls: int, root: str, bedrock: str) -> None:
    """Warm ``side`` up, then make ``calls`` calls inside ``functools.reduce`` (the counted part)."""
    call = _side(name, side, root, bedrock)
    for _ in range(WARM):
        call()
    functools.reduce(lambda kept, _: call() and kept, range(calls), None)


def _counted(name: str, side: str, calls: int, server: Any, out: Path) -> int:
    """Instructions of ``calls`` calls of ``side``, from a callgrind run of :func:`child`."""
    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",
        "AWS_ACCESS_KEY_ID": "k",
        "AWS_SECRET_ACCESS_KEY": "k",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    command = [
        "valgrind",
        "--tool=callgrind",
        "--collect-atstart=no",
        "--toggle-collect=functools_reduce",
        f"--callgrind-out-file={out}",
        sys.executable,
        __file__,
        "--child",
        name,
        side,
        str(calls),
        server.root,
        server.bedrock,
    ]
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        raise SystemExit(f"{name} {side}: {done.stderr}")
    match = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
    if match is None:
        raise SystemExit(f"no total in {out}")
    return int(match.group(1))


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        name, side, calls, root, bedrock = sys.argv[2:7]
        child(name, side, int(calls), root, bedrock)
        return
    args = [arg for arg in sys.argv[1:] if not arg.startswith("--")]
    calls = int(args[0]) if args and args[0].isdigit() else 200
    names = [arg for arg in args if not arg.isdigit()] or list(ADAPTERS)
    sides = next((arg.partition("=")[2].split(",") for arg in sys.argv[1:] if arg.startswith("--sides=")), None)
    sides = sides or ["bare", "generate"]
    keep = Path(os.environ.get("PERCALL_OUT") or tempfile.mkdtemp(prefix="percall-"))
    keep.mkdir(parents=True, exist_ok=True)
    print(f"instructions per call, {calls} calls after {WARM} to warm up (callgrind files in {keep})")
    print(f"{'adapter':<10}" + "".join(f" {side:>10}" for side in sides) + (" {:>8}".format("ratio")))
    with server_process() as server:
        for name in names:
            counts = {side: _counted(name, side, calls, server, keep / f"{name}.{side}.out") / calls for side in sides}
            ratio = f" {counts['generate'] / counts['bare']:8.4f}" if {"bare", "generate"} <= counts.keys() else ""
            print(f"{name:<10}" + "".join(f" {counts[side] / 1000:9.1f}k" for side in sides) + ratio, flush=True)


if __name__ == "__main__":
    main()
