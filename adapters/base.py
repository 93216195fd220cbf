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
* a reply read within a bound on its size, whole or streamed (:mod:`.reply_size`: the adapter's
  ``client`` builds its HTTP client with ``bounded_hooks``), a :class:`ReplyTooLargeError` past it
  however the SDK wraps it;
* helpers for the request: the parameters of a tool that takes none, notes for what the provider
  cannot take, data URLs, a tool call's JSON arguments, and the reply's ``usage``.

A new provider fills in ``build_request``, ``client`` (its SDK's client for an endpoint), ``post``
(one request body sent with that client) and ``reply``, and reads its SDK's exceptions in
``failure``. No SDK is imported here: an adapter imports its own in ``client`` and ``failure``, so
building a request never loads one.

On an event loop (``asend``) the skeleton uses the SDK's async client when ``async_client`` gives
one (kept per event loop: an async client belongs to the loop it first ran on), and ``post`` is
called with it and returns what is awaited (the SDKs' async clients mirror their sync ones, so one
``post`` serves both); without one, ``send`` runs in a worker thread. A provider whose replies can
be streamed derives from :class:`StreamingAdapter` and adds how a stream is asked for
(``stream_flags``), opened (``post_stream``) and read (``stream_reader``). A reply is recorded as
its SDK object's JSON dump (:mod:`promptwire.calls.recording`); each adapter's ``replayed_reply``
builds the SDK's object from it again, so a replayed reply is read by ``reply`` as it was.

Token counts before sending: a provider with a count endpoint names it (``count_endpoint``) and
derives its body from the exact request ``send`` would send (``count_body``: by default the body's
fields of ``count_fields``, what that endpoint accepts); ``count_tokens`` and ``acount_tokens`` post
it with the adapter's own clients, endpoint, key and error mapping (``post_count``, read by
``counted``). A provider without one raises :class:`TokenCountUnavailable`: no count is guessed.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import json
import sys
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any, ClassVar, NamedTuple, Protocol, Self

from ..core.call import ProviderRequest, Reply, Usage, Whole
from ..core.contract import OutputContract
from ..core.environment import environment_value
from ..core.errors import (
    AuthenticationError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    TokenCountUnavailable,
)
from ..core.json_text import to_bytes
from ..core.model_uri import model_name
from ..core.prompt import GenerateConfig, ToolDefinition
from ..core.rendered import RenderedPrompt
from ..core.sdk import require_sdk
from ..core.secrets import declare_secret_variables, declare_url_variables, extra_secrets, shown_url, url_secrets
from ..core.stepping import aclose, in_worker, stepped_in_thread
from ..core.timeout import DEFAULT_TIMEOUT
from .reply_size import max_reply_bytes, refused_reply
from .status import (
    connection_failed,
    malformed_json,
    missing_part,
    read_reply,
    sdk_status_error,
    status_error,
    stream_failure,
    tried_at,
    unreadable_reply,
)

__all__ = [
    "BUILTIN_SECRET_VARIABLES",
    "BUILTIN_URL_VARIABLES",
    "Endpoint",
    "ProviderAdapter",
    "StreamReader",
    "StreamingAdapter",
    "api_stream",
    "check_key",
    "model_name",
    "part_left_out",
    "returns_left_out",
    "split_data_url",
    "tool_arguments",
    "usage_of",
]


