"""The skeleton of a provider adapter, and the pieces every adapter would otherwise write again.

An adapter turns a rendered prompt into one provider's request (``build_request``, pure: a dry run
prints it), sends it (``send``, one HTTP request) and reads the reply (``parse_reply``). The forms
of the request and the reply are each provider's own; the rest is the same everywhere and lives
here, in :class:`ProviderAdapter`:

* the model URI: ``PROTOCOL://NAME`` names the model ``NAME`` (``model_name``), which is also what
  retargeting a program's model to another provider asks of the adapter the URI belongs to;
* where a request goes and with which key (``endpoint``), from the adapter's settings, then the
  environment, then the provider's default;
* the bytes sent: the request's JSON as :func:`promptwire.core.json_text.to_bytes` writes it (these
  keys in this order, half a character as its ``\\udXXX`` escape, as AgentScript sends it; the
  SDKs' own JSON encoders fail on half a character), so what a dry run shows is what goes out;
* one SDK client per endpoint and timeout, kept (building one costs about 20 ms: a TLS context and
  a connection pool) and closed when the adapter goes or the program ends, and every failure of the
  call told as the :class:`ProviderError` that says what went wrong, quoting the provider and never
  the key (``send``, ``failure``);
* a reply of the wrong shape told as a :class:`MalformedResponseError` quoting it (``parse_reply``);
* helpers for the request: the parameters of a tool that takes none, notes for what the provider
  cannot take, data URLs, a tool call's JSON arguments, and the reply's ``usage``.

A new provider fills in ``build_request``, ``client`` (its SDK's client for an endpoint), ``post``
(one request body sent with that client) and ``reply``, and reads its SDK's exceptions in
``failure``. No SDK is imported here: an adapter imports its own in ``client`` and ``failure``, so
building a request never loads one.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import weakref
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, NamedTuple
from urllib.parse import unquote

from ..core.contract import OutputContract
from ..core.errors import AuthenticationError, BadRequestError, ProviderError, ProviderTimeoutError
from ..core.generate import ProviderRequest, Reply
from ..core.json_text import to_bytes
from ..core.prompt import GenerateConfig, ToolDefinition
from ..core.rendered import RenderedPrompt
from ..core.secrets import declare_secret_variables, declare_url_variables, extra_secrets, shown_url, url_secrets
from ..core.timeout import DEFAULT_TIMEOUT
from .status import connection_failed, malformed_json, read_reply, sdk_status_error, unreadable_reply

__all__ = [
    "BUILTIN_SECRET_VARIABLES",
    "BUILTIN_URL_VARIABLES",
    "Endpoint",
    "ProviderAdapter",
    "check_key",
    "model_name",
    "part_left_out",
    "returns_left_out",
    "split_data_url",
    "tool_arguments",
    "usage_of",
]


BUILTIN_SECRET_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_API_KEY")
BUILTIN_URL_VARIABLES = ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OLLAMA_BASE_URL", "OLLAMA_HOST")
# Declared here, not by each adapter's class: adapters are imported only when used, and an Ollama
# reply that echoes OPENAI_API_KEY must be masked all the same.
declare_secret_variables(*BUILTIN_SECRET_VARIABLES)
declare_url_variables(*BUILTIN_URL_VARIABLES)


class Endpoint(NamedTuple):
    """Where a request goes (a base URL, no trailing slash) and the key it is sent with, which
    every error text masks, with the URL's password. (A tuple: it is made and hashed on every call.)"""

    url: str
    key: str | None = None

    @property
    def secrets(self) -> tuple[str, ...]:
        """What no message about a call to this endpoint may print: the key, the URL's password."""
        return (self.key, *url_secrets(self.url)) if self.key else url_secrets(self.url)


