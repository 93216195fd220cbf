"""``ollama``: ``/api/chat`` through the official ``ollama`` SDK (an optional extra).

``build_request`` gives the keyword arguments of ``Client.chat`` in AgentScript's body order
(``model``, ``stream``, ``think``, ``messages``, ``format``, ``options`` with ``num_predict`` then
``temperature``, then ``tools``) and the host: the one the model URI names
(``ollama://HOST:PORT/MODEL``), else the adapter's, else ``OLLAMA_BASE_URL``, then ``OLLAMA_HOST``.
The user's ``OLLAMA_API_KEY`` goes only to the configured host (the adapter's, else the
environment's, else the default): a host a URI names that is not it gets no key (the SDK would add
it to every request), and a program's run asks the user before sending there at all
(:meth:`OllamaAdapter.named_host`).
A conversation's turns are written by :mod:`.ollama_turns` (tool calls with object arguments, tool
messages naming their tool, images as bare base64, Ollama's own thinking), which also reads a reply
into the next turn (``Reply.turn``); what Ollama cannot carry is in the notes. The SDK is
imported only to send (``client``, ``post``), with an explicit timeout (its default waits forever).

Streamed, the body's ``stream`` is ``true``; the reply comes as NDJSON lines, each a chat response
holding a piece of the message, folded into the one the last line (``done: true``, with the token
counts) would have been sent whole as. A stream without it was cut short; an error line is the
provider's failure.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

from ..core.call import ProviderRequest, Reply, Usage, cut_short
from ..core.contract import OutputContract
from ..core.environment import environment_value
from ..core.errors import BadRequestError, MalformedResponseError, ProviderError, body_excerpt
from ..core.model_uri import model_scheme
from ..core.prompt import GenerateConfig, PromptCache, ToolCall
from ..core.rendered import RenderedPrompt
from .base import Endpoint, StreamingAdapter, StreamReader, check_key, returns_left_out
from .ollama_turns import OllamaMessages, reply_turn
from .openai_turns import cache_breakpoints_note
from .reply_size import bounded_hooks
from .status import connection_failed, missing_part, status_error, stream_failure

__all__ = ["OllamaAdapter", "adapter", "configured_host", "model_and_host"]

DEFAULT_HOST = "http://localhost:11434"
_SCHEME_PORTS = {"http": 80, "https": 443}


def model_and_host(model: str | None, default_host: str | None = None) -> tuple[str, str]:
    """``ollama://HOST:PORT/MODEL`` -> (MODEL, ``http://HOST:PORT``); ``ollama://MODEL`` or a bare name
    uses ``default_host``, then ``OLLAMA_BASE_URL`` (AgentScript's), then ``OLLAMA_HOST`` (the SDK's,
    which also reads forms like ``0.0.0.0`` or ``host:port``), then ``http://localhost:11434``."""
    fallback = configured_host(default_host)
    if not model:
        raise BadRequestError("ollama URI must include a model name")
    if model_scheme(model) is None:
        return model, fallback
    parts = urlsplit(model)
    if parts.scheme != "ollama":
        raise BadRequestError(f"{parts.scheme} URI must include a model name")
    path = unquote(parts.path).lstrip("/")
    if path:
        return path, f"http://{parts.netloc}"
    if not parts.hostname:
        raise BadRequestError("ollama URI must include a model name")
    return unquote(parts.netloc), fallback


def configured_host(default_host: str | None = None) -> str:
    """The host a call goes to when its model URI names none: ``default_host`` (the adapter's),
    else ``OLLAMA_BASE_URL``, then ``OLLAMA_HOST``, then ``http://localhost:11434``."""
    return (default_host or os.environ.get("OLLAMA_BASE_URL") or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST).rstrip(
        "/"
    )


@functools.lru_cache(maxsize=64)
def host_origin(host: str) -> tuple[str, str, int]:
    """A host as the SDK reads it (``host``, ``host:port``, ``http://host``...) reduced to its
    origin: scheme, host in lower case, port (11434 when neither the host nor its scheme gives one,
    as in the SDK). Two hosts with one origin are one server. Kept per host: every call compares
    two, and a run sends to a few."""
    scheme, separator, rest = host.partition("://")
    scheme, port = scheme.lower(), 11434
    if not separator:
        scheme, rest = "http", host
    elif scheme in _SCHEME_PORTS:
        port = _SCHEME_PORTS[scheme]
    try:
        parts = urlsplit(f"{scheme}://{rest}")
        port = parts.port or port
    except ValueError:
        return scheme, rest.lower(), -1  # no port the SDK could reach: equal to itself only
    return scheme.lower(), (parts.hostname or "127.0.0.1").lower(), port