BUILTIN_SECRET_VARIABLES = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OLLAMA_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "AWS_SECRET_ACCESS_KEY",  # Bedrock: the AWS SDK's credentials (its key id is no secret), and
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",  # Bedrock's API key, which botocore sends as a bearer token
    "AZURE_OPENAI_API_KEY",
)
BUILTIN_URL_VARIABLES = (
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "OLLAMA_BASE_URL",
    "OLLAMA_HOST",
    "GOOGLE_GEMINI_BASE_URL",
    "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
    "AZURE_OPENAI_ENDPOINT",
)
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
    sdk: ClassVar[str | None] = None
    """The module the adapter sends with, when it is an optional extra (see :mod:`promptwire.core.sdk`)."""
    extra: ClassVar[str | None] = None
    """The extra of ``promptwire`` that installs :attr:`sdk` (``pip install 'promptwire[EXTRA]'``)."""
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
        self._async_clients: weakref.WeakKeyDictionary[Any, dict[tuple[Endpoint, float], Any]] = (
            weakref.WeakKeyDictionary()
        )
        weakref.finalize(self, _close_all, self._clients)  # also runs at exit, before modules go

    def model_name(self, uri: str | None) -> str:
        """The model a URI of this adapter's protocol (or a bare name) names: see :func:`model_name`."""
        return model_name(uri, self.protocol)

    def with_base_url(self, url: str) -> Self:
        """This adapter sending to ``url`` instead of its base URL (``asrender --base-url``): a copy,
        with clients of its own, since the registered adapter is shared by every run. For Ollama it
        is the host a model URI without one goes to (a URI's own host is reached where the run
        allows it, without the key)."""
        moved = copy.copy(self)
        moved.base_url = url.rstrip("/")
        moved._clients = {}
        moved._async_clients = weakref.WeakKeyDictionary()
        weakref.finalize(moved, _close_all, moved._clients)
        return moved

    @abstractmethod
    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        """The exact request, with notes on everything changed or left out on the way (pure)."""

    def url(self) -> str:
        """The base URL: the one given, else ``$url_variable``, else ``default_url``."""
        given = self.base_url or (environment_value(self.url_variable) if self.url_variable else None)
        return (given or self.default_url).rstrip("/")

    def endpoint(self, request: ProviderRequest) -> Endpoint:
        """Where ``request`` goes (the endpoint it names, else :meth:`url`) and with which key."""
        key = self.api_key or (environment_value(self.key_variable) if self.key_variable else None)
        if self.key_variable and not key:
            raise AuthenticationError(f"{self.key_variable} is required for {self.protocol}:// models")
        if key:
            check_key(key, self.key_variable if not self.api_key else None)
        return Endpoint(request.endpoint or self.url(), key)

    @abstractmethod
    def client(self, endpoint: Endpoint, seconds: float) -> Any:
        """The SDK client that sends to ``endpoint``, giving up after ``seconds``, built with no
        retries of its own (``generate``'s attempts are the only retry loop) and, when its HTTP
        client is ``httpx``'s or ``httpx2``'s, with :func:`~promptwire.adapters.reply_size.bounded_hooks`
        (a reply read within its bound); kept per endpoint and timeout, and closed (its
        ``close()``, if it has one) when the adapter is done."""

    @abstractmethod
    def post(self, client: Any, body: bytes) -> Any:
        """Send one request whose JSON body is ``body`` with ``client``; return what the SDK returns."""

    def async_client(self, endpoint: Endpoint, seconds: float) -> Any:
        """The SDK's async client for ``endpoint``, built as :meth:`client` builds the sync one, or
        ``None`` (this skeleton's answer): the provider has none, and :meth:`asend` runs
        :meth:`send` in a worker thread. With one, :meth:`post` is also called with it and returns
        what is awaited."""
        return None

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        seconds, endpoint = self._where(request, timeout)
        with self._told(endpoint, seconds):
            return self.post(self._kept(endpoint, seconds), to_bytes(request.kwargs))

    async def asend(self, request: ProviderRequest, timeout: float | None) -> Any:
        """:meth:`send` on an event loop, with the async client (or in a worker thread without one)."""
        import asyncio

        seconds, endpoint = self._where(request, timeout)
        with self._told(endpoint, seconds):
            client = self._kept_async(endpoint, seconds)
            if client is not None:
                # One deadline for the whole call: the SDKs' timeouts are per read, so a server
                # trickling its answer a byte at a time would hold the call far past ``seconds``.
                # Cancelled at the deadline, the SDK closes the connection.
                try:
                    async with asyncio.timeout(seconds):
                        return await self.post(client, to_bytes(request.kwargs))
                except TimeoutError:
                    raise self.timed_out(endpoint, seconds) from None
        return await in_worker(self.send, request, timeout)

    async def aclose(self) -> None:
        """Close the async clients kept for the running event loop (each loop's are also dropped
        with the loop; this closes their connections now)."""
        import asyncio

        for client in self._async_clients.pop(asyncio.get_running_loop(), {}).values():
            if client is not None:
                await aclose(client)

    def _where(self, request: ProviderRequest, timeout: float | None) -> tuple[float, Endpoint]:
        require_sdk(self)  # the extra to install, before anything is sent (not a ModuleNotFoundError)
        max_reply_bytes()  # a bad setting refused before anything is sent
        return timeout or DEFAULT_TIMEOUT, self.endpoint(request)

    def _kept(self, endpoint: Endpoint, seconds: float) -> Any:
        client = self._clients.get((endpoint, seconds))
        if client is None:
            client = self._clients[endpoint, seconds] = self.client(endpoint, seconds)
        return client

    def _kept_async(self, endpoint: Endpoint, seconds: float) -> Any:
        import asyncio

        kept = self._async_clients.setdefault(asyncio.get_running_loop(), {})
        if (endpoint, seconds) not in kept:
            kept[endpoint, seconds] = self.async_client(endpoint, seconds)
        return kept[endpoint, seconds]

    def _told(self, endpoint: Endpoint, seconds: float) -> _Told:
        """Every failure of the call inside told as the :class:`ProviderError` :meth:`failure` reads
        in it, with the endpoint's key and URL password masked in every message made inside."""
        return _Told(self, endpoint, seconds)

    def failure(self, exc: Exception, endpoint: Endpoint, seconds: float) -> ProviderError | None:
        """The :class:`ProviderError` that ``exc``, raised by the call, stands for; ``None`` leaves
        it as it is (a bug is not a provider's failure). An adapter reads its SDK's exceptions and
        leaves the rest to this: a 200 whose body is not JSON, the SDK's own ``JSONDecodeError``,
        which must never pass for the model's output not being JSON (that one is retried); and the
        HTTP client's own timeouts and broken connections (``httpx``/``httpx2``, which the SDKs
        do not always wrap: a stream cut in the middle, for one) and its status errors (a 301
        to a streamed request); and a body Python cannot read at all (not UTF-8, not in the
        charset it names, a 5000-digit integer)."""
        if isinstance(exc, json.JSONDecodeError):
            return malformed_json(exc, endpoint.key)
        for name in ("httpx2", "httpx"):
            http = sys.modules.get(name)  # loaded, if the exception is one of its
            if http is not None and isinstance(exc, http.TimeoutException):
                return self.timed_out(endpoint, seconds)
            if http is not None and isinstance(exc, http.TransportError):
                return connection_failed(exc)
            if http is not None and isinstance(exc, http.HTTPStatusError):  # a redirect the SDK does not follow
                return status_error(exc.response.status_code, str(exc))
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
        if isinstance(exc, sdk.APIStatusError) and exc.status_code >= 400:
            return sdk_status_error(exc, code=getattr(exc, code), secret=endpoint.key)
        if isinstance(exc, sdk.APIError):  # an error event in a stream begun with 200
            return stream_failure(exc.body, secret=endpoint.key)
        return None

    def timed_out(self, endpoint: Endpoint, seconds: float) -> ProviderTimeoutError:
        return ProviderTimeoutError(f"LLM provider request timed out after {seconds}s: {self._shown_where(endpoint)}")

    def _shown_where(self, endpoint: Endpoint) -> str:
        """The URL a request goes to, its password and key masked, for a message."""
        where = f"{endpoint.url}/{self.path}" if self.path else endpoint.url
        return shown_url(where, *endpoint.secrets)

    def parse_reply(self, raw: Any) -> Reply:
        """What ``raw`` says (:meth:`reply`), a reply of the wrong shape told as a malformed one
        quoting it, with this adapter's own key and URL password masked as in :meth:`send` (when
        it has either: the masks in force already are the same without a block)."""
        secrets = url_secrets(self.url())
        if not self.api_key and not secrets:
            return read_reply(self.reply, raw)
        with extra_secrets(self.api_key, *secrets):
            return read_reply(self.reply, raw)

    @abstractmethod
    def reply(self, raw: Any) -> Reply:
        """What ``raw``, the call's return value, says. Any part missing or of the wrong type
        (``AttributeError``, ``KeyError``, ``TypeError``...) is told as a malformed reply quoting it."""

    def parameters(self, tool: ToolDefinition) -> dict[str, Any]:
        """The tool's parameter schema, or :attr:`no_parameters` when it takes none."""
        return tool.parameters or _json_copy(self.no_parameters)

    count_endpoint: ClassVar[str | None] = None
    """The provider's token-count endpoint for messages (``"POST /v1/messages/count_tokens"``);
    ``None`` when it has none, and counting raises :class:`TokenCountUnavailable`."""
    count_fields: ClassVar[frozenset[str]] = frozenset()
    """The request body's fields the count endpoint accepts (the default :meth:`count_body` keeps
    these and leaves out the rest, which the endpoint refuses)."""
    no_count_hint: ClassVar[str] = ""
    """Where a count can be had instead, said when this provider has none."""

    def count_body(self, request: ProviderRequest) -> dict[str, Any]:
        """The count endpoint's body: the fields of ``request.kwargs`` (the exact body :meth:`send`
        would send) that the endpoint accepts, in the body's order. A provider whose count body
        takes another form overrides this."""
        if self.count_endpoint is None:
            raise TokenCountUnavailable(self.name, self.no_count_hint)
        return {key: value for key, value in request.kwargs.items() if key in self.count_fields}

    def count_left_out(self, request: ProviderRequest) -> tuple[str, ...]:
        """The request's fields the count body leaves out (for a count to say so): those outside
        :attr:`count_fields`. A provider whose count body takes another form (the request wrapped,
        renamed) and sets no ``count_fields`` says what it leaves out by overriding this."""
        return tuple(key for key in request.kwargs if self.count_fields and key not in self.count_fields)

    def count_tokens(self, request: ProviderRequest) -> int:
        """The input tokens of ``request`` as the provider's count endpoint counts them, asked
        with the adapter's own client, endpoint and key, failures told as :meth:`send` tells them."""
        body = to_bytes(self.count_body(request))  # a provider without an endpoint says so first
        seconds, endpoint = self._where(request, None)
        with self._told(endpoint, seconds):
            return read_reply(self.counted, self.post_count(self._kept(endpoint, seconds), body))

    async def acount_tokens(self, request: ProviderRequest) -> int:
        """:meth:`count_tokens` on an event loop, with the async client (or in a worker thread without one)."""
        import asyncio

        body = to_bytes(self.count_body(request))
        seconds, endpoint = self._where(request, None)
        with self._told(endpoint, seconds):
            client = self._kept_async(endpoint, seconds)
            if client is not None:
                try:
                    async with asyncio.timeout(seconds):
                        raw = await self.post_count(client, body)
                except TimeoutError:
                    raise self.timed_out(endpoint, seconds) from None
                return read_reply(self.counted, raw)
        return await in_worker(self.count_tokens, request)

    def post_count(self, client: Any, body: bytes) -> Any:
        """Send one count body with ``client`` (sync or async, as :meth:`post`); return what the
        SDK returns. Only a provider with a :attr:`count_endpoint` is asked."""
        raise TokenCountUnavailable(self.name, self.no_count_hint)

    def counted(self, raw: Any) -> int:
        """The count in the count endpoint's reply: its ``input_tokens``, an integer (anything else
        is a malformed reply, quoted)."""
        count = raw.input_tokens
        if not isinstance(count, int) or isinstance(count, bool):
            raise TypeError(f"input_tokens is {type(count).__name__}, not an integer")
        return count


