"""The opt-in ``real_model`` tier: every example program through the OpenAI adapter, against a real
model (Gemma 3 270M in llama.cpp's ``llama-server`` on 127.0.0.1), with strict structured output.

Not in the default run (``-m "not real_model"`` in the pytest settings). Set it up once with
``bash scripts/real-model-setup.sh`` and run it with ``python3 -m pytest -m real_model``. The model
is a tiny base model: the tests assert what a grammar-constrained server guarantees (every reply
is JSON that conforms to its schema, and the program completes), never what the answers mean.
A missing server or model fails the tier, never skips it: a tier asked for must run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from promptwire.core.coercion import check_result
from promptwire.core.permissions import Permissions
from promptwire.runs.options import RunOptions
from promptwire.runs.run import run

pytestmark = pytest.mark.real_model

CACHE = Path(os.environ.get("PROMPTWIRE_REAL_MODEL_DIR", Path.home() / ".cache" / "promptwire-real-model"))
SERVER = Path(os.environ.get("PROMPTWIRE_LLAMA_SERVER", CACHE / "build" / "bin" / "llama-server"))
WEIGHTS = Path(os.environ.get("PROMPTWIRE_REAL_MODEL", CACHE / "gemma3-270m-q4_k_m.gguf"))
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROGRAMS = sorted(EXAMPLES.glob("*.as"))
KEY = "sk-local"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    missing = [str(path) for path in (SERVER, WEIGHTS) if not path.is_file()]
    if missing:
        pytest.fail(f"real_model tier: missing {', '.join(missing)}; run `bash scripts/real-model-setup.sh` first")
    port = _free_port()
    command = [str(SERVER), "-m", str(WEIGHTS), "-c", "4096", "-t", "2", "-np", "1"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--api-key", KEY]
    # The server's default sampling for requests that set none. Without penalties the tiny model
    # often loops inside a string ("y_1", "y_2", ...) until max_output cuts the JSON short; greedy
    # decoding loops more. The seed stays random, so a program's retries sample anew.
    command += ["--repeat-penalty", "1.15", "--dry-multiplier", "0.8"]
    log_path = tmp_path_factory.mktemp("llama-server") / "llama-server.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed below, after the server
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if server.poll() is not None:
                pytest.fail(f"llama-server exited with {server.returncode}; see {log_path}")
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=2) as reply:
                    if json.load(reply).get("status") == "ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama-server was not healthy within 120 s")
            time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _events(trace: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every trace event, those of agent calls (nested in the call's own trace) included."""
    for event in trace:
        yield event
        if event["kind"] == "agent":
            yield from _events(event["data"]["trace"])


def _strict(source: str) -> str:
    """Every generate of the program asked with strict structured output, a short answer and three
    attempts: the grammar keeps every token inside the schema, but a tiny model can still ramble
    until ``max_output`` cuts the JSON short, and a retry (random seed, the reason in its prompt)
    samples anew. Only the accepted results are asserted on; every one of them must conform."""
    source = re.sub(r",\s*(?:strict: true|attempts: \d+)(?=\s*[,}])|(?:strict: true|attempts: \d+),\s*", "", source)
    return source.replace("generate({ ", "generate({ strict: true, attempts: 3, max_output: 256, ")


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_example_program_runs_on_a_real_model_with_schema_valid_json(
    program: Path, llama_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    examples = tmp_path / "examples"
    shutil.copytree(EXAMPLES, examples, ignore=shutil.ignore_patterns("__pycache__", "plugins"))
    monkeypatch.chdir(examples)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{llama_server}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    source = _strict(program.read_text(encoding="utf-8"))
    assert "strict: true" in source
    input_file = program.with_suffix(".input.json")
    input_value = json.loads(input_file.read_text(encoding="utf-8")) if input_file.exists() else None
    # What the README's own commands allow each example (lessons.as keeps its memory beside it).
    folder = examples.resolve()
    tools = Permissions(folder, program_folder=folder, write=(folder / "lessons.jsonl",))
    options = RunOptions("openai", "gemma-3-270m", timeout=120, tools=tools)
    result = run(source, input_value, options, path=program.name)
    generates = [event["data"] for event in _events(result.trace) if event["kind"] == "generate"]
    assert generates, "the program made no model call"
    for call in result.calls:
        body = call.request.kwargs if call.request is not None else {}
        assert body["response_format"]["json_schema"]["strict"] is True
    for data in generates:
        schema = data["context"]["returnSchema"]
        assert schema is not None
        json.loads(json.dumps(data["result"], allow_nan=False))  # a JSON value, nothing Python-only
        jsonschema.validate(data["result"], schema)
        check_result(data["result"], schema, strict=True)  # the contract check promptwire itself runs


def test_a_streamed_call_arrives_in_pieces_and_is_checked_whole(
    llama_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One call streamed from the real server (SSE through the OpenAI SDK): the text comes in more
    than one piece, the pieces joined are the reply the contract was checked on, and the usage the
    stream was asked for is captured."""
    from promptwire import Prompt
    from promptwire.adapters.openai import OpenAIAdapter
    from promptwire.calls.generate import generate
    from promptwire.renderers.agentscript import renderer, shape_contract

    monkeypatch.setenv("OPENAI_BASE_URL", f"{llama_server}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    prompt = Prompt.model_validate(
        {
            "instruction": "Name one colour.",
            "config": {"strict": True, "attempts": 3, "max_output": {"amount": 64}},
            "output": shape_contract({"colour": "string"}),
        }
    )
    pieces: list[str] = []
    result = generate(
        prompt, render=renderer.render, adapter=OpenAIAdapter(), model="gemma-3-270m", on_text=pieces.append
    )
    last = result.calls[-1]
    assert last.request.kwargs["stream"] is True and last.request.kwargs["stream_options"] == {"include_usage": True}
    assert last.reply is not None and len(pieces) > 1
    assert isinstance(result.value, dict) and isinstance(result.value["colour"], str)
    replies = "".join(pieces)
    assert replies.endswith(last.reply.text)  # the last attempt's pieces, after any rejected attempt's
    assert last.reply.usage is not None and last.reply.usage["completion_tokens"] > 0