class OllamaAdapter(StreamingAdapter):
    name = "ollama"
    description = "Ollama /api/chat through the official SDK (pip install 'promptwire[ollama]')"
    sdk = "ollama"
    extra = "ollama"
    protocol = "ollama"
    path = "api/chat"
    no_parameters: ClassVar[Mapping[str, Any]] = {"type": "object"}
    """A tool that takes no parameters, as the SDK sends it: it reads each tool into its own model,
    whose parameters default to ``{"type": "object"}``, so ``{}`` would show bytes never sent."""
    no_count_hint: ClassVar[str] = "Ollama reports how many tokens it read only in a reply, as prompt_eval_count"

    def __init__(self, *, host: str | None = None) -> None:
        super().__init__(base_url=host)

    def model_name(self, uri: str | None) -> str:
        """``ollama://HOST:PORT/MODEL`` -> ``MODEL``: see :func:`model_and_host`."""
        return model_and_host(uri, self.base_url)[0]

    def named_host(self, uri: str | None) -> str | None:
        """The host ``uri`` (``ollama://HOST:PORT/MODEL``) sends its calls to when that is not the
        configured one (:func:`configured_host`), else None. A program's URI choosing a server is a
        network reach the run must allow (``asrender --allow-net``), as a tool's URL is."""
        if model_scheme(uri) != "ollama":
            return None
        try:
            host = model_and_host(uri, self.base_url)[1]
        except BadRequestError:
            return None  # no model: refused when the request is built
        return None if host_origin(host) == host_origin(configured_host(self.base_url)) else host

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        name, host = model_and_host(model, self.base_url)
        writer = OllamaMessages()
        messages = [data for index, message in enumerate(rendered.messages) for data in writer.write(message, index)]
        notes = writer.notes
        kwargs: dict[str, Any] = {"model": name, "stream": False, "think": config.think, "messages": messages}
        if contract is not None:
            kwargs["format"] = contract.json_schema
        options: dict[str, Any] = {}
        if config.max_output is not None:
            options["num_predict"] = config.max_output.output_tokens
        if config.temperature is not None:
            options["temperature"] = config.temperature
        if options:
            kwargs["options"] = options
        if rendered.tools:
            kwargs["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": self.parameters(t)},
                }
                for t in rendered.tools
            ]
            notes.extend(returns_left_out(rendered.tools, "Ollama"))
        notes.extend(writer.id_note())
        notes.extend(_cache_notes(writer.breakpoints, rendered.cache))
        return ProviderRequest(kwargs, tuple(notes), endpoint=host)

    def endpoint(self, request: ProviderRequest) -> Endpoint:
        """The host the request names, with ``OLLAMA_API_KEY`` (for ollama.com) when that host is
        the configured one, checked as other adapters check theirs and masked like theirs. A host
        only a model URI names gets no key: the user gave it to the server they configured."""
        configured = configured_host(self.base_url)
        host = request.endpoint or configured
        key = environment_value("OLLAMA_API_KEY") or None
        if key:
            check_key(key, "OLLAMA_API_KEY")
        if host != configured and host_origin(host) != host_origin(configured):
            key = None
        return Endpoint(host, key)

    def client(self, endpoint: Endpoint, seconds: float) -> Any:
        import ollama

        return _keyed(ollama.Client(host=endpoint.url, timeout=seconds, event_hooks=bounded_hooks()), endpoint)

    def async_client(self, endpoint: Endpoint, seconds: float) -> Any:
        import ollama

        hooks = bounded_hooks(asynchronous=True)
        return _keyed(ollama.AsyncClient(host=endpoint.url, timeout=seconds, event_hooks=hooks), endpoint)

    def post(self, client: Any, body: bytes) -> Any:
        # Client.chat would encode the body itself (its HTTP client fails on half a character), so
        # the bytes go out through the SDK's HTTP client as they are. Its reading of a failure is
        # not used either: ResponseError parses the body and fails on an error body of null or
        # [1] (AttributeError) or a 5000-digit integer. The reply is read as chat() reads it, once
        # it is known to be an object: chat() spreads it as keyword arguments (a TypeError for 7).
        sent = client._client.request("POST", "/api/chat", content=body)
        if inspect.isawaitable(sent):  # the async client's
            return _read_when_sent(sent)
        return _chat_response(sent)

    def post_stream(self, client: Any, body: bytes) -> Any:
        import ollama

        opened = client._request(ollama.ChatResponse, "POST", "/api/chat", content=body, stream=True)
        return _opened_lines(opened) if inspect.isawaitable(opened) else _object_lines(opened)

    def stream_reader(self) -> StreamReader:
        return LineReader()

    def replayed_reply(self, data: Any) -> Any:
        """A recorded reply (:mod:`promptwire.calls.recording`) as the SDK's object again, built
        as the SDK builds the one it receives (validated, as ``chat()`` reads it)."""
        import ollama

        return ollama.ChatResponse(**data)

    def failure(self, exc: Exception, endpoint: Endpoint, seconds: float) -> ProviderError | None:
        import ollama
        import pydantic

        endpoint = endpoint._replace(key=os.environ.get("OLLAMA_API_KEY"))
        if isinstance(exc, ollama.ResponseError) and exc.status_code == -1:  # an error line in a stream
            return stream_failure(str(exc.error), secret=endpoint.key)
        if isinstance(exc, ollama.ResponseError):
            return status_error(exc.status_code, str(exc.error), secret=endpoint.key)
        if isinstance(exc, ConnectionError):  # the SDK's own, for a refused connection
            return connection_failed(exc)
        if isinstance(exc, pydantic.ValidationError):  # JSON, but not an Ollama chat reply
            excerpt = body_excerpt(str(exc))
            return MalformedResponseError(
                f"LLM provider returned an unexpected response: {excerpt}", status=200, body=excerpt
            )
        return super().failure(exc, endpoint, seconds)

    def reply(self, raw: Any) -> Reply:
        message = raw.message
        calls = tuple(  # Ollama's calls have no ids: each is given the one its turn's part has (reply_turn)
            ToolCall(name=call.function.name, id=f"call_{number}", arguments=dict(call.function.arguments or {}))
            for number, call in enumerate(message.tool_calls or ())
        )
        usage = Usage.read({"input_tokens": raw.prompt_eval_count, "output_tokens": raw.eval_count})
        return Reply(
            text=message.content,
            raw=raw,
            reasoning=message.thinking,
            usage=usage,
            finish_reason=raw.done_reason,
            tool_calls=calls,
            turn=reply_turn(message),
        )