class _Told:
    """The block of :meth:`ProviderAdapter._told`: a class, not a generator's context manager
    (which costs about 8,000 instructions more, and every call enters one). A failure is told
    inside the masks, so its message is masked as the call's are; an exception that is not an
    ``Exception`` (a closed stream's ``GeneratorExit``, a cancelled task) goes through as it is."""

    __slots__ = ("adapter", "endpoint", "masked", "seconds")

    def __init__(self, adapter: ProviderAdapter, endpoint: Endpoint, seconds: float) -> None:
        self.adapter = adapter
        self.endpoint = endpoint
        self.seconds = seconds
        self.masked = extra_secrets(*endpoint.secrets)

    def __enter__(self) -> None:
        self.masked.__enter__()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, traceback: Any) -> None:
        try:
            if isinstance(exc, Exception):
                adapter = self.adapter
                error = refused_reply(exc) or adapter.failure(exc, self.endpoint, self.seconds)
                if error is not None:
                    if isinstance(error, ProviderConnectionError):  # where it tried, as a timeout says
                        error = tried_at(error, adapter._shown_where(self.endpoint))
                    raise error from None
        finally:
            self.masked.__exit__(kind, exc, traceback)


_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})
"""Leaves of JSON data, told by their exact class before the ``Mapping`` test (an ABC's test is
slow, and every leaf would take it)."""


