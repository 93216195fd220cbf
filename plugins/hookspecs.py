"""The hooks a promptwire plugin implements. The contract *is* this documentation.

A plugin is any module, class or instance with functions marked ``@promptwire.plugins.hookimpl``
and named like the specs below. Installed distributions announce plugins under the entry-point
group ``promptwire``; the built-in formats register through these very hooks.

Each hook receives a ``register`` callback, so one plugin can register several things (the style of
``llm``'s ``register_models``). Registering a name that another plugin (or the same one) already took
raises :class:`promptwire.core.errors.RegistrationError` naming both plugins.
"""

from __future__ import annotations

from collections.abc import Callable

import pluggy

PROJECT_NAME = "promptwire"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)

RegisterCallback = Callable[..., None]


@hookspec
def register_renderers(register: RegisterCallback) -> None:
    """Register prompt formats.

    Call ``register(renderer, aliases=())`` once per format. ``renderer`` is an object with a
    ``name`` (what users pass as ``format=``), a one-line ``description``, and
    ``render(prompt, **options) -> RenderedPrompt`` (see ``promptwire.renderers.base.Renderer``).
    ``aliases`` are extra names for the same renderer. The host calls this once, when it loads.
    """


@hookspec
def register_adapters(register: RegisterCallback) -> None:
    """Register provider adapters.

    Call ``register(adapter, aliases=())`` once per provider. ``adapter`` is an object with a
    ``name`` and a ``description``; the request-building and sending methods it must offer are
    defined by the adapters issue. The host stores it under its name and aliases.
    """


@hookspec
def register_readers(register: RegisterCallback) -> None:
    """Register front doors: native prompt inputs that become a core ``Prompt``.

    Call ``register(reader, aliases=())`` once per input dialect. ``reader`` is an object with a
    ``name`` (what ``asrender render --from NAME`` takes), a ``description`` and
    ``read(data) -> Prompt``, where ``data`` is the already-parsed JSON/YAML value. Bad data must
    raise ``promptwire.core.errors.FieldError`` naming the field.
    """


def _spec_names() -> tuple[str, ...]:
    return tuple(name for name, value in globals().items() if name.startswith("register_") and callable(value))


HOOK_NAMES: tuple[str, ...] = _spec_names()

__all__ = ["HOOK_NAMES", "PROJECT_NAME", "RegisterCallback", "hookspec"]
