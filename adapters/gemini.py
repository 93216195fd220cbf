"""``gemini``: the Gemini API's ``generateContent`` through Google's official ``google-genai`` SDK
(an optional extra).

``build_request`` gives the ``generateContent`` body in the REST API's own JSON, camelCase, as it
goes on the wire: ``systemInstruction``, ``contents`` (written by :mod:`.gemini_turns`: roles
``user`` and ``model``, text, ``inlineData`` and ``fileData`` parts, ``functionCall`` and
``functionResponse`` parts, Gemini's own thought parts with their ``thoughtSignature``), ``tools``
(one ``functionDeclarations`` list, each tool's JSON Schema as ``parametersJsonSchema`` and what it
returns as ``responseJsonSchema``, both taken as JSON Schema, so nothing is converted) and
``generationConfig`` (``temperature``, ``maxOutputTokens``, ``responseMimeType`` with
``responseJsonSchema`` for an output contract, ``thinkingConfig``). Not the SDK's keyword form:
the SDK would turn its keywords into this JSON itself (and base64-encode bytes on the way), so a
dry run of keywords would show something that never goes out; this is the body sent, byte for
byte. The model is not in the body but in the URL (``v1beta/models/MODEL:generateContent``):
``ProviderRequest.model`` carries it. The API version is ``v1beta``, fixed here (the SDK's default,
``v1``, or ``GOOGLE_GENAI_API_VERSION``, is not used: the thought signatures, ``parametersJsonSchema``
and ``responseJsonSchema`` are documented for ``v1beta``).

Sending uses the SDK's own API client (``genai.Client``'s ``_api_client``: its URL building, key
header ``x-goog-api-key``, timeout and error reading), with the body as bytes, which that client
sends unchanged; its ``models.generate_content`` would rebuild the body from keywords. The SDK's
HTTP clients are ``httpx`` clients built here with :func:`~.reply_size.bounded_hooks`, and the SDK
makes no retry (no ``retry_options``). The key is the adapter's, else ``GOOGLE_API_KEY``, else
``GEMINI_API_KEY`` (the SDK's own order); the base URL the adapter's (``--base-url``), else
``GOOGLE_GEMINI_BASE_URL`` (which the SDK reads too), else ``https://generativelanguage.googleapis.com``.
The Gemini API only: ``GOOGLE_GENAI_USE_VERTEXAI`` is not followed (Vertex AI is another
endpoint, with other credentials).

Streamed, the request goes to ``streamGenerateContent?alt=sse`` (the body is the same: Gemini's
stream is asked for by the URL, so :attr:`GeminiAdapter.stream_flags` is empty); each server-sent
event is a ``GenerateContentResponse`` holding a piece of the reply, folded into the one it would
have been sent whole as (:class:`ChunkReader`). A stream whose last chunk gave no ``finishReason``
was cut short; a chunk holding ``error`` is the provider's failure.

Token counts (``count_tokens``) go to ``models/MODEL:countTokens`` with the whole request as its
``generateContentRequest`` (the endpoint takes ``contents`` alone, or a ``generateContentRequest``
with the system instruction, tools and generation config: never both).
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any, ClassVar

from ..core.call import ProviderRequest, Reply, Usage, cut_short
from ..core.contract import OutputContract
from ..core.errors import AuthenticationError, BadRequestError, MalformedResponseError, ProviderError, body_excerpt
from ..core.json_text import to_bytes
from ..core.prompt import ChatTurn, GenerateConfig, PromptCache, ToolCall, ToolDefinition
from ..core.rendered import RenderedPrompt
from .base import Endpoint, StreamingAdapter, StreamReader, check_key
from .gemini_turns import GeminiContents, reply_turn
from .openai_turns import cache_breakpoints_note
from .reply_size import bounded_hooks
from .status import missing_part, refused, retry_after, status_error, stream_failure

__all__ = ["API_VERSION", "ChunkReader", "GeminiAdapter", "adapter"]

API_VERSION = "v1beta"
KEY_VARIABLES = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
"""Where the key is found when the adapter has none, in the SDK's order (it prefers the first)."""
_MODEL = re.compile(r"(?:(?:models|tunedModels)/)?[A-Za-z0-9][A-Za-z0-9._-]*")
_LEVEL_BUDGETS = {"low": 1024, "medium": 8192, "high": 24576}
"""A thinking level as a Gemini 2 model's token budget (2.5 Flash takes at most 24576)."""
_REFUSALS = frozenset({"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII"})
"""Finish reasons that mean the model's answer was withheld."""
CACHE_WHY = (
    "Gemini's context caching is a resource (cachedContents, made beforehand and named in a request), not a breakpoint"
)


