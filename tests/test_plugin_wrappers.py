"""Wrapper hook implementations: pluggy runs them around every other plugin's implementation.

The host used to call implementations one by one, so a wrapper's generator was created and never
run: it registered nothing, silently. These tests pin the pluggy semantics and that each
registration is still credited to the plugin whose code made it.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Generator
from typing import Any

import pytest

from promptwire import PluginHost, hookimpl
from promptwire.core.errors import RegistrationError

MakeHost = Callable[..., PluginHost]


@pytest.fixture
def make_host() -> MakeHost:
    """A fresh host per call, built-ins plus the given plugins; installed plugins never leak in."""

    def make(*plugins: object) -> PluginHost:
        return PluginHost(entry_points=False, plugins=plugins)

    return make


@pytest.fixture
def events() -> list[str]:
    return []


class Fmt:
    """A minimal renderer; only its name matters here."""

    description = "a test format"
    fields = frozenset({"instruction"})

    def __init__(self, name: str) -> None:
        self.name = name

    def render(self, prompt: Any, **options: Any) -> Any:
        raise AssertionError("not rendered in these tests")


def registrations(host: PluginHost) -> dict[str, list[str]]:
    return {info.name: info.registers["renderers"] for info in host.plugins()}


def test_new_style_wrapper_registers_before_and_after_yield(make_host: MakeHost) -> None:
    class Wrapping:
        @staticmethod
        @hookimpl(wrapper=True)
        def register_renderers(register: Any) -> Generator[None, object, object]:
            register(Fmt("before"))
            result = yield
            register(Fmt("after"))
            return result

    host = make_host(Wrapping)
    assert registrations(host)["Wrapping"] == ["before", "after"]
    assert host.renderer("after").name == "after"


def test_old_style_hookwrapper_registers(make_host: MakeHost) -> None:
    @hookimpl(hookwrapper=True)
    def register_renderers(register: Any) -> Generator[None, object, None]:
        register(Fmt("old-before"))
        yield
        register(Fmt("old-after"))

    module = types.ModuleType("old_style")
    module.register_renderers = register_renderers  # type: ignore[attr-defined]
    assert registrations(make_host(module))["old_style"] == ["old-before", "old-after"]


def test_wrapper_as_an_instance_method(make_host: MakeHost) -> None:
    class Configured:
        def __init__(self, names: list[str]) -> None:
            self.names = names

        @hookimpl(wrapper=True)
        def register_renderers(self, register: Any) -> Generator[None, object, object]:
            result = yield
            for name in self.names:
                register(Fmt(name))
            return result

    assert registrations(make_host(Configured(["p", "q"])))["Configured"] == ["p", "q"]


def test_wrapper_wraps_another_plugins_implementation(make_host: MakeHost, events: list[str]) -> None:
    class Inner:
        @staticmethod
        @hookimpl
        def register_renderers(register: Any) -> None:
            events.append("inner runs")
            register(Fmt("inner"))

    class Outer:
        @staticmethod
        @hookimpl(wrapper=True)
        def register_renderers(register: Any) -> Generator[None, object, object]:
            events.append("outer before")
            result = yield
            events.append("outer after")
            register(Fmt("outer"))
            return result

    host = make_host(Inner, Outer)
    assert events == ["outer before", "inner runs", "outer after"]
    owners = registrations(host)
    # What the wrapped plugin registers is its own, what the wrapper registers is the wrapper's.
    assert (owners["Inner"], owners["Outer"]) == (["inner"], ["outer"])
    assert owners["promptwire"] == ["agentscript", "agens", "agently", "messages", "template"]


def test_wrapper_sees_the_error_of_the_implementation_it_wraps(make_host: MakeHost, events: list[str]) -> None:
    class Faulty:
        @staticmethod
        @hookimpl
        def register_renderers(register: Any) -> None:
            register(Fmt("faulty"), aliases="f")

    class Watching:
        @staticmethod
        @hookimpl(wrapper=True)
        def register_renderers(register: Any) -> Generator[None, object, object]:
            try:
                return (yield)
            except RegistrationError as exc:
                events.append(str(exc))
                raise

    with pytest.raises(RegistrationError, match="plugin 'Faulty'"):
        make_host(Faulty, Watching)
    assert events == ["plugin 'Faulty': renderer 'faulty': aliases must be a tuple or list of names, not 'f'"]


def test_wrapper_registrations_clash_like_any_other(make_host: MakeHost) -> None:
    class Shadowing:
        @staticmethod
        @hookimpl(wrapper=True)
        def register_renderers(register: Any) -> Generator[None, object, object]:
            result = yield
            register(Fmt("messages"))
            return result

    with pytest.raises(
        RegistrationError, match="'messages' is registered twice: by plugin 'promptwire' and by plugin 'Shadowing'"
    ):
        make_host(Shadowing)
