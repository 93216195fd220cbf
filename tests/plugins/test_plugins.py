"""The plugin host: plugins in every form, the registries they fill, and the errors that name plugins.

Wrappers are in ``test_plugin_wrappers.py``, installed entry points in ``test_plugin_entry_points.py``,
the lazy built-ins in ``test_plugin_builtins.py``.
"""

from __future__ import annotations

import dataclasses
import inspect
import threading
import types
from collections.abc import Callable
from typing import Any

import pytest

import promptwire
import promptwire.plugins
from promptwire import PluginHost, Prompt, RenderedPrompt, hookimpl
from promptwire.core import Message
from promptwire.core.errors import RegistrationError, UnknownNameError
from promptwire.plugins import hookspecs
from promptwire.plugins.builtins import ADAPTERS, TOOL_SCHEMES
from promptwire.plugins.manager import KINDS

BUILTIN_RENDERERS = ["agentscript", "agens", "agently", "messages", "conversation", "template"]
BUILTIN_READERS = [
    "prompt",
    "agens",
    "agently",
    "openai-chat",
    "openai-responses",
    "anthropic",
    "ollama",
    "gemini",
    "bedrock",
]

MakeHost = Callable[..., PluginHost]


@pytest.fixture
def make_host() -> MakeHost:
    """A fresh host per call, built-ins plus the given plugins; installed plugins never leak in."""

    def make(*plugins: object, builtins: bool = True) -> PluginHost:
        return PluginHost(builtins=builtins, entry_points=False, plugins=plugins)

    return make


@pytest.fixture
def host(make_host: MakeHost) -> PluginHost:
    return make_host()


class ShoutRenderer:
    name = "shout"
    description = "the instruction in capitals"
    fields = frozenset({"instruction"})

    def render(self, prompt: Prompt, **options: Any) -> RenderedPrompt:
        text = str(prompt.instruction).upper()
        return RenderedPrompt(format=self.name, messages=(Message("user", text),), text=text)


def renderer_named(name: str) -> ShoutRenderer:
    renderer = ShoutRenderer()
    renderer.name = name
    return renderer


class ShoutPlugin:
    """A plugin given as a class (pluggy collects its static hook functions)."""

    @staticmethod
    @hookimpl
    def register_renderers(register: Any) -> None:
        register(ShoutRenderer(), aliases=("loud",))


class ShoutInstance:
    """A plugin given as an instance (pluggy collects its bound hook methods)."""

    def __init__(self, renderer_name: str = "shout") -> None:
        self.renderer_name = renderer_name

    @hookimpl
    def register_renderers(self, register: Any) -> None:
        register(renderer_named(self.renderer_name))


def module_plugin(name: str = "shout_module", **hooks: Callable[..., None]) -> types.ModuleType:
    """A plugin given as a module, with the given hook functions (marked here)."""
    module = types.ModuleType(name)
    for hook_name, function in hooks.items():
        setattr(module, hook_name, hookimpl(function))
    return module


def register_shout(register: Any) -> None:
    register(ShoutRenderer())


def plugin_registering(plugin_name: str, hook: str, *objects: object, **register_options: Any) -> type:
    """A class plugin named ``plugin_name`` whose ``hook`` registers ``objects``."""

    def hook_function(register: Any) -> None:
        for obj in objects:
            register(obj, **register_options)

    return type(plugin_name, (), {hook: staticmethod(hookimpl(hook_function))})


def test_builtins_register_through_the_hooks(host: PluginHost) -> None:
    (info,) = host.plugins()
    assert info.name == "promptwire"
    assert info.hooks == ("register_adapters", "register_readers", "register_renderers", "register_tool_schemes")
    assert info.registers == {
        "renderers": BUILTIN_RENDERERS,
        "adapters": list(ADAPTERS),
        "readers": BUILTIN_READERS,
        "tool_schemes": list(TOOL_SCHEMES),
    }


def test_plugin_info_json_shape(host: PluginHost) -> None:
    (data,) = [info.to_dict() for info in host.plugins()]
    assert list(data) == ["name", "version", "hooks", "renderers", "adapters", "readers", "tool_schemes"]


