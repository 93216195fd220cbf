"""Wrapper hook implementations: the host calls each plugin's hook on its own, in load order, and
pluggy runs a wrapper there as it runs wrappers, around that plugin's turn and nothing else.

A wrapper must still run (a host that called implementation functions one by one once created a
wrapper's generator and never ran it: it registered nothing, silently); what it registers before
and after its ``yield`` is its own plugin's; and since a ``register_*`` hook returns nothing and
registering is per plugin, there is nothing of another plugin's for it to wrap.
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


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        (("Inner", "Outer"), ["inner runs", "outer before", "outer after"]),
        (("Outer", "Inner"), ["outer before", "outer after", "inner runs"]),
    ],
    ids=["wrapper loaded last", "wrapper loaded first"],
)
def test_a_wrapper_runs_in_its_plugins_turn_and_wraps_no_other_plugin(
    make_host: MakeHost, events: list[str], order: tuple[str, str], expected: list[str]
) -> None:
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

    plugins = {"Inner": Inner, "Outer": Outer}
    host = make_host(*(plugins[name] for name in order))
    assert events == expected
    owners = registrations(host)
    assert (owners["Inner"], owners["Outer"]) == (["inner"], ["outer"])
    assert owners["promptwire"] == ["agentscript", "agens", "agently", "messages", "conversation", "template"]
    assert host.names("renderers")[-2:] == tuple(name.lower() for name in order)  # load order


def test_a_wrapper_never_sees_another_plugins_error(make_host: MakeHost, events: list[str]) -> None:
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
        make_host(Watching, Faulty)
    assert events == []


def test_a_clash_fails_at_the_register_call_that_made_it(make_host: MakeHost, events: list[str]) -> None:
    class Both:
        @staticmethod
        @hookimpl(wrapper=True)
        def register_renderers(register: Any) -> Generator[None, object, object]:
            result = yield
            try:
                register(Fmt("messages"))
            except RegistrationError as exc:
                events.append(str(exc))
            register(Fmt("both"))
            return result

    assert registrations(make_host(Both))["Both"] == ["both"]
    assert events == ["renderer name 'messages' is registered twice: by plugin 'promptwire' and by plugin 'Both'"]


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