class ProviderAdapter(ABC):
    """The skeleton of an adapter: see the module docstring for what it does and what is left to fill in."""

    name: ClassVar[str]
    description: ClassVar[str]
    protocol: ClassVar[str]
    """The scheme of this provider's model URIs: ``openai`` in ``openai://gpt-4.1``."""
    path: ClassVar[str] = ""
    """Where requests go below the base URL (``chat/completions``), named when one times out."""
    default_url: ClassVar[str] = ""
    url_variable: ClassVar[str | None] = None
    """The environment variable that sets the base URL when the adapter is given none."""
    key_variable: ClassVar[str | None] = None
    """The environment variable that holds the API key when the adapter is given none; when set,
    the key is required."""
    no_parameters: ClassVar[Mapping[str, Any]] = {"type": "object", "properties": {}}
    """The parameter schema of a tool that takes none, as the provider wants it spelt. This one is
    JSON Schema's empty object as OpenAI documents it: OpenAI refuses ``{}`` and an object schema
    without ``properties`` ("object schema missing properties")."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A plugin's adapter class declares its key and URL variables: their values are masked in
        every message (see :mod:`promptwire.core.secrets`), whichever adapter is running."""
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("key_variable"):
            declare_secret_variables(cls.key_variable)  # type: ignore[arg-type]
        if cls.__dict__.get("url_variable"):
            declare_url_variables(cls.url_variable)  # type: ignore[arg-type]

    def __init__(self, *, api_key: str | None = None, base_url: str | None = None) -> None:
        self.api_key = api_key
        self.base_url = base_url
        self._clients: dict[tuple[Endpoint, float], Any] = {}
        weakref.finalize(self, _close_all, self._clients)  # also runs at exit, before modules go

    def model_name(self, uri: str | None) -> str:
        """The model a URI of this adapter's protocol (or a bare name) names: see :func:`model_name`."""
        return model_name(uri, self.protocol)

    @abstractmethod
    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        """The exact request, with notes on everything changed or left out on the way (pure)."""

    def url(self) -> str:
        """The base URL: the one given, else ``$url_variable``, else ``default_url``."""
        given = self.base_url or (os.environ.get(self.url_variable) if self.url_variable else None)
        return (given or self.default_url).rstrip("/")

    def endpoint(self, request: ProviderRequest) -> Endpoint:
        """Where ``request`` goes (the endpoint it names, else :meth:`url`) and with which key."""
        key = self.api_key or (os.environ.get(self.key_variable) if self.key_variable else None)
        if self.key_variable and not key:
            raise AuthenticationError(f"{self.key_variable} is required for {self.protocol}:// models")
        if key:
            check_key(key, self.key_variable if not self.api_key else None)
        return Endpoint(request.endpoint or self.url(), key)

    @abstractmethod
    def client(self, endpoint: Endpoint, seconds: float) -> Any:
        """The SDK client that sends to ``endpoint``, giving up after ``seconds``, built with no
        retries of its own (``generate``'s attempts are the only retry loop); kept per endpoint and
        timeout, and closed (its ``close()``, if it has one) when the adapter is done."""

    @abstractmethod
    def post(self, client: Any, body: bytes) -> Any:
        """Send one request whose JSON body is ``body`` with ``client``; return what the SDK returns."""

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        seconds = timeout or DEFAULT_TIMEOUT
        endpoint = self.endpoint(request)
        client = self._clients.get((endpoint, seconds))
        with extra_secrets(*endpoint.secrets):
            try:
                if client is None:
                    client = self._clients[endpoint, seconds] = self.client(endpoint, seconds)
                return self.post(client, to_bytes(request.kwargs))
            except Exception as exc:
                error = self.failure(exc, endpoint, seconds)
                if error is None:
                    raise
                raise error from None

    def failure(self, exc: Exception, endpoint: Endpoint, seconds: float) -> ProviderError | None:
        """The :class:`ProviderError` that ``exc``, raised by the call, stands for; ``None`` leaves
        it as it is (a bug is not a provider's failure). An adapter reads its SDK's exceptions and
        leaves the rest to this: a 200 whose body is not JSON, the SDK's own ``JSONDecodeError``,
        which must never pass for the model's output not being JSON (that one is retried), and
        a body Python's JSON parser cannot read at all (not UTF-8, a 5000-digit integer)."""
        if isinstance(exc, json.JSONDecodeError):
            return malformed_json(exc, endpoint.key)
        return unreadable_reply(exc)

    def api_failure(
        self, sdk: Any, exc: Exception, endpoint: Endpoint, seconds: float, code: str
    ) -> ProviderError | None:
        """:meth:`failure` for the ``openai`` and ``anthropic`` SDKs, which raise the same classes
        (both are generated from one template): ``APITimeoutError``, a kind of
        ``APIConnectionError`` and so read first, and ``APIStatusError``, whose attribute ``code``
        holds the provider's error code."""
        if isinstance(exc, sdk.APITimeoutError):
            return self.timed_out(endpoint, seconds)
        if isinstance(exc, sdk.APIConnectionError):
            return connection_failed(exc)
        if isinstance(exc, sdk.APIStatusError):
            return sdk_status_error(exc, code=getattr(exc, code), secret=endpoint.key)
        return None

    def timed_out(self, endpoint: Endpoint, seconds: float) -> ProviderTimeoutError:
        where = f"{endpoint.url}/{self.path}" if self.path else endpoint.url
        return ProviderTimeoutError(
            f"LLM provider request timed out after {seconds}s: {shown_url(where, *endpoint.secrets)}"
        )

    def parse_reply(self, raw: Any) -> Reply:
        """What ``raw`` says (:meth:`reply`), a reply of the wrong shape told as a malformed one
        quoting it, with this adapter's own key and URL password masked as in :meth:`send`."""
        with extra_secrets(self.api_key, *url_secrets(self.url())):
            return read_reply(self.reply, raw)

    @abstractmethod
    def reply(self, raw: Any) -> Reply:
        """What ``raw``, the call's return value, says. Any part missing or of the wrong type
        (``AttributeError``, ``KeyError``, ``TypeError``...) is told as a malformed reply quoting it."""

    def parameters(self, tool: ToolDefinition) -> dict[str, Any]:
        """The tool's parameter schema, or :attr:`no_parameters` when it takes none."""
        return tool.parameters or copy.deepcopy(dict(self.no_parameters))