class GeminiAdapter(StreamingAdapter):
    name = "gemini"
    description = (
        "Google Gemini API generateContent through the official google-genai SDK (pip install 'promptwire[gemini]')"
    )
    sdk = "google.genai"
    extra = "gemini"
    protocol = "gemini"
    default_url = "https://generativelanguage.googleapis.com"
    url_variable = "GOOGLE_GEMINI_BASE_URL"
    key_variable = "GEMINI_API_KEY"
    stream_flags: ClassVar[Mapping[str, Any]] = {}
    """Nothing: Gemini's stream is asked for by its URL (``streamGenerateContent?alt=sse``), so a
    streamed request's body is the one built."""
    count_endpoint: ClassVar[str | None] = f"POST /{API_VERSION}/models/{{model}}:countTokens"

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        name = self.model_name(model)
        if not _MODEL.fullmatch(name):
            raise BadRequestError(
                f"gemini model {name!r} is not a model name (letters, digits, '.', '_' and '-', "
                "optionally after 'models/' or 'tunedModels/')"
            )
        writer = GeminiContents()
        writer.write(rendered.messages)
        notes = writer.notes
        kwargs: dict[str, Any] = {}
        if writer.system:
            kwargs["systemInstruction"] = {"parts": writer.system}
        kwargs["contents"] = writer.contents
        if rendered.tools:
            kwargs["tools"] = [{"functionDeclarations": [_declaration(tool, notes) for tool in rendered.tools]}]
        generation: dict[str, Any] = {}
        if config.temperature is not None:
            generation["temperature"] = config.temperature
        if config.max_output is not None:
            generation["maxOutputTokens"] = config.max_output.output_tokens
        if contract is not None:
            generation["responseMimeType"] = "application/json"
            generation["responseJsonSchema"] = contract.json_schema
        thinking = _thinking(config, name, notes)
        if thinking is not None:
            generation["thinkingConfig"] = thinking
        if generation:
            kwargs["generationConfig"] = generation
        notes.extend(cache_notes(writer.breakpoints, rendered.cache))
        return ProviderRequest(kwargs, tuple(notes), model=name)

    def endpoint(self, request: ProviderRequest) -> Endpoint:
        """The model's URL (``BASE/v1beta/models/MODEL``) and the key: the adapter's, else
        ``GOOGLE_API_KEY``, else ``GEMINI_API_KEY``, as the SDK reads them; one is required."""
        key, variable = self.api_key, None
        if not key:
            variable = next((name for name in KEY_VARIABLES if os.environ.get(name)), KEY_VARIABLES[-1])
            key = os.environ.get(variable) or None
        if not key:
            raise AuthenticationError("GEMINI_API_KEY (or GOOGLE_API_KEY) is required for gemini:// models")
        check_key(key, variable)
        return Endpoint(f"{request.endpoint or self.url()}/{API_VERSION}/{_model_path(request.model or '')}", key)

    def request_path(self, request: ProviderRequest) -> str:
        """The path below the base URL ``request`` goes to sent whole, as the SDK builds it
        (``v1beta/models/MODEL:generateContent``): a recording's ``path``. Streamed, it goes to
        ``:streamGenerateContent?alt=sse``, the body the same (the recording says ``streamed``)."""
        return f"{API_VERSION}/{_model_path(request.model or '')}:generateContent"

    def client(self, endpoint: Endpoint, seconds: float) -> Any:
        return _ModelClient(endpoint, seconds, asynchronous=False)

    def async_client(self, endpoint: Endpoint, seconds: float) -> Any:
        return _ModelClient(endpoint, seconds, asynchronous=True)

    def post(self, client: Any, body: bytes) -> Any:
        if client.asynchronous:
            return _asent(client, "generateContent", body)
        return _generated(client.sent("generateContent", body))

    def post_stream(self, client: Any, body: bytes) -> Any:
        if client.asynchronous:
            return _aopened(client, body)
        opened = client.api._request(client.request("streamGenerateContent?alt=sse", body), stream=True)
        if not _is_event_stream(opened.response_stream):
            opened.response_stream.read()
            raise _not_an_event_stream(opened.response_stream)
        return _Events(opened)

    def stream_reader(self) -> StreamReader:
        return ChunkReader()

    def replayed_reply(self, data: Any) -> Any:
        """A recorded reply (:mod:`promptwire.calls.recording`: the response's JSON, camelCase)
        as the SDK's ``GenerateContentResponse`` again, read as a reply sent whole is read."""
        return _response(data)

    def failure(self, exc: Exception, endpoint: Endpoint, seconds: float) -> ProviderError | None:
        from google.genai import errors

        if isinstance(exc, errors.APIError):  # any status but 200 (a redirect too: the SDK follows none)
            details = exc.details
            text = details if isinstance(details, str) else json.dumps(details, ensure_ascii=False)
            error = status_error(exc.code if isinstance(exc.code, int) else 500, text, secret=endpoint.key)
            error.retry_after = retry_after(exc.response) if exc.response is not None else None
            if error.retry_after is None:
                error.retry_after = _retry_delay(details)
            return error
        if isinstance(exc, errors.UnknownApiResponseError):  # a stream's event that is not JSON
            excerpt = body_excerpt(str(exc), endpoint.key)
            return MalformedResponseError(
                f"LLM provider returned an unexpected response: {excerpt}", status=200, body=excerpt
            )
        return super().failure(exc, endpoint, seconds)

    def reply(self, raw: Any) -> Reply:
        candidates = raw.candidates
        if not candidates:
            feedback = raw.prompt_feedback
            if feedback is not None and feedback.block_reason is not None:
                raise refused(f"the prompt was blocked ({_value(feedback.block_reason)})")
            raise missing_part("Gemini response has no candidates", raw)
        candidate = candidates[0]
        finish = _value(candidate.finish_reason)
        parts = (candidate.content.parts if candidate.content is not None else None) or []
        texts = [p.text for p in parts if p.text is not None and not p.thought and p.function_call is None]
        if finish in _REFUSALS:
            raise refused("".join(texts))
        thoughts = [p.text for p in parts if p.thought and p.text is not None]
        calls, number = [], 0
        for part in parts:
            call = part.function_call
            if call is not None:
                arguments = dict(call.args or {})
                calls.append(ToolCall(name=call.name or "", id=call.id or f"call_{number}", arguments=arguments))
                number += 1
        turn = (
            reply_turn(candidate.content) if candidate.content is not None else ChatTurn(role="assistant", content="")
        )
        return Reply(
            text="".join(texts),
            raw=raw,
            reasoning="".join(thoughts) or None,
            usage=_usage(raw.usage_metadata),
            finish_reason=finish,
            tool_calls=tuple(calls),
            turn=turn,
        )

    # --- token counts ----------------------------------------------------------------------------

    def count_body(self, request: ProviderRequest) -> dict[str, Any]:
        """``countTokens``' body: the request as its ``generateContentRequest`` (with the model, as
        that message requires), which counts the system instruction and tools too; ``contents``
        alone would leave them out, and the endpoint refuses both at once."""
        return {"generateContentRequest": {"model": _model_path(request.model or ""), **request.kwargs}}

    def count_tokens(self, request: ProviderRequest) -> int:
        seconds, endpoint = self._where(request, None)
        with self._told(endpoint, seconds):
            client = self._kept(endpoint, seconds)
            return _total(client.sent("countTokens", to_bytes(self.count_body(request))))

    async def acount_tokens(self, request: ProviderRequest) -> int:
        import asyncio

        seconds, endpoint = self._where(request, None)
        with self._told(endpoint, seconds):
            client = self._kept_async(endpoint, seconds)
            try:
                async with asyncio.timeout(seconds):
                    text = await client.asent("countTokens", to_bytes(self.count_body(request)))
            except TimeoutError:
                raise self.timed_out(endpoint, seconds) from None
            return _total(text)


