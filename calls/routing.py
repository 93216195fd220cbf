"""Where each model call of a run goes: a lookup made before its request is built.

A run's provider is ``offline`` (the default: no key, no network), one adapter by name, or ``auto``:
each call goes to the adapter that declares its model URI's scheme as its ``protocol``:
``openai://`` to ``openai``, ``anthropic://`` to ``anthropic``, ``ollama://`` to ``ollama``, and a
plugin adapter's own scheme to it. When two adapters declare one scheme the first registered serves
it, so ``openai://`` goes to Chat Completions and ``openai-responses`` (OpenAI's other API, for the
same models) is reached by its name only (``--provider openai-responses``): which of OpenAI's APIs
carries a call is a choice of the run, while the URI names the model and who serves it, as a program
written for AgentScript (which knows ``openai://`` alone) does.

A :class:`Named` router answers, for a call's model, a :class:`~.targets.Target`: the adapter, its
registered name, the model name as that adapter reads it, and the note a retargeted model gets
(an offline run's router is :class:`~.targets.Direct`, and this module is not loaded). ``--provider NAME``
sends the calls to that provider as the reference does (the model name travels, the protocol
changes, and the call's request notes say so) and ``--model`` replaces the name. Which part of a
URI is the model's name is for the adapter serving the URI's scheme to say
(``ollama://HOST:PORT/MODEL`` names a host too), so it is asked, and a scheme no adapter serves is
an error at the call.

A base URL replaces an adapter's own (the one its environment variable, ``OPENAI_BASE_URL``...,
would give): keyed by scheme (``{"ollama": URL}``: the adapter serving that scheme), or by ``""``
for every adapter of the run. Its password is masked in every message, as every URL's is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..core.errors import ModelRouteError, PromptwireError
from ..core.model_uri import model_name, model_scheme
from ..core.printable import one_line
from ..core.secrets import shown_url
from .model_reach import model_reach
from .targets import Router, Target

if TYPE_CHECKING:
    from ..core.permissions import Permissions
    from ..plugins.manager import PluginHost

__all__ = ["AUTO", "EVERY_PROVIDER", "Named", "Routes", "base_url_entry", "check_base_urls", "check_url"]

AUTO = "auto"
"""The provider that sends each call where its model URI's scheme says."""
EVERY_PROVIDER = ""
"""The key of a base URL for every adapter of the run."""


class Routes:
    """The adapters of ``host`` by the schemes they serve, each sending to its base URL (``base_urls``)."""

    def __init__(self, host: PluginHost, base_urls: Mapping[str, str] | None = None) -> None:
        self.host = host
        self.base_urls = dict(base_urls or {})
        self._schemes: dict[str, str] | None = None

    def schemes(self) -> dict[str, str]:
        """Each scheme an adapter declares as its ``protocol``, to the first adapter registered with
        it. Loads every adapter (a built-in's module, never its SDK): only a routed run asks."""
        if self._schemes is None:
            found: dict[str, str] = {}
            for name in self.host.names("adapters"):
                protocol = getattr(self.host.load("adapters", name), "protocol", None)
                if isinstance(protocol, str) and protocol:
                    found.setdefault(protocol, name)
            self._schemes = found
        return self._schemes

    def serving(self, scheme: str) -> str | None:
        """The adapter that serves ``scheme://`` models, if any."""
        return self.schemes().get(scheme)

    def reader(self, name: str) -> Any:
        """The adapter registered as ``name``, to read a model name of its protocol."""
        return self.host.load("adapters", name)

    def sender(self, name: str) -> Any:
        """The adapter registered as ``name`` as the run sends with it: at its scheme's base URL, or
        the one for every adapter, when given."""
        adapter = self.host.load("adapters", name)
        url = self.base_urls.get(getattr(adapter, "protocol", None) or name) or self.base_urls.get(EVERY_PROVIDER)
        if url is None:
            return adapter
        moved = getattr(adapter, "with_base_url", None)
        if moved is None:
            raise PromptwireError(f"adapter {name!r} takes no base URL (it is not written on promptwire's skeleton)")
        return moved(url)

    def unserved(self, scheme: str) -> ModelRouteError:
        """The error of a model whose scheme no adapter serves."""
        return ModelRouteError(
            f"no adapter serves {one_line(scheme)}:// models (those served: {self.offered()}): "
            "install the plugin that does, or correct the model's URI"
        )

    def offered(self) -> str:
        """The schemes served, for a message: ``openai://, anthropic://, ...``."""
        return ", ".join(f"{scheme}://" for scheme in self.schemes()) or "none"


