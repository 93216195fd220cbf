"""The built-ins: one table of import targets, lazy proxies, and nothing written twice.

A built-in's name is in ``plugins/builtins.py`` (so listing needs no import) and on its class (so the
object knows itself); everything else is read from the real object. These tests load every built-in
to catch the two names drifting apart, and check that loading the host imports none of them.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from typing import Any

import pytest

from promptwire import PluginHost
from promptwire.core.errors import RegistrationError
from promptwire.plugins import builtins
from promptwire.plugins.lazy import LazyReader, LazyRenderer

from corpus import NEEDS_A_TEMPLATE

BUILTINS = (
    [("renderer", name, target) for name, target in builtins.RENDERERS.items()]
    + [("reader", name, target) for name, target in builtins.READERS.items()]
    + [("tool_scheme", name, target) for name, target in builtins.TOOL_SCHEMES.items()]
)


@pytest.fixture
def host() -> PluginHost:
    return PluginHost(entry_points=False)


def real_object(target: str) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module, "promptwire"), attribute)


@pytest.mark.parametrize(("kind", "name", "target"), BUILTINS, ids=[f"{k}-{n}" for k, n, _ in BUILTINS])
def test_builtin_is_registered_under_the_name_of_its_real_object(
    host: PluginHost, kind: str, name: str, target: str
) -> None:
    proxy = getattr(host, kind)(name)
    real = real_object(target)
    assert real.name == name
    assert proxy.load() is real
    assert proxy.description == real.description
    assert isinstance(real.description, str) and real.description


@pytest.mark.parametrize("name", [name for name in builtins.RENDERERS if name not in NEEDS_A_TEMPLATE])
def test_renderer_proxy_forwards_fields_and_render(host: PluginHost, name: str) -> None:
    proxy = host.renderer(name)
    real = proxy.load()
    assert proxy.fields == real.fields
    prompt = host.reader("prompt").read({"instruction": "Say hello."})
    assert proxy.render(prompt).to_dict() == real.render(prompt).to_dict()


def test_reader_proxy_forwards_read(host: PluginHost) -> None:
    assert host.reader("prompt").read({"instruction": "hi"}).instruction == "hi"


def test_a_proxy_whose_object_has_another_name_is_refused_on_first_use() -> None:
    drifted = LazyRenderer("chat", ".renderers.messages:renderer")
    with pytest.raises(
        RegistrationError,
        match=r"built-in \.renderers\.messages:renderer is registered as 'chat' but is named 'messages'",
    ):
        drifted.render(None)
    with pytest.raises(RegistrationError):
        _ = LazyReader("json", ".renderers.prompt_data:reader").description


def test_builtins_hold_no_descriptions() -> None:
    source = importlib.import_module("promptwire.plugins.builtins").__file__
    assert source is not None
    with open(source, encoding="utf-8") as file:
        text = file.read()
    for kind, name, target in BUILTINS:
        assert real_object(target).description not in text, (kind, name)


def test_loading_the_host_and_listing_plugins_imports_no_builtin_module() -> None:
    code = (
        "import json, sys\n"
        "from promptwire.plugins import PluginHost\n"
        "host = PluginHost(entry_points=False)\n"
        "infos = [info.to_dict() for info in host.plugins()]\n"
        "host.renderer('agently'); host.reader('agens')\n"
        "heavy = ('yaml', 'jsonschema', 'jinja2', 'httpx', 'openai', 'anthropic', 'ollama')\n"
        "loaded = [m for m in sys.modules if m.startswith('promptwire.renderers') or m.split('.')[0] in heavy]\n"
        "print(json.dumps(sorted(loaded)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(result.stdout.splitlines()[-1]) == []


def _registered(host: PluginHost) -> dict[str, list[tuple[str, str, str, str]]]:
    """Each registry's entries (aliases included), in order: name, owning plugin, the class and the
    import target of what is there."""
    return {
        kind: [
            (name, registry._owners[name], type(found).__name__, found.target)
            for name, found in registry._items.items()
        ]
        for kind, registry in host.registries.items()
    }


class _Quiet:
    """A plugin that registers nothing: its presence alone puts the host on pluggy's manager."""

    def __hash__(self) -> int:
        return 0


def test_the_builtins_alone_fill_the_registries_as_pluggy_does() -> None:
    """A host of the built-ins alone calls their hooks itself; with any other plugin, pluggy calls
    them. The registries, and what ``asrender plugins`` says of the built-ins, are the same."""
    alone = PluginHost(entry_points=False)
    assert alone._pm is None  # no manager made
    through_pluggy = PluginHost(entry_points=False, plugins=[_Quiet()])
    assert through_pluggy._pm is not None
    assert _registered(alone) == _registered(through_pluggy)
    assert alone.plugins()[0] == through_pluggy.plugins()[0]  # the manager, made when asked, lists them
    assert [info.name for info in alone.plugins()] == ["promptwire"]


def test_a_host_of_the_builtins_alone_imports_no_pluggy() -> None:
    code = (
        "import json, sys\n"
        "from promptwire.plugins import PluginHost\n"
        "host = PluginHost(entry_points=False)\n"
        "host.renderer('messages'); host.adapter('offline')\n"
        "before = 'pluggy' in sys.modules\n"
        "host.plugins()\n"
        "print(json.dumps([before, 'pluggy' in sys.modules]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(result.stdout.splitlines()[-1]) == [False, True]


def test_a_register_kept_by_a_builtin_hook_is_refused_after_it_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The built-ins' own path gives ``register`` the same rule as pluggy's: only while the hook runs."""
    kept: list[Any] = []
    monkeypatch.setattr(builtins, "register_tool_schemes", lambda register: kept.append(register))
    PluginHost(entry_points=False)
    with pytest.raises(RegistrationError, match="after the hook returned"):
        kept[0](LazyReader("late", ".renderers.prompt_data:reader"))