class _ModelClient:
    """The SDK's client for one model's URL, sync or async: ``genai.Client`` on the adapter's own
    ``httpx`` clients (the reply bounded), with no retries, and the model's path below it.

    Both of the SDK's HTTP clients are given, with one TLS context for every client of the
    process (:func:`_tls`): left to itself, ``genai.Client`` builds the one it is not given, and a
    TLS context for its websockets, each loading the CA bundle again (about 100 ms a client here)."""

    def __init__(self, endpoint: Endpoint, seconds: float, *, asynchronous: bool) -> None:
        import httpx
        from google import genai
        from google.genai import types

        base, self.model = endpoint.url.rsplit(f"/{API_VERSION}/", 1)
        tls = _tls()
        hooks = bounded_hooks(asynchronous=asynchronous)
        self.asynchronous = asynchronous
        self.http: Any = (httpx.AsyncClient if asynchronous else httpx.Client)(
            verify=tls, event_hooks=hooks, timeout=seconds
        )
        unused = (httpx.Client if asynchronous else httpx.AsyncClient)(verify=tls, timeout=seconds)  # never sends
        options = types.HttpOptions(
            base_url=base + "/",
            api_version=API_VERSION,
            timeout=math.ceil(seconds * 1000),  # milliseconds
            httpx_client=unused if asynchronous else self.http,
            httpx_async_client=self.http if asynchronous else unused,
            async_client_args={"ssl": tls},  # the websockets' TLS context, never used here
        )
        self.api = genai.Client(vertexai=False, api_key=endpoint.key, http_options=options)._api_client

    def request(self, method: str, body: bytes) -> Any:
        """The SDK's request for ``MODEL:method``, with ``body`` as its bytes (sent unchanged)."""
        request = self.api._build_request("post", f"{self.model}:{method}", {}, None)
        request.data = body
        return request

    def sent(self, method: str, body: bytes) -> str:
        response = self.api._request(self.request(method, body), stream=False)
        return str(response.response_stream[0]) if response.response_stream else ""

    async def asent(self, method: str, body: bytes) -> str:
        response = await self.api._async_request(http_request=self.request(method, body), stream=False)
        return str(response.response_stream[0]) if response.response_stream else ""

    def close(self) -> None:
        if not self.asynchronous:
            self.http.close()

    async def aclose(self) -> None:
        if self.asynchronous:
            await self.http.aclose()