@pytest.mark.parametrize(
    "plugin",
    [ShoutPlugin, ShoutInstance(), module_plugin(register_renderers=register_shout)],
    ids=["class", "instance", "module"],
)
def test_plugin_as_class_instance_or_module(make_host: MakeHost, plugin: object) -> None:
    host = make_host(plugin)
    rendered = promptwire.render({"instruction": "hi"}, "shout", host=host)
    assert rendered.text == "HI"
    assert promptwire.renderers_available(host) == (*BUILTIN_RENDERERS, "shout")
    assert host.plugins()[-1].registers["renderers"] == ["shout"]


def test_plugins_are_named_after_their_module_class_or_instance_class(make_host: MakeHost) -> None:
    host = make_host(
        ShoutPlugin, ShoutInstance("whisper"), module_plugin("my_module", register_renderers=lambda register: None)
    )
    assert [info.name for info in host.plugins()] == ["promptwire", "ShoutPlugin", "ShoutInstance", "my_module"]


def test_two_instances_of_one_plugin_class_are_told_apart(make_host: MakeHost) -> None:
    first, second = ShoutInstance("first"), ShoutInstance("second")
    first.__name__ = "first-plugin"  # type: ignore[attr-defined]
    second.__name__ = "second-plugin"  # type: ignore[attr-defined]
    owners = {info.name: info.registers["renderers"] for info in make_host(first, second).plugins()}
    assert owners["first-plugin"] == ["first"]
    assert owners["second-plugin"] == ["second"]


def test_two_plugins_with_one_name_are_refused(make_host: MakeHost) -> None:
    with pytest.raises(RegistrationError, match="two plugins are named 'ShoutInstance'"):
        make_host(ShoutInstance("a"), ShoutInstance("b"))


def test_alias_resolves_but_is_not_listed(make_host: MakeHost) -> None:
    host = make_host(ShoutPlugin)
    assert host.renderer("loud") is host.renderer("shout")
    assert "loud" not in host.names("renderers")


@pytest.mark.parametrize(
    ("aliases", "complaint"),
    [
        ("shout", "aliases must be a tuple or list of names, not 'shout'"),
        (b"shout", "aliases must be a tuple or list of names, not b'shout'"),
        (3, "aliases must be a tuple or list of names, not 3"),
        (("loud", 3), "every alias must be a non-empty string, not 3"),
        (["loud", ""], "every alias must be a non-empty string, not ''"),
    ],
)
def test_aliases_must_be_a_collection_of_names(make_host: MakeHost, aliases: object, complaint: str) -> None:
    plugin = plugin_registering("Aliased", "register_renderers", ShoutRenderer(), aliases=aliases)
    with pytest.raises(RegistrationError) as info:
        make_host(plugin)
    assert str(info.value) == f"plugin 'Aliased': renderer 'shout': {complaint}"


def test_a_string_alias_registers_no_one_letter_names(make_host: MakeHost) -> None:
    plugin = plugin_registering("Aliased", "register_renderers", ShoutRenderer(), aliases="shout")
    with pytest.raises(RegistrationError):
        make_host(plugin)
    host = make_host()
    with pytest.raises(UnknownNameError):
        host.renderer("s")


def test_name_clash_with_a_builtin_names_both_plugins(make_host: MakeHost) -> None:
    with pytest.raises(
        RegistrationError,
        match=r"^renderer name 'agens' is registered twice: by plugin 'promptwire' and by plugin 'Clash'$",
    ):
        make_host(plugin_registering("Clash", "register_renderers", renderer_named("agens")))


def test_name_clash_between_plugins_names_them_in_load_order(make_host: MakeHost) -> None:
    # pluggy calls the later plugin first; the message still follows load order.
    first = plugin_registering("First", "register_renderers", renderer_named("x"))
    second = plugin_registering("Second", "register_renderers", renderer_named("y"), aliases=("x",))
    with pytest.raises(
        RegistrationError, match=r"^renderer name 'x' is registered twice: by plugin 'First' and by plugin 'Second'$"
    ):
        make_host(first, second)


def test_name_clash_within_one_plugin(make_host: MakeHost) -> None:
    twice = plugin_registering("Twice", "register_renderers", ShoutRenderer(), ShoutRenderer())
    with pytest.raises(RegistrationError, match="'shout' is registered twice: by plugin 'Twice' and by plugin 'Twice'"):
        make_host(twice)
    own_alias = plugin_registering("OwnAlias", "register_renderers", ShoutRenderer(), aliases=("shout",))
    with pytest.raises(RegistrationError, match="by plugin 'OwnAlias' and by plugin 'OwnAlias'"):
        make_host(own_alias)


