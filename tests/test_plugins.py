from __future__ import annotations

import sys
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import promptwire
from promptwire import PluginHost, Prompt, RenderedPrompt, hookimpl
from promptwire.core import Message
from promptwire.core.errors import RegistrationError, UnknownNameError

BUILTIN_RENDERERS = {"agentscript", "agens", "agently", "messages"}


class ShoutRenderer:
    name = "shout"
    description = "the instruction in capitals"
    fields = frozenset({"instruction"})

    def render(self, prompt: Prompt, **options: Any) -> RenderedPrompt:
        text = str(prompt.instruction).upper()
        return RenderedPrompt(format=self.name, messages=(Message("user", text),), text=text)


class ShoutPlugin:
    """A plugin given as a class (pluggy collects its static hook functions)."""

    @staticmethod
    @hookimpl
    def register_renderers(register: Any) -> None:
        register(ShoutRenderer(), aliases=("loud",))


class ShoutInstance:
    @hookimpl
    def register_renderers(self, register: Any) -> None:
        register(ShoutRenderer())


def _module_plugin() -> types.ModuleType:
    module = types.ModuleType("shout_module")

    @hookimpl
    def register_renderers(register: Any) -> None:
        register(ShoutRenderer())

    module.register_renderers = register_renderers  # type: ignore[attr-defined]
    return module


@pytest.fixture
def bare_host() -> PluginHost:
    """A host with built-ins only: installed third-party plugins must not leak into tests."""
    return PluginHost(entry_points=False)


def test_builtins_register_through_the_hooks(bare_host: PluginHost) -> None:
    (info,) = bare_host.plugins()
    assert info.name == "promptwire"
    assert "register_renderers" in info.hooks
    assert set(info.registers["renderers"]) >= BUILTIN_RENDERERS
    assert {"prompt", "agens"} <= set(info.registers["readers"])


@pytest.mark.parametrize(
    "plugin", [ShoutPlugin, ShoutInstance(), _module_plugin()], ids=["class", "instance", "module"]
)
def test_plugin_as_class_instance_or_module(plugin: object) -> None:
    host = PluginHost(entry_points=False, plugins=[plugin])
    rendered = promptwire.render({"instruction": "hi"}, "shout", host=host)
    assert rendered.text == "HI"
    assert "shout" in promptwire.renderers_available(host)


def test_alias_resolves_but_is_not_listed() -> None:
    host = PluginHost(entry_points=False, plugins=[ShoutPlugin])
    assert host.renderer("loud") is host.renderer("shout")
    assert "loud" not in host.renderers.names()


def test_name_registered_twice_names_both_plugins() -> None:
    class Clash:
        @staticmethod
        @hookimpl
        def register_renderers(register: Any) -> None:
            clash = ShoutRenderer()
            clash.name = "agens"
            register(clash)

    with pytest.raises(
        RegistrationError, match=r"'agens' is registered twice: by plugin 'promptwire' and by plugin 'Clash'"
    ):
        PluginHost(entry_points=False, plugins=[Clash])


def test_renderer_without_render_method_is_refused() -> None:
    class Broken:
        @staticmethod
        @hookimpl
        def register_renderers(register: Any) -> None:
            register(types.SimpleNamespace(name="broken", description=""))

    with pytest.raises(RegistrationError, match="renderer 'broken' has no callable 'render'"):
        PluginHost(entry_points=False, plugins=[Broken])


def test_unknown_format_lists_the_available_ones(bare_host: PluginHost) -> None:
    with pytest.raises(
        UnknownNameError, match=r"unknown renderer 'nope' \(available: agentscript, agens, agently, messages"
    ):
        promptwire.render({"instruction": "x"}, "nope", host=bare_host)


@pytest.fixture
def installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Lay out a distribution the way pip installs one: a module plus a dist-info with entry points."""
    (tmp_path / "pw_shout.py").write_text(
        textwrap.dedent(
            """
            from promptwire import hookimpl, RenderedPrompt
            from promptwire.core import Message

            class Whisper:
                name = "whisper"
                description = "the instruction in lower case"
                fields = frozenset({"instruction"})

                def render(self, prompt, **options):
                    text = str(prompt.instruction).lower()
                    return RenderedPrompt(format=self.name, messages=(Message("user", text),), text=text)

            @hookimpl
            def register_renderers(register):
                register(Whisper())
            """
        )
    )
    dist_info = tmp_path / "pw_shout-1.2.3.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: pw-shout\nVersion: 1.2.3\n")
    (dist_info / "entry_points.txt").write_text("[promptwire]\nwhisper = pw_shout\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("pw_shout", None)


def test_entry_point_plugin_loads_like_an_installed_distribution(installed_plugin: Path) -> None:
    host = PluginHost()
    assert promptwire.render({"instruction": "HeLLo"}, "whisper", host=host).text == "hello"
    info = {i.name: i for i in host.plugins()}["whisper"]
    assert info.version == "1.2.3"
    assert info.registers["renderers"] == ["whisper"]


def test_allow_list_skips_unlisted_entry_points(installed_plugin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMPTWIRE_PLUGINS", "")
    host = PluginHost()
    assert "whisper" not in host.renderers.names()
    assert set(host.renderers.names()) >= BUILTIN_RENDERERS
    monkeypatch.setenv("PROMPTWIRE_PLUGINS", "whisper")
    assert "whisper" in PluginHost().renderers.names()


def test_broken_entry_point_is_reported_with_its_name(installed_plugin: Path) -> None:
    (installed_plugin / "pw_shout.py").write_text("raise RuntimeError('boom')\n")
    with pytest.raises(RegistrationError, match=r"plugin 'whisper' \(pw_shout\) failed to load: RuntimeError: boom"):
        PluginHost()