@functools.cache
def _tls() -> Any:
    """One TLS context for every Gemini client: ``httpx``'s default (the CA bundle, and
    ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` when set), loaded once."""
    import httpx

    return httpx.create_ssl_context()


def _model_path(name: str) -> str:
    """``gemini-2.5-flash`` -> ``models/gemini-2.5-flash``; ``tunedModels/x`` as it is."""
    return name if name.startswith(("models/", "tunedModels/")) else f"models/{name}"


def _json_object(text: str) -> dict[str, Any]:
    data = json.loads(text)  # not JSON: the skeleton's malformed reply
    if not isinstance(data, dict):
        raise missing_part("LLM provider response is not a JSON object", data)
    return data


def _generated(text: str) -> Any:
    return _response(_json_object(text))


def _response(data: dict[str, Any]) -> Any:
    """``data`` as the SDK's ``GenerateContentResponse``, or a malformed reply quoting it: pydantic
    refuses a value of the wrong kind, and the SDK's enums fail on one (``AttributeError``)."""
    from google.genai import types

    try:
        return types.GenerateContentResponse.model_validate(data)
    except (ValueError, TypeError, AttributeError) as exc:
        raise missing_part(f"LLM provider response is not a Gemini reply ({type(exc).__name__})", data) from None


async def _asent(client: _ModelClient, method: str, body: bytes) -> Any:
    return _generated(await client.asent(method, body))