def _json_copy(value: Any) -> Any:
    """A new copy of JSON data (mappings as dicts): each tool without parameters gets a schema of
    its own, made in about a microsecond (``copy.deepcopy`` took about 20, for each of 50,000 tools)."""
    kind = value.__class__
    if kind in _JSON_SCALARS:
        return value
    if kind is dict:  # copied in C, then only its containers copied anew: no comprehension's call
        copied = value.copy()
        for key, item in copied.items():
            if item.__class__ not in _JSON_SCALARS:
                copied[key] = _json_copy(item)  # the key is there already: the dict does not grow
        return copied
    if isinstance(value, dict | Mapping):  # a dict's subclass, or another mapping: the ABC's test is the slow one
        return {key: _json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_copy(item) for item in value]
    return value


class StreamReader(Protocol):
    """Reads one stream's events (:meth:`StreamingAdapter.stream_reader` makes one per call)."""

    def feed(self, event: Any) -> str | None:
        """Take one event of the stream; return the text it adds to the reply, if any. An error
        event raises the :class:`ProviderError` it stands for (``stream_failure``)."""

    def whole(self) -> Any:
        """The whole reply, as :meth:`ProviderAdapter.reply` reads it (the SDK's object of a reply
        sent whole); :func:`promptwire.calls.links.cut_short` when the stream ended before the
        provider said it was complete."""


