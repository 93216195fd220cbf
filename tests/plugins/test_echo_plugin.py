"""A real third-party plugin, installed as a distribution (examples/plugins/promptwire-echo, which
the README's test command installs), found through the ``promptwire`` entry-point group and used by
``asrender`` in a process of its own, over real HTTP to the plugin's echo server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from echo_server import echo_server  # the plugin's own test server (pytest's pythonpath setting)

try:
    VERSION = metadata.version("promptwire-echo")
except metadata.PackageNotFoundError:  # pragma: no cover - the README test command installs it
    pytest.fail(
        "promptwire-echo is not installed: python3 -m pip install -e examples/plugins/promptwire-echo",
        pytrace=False,
    )

BUILT_IN_ADAPTERS = "offline, openai, openai-responses, ollama, anthropic, gemini, bedrock"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def asrender(*args: str, plugins: str | None = None, url: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ECHO_URL": url}
    env.pop("PROMPTWIRE_PLUGINS", None)
    if plugins is not None:
        env["PROMPTWIRE_PLUGINS"] = plugins
    command = [sys.executable, "-m", "promptwire", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, cwd=EXAMPLES)


@pytest.fixture
def server() -> Iterator[Any]:
    with echo_server() as running:
        yield running


def test_plugins_lists_it_with_its_version() -> None:
    done = asrender("plugins", "--json")
    assert done.returncode == 0, done.stderr
    (echo,) = [plugin for plugin in json.loads(done.stdout) if plugin["name"] == "echo"]
    assert echo["version"] == VERSION == "0.1.0"
    assert (echo["adapters"], echo["renderers"]) == (["echo"], ["echo-flat"])
    assert echo["hooks"] == ["register_adapters", "register_renderers"]


def test_a_program_runs_on_its_provider_over_http(server: Any) -> None:
    args = ["strict-invoice.as", "--input-file", "strict-invoice.input.json", "--output", "trace"]
    done = asrender(*args, "--provider", "echo", url=server.url)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["value"] == {"number": "echo", "total": 0, "paid": False, "lines": []}
    (sent,) = [json.loads(raw) for raw in server.requests]
    assert sent["model"] == "gpt-4o-mini"  # the program's model, retargeted to the echo provider
    assert sent["messages"][1]["content"].startswith("Context:\n[invoice]\n")


def test_its_format_renders_a_program_and_sends_a_prompt_file(server: Any) -> None:
    # A program's calls are sent in AgentScript's text (the format is a view); a prompt file is sent
    # as the chosen format renders it (README, "Running for real").
    shown = asrender(
        "strict-invoice.as", "--input-file", "strict-invoice.input.json", "--format", "echo-flat", "--output", "json"
    )
    assert shown.returncode == 0, shown.stderr
    call = json.loads(shown.stdout)[0]  # the first of the attempts its sibling replies make
    assert call["format"] == "echo-flat"
    assert [m["role"] for m in call["messages"]] == ["user"]
    assert call["messages"][0]["content"].startswith("You are Invoice Extractor.\nCopy fields")
    rendered = asrender("support-ticket.yaml", "--format", "flat", "--output", "json")
    assert rendered.returncode == 0, rendered.stderr
    sent = asrender("support-ticket.yaml", "--format", "flat", "--provider", "echo", "--model", "m", url=server.url)
    assert sent.returncode == 0, sent.stderr
    assert json.loads(server.requests[0])["messages"] == json.loads(rendered.stdout)["messages"]


def test_a_dry_run_sends_nothing(server: Any) -> None:
    args = ["strict-invoice.as", "--input-file", "strict-invoice.input.json", "--responses"]
    done = asrender(
        *args, "strict-invoice.responses.json", "--provider", "echo", "--dry-run", "--output", "json", url=server.url
    )
    assert done.returncode == 0, done.stderr
    calls = json.loads(done.stdout)
    assert calls[0]["provider"] == "echo" and calls[0]["body"]["schema"]["type"] == "object"
    assert server.requests == []


def test_a_failed_call_is_one_line(server: Any) -> None:
    done = asrender(
        "strict-invoice.as",
        "--input-file",
        "strict-invoice.input.json",
        "--provider",
        "echo",
        "--model",
        "e401",
        url=server.url,
    )
    assert done.returncode == 1
    # The call that failed is shown (as every call of a failed run is), then the error in one line.
    assert done.stdout.startswith("=== strict-invoice.as:10:9 agent Extractor attempt 1 ===\n--- system ---\n")
    assert "\n--- failed ---\nAuthenticationError: " in done.stdout
    assert done.stderr.startswith("asrender: AuthenticationError [echo 401]: ")
    assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize("allow", ["", "someone-else"])
def test_the_allow_list_switches_it_off(allow: str) -> None:
    listed = asrender("plugins", "--json", plugins=allow)
    assert [plugin["name"] for plugin in json.loads(listed.stdout)] == ["promptwire"]
    done = asrender("strict-invoice.as", "--provider", "echo", plugins=allow)
    unknown = f"asrender: error: --provider: unknown adapter 'echo' (available: {BUILT_IN_ADAPTERS})\n"
    if allow:  # a name that no installed plugin has is said
        unknown = f"asrender: warning: PROMPTWIRE_PLUGINS names {allow!r}, which no installed plugin is\n" + unknown
    assert (done.returncode, done.stderr) == (2, unknown)


def test_the_allow_list_can_name_it() -> None:
    listed = asrender("plugins", "--json", plugins="echo")
    assert [plugin["name"] for plugin in json.loads(listed.stdout)] == ["promptwire", "echo"]