def test_names_are_listed_in_plugin_load_order(make_host: MakeHost) -> None:
    first = plugin_registering("First", "register_renderers", renderer_named("b"), renderer_named("a"))
    second = plugin_registering("Second", "register_renderers", renderer_named("c"))
    assert make_host(first, second).names("renderers") == (*BUILTIN_RENDERERS, "b", "a", "c")


def test_renderer_without_render_method_is_refused(make_host: MakeHost) -> None:
    broken = plugin_registering("Broken", "register_renderers", types.SimpleNamespace(name="broken", description=""))
    with pytest.raises(RegistrationError, match="plugin 'Broken': renderer 'broken' has no callable 'render'"):
        make_host(broken)


def test_reader_without_read_method_is_refused(make_host: MakeHost) -> None:
    broken = plugin_registering("Broken", "register_readers", types.SimpleNamespace(name="broken", read="not callable"))
    with pytest.raises(RegistrationError, match="plugin 'Broken': reader 'broken' has no callable 'read'"):
        make_host(broken)


@pytest.mark.parametrize("name", [None, "", 3])
def test_registration_without_a_string_name_is_refused(make_host: MakeHost, name: object) -> None:
    nameless = plugin_registering("Nameless", "register_adapters", types.SimpleNamespace(name=name))
    with pytest.raises(RegistrationError, match="plugin 'Nameless' registered a adapter without a string 'name'"):
        make_host(nameless)


def test_unknown_format_lists_the_available_ones(host: PluginHost) -> None:
    with pytest.raises(
        UnknownNameError,
        match=r"unknown renderer 'nope' \(available: agentscript, agens, agently, messages, conversation, template\)",
    ):
        promptwire.render({"instruction": "x"}, "nope", host=host)


def test_tool_schemes_register_resolve_and_are_listed(make_host: MakeHost) -> None:
    s3 = types.SimpleNamespace(name="s3", description="objects in Amazon S3")
    gcs = types.SimpleNamespace(name="gs", description="objects in Google Cloud Storage")
    host = make_host(plugin_registering("Storage", "register_tool_schemes", s3, gcs))
    assert host.tool_scheme("s3") is s3
    assert host.names("tool_schemes") == (*TOOL_SCHEMES, "s3", "gs")
    info = host.plugins()[-1].to_dict()
    assert (info["hooks"], info["tool_schemes"]) == (["register_tool_schemes"], ["s3", "gs"])
    available = ", ".join((*TOOL_SCHEMES, "s3", "gs"))
    with pytest.raises(UnknownNameError, match=rf"unknown tool scheme 'ftp' \(available: {available}\)"):
        host.tool_scheme("ftp")


def test_tool_scheme_clash_names_both_plugins(make_host: MakeHost) -> None:
    one = plugin_registering("One", "register_tool_schemes", types.SimpleNamespace(name="s3"))
    other = plugin_registering("Other", "register_tool_schemes", types.SimpleNamespace(name="bucket"), aliases=["s3"])
    with pytest.raises(
        RegistrationError, match="tool scheme name 's3' is registered twice: by plugin 'One' and by plugin 'Other'"
    ):
        make_host(one, other)


def test_adapters_and_readers_resolve_by_name_and_alias(make_host: MakeHost) -> None:
    adapter = types.SimpleNamespace(name="echo", description="sends nothing")
    reader = types.SimpleNamespace(
        name="plain", description="a bare instruction", read=lambda data: Prompt(instruction=data)
    )
    host = make_host(
        plugin_registering("Adapters", "register_adapters", adapter, aliases=("parrot",)),
        plugin_registering("Readers", "register_readers", reader),
    )
    assert host.adapter("parrot") is host.adapter("echo") is adapter
    assert host.reader("plain").read("hi").instruction == "hi"


def test_a_misspelt_hook_is_an_error_not_silence(make_host: MakeHost) -> None:
    typo = module_plugin("typo_plugin", register_renderer=register_shout)
    with pytest.raises(
        RegistrationError, match=r"plugin 'typo_plugin': unknown hook 'register_renderer'.*register_renderers"
    ):
        make_host(typo)