def _total(text: str) -> int:
    data = _json_object(text)
    total = data.get("totalTokens")
    if not isinstance(total, int) or isinstance(total, bool):
        raise missing_part("Gemini countTokens response has no totalTokens", data)
    return total


def _is_event_stream(response: Any) -> bool:
    return str(response.headers.get("content-type", "")).startswith("text/event-stream")


def _not_an_event_stream(response: Any) -> ProviderError:
    """A 200 of another kind to a streamed request (a proxy's JSON, a captive portal's page),
    quoted as a malformed reply, as it would be unstreamed."""
    kind = response.headers.get("content-type") or "no content type"
    return missing_part(f"LLM provider answered a streamed request with {kind}, not an event stream", response.text)


class _Events:
    """The events of a sync stream (each a chunk's JSON), closed with its response."""

    def __init__(self, opened: Any) -> None:
        self._opened = opened

    def __iter__(self) -> Iterator[Any]:
        return iter(self._opened.segments())

    def close(self) -> None:
        self._opened.response_stream.close()


async def _aopened(client: _ModelClient, body: bytes) -> Any:
    opened = await client.api._async_request(
        http_request=client.request("streamGenerateContent?alt=sse", body), stream=True
    )
    response: Any = opened.response_stream
    if not _is_event_stream(response):
        await response.aread()
        raise _not_an_event_stream(response)
    return _aevents(opened)


async def _aevents(opened: Any) -> AsyncIterator[Any]:
    try:
        async for event in opened:
            yield event
    finally:
        await opened.response_stream.aclose()


_STREAM_KINDS = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error"}


def _stream_error(error: Any) -> ProviderError:
    """A chunk's ``error`` (Google's ``{"code", "message", "status"}``) as the failure it stands for."""
    if not isinstance(error, dict):
        return stream_failure(error)
    code = error.get("code")
    kind = _STREAM_KINDS.get(code) if isinstance(code, int) else None
    if kind is None and code == 404:
        kind = "not_found_error"
    elif kind is None and code == 429:
        kind = "rate_limit_exceeded"
    elif kind is None:
        kind = "server_error"
    return stream_failure({"code": kind, "message": f"{error.get('status')}: {error.get('message')}"})


class ChunkReader:
    """Gemini's stream: each chunk's parts joined into one response, as it would have come whole
    (consecutive pieces of text, or of thought, make one part, up to a part carrying a signature;
    a function call is a part of its own), with the last chunk's finish reason and usage."""

    def __init__(self) -> None:
        self.parts: list[dict[str, Any]] = []
        self.candidate: dict[str, Any] = {}
        self.top: dict[str, Any] = {}
        self.role: str | None = None

    def feed(self, event: Any) -> str | None:
        if not isinstance(event, dict):
            raise TypeError(f"a stream chunk is {type(event).__name__}, not an object")
        if "error" in event:
            raise _stream_error(event["error"])
        texts: list[str] = []
        for candidate in (event.get("candidates") or [])[:1]:
            content = candidate.get("content") or {}
            self.role = content.get("role", self.role)
            for part in content.get("parts") or ():
                self._add(dict(part))
                if isinstance(part.get("text"), str) and not part.get("thought"):
                    texts.append(part["text"])
            self.candidate.update({key: value for key, value in candidate.items() if key != "content"})
        self.top.update({key: value for key, value in event.items() if key != "candidates"})
        return "".join(texts) or None

    def _add(self, part: dict[str, Any]) -> None:
        last = self.parts[-1] if self.parts else None
        joins = (
            last is not None
            and isinstance(last.get("text"), str)
            and isinstance(part.get("text"), str)
            and set(part) <= {"text", "thought", "thoughtSignature"}
            and set(last) <= {"text", "thought", "thoughtSignature"}
            and bool(last.get("thought")) == bool(part.get("thought"))
            and "thoughtSignature" not in last
        )
        if not joins:
            self.parts.append(part)
            return
        assert last is not None
        last["text"] += part["text"]
        if "thoughtSignature" in part:
            last["thoughtSignature"] = part["thoughtSignature"]

    def whole(self) -> Any:
        if "finishReason" not in self.candidate:
            raise cut_short()
        content = {"role": self.role or "model", "parts": self.parts}
        return _response({"candidates": [{"content": content, **self.candidate}], **self.top})