class StreamingAdapter(ProviderAdapter):
    """The skeleton of a provider whose replies can be streamed. Besides the skeleton's, it says
    how a stream is asked for (:attr:`stream_flags`), opened (:meth:`post_stream`) and read
    (:meth:`stream_reader`); the skeleton sends, maps failures as :meth:`send` does, passes on the
    text as it arrives, closes the stream however the iteration ends (a consumer that stops early,
    a cancelled task: the connection is closed, no request is left running) and hands the whole
    reply to :meth:`~ProviderAdapter.reply`, which reads it as it reads one sent whole."""

    stream_flags: ClassVar[Mapping[str, Any]] = {"stream": True}
    """What a streamed request's body adds to the body :meth:`build_request` built. The rule: a
    streamed request is the built one with these keys set (in place where the body has the key
    already, at the end where it has not), nothing else changed; a dry run of a streamed run shows
    them, as sent."""

    def streamed(self, request: ProviderRequest) -> ProviderRequest:
        """``request`` with :attr:`stream_flags` set: the rule is in their docstring."""
        return dataclasses.replace(request, kwargs={**request.kwargs, **self.stream_flags})

    @abstractmethod
    def post_stream(self, client: Any, body: bytes) -> Any:
        """Open the stream of one request whose JSON body is ``body`` (the stream flags set) with
        ``client``: return the SDK's iterable of events (closed with its ``close()``, if it has
        one), or, with the async client, what is awaited for its async iterable (closed with
        ``aclose()`` or an awaited ``close()``)."""

    @abstractmethod
    def stream_reader(self) -> StreamReader:
        """A new :class:`StreamReader` for one stream's events."""

    def stream(self, request: ProviderRequest, timeout: float | None) -> Iterator[str | Whole]:
        """The reply's text as it arrives, then the :class:`Whole` reply (see :mod:`promptwire.calls.links`)."""
        seconds, endpoint = self._where(request, timeout)
        reader = self.stream_reader()
        with self._told(endpoint, seconds):
            client = self._kept(endpoint, seconds)  # building the first one imports the SDK: not the call's time
            deadline = time.monotonic() + seconds
            events = self.post_stream(client, to_bytes(request.kwargs))
            try:
                for event in events:
                    text = read_reply(reader.feed, event)
                    if text:
                        yield text
                    if time.monotonic() > deadline:  # a server trickling events, each within the read timeout
                        raise self.timed_out(endpoint, seconds)
            finally:
                close = getattr(events, "close", None)  # a plain iterable has nothing to close
                if close is not None:
                    close()
            yield Whole(reader.whole())

    async def astream(self, request: ProviderRequest, timeout: float | None) -> AsyncIterator[str | Whole]:
        """:meth:`stream` on an event loop, with the async client (or stepped in a worker thread without one)."""
        seconds, endpoint = self._where(request, timeout)
        with self._told(endpoint, seconds):
            client = self._kept_async(endpoint, seconds)
        if client is None:
            async for item in stepped_in_thread(lambda: self.stream(request, timeout)):
                yield item
            return
        import asyncio

        deadline = asyncio.get_running_loop().time() + seconds
        reader = self.stream_reader()
        with self._told(endpoint, seconds):
            try:
                async with asyncio.timeout_at(deadline):
                    events = await self.post_stream(client, to_bytes(request.kwargs))
            except TimeoutError:
                raise self.timed_out(endpoint, seconds) from None
            try:
                async for event in _until(events, deadline, lambda: self.timed_out(endpoint, seconds)):
                    text = read_reply(reader.feed, event)
                    if text:
                        yield text
            finally:
                await aclose(events)
            yield Whole(reader.whole())