def test_a_hook_function_with_a_wrong_argument_is_refused(make_host: MakeHost) -> None:
    wrong = module_plugin("wrong_args", register_renderers=lambda registry: None)
    with pytest.raises(RegistrationError, match="plugin 'wrong_args' is not a valid promptwire plugin"):
        make_host(wrong)


def test_register_kept_for_later_is_refused(make_host: MakeHost) -> None:
    kept: list[Any] = []

    def keep(register: Any) -> None:
        kept.append(register)

    host = make_host(module_plugin("keeper", register_renderers=keep))
    assert "shout" not in host.names("renderers")
    with pytest.raises(
        RegistrationError, match="register_renderers: register\\(\\) was called after the hook returned"
    ):
        kept[0](ShoutRenderer())


def test_register_called_from_a_helper_counts_for_the_plugin(make_host: MakeHost) -> None:
    def helper(register: Any) -> None:
        register(ShoutRenderer())

    host = make_host(module_plugin("delegating", register_renderers=lambda register: helper(register)))
    assert host.plugins()[-1].registers["renderers"] == ["shout"]


def test_a_host_without_builtins_has_only_the_given_plugins(make_host: MakeHost) -> None:
    host = make_host(ShoutPlugin, builtins=False)
    assert [info.name for info in host.plugins()] == ["ShoutPlugin"]
    assert host.names("renderers") == ("shout",)


def test_hookimpl_is_one_marker_everywhere() -> None:
    assert promptwire.hookimpl is promptwire.plugins.hookimpl is hookspecs.hookimpl


def test_every_hook_fills_a_registry_listed_by_plugins(host: PluginHost) -> None:
    assert tuple(f"register_{kind}" for kind in KINDS) == hookspecs.HOOK_NAMES
    assert list(host.plugins()[0].registers) == list(host.registries) == list(KINDS)


@pytest.mark.parametrize("hook_name", hookspecs.HOOK_NAMES)
def test_every_hook_spec_documents_its_arguments_and_what_the_host_does(hook_name: str) -> None:
    spec = getattr(hookspecs, hook_name)
    doc = inspect.getdoc(spec) or ""
    for argument in inspect.signature(spec).parameters:
        assert f":param {argument}:" in doc, argument
    assert "The host " in doc


def test_renderer_options_are_read_from_the_render_signature() -> None:
    class AnyOption:
        name = "any-option"
        description = "takes every keyword"
        fields = frozenset({"instruction"})

        def render(self, prompt: object, **options: object) -> object:
            return options

    class Keyed(AnyOption):
        name = "keyed"

        def render(self, prompt: object, width: int = 80, *, strict: bool = False) -> object:  # type: ignore[override]
            return width

    class Plugin:
        @staticmethod
        @hookimpl
        def register_renderers(register: Any) -> None:
            register(AnyOption())
            register(Keyed())

    host = PluginHost(entry_points=False, plugins=[Plugin])
    assert host.renderer_options("any-option") is None  # takes any keyword: no guessing
    assert host.renderer_options("keyed") == frozenset({"width", "strict"})
    assert host.renderer_options("template") == frozenset({"template", "source", "strict"})  # a lazy built-in


def test_register_called_from_another_thread_while_the_hook_runs_counts_for_the_plugin(make_host: MakeHost) -> None:
    def in_a_thread(register: Any) -> None:
        worker = threading.Thread(target=register, args=(ShoutRenderer(),))
        worker.start()
        worker.join()

    host = make_host(module_plugin("threaded", register_renderers=in_a_thread))
    assert host.plugins()[-1].registers["renderers"] == ["shout"]


@hookimpl
def _register_own_names(self: Any, register: Any) -> None:
    for name in self.names:
        register(renderer_named(name))


def test_an_unhashable_plugin_is_refused_by_name(make_host: MakeHost) -> None:
    @dataclasses.dataclass
    class Configured:  # eq=True without frozen=True: __hash__ is None
        names: tuple[str, ...]
        register_renderers = _register_own_names

    @dataclasses.dataclass(eq=False)
    class ByIdentity:
        names: tuple[str, ...]
        register_renderers = _register_own_names

    with pytest.raises(RegistrationError, match=r"plugin 'Configured' cannot be hashed.*eq=False or frozen=True"):
        make_host(Configured(("a",)))
    assert make_host(ByIdentity(("a", "b"))).names("renderers")[-2:] == ("a", "b")
