"""``promptwire.plugin``: the one module a plugin author imports from. It holds what the hooks ask
for and costs nothing at start-up: no provider SDK, no format's module."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import promptwire.plugin
from promptwire import PluginHost, Prompt
from promptwire.core.errors import UnknownNameError

ECHO = Path(__file__).resolve().parents[2] / "examples" / "plugins" / "promptwire-echo" / "src"


def test_every_name_it_lists_is_there() -> None:
    missing = [name for name in promptwire.plugin.__all__ if not hasattr(promptwire.plugin, name)]
    assert missing == []
    assert promptwire.plugin.hookimpl is promptwire.hookimpl


def test_importing_it_loads_no_sdk_and_no_format() -> None:
    code = (
        "import sys, promptwire.plugin; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'openai', 'anthropic', 'ollama', 'httpx', "
        "'jsonschema', 'jinja2', 'yaml'} or m.startswith(('promptwire.renderers.', 'promptwire.adapters.o', "
        "'promptwire.adapters.anthropic')) and m != 'promptwire.renderers.base'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_a_builtin_renderer_renders_as_the_hosts_and_loads_when_used() -> None:
    prompt = Prompt(identity={"role": "R", "description": "D."}, instruction="Go.")
    agentscript = promptwire.plugin.builtin_renderer("agentscript")
    assert agentscript.render(prompt) == PluginHost(entry_points=False).renderer("agentscript").render(prompt)
    with pytest.raises(UnknownNameError, match=r"unknown built-in renderer 'nope' \(available: agentscript, "):
        promptwire.plugin.builtin_renderer("nope")


def test_the_example_plugin_imports_promptwire_only_from_it() -> None:
    imported = set()
    for path in ECHO.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                imported.add(node.module)
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
    assert {name for name in imported if name.split(".")[0] == "promptwire"} == {"promptwire.plugin"}