def _retry_delay(details: Any) -> float | None:
    """The wait a Google error's ``RetryInfo`` asks for (``"retryDelay": "37s"``), if it says one."""
    error = details.get("error") if isinstance(details, dict) else None
    for detail in (error.get("details") if isinstance(error, dict) else None) or ():
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("google.rpc.RetryInfo"):
            delay = str(detail.get("retryDelay", ""))
            try:
                seconds = float(delay.removesuffix("s"))
            except ValueError:
                return None
            return max(seconds, 0.0) if math.isfinite(seconds) else None
    return None


def _value(enum: Any) -> str | None:
    return None if enum is None else str(getattr(enum, "value", enum))


def _usage(metadata: Any) -> Usage | None:
    """The reply's token counts: read (``promptTokenCount``) and written (the answer's and the
    thoughts', which Gemini counts apart and bills alike), with all it said as it spelt it."""
    if metadata is None:
        return None
    details = metadata.model_dump(mode="json", by_alias=True, exclude_none=True, warnings=False)
    written = [count for count in (metadata.candidates_token_count, metadata.thoughts_token_count) if count is not None]
    return Usage(metadata.prompt_token_count, sum(written) if written else None, details)


def _declaration(tool: ToolDefinition, notes: list[str]) -> dict[str, Any]:
    """A tool as a ``functionDeclaration``: its JSON Schemas as Gemini's JSON Schema fields."""
    declaration: dict[str, Any] = {"name": tool.name}
    if tool.description:
        declaration["description"] = tool.description
    if tool.parameters:
        declaration["parametersJsonSchema"] = tool.parameters
    if isinstance(tool.returns, dict):
        declaration["responseJsonSchema"] = tool.returns
    elif tool.returns is not None:
        notes.append(f"tool {tool.name!r}: what it returns is not a JSON Schema object; 'returns' left out")
    return declaration


def _thinking(config: GenerateConfig, model: str, notes: list[str]) -> dict[str, Any] | None:
    """``thinkingConfig``: thoughts shown (``includeThoughts``), at the level asked for (Gemini 3's
    ``thinkingLevel``; a Gemini 2 model takes a token budget instead, noted)."""
    think = config.think
    if think is False:
        return None
    if think is True or think == "auto":
        return {"includeThoughts": True}
    if re.search(r"gemini-(1|2)[.-]", model):
        budget = _LEVEL_BUDGETS[think]
        notes.append(f"think {think!r}: {model} takes a thinking budget, not a level; sent as {budget} tokens")
        return {"includeThoughts": True, "thinkingBudget": budget}
    return {"includeThoughts": True, "thinkingLevel": think.upper()}


def cache_notes(breakpoints: list[str], cache: PromptCache | None) -> list[str]:
    """What Gemini does not take of the prompt's caching: breakpoints (one note for them all) and
    OpenAI's cache key and retention."""
    if cache is not None and cache.tools is not None:
        breakpoints = [*breakpoints, "cache.tools"]
    notes = cache_breakpoints_note(breakpoints, CACHE_WHY)
    if cache is not None and cache.key is not None:
        notes.append(f"cache key {cache.key!r} left out: Gemini has no cache key")
    if cache is not None and cache.retention is not None:
        notes.append(f"cache retention {cache.retention!r} left out: Gemini has no retention setting")
    return notes


adapter = GeminiAdapter()