def _keyed(client: Any, endpoint: Endpoint) -> Any:
    """The SDK's client without the bearer header it adds from ``OLLAMA_API_KEY`` whatever the
    host, unless ``endpoint`` carries the key (it is the configured host)."""
    if endpoint.key is None:
        client._client.headers.pop("authorization", None)
    return client


async def _read_when_sent(sent: Any) -> Any:
    return _chat_response(await sent)


_NOT_AN_OBJECT = "LLM provider stream holds a line that is not a JSON object"


def _object_lines(events: Any) -> Any:
    """The SDK's stream of chat responses, with a line of JSON that is no object (``null``, ``7``,
    ``[]``: the SDK calls ``.get`` on each line) told as a malformed reply, not an AttributeError."""
    try:
        yield from events
    except (AttributeError, TypeError) as exc:
        raise missing_part(_NOT_AN_OBJECT, str(exc)) from None


async def _opened_lines(opening: Any) -> Any:
    return _async_object_lines(await opening)


async def _async_object_lines(events: Any) -> Any:
    """:func:`_object_lines` for the async client's stream (closed with it)."""
    try:
        async for event in events:
            yield event
    except (AttributeError, TypeError) as exc:
        raise missing_part(_NOT_AN_OBJECT, str(exc)) from None
    finally:
        await events.aclose()


def _chat_response(response: Any) -> Any:
    """An ``/api/chat`` HTTP response read as the SDK's ``chat()`` reads it, or the provider error it is."""
    import ollama

    if response.is_error:
        raise status_error(response.status_code, _error_text(response.text))
    data = response.json()
    if not isinstance(data, dict):
        raise missing_part("LLM provider response is not a JSON object", data)
    return ollama.ChatResponse(**data)


def _error_text(text: str) -> str:
    """What an Ollama failure says: the ``error`` of its JSON body, else the body as it came."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text
    error = data.get("error") if isinstance(data, dict) else None
    return error if isinstance(error, str) else text


class LineReader:
    """Ollama's chat stream: each line's piece of the message (text, thinking, tool calls) joined
    into the last line's response, the one with ``done``, its reason and the token counts."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.thinking: list[str] = []
        self.calls: list[Any] = []
        self.last: Any = None

    def feed(self, part: Any) -> str | None:
        message = part.message
        if message.thinking:
            self.thinking.append(message.thinking)
        if message.tool_calls:
            self.calls.extend(message.tool_calls)
        if part.done:
            self.last = part
        if not message.content:
            return None
        self.texts.append(message.content)
        return message.content  # type: ignore[no-any-return]

    def whole(self) -> Any:
        if self.last is None:
            raise cut_short()
        joined = {"content": "".join(self.texts), "thinking": "".join(self.thinking) or None}
        message = self.last.message.model_copy(update={**joined, "tool_calls": self.calls or None})
        return self.last.model_copy(update={"message": message})


def _cache_notes(breakpoints: list[str], cache: PromptCache | None) -> list[str]:
    """What Ollama does not take of the prompt's caching: breakpoints (one note for them all) and
    OpenAI's cache key and retention."""
    if cache is not None and cache.tools is not None:
        breakpoints = [*breakpoints, "cache.tools"]
    notes = cache_breakpoints_note(
        breakpoints, "Ollama reuses a prompt's cached prefix by itself and takes no breakpoints"
    )
    if cache is not None and cache.key is not None:
        notes.append(f"cache key {cache.key!r} left out: Ollama has no cache key")
    if cache is not None and cache.retention is not None:
        notes.append(f"cache retention {cache.retention!r} left out: Ollama has no retention setting")
    return notes


adapter = OllamaAdapter()
