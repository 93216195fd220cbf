"""The hooks a promptwire plugin implements, and the marker it implements them with.

The contract *is* this documentation. A plugin is any module, class or instance with functions
marked ``@hookimpl`` and named like the specs below; everything a plugin needs, ``hookimpl``
included, is importable from ``promptwire.plugin``. Installed distributions announce plugins under
the entry-point group ``promptwire``; the built-in formats register through these very hooks.

Every hook receives one argument, a ``register`` callback, so one plugin can register several things
(the style of ``llm``'s ``register_models``). The rules common to all of them:

* Call ``register(obj, aliases=())`` while the hook runs: from the hook function, a helper it calls
  or a thread it waits for. Each plugin's hook is given a ``register`` of its own, so whatever it
  registers is that plugin's; a ``register`` kept and called after the hook returned is refused.
* ``obj`` must have a non-empty string ``name``; ``aliases`` is a tuple or list of further names.
  A plain string is refused (``aliases="shout"`` would otherwise mean five one-letter names).
* The host stores ``obj`` under its name and aliases. A name another plugin, or the same one, already
  took raises :class:`promptwire.plugin.RegistrationError` naming both plugins. Names are listed
  in plugin load order (built-ins, then installed plugins, then plugins passed to ``PluginHost``),
  aliases resolve but are not listed.
* The return value is ignored. After every plugin is loaded, the host calls each hook on each plugin
  in turn, in plugin load order (pluggy's ``subset_hook_caller``).
* An implementation may be a wrapper (``@hookimpl(wrapper=True)`` or ``hookwrapper=True``). pluggy
  runs it as it runs wrappers, but around its own plugin's turn only: it wraps no other plugin's
  implementation and sees none of their errors. What it registers before or after its ``yield`` is
  its own plugin's.
* A plugin must be hashable (pluggy leaves the other plugins out of a call by hashing them): an
  instance of a ``@dataclass`` needs ``eq=False`` or ``frozen=True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import pluggy

PROJECT_NAME = "promptwire"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
"""Marks a plugin's hook function: ``@hookimpl``, or ``@hookimpl(wrapper=True)`` and pluggy's other options."""


class RegisterCallback(Protocol):
    """The ``register`` argument of every hook (see the module docstring for its rules)."""

    def __call__(self, obj: Any, aliases: Sequence[str] = ()) -> None: ...


@hookspec
def register_renderers(register: RegisterCallback) -> None:
    """Register prompt formats.

    :param register: call ``register(renderer, aliases=())`` once per format. ``renderer`` has a
        ``name`` (what users pass as ``format=`` and ``asrender render --format``), a one-line
        ``description``, the frozenset ``fields`` of prompt fields it expresses, and
        ``render(prompt, *, strict=False, **options) -> RenderedPrompt``
        (see ``promptwire.plugin.Renderer``; ``unexpressed_fields`` makes the warnings for the
        fields it cannot express, ``builtin_renderer(name)`` is a built-in format to build on).

    The host refuses a renderer without a callable ``render``, then serves it to
    ``promptwire.render(prompt, format=name)`` and ``PluginHost.renderer(name)`` under its name and
    aliases, and lists its name under this plugin in ``asrender plugins``.
    """


@hookspec
def register_adapters(register: RegisterCallback) -> None:
    """Register provider adapters.

    :param register: call ``register(adapter, aliases=())`` once per provider. ``adapter`` has a
        ``name`` (the provider, e.g. ``"openai"``), a one-line ``description`` and the three methods
        of ``promptwire.calls.generate.ModelAdapter``: ``build_request(rendered, config, contract,
        model) -> ProviderRequest``, pure (no network, no SDK import: a dry run prints its
        ``kwargs`` and ``notes``); ``send(request, timeout)``, one HTTP request per call (no retries
        of its own), raising the ``promptwire.plugin.ProviderError`` subclass that says what failed
        (``status_error`` reads an HTTP status); and ``parse_reply(raw) -> Reply``. Optionally
        ``model_name(uri) -> str``: the model a URI of the adapter's own protocol (``NAME://...``)
        names, so that ``asrender --provider`` can send a program's model of that protocol to
        another provider. Optionally too, for streamed and awaited calls (see
        ``promptwire.calls.links``): ``streamed(request)``, the request with the provider's
        stream flags; ``stream(request, timeout)``, the reply's text as it arrives then the
        ``Whole`` reply; ``asend`` and ``astream``, the same on an event loop. Without them the
        adapter still serves both: its whole text is passed on when it comes, and on an event loop
        its calls run in worker threads. ``promptwire.plugin.ProviderAdapter`` is a skeleton that
        does all but the provider's own part (the request, the call, its errors, the reply);
        ``StreamingAdapter`` adds streaming to it. An adapter may declare ``protocol``, the scheme
        of its model URIs (``"echo"`` for ``echo://NAME``), and ``with_base_url(url)``, a copy of it
        that sends to ``url`` (the skeleton has both; without the second, ``--base-url`` refuses
        the adapter).

    The host serves it from ``PluginHost.adapter(name)`` under its name and aliases: to
    ``promptwire.generate(prompt, provider=name)`` (and ``agenerate``, ``stream``,
    ``astream``), ``promptwire.build_request``, ``promptwire.run`` and
    ``asrender --provider NAME`` (which retargets a program's model to it: a URI of another
    protocol becomes the name that protocol's adapter reads in it, and the call's request notes
    say so). With ``--provider auto`` (``provider="auto"``) each call whose model URI has the
    adapter's ``protocol`` as its scheme goes to it; when several adapters declare one scheme,
    the first registered serves it (promptwire's own come first). It lists the name under this
    plugin in ``asrender plugins``.
    """


@hookspec
def register_readers(register: RegisterCallback) -> None:
    """Register readers: native prompt inputs (prompt data, Agens messages, Agently dicts, a provider's request
    body) that become a core ``Prompt``.

    :param register: call ``register(reader, aliases=())`` once per input dialect. ``reader`` has a
        ``name`` (what ``asrender render --from NAME`` takes), a one-line ``description`` and
        ``read(data) -> Prompt``, where ``data`` is the already-parsed JSON/YAML value; bad data
        must raise ``promptwire.plugin.FieldError`` naming the field. A reader of a provider's
        request body may name the body's field that names its model (``model_field = "model"``),
        which ``read`` keeps in ``Prompt.native[name]``: a run of what it read (``asrender FILE
        --from NAME``, each row of ``asrender batch``) asks for that model unless ``--model``
        replaces it.

    The host refuses a reader without a callable ``read``, then serves it from
    ``PluginHost.reader(name)`` under its name and aliases, and lists its name under this plugin in
    ``asrender plugins``.
    """


@hookspec
def register_tool_schemes(register: RegisterCallback) -> None:
    """Register AgentScript tool and memory URI schemes.

    :param register: call ``register(scheme, aliases=())`` once per scheme. ``scheme`` has a
        ``name`` (the URI scheme, e.g. ``"file"``, ``"s3"``, as in
        ``import tool X from "s3://..."``), a one-line ``description``, the ``kinds`` it serves
        (``{"tool"}``, ``{"memory"}`` or both) and the methods of
        ``promptwire.plugin.ToolScheme``: ``call_tool(request, context) -> ToolOutcome`` and
        ``call_memory(request, context) -> MemoryOutcome``, raising ``ToolError`` with the message
        a program sees.

    The host serves it from ``PluginHost.tool_scheme(name)`` under its name and aliases to the
    AgentScript interpreter, which refuses a kind the scheme does not serve, and lists its name
    under this plugin in ``asrender plugins``.
    """


def _spec_names() -> tuple[str, ...]:
    marker = f"{PROJECT_NAME}_spec"
    return tuple(name for name, value in globals().items() if callable(value) and hasattr(value, marker))


HOOK_NAMES: tuple[str, ...] = _spec_names()
"""Every hook a plugin may implement, in the order they are documented above."""

__all__ = ["HOOK_NAMES", "PROJECT_NAME", "RegisterCallback", "hookimpl", "hookspec"]
