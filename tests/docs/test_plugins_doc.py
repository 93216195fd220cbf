"""docs/plugins.md stays true: its hook reference is the hook specs' docstrings, its snippets run
(the renderer and the adapter form a plugin, the test snippet passes against the fake provider),
and the clash message it shows is what ``asrender`` prints."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import promptwire
from promptwire.plugins import hookspecs

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "plugins.md"
TEXT = DOC.read_text(encoding="utf-8")


def hooks_block() -> str:
    """The generated part of the guide: the rules shared by every hook, then each hook's docstring."""
    parts = ["<!-- hooks: generated from plugins/hookspecs.py by tests/test_plugins_doc.py; do not edit -->"]
    parts.append("### The rules of every hook\n\n" + (inspect.getdoc(hookspecs) or "").split("\n\n", 2)[2])
    for name in hookspecs.HOOK_NAMES:
        parts.append(f"### `{name}(register)`\n\n" + (inspect.getdoc(getattr(hookspecs, name)) or ""))
    parts.append("<!-- /hooks -->")
    return "\n\n".join(parts)


def test_the_hook_reference_is_the_hook_specs() -> None:
    found = re.search(r"<!-- hooks:.*?<!-- /hooks -->", TEXT, flags=re.DOTALL)
    assert found is not None
    assert found.group() == hooks_block(), "docs/plugins.md is stale: paste hooks_block() in its place"
    assert len(hookspecs.HOOK_NAMES) == 4


def _snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", TEXT, flags=re.DOTALL)


@pytest.fixture
def my_plugin(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The guide's renderer and adapter as one plugin module, importable as ``my_plugin``."""
    module = types.ModuleType("my_plugin")
    renderer, adapter, _ = _snippets()
    exec(renderer + "\n" + adapter, module.__dict__)
    monkeypatch.setitem(sys.modules, "my_plugin", module)
    return module


def test_the_snippets_make_a_plugin(my_plugin: types.ModuleType) -> None:
    host = promptwire.PluginHost(entry_points=False, plugins=[my_plugin])
    info = host.plugins()[-1]
    assert (info.name, info.registers["renderers"], info.registers["adapters"]) == ("my_plugin", ["memo"], ["compat"])
    with pytest.warns(promptwire.core.errors.UnsupportedFieldsWarning, match="left out: context"):
        rendered = promptwire.render({"instruction": "Hi.", "context": [{"value": 1}]}, format="note", host=host)
    assert rendered.text == "MEMO from nobody\n\nHi."
    assert [warning.field for warning in rendered.warnings] == ["context"]


def test_the_test_snippet_passes(my_plugin: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    namespace: dict[str, Any] = {}
    exec(_snippets()[2], namespace)
    namespace["test_compat_over_http"](monkeypatch)
    namespace["test_compat_failures"](monkeypatch)


def test_the_clash_message_is_what_asrender_prints(tmp_path: Path) -> None:
    # A second distribution claiming the echo plugin's format name, installed the way pip lays it out.
    (tmp_path / "my_plugin.py").write_text(
        "from promptwire import hookimpl\nfrom promptwire_echo.renderer import FlatRenderer\n\n"
        "@hookimpl\ndef register_renderers(register):\n    register(FlatRenderer())\n"
    )
    dist_info = tmp_path / "my_plugin-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-plugin\nVersion: 1.0\n")
    (dist_info / "entry_points.txt").write_text("[promptwire]\nmy_plugin = my_plugin\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("PROMPTWIRE_PLUGINS", None)
    done = subprocess.run(
        [sys.executable, "-m", "promptwire", "plugins"], capture_output=True, text=True, env=env, timeout=60
    )
    shown = re.search(r"```text\n(asrender: .*?)\n```", TEXT)
    assert shown is not None
    assert (done.returncode, done.stdout, done.stderr) == (1, "", shown.group(1) + "\n")