async def _until(events: Any, deadline: float, timed_out: Callable[[], ProviderError]) -> AsyncIterator[Any]:
    """``events`` (an async iterable) until ``deadline`` (the loop's clock): one deadline for the
    whole stream, however slowly its events come, each within the SDK's per-read timeout. Each
    wait is bounded on its own, so the consumer's time between events is never cancelled."""
    import asyncio

    iterator = aiter(events)
    while True:
        try:
            async with asyncio.timeout_at(deadline):
                event = await anext(iterator)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise timed_out() from None
        yield event


def api_stream(sdk: Any, client: Any, path: str, event_type: Any, body: bytes) -> Any:
    """:meth:`StreamingAdapter.post_stream` for the ``openai`` and ``anthropic`` SDKs: the stream of
    ``event_type`` events of a POST of ``body`` to ``path``, in the SDK's ``Stream`` or, for its
    async client, ``AsyncStream`` (awaited), once its response is known to be an event stream: a
    200 of another kind to a streamed request (a captive portal's page, a proxy's JSON) is a
    malformed response quoting it, as it is unstreamed."""
    import inspect

    if inspect.iscoroutinefunction(client.post):
        opening = client.post(
            path, cast_to=event_type, content=body, stream=True, stream_cls=sdk.AsyncStream[event_type]
        )
        return _opened_event_stream(opening)
    opened = client.post(path, cast_to=event_type, content=body, stream=True, stream_cls=sdk.Stream[event_type])
    if not _is_event_stream(opened.response):
        opened.response.read()
        raise _not_an_event_stream(opened.response)
    return opened


async def _opened_event_stream(opening: Any) -> Any:
    opened = await opening
    if not _is_event_stream(opened.response):
        await opened.response.aread()
        raise _not_an_event_stream(opened.response)
    return opened


def _is_event_stream(response: Any) -> bool:
    return str(response.headers.get("content-type", "")).startswith("text/event-stream")


def _not_an_event_stream(response: Any) -> ProviderError:
    kind = response.headers.get("content-type") or "no content type"
    return missing_part(f"LLM provider answered a streamed request with {kind}, not an event stream", response.text)


def check_key(key: str, variable: str | None) -> None:
    """Refuse a key that no HTTP header can carry, naming where it came from and never showing it:
    a key file's last newline (``OPENAI_API_KEY=$(cat key.txt)``), a control character, a letter
    outside ASCII. Sent, the HTTP library would fail with the key in its message, or not at all."""
    problem = _key_problem(key)
    if problem is not None:
        source = variable or "the API key"
        raise AuthenticationError(f"{source} cannot be sent: it holds {problem}, which an HTTP header cannot carry")


def _key_problem(key: str) -> str | None:
    """What in ``key`` no header can carry, read with ``str`` methods (each call checks its key:
    a loop over a hundred characters in Python cost more than the rest of the check): an ASCII
    character is printable exactly when it lies between a space and ``~``."""
    if "\n" in key or "\r" in key:
        return "a line break"
    if not key.isascii():
        return "a character outside ASCII"
    if not key.isprintable():
        return "a control character"
    if key != key.strip():
        return "spaces at its start or end"
    return None


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


def usage_of(raw: Any) -> Usage | None:
    """The reply's token counts (the SDK's ``usage`` object, read as :meth:`Usage.read` reads a
    provider's names), if it sent any."""
    usage = getattr(raw, "usage", None)
    if usage is None:
        return None
    dumped: dict[str, Any] = usage.model_dump(warnings=False)
    return Usage.read(dumped)


def _close_all(clients: dict[Any, Any]) -> None:
    """Close every kept client: an SDK client still open when Python tears its modules down fails in
    its ``__del__`` and prints "Exception ignored"."""
    for client in clients.values():
        with contextlib.suppress(Exception):  # closing is tidying up; nothing to report
            getattr(client, "close", lambda: None)()
    clients.clear()
