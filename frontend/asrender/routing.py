"""Which provider each model call of a run goes to, and at which address (``--provider``,
``--base-url``).

A run's provider is ``offline`` (the default: no key, no network), one adapter by name (every call
goes there; see :mod:`.retarget`), or ``auto``: each call goes to the adapter that declares its
model URI's scheme as its ``protocol``: ``openai://`` to ``openai``, ``anthropic://`` to
``anthropic``, ``ollama://`` to ``ollama``, and a plugin adapter's own scheme to it. When two
adapters declare one scheme the first registered serves it, so ``openai://`` goes to Chat
Completions and ``openai-responses`` (OpenAI's other API, for the same models) is reached by its
name only (``--provider openai-responses``): which of OpenAI's APIs carries a call is a choice of
the run, while the URI names the model and who serves it, as a program written for AgentScript
(which knows ``openai://`` alone) does.

A base URL replaces an adapter's own (the one its environment variable, ``OPENAI_BASE_URL``...,
would give): keyed by scheme (``{"ollama": URL}``: the adapter serving that scheme), or by ``""``
for every adapter of the run. Its password is masked in every message, as every URL's is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ...core.contract import OutputContract
from ...core.errors import ModelRouteError, PromptwireError
from ...core.generate import ModelAdapter, ProviderRequest, Reply
from ...core.model_uri import model_scheme
from ...core.printable import one_line
from ...core.prompt import GenerateConfig
from ...core.rendered import RenderedPrompt
from ...core.secrets import shown_url
from .model_reach import model_reach
from .retarget import Retargeted

if TYPE_CHECKING:
    from ...core.permissions import Permissions
    from ...plugins.manager import PluginHost

__all__ = ["AUTO", "EVERY_PROVIDER", "Routed", "Routes", "base_url_entry", "check_base_urls", "check_url"]

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


class Routed:
    """Each call sent to the adapter serving its model URI's scheme (``auto``), retargeted as one
    provider's calls are (``model`` replaces the program's model) and, in a dry run, answered by
    ``answers``. A run makes one call at a time: the adapter of the request built last sends it
    and reads its reply, and ``name`` is that adapter's (the name a provider's error carries)."""

    def __init__(
        self,
        routes: Routes,
        model: str | None = None,
        answers: ModelAdapter | None = None,
        wrap: Callable[[ModelAdapter, str], ModelAdapter] | None = None,
        permissions: Permissions | None = None,
    ) -> None:
        self.name = AUTO
        self.routes = routes
        self.model = model
        self.answers = answers
        self.wrap = wrap
        """Wraps each provider's adapter (a recording's, by its name) before it is retargeted."""
        self.permissions = permissions
        """What the program may reach: a server its model URI names must be allowed (:mod:`.model_reach`)."""
        self._targets: dict[str, Retargeted] = {}
        self._current: Retargeted | None = None

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        target = self._target(self.model or model)
        self._current, self.name = target, target.name
        return target.build_request(rendered, config, contract, model)

    def streamed(self, request: ProviderRequest) -> ProviderRequest:
        return self._sending().streamed(request)

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        return self._sending().send(request, timeout)

    async def asend(self, request: ProviderRequest, timeout: float | None) -> Any:
        return await self._sending().asend(request, timeout)

    def stream(self, request: ProviderRequest, timeout: float | None) -> Iterator[Any]:
        return self._sending().stream(request, timeout)

    def astream(self, request: ProviderRequest, timeout: float | None) -> AsyncIterator[Any]:
        return self._sending().astream(request, timeout)

    def parse_reply(self, raw: Any) -> Reply:
        return self._sending().parse_reply(raw)

    def _sending(self) -> Retargeted:
        assert self._current is not None, "a request is built before it is sent"
        return self._current

    def _target(self, uri: str | None) -> Retargeted:
        scheme = model_scheme(uri)
        if scheme is None:
            raise ModelRouteError(_no_scheme(uri, self.routes))
        name = self.routes.serving(scheme)
        if name is None:
            raise self.routes.unserved(scheme)
        if name not in self._targets:
            sender = self.routes.sender(name)
            reach = model_reach(sender, self.permissions)
            if self.wrap is not None:
                sender = self.wrap(sender, name)
            self._targets[name] = Retargeted(sender, name, self.model, self.routes, self.answers, reach)
        return self._targets[name]


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