class Named(Router):
    """Each call to the adapter registered as ``provider`` (one name, or :data:`AUTO`: the adapter
    serving the scheme of the call's model URI), at its base URL from ``routes``, asked for
    ``model`` when the run replaces the program's (``--model``), else the program's model as that
    adapter reads it: a bare name or a URI of the provider's own protocol as it is, one of another
    as the adapter serving that protocol reads its model name."""

    def __init__(
        self,
        routes: Routes,
        provider: str,
        model: str | None = None,
        *,
        permissions: Permissions | None = None,
        reach: bool = True,
    ) -> None:
        self.routes = routes
        self.name = provider
        self.model = model
        self.permissions = permissions
        """What the program may reach: a server its model URI names must be allowed
        (:mod:`.model_reach`), unless ``reach`` is off (a dry run reaches nothing) or ``model``
        replaces the program's (the user's own choice)."""
        self.reach = reach
        self._senders: dict[str, Any] = {}
        self._reaches: dict[str, Callable[[str | None], None] | None] = {}
        if provider != AUTO:
            self._sender(provider)  # an unknown provider, or one that takes no base URL, fails now

    def target(self, model: str | None) -> Target:
        name = self.name if self.name != AUTO else self._serving(self.model or model)
        adapter = self._sender(name)
        if self.reach and self.model is None:
            self._check_reach(name, adapter, model)
        scheme = model_scheme(model)
        own = scheme is None or self._own(adapter, name, scheme)
        return Target(name, adapter, self._read(adapter, name, self.model or model), None if own else model, named=True)

    def _read(self, adapter: Any, name: str, uri: str | None) -> str | None:
        scheme = model_scheme(uri)
        if scheme is None or self._own(adapter, name, scheme):
            return uri
        source = self.routes.serving(scheme)
        if source is None:
            raise self.routes.unserved(scheme)
        read = getattr(self.routes.reader(source), "model_name", None)
        found: str = read(uri) if read is not None else model_name(uri, scheme)
        return found

    @staticmethod
    def _own(adapter: Any, name: str, scheme: str) -> bool:
        """Whether ``scheme://`` models are this provider's own (its protocol, or its name)."""
        return scheme in (getattr(adapter, "protocol", None), name)

    def _serving(self, uri: str | None) -> str:
        scheme = model_scheme(uri)
        if scheme is None:
            raise ModelRouteError(_no_scheme(uri, self.routes))
        name = self.routes.serving(scheme)
        if name is None:
            raise self.routes.unserved(scheme)
        return name

    def _check_reach(self, name: str, adapter: Any, model: str | None) -> None:
        """Refuse a program's model URI that names a server the user did not allow."""
        if name not in self._reaches:
            self._reaches[name] = model_reach(adapter, self.permissions)
        check = self._reaches[name]
        if check is not None:
            check(model)  # the program's URI, not the user's --model

    def senders(self) -> list[Any]:
        return list(self._senders.values())

    def _sender(self, name: str) -> Any:
        sender = self._senders.get(name)
        if sender is None:
            sender = self._senders[name] = self.routes.sender(name)
        return sender


def _no_scheme(uri: str | None, routes: Routes) -> str:
    if not uri:
        return "the call names no model, so provider 'auto' cannot tell where to send it: give --model SCHEME://NAME"
    return (
        f"model {one_line(uri)!r} has no URI scheme, so provider 'auto' cannot tell where to send it: "
        f"name it SCHEME://{one_line(uri)} ({routes.offered()}), or choose one provider with --provider NAME"
    )


def base_url_entry(text: str) -> tuple[str, str]:
    """``URL`` or ``SCHEME=URL`` (one ``--base-url``) as ``(key, url)``: the key is the scheme, or
    :data:`EVERY_PROVIDER`. The URL must be an ``http(s)://`` address; a bad one is a
    :class:`ValueError` showing it with its password masked."""
    key, equals, rest = text.partition("=")
    if equals and key and "://" not in key and "/" not in key:
        scheme, url = key, rest
    else:
        scheme, url = EVERY_PROVIDER, text
    check_url(url)
    return scheme, url


def check_url(url: str) -> None:
    """Refuse what is not an ``http(s)://`` base URL, with a :class:`ValueError` showing it with
    its password masked."""
    problem = _url_problem(url)
    if problem is not None:
        raise ValueError(f"not an http:// or https:// URL ({problem}): '{one_line(shown_url(url))}'")


def _url_problem(url: str) -> str | None:
    if any(char.isspace() or not char.isprintable() for char in url):
        return "it holds a space or a control character"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError as exc:
        return str(exc)
    if parts.scheme not in ("http", "https"):
        return "its scheme is not http or https"
    if not parts.hostname:
        return "it names no host"
    if parts.query or parts.fragment:
        return "a base URL has no query or fragment"
    return None


def check_base_urls(routes: Routes, provider: str, base_urls: Mapping[str, str]) -> None:
    """Refuse base URLs the run would not use, or could not (a :class:`PromptwireError` saying
    which): one for every adapter with ``auto``
    (which would send every scheme's calls to one server), a scheme's with one provider, a scheme
    no adapter serves, an adapter that takes none."""
    if not base_urls:
        return
    if provider == "offline":
        raise PromptwireError("--base-url needs --provider: offline runs send nothing")
    if provider != AUTO:
        if set(base_urls) != {EVERY_PROVIDER}:
            raise PromptwireError(
                f"--base-url SCHEME=URL is for --provider auto; with --provider {provider} give the URL alone"
            )
        routes.sender(provider)
        return
    if EVERY_PROVIDER in base_urls:
        raise PromptwireError(
            "with --provider auto, say whose base URL it is: --base-url SCHEME=URL (ollama=http://...)"
        )
    for scheme in base_urls:
        name = routes.serving(scheme)
        if name is None:
            raise PromptwireError(
                f"--base-url {one_line(scheme)}=...: no adapter serves {one_line(scheme)}:// models (those served: {routes.offered()})"
            )
        routes.sender(name)