def check_key(key: str, variable: str | None) -> None:
    """Refuse a key that no HTTP header can carry, naming where it came from and never showing it:
    a key file's last newline (``OPENAI_API_KEY=$(cat key.txt)``), a control character, a letter
    outside ASCII. Sent, the HTTP library would fail with the key in its message, or not at all."""
    problem = _key_problem(key)
    if problem is not None:
        source = variable or "the API key"
        raise AuthenticationError(f"{source} cannot be sent: it holds {problem}, which an HTTP header cannot carry")


def _key_problem(key: str) -> str | None:
    if any(char in "\r\n" for char in key):
        return "a line break"
    if not key.isascii():
        return "a character outside ASCII"
    if any(not " " <= char <= "~" for char in key):
        return "a control character"
    if key != key.strip():
        return "spaces at its start or end"
    return None


def model_name(uri: str | None, protocol: str) -> str:
    """``PROTOCOL://NAME`` -> ``NAME``, percent-decoded, its query and fragment ignored (as
    AgentScript reads a model URI: ``decodeURIComponent(hostname + pathname)``); a bare name is taken
    as it is. A URI of another protocol, or without a name, is refused in the reference's words."""
    if not uri:
        raise BadRequestError(f"{protocol} URI must include a model name")
    if "://" not in uri:
        return uri
    given, _, rest = uri.partition("://")
    name = unquote(rest.split("?", 1)[0].split("#", 1)[0])
    if given != protocol or not name:
        raise BadRequestError(f"{given} URI must include a model name")
    return name


def returns_left_out(tools: Iterable[ToolDefinition], provider: str) -> list[str]:
    """The notes for tools that say what they return, which ``provider``'s tools have no place for."""
    return [
        f"tool {tool.name!r}: {provider} tools have no place for what a tool returns; 'returns' left out"
        for tool in tools
        if tool.returns is not None
    ]


def part_left_out(index: int, position: int, provider: str, kind: object) -> str:
    """The note for a content part ``provider`` cannot carry."""
    return f"messages[{index}].content[{position}]: {provider} cannot carry this {kind} part; left out"


def split_data_url(url: str) -> tuple[str, str] | None:
    """``data:MEDIA;base64,DATA`` -> ``(MEDIA, DATA)``; ``None`` for any other URL."""
    if url.startswith("data:") and ";base64," in url:
        media_type, data = url[5:].split(";base64,", 1)
        return media_type, data
    return None


def tool_arguments(text: str) -> dict[str, Any]:
    """A tool call's arguments, sent as JSON text: an object as it is, anything else kept under
    ``_value``, and text that is not JSON (or that Python cannot read: an integer of 5000 digits,
    nesting deeper than its parser goes) under ``_raw``, so nothing the model said is lost."""
    try:
        value = json.loads(text or "{}")
    except (ValueError, RecursionError):  # not JSON; an integer longer than Python reads; too deep
        return {"_raw": text}
    return value if isinstance(value, dict) else {"_value": value}


def usage_of(raw: Any) -> dict[str, Any] | None:
    """The reply's token counts as plain data (the SDK's ``usage`` object), if it sent any."""
    usage = getattr(raw, "usage", None)
    if usage is None:
        return None
    dumped: dict[str, Any] = usage.model_dump(warnings=False)
    return dumped


def _close_all(clients: dict[Any, Any]) -> None:
    """Close every kept client: an SDK client still open when Python tears its modules down fails in
    its ``__del__`` and prints "Exception ignored"."""
    for client in clients.values():
        with contextlib.suppress(Exception):  # closing is tidying up; nothing to report
            getattr(client, "close", lambda: None)()
    clients.clear()
