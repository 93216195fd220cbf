"""``bedrock``: Amazon Bedrock's Converse API through the official AWS SDK (``boto3``, an optional extra).

``build_request`` gives the Converse request: ``modelId`` (``bedrock://MODEL_ID``: a model id such
as ``anthropic.claude-3-5-sonnet-20240620-v1:0``, an inference profile, or an ARN, dots, colons and
slashes as they are), then the JSON body: ``messages`` and ``system`` (written by
:mod:`.bedrock_turns`), ``inferenceConfig`` (``maxTokens``, ``temperature``), ``toolConfig`` (each
tool a ``toolSpec`` with its schema under ``inputSchema.json``, and a ``cachePoint`` after them for
the tools' breakpoint), ``additionalModelRequestFields`` (Claude's ``thinking``, which Converse has
no field of its own for) and ``outputConfig`` (an output schema as ``textFormat``: Converse's own
structured output, ``{"type": "json_schema", "structure": {"jsonSchema": {"schema": TEXT}}}`` with
the schema as JSON text, chosen over a forced tool call because the answer then comes as the
reply's text, which the contract checks, and a tool the model must call would be a tool the
conversation never declared; and ``effort`` for a thinking level on adaptive Claude models).

What goes on the wire is that body, byte for byte as a dry run shows it: ``modelId`` goes in the
URL (``POST /model/{modelId}/converse``, percent-encoded by botocore), and the rest is written by
promptwire's JSON writer and handed to botocore's ``converse`` operation, which signs and sends it
(``post``: the body replaces the one botocore would serialise, in its ``before-call`` event, before
it is signed). So images and documents are base64 text in the body, as boto3 would write the raw
bytes it takes, and no boto3 type checking or re-encoding comes between the body shown and the one
sent; Bedrock itself checks it (a ``ValidationException``).

Credentials and region are the AWS SDK's own (its environment variables, profile, role...): the
adapter takes no key (``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN`` and
``AWS_BEARER_TOKEN_BEDROCK`` are masked in every message, see :mod:`.base`). The endpoint is
``--base-url`` (or the adapter's ``base_url``), else botocore's ``AWS_ENDPOINT_URL_BEDROCK_RUNTIME``
or ``AWS_ENDPOINT_URL``, else the one botocore finds (the profile's, the region's). The client is
built with no retries of its own and the call's timeout as its connect and read timeouts; it is
kept per endpoint and timeout. There is no official async client (aioboto3 is not AWS's), so
``asend`` and ``astream`` run the calls in a worker thread, as the skeleton does for an SDK without
one.

Replies are read within :mod:`.reply_size`'s bound: botocore's HTTP client is urllib3, which takes
no ``httpx`` hooks, so a ``before-send`` handler sends the request through the client's own HTTP
session (``client._endpoint.http_session``: botocore has no public hook between receiving a
response and reading its body), refuses a compressed reply or a ``Content-Length`` past the bound,
and wraps the response's raw stream, which botocore reads whole replies and event streams through,
in a counter. A reply is recorded as it came on the wire (without botocore's ``ResponseMetadata``,
bytes as base64 text) and replayed as botocore parses it (``recorded_reply``, ``replayed_reply``).

Streamed, ``converse_stream`` answers with AWS's binary event stream, which botocore parses into
events (``messageStart``, ``contentBlockStart``/``Delta``/``Stop``, ``messageStop``,
``metadata``) that are folded into the reply ``converse`` would have sent; an exception event
(``modelStreamErrorException``, ``throttlingException``...) is the provider's failure, and a
stream without ``messageStop`` was cut short.

Token counts: Bedrock Runtime's ``CountTokens`` (``POST /model/{modelId}/count-tokens``) takes
``{"input": {"converse": {...}}}`` with only ``messages``, ``system``, ``toolConfig`` and
``additionalModelRequestFields`` of the Converse body (:meth:`BedrockAdapter.count_body`).
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar
from urllib.parse import quote

from ..core.call import ProviderRequest, Reply, Usage, cut_short
from ..core.contract import OutputContract
from ..core.environment import environment_value
from ..core.errors import (
    AuthenticationError,
    BadRequestError,
    MalformedResponseError,
    ModelNotFoundError,
    ProviderError,
    ProviderTimeoutError,
    QuotaExhaustedError,
    RateLimitedError,
    ServerError,
    body_excerpt,
)
from ..core.json_text import json_writer, to_bytes
from ..core.prompt import ChatTurn, GenerateConfig, PromptCache, ToolCall, ToolCallPart
from ..core.rendered import RenderedPrompt
from ..core.secrets import shown_url
from ..core.stepping import WORKER_THREADS, in_worker
from .base import Endpoint, StreamingAdapter, StreamReader, returns_left_out
from .bedrock_turns import ConverseMessages, cache_point, reply_turn
from .reply_size import bounded_chunks, checked_reply
from .status import connection_failed, missing_part, refused, retry_after

__all__ = ["BedrockAdapter", "adapter", "error_class"]

_BODY = "PromptwireBody"
"""The keyword that carries the body as built into botocore's call (taken out before botocore checks
the parameters, put back as the request's body before it is signed)."""

_COUNTED = ("messages", "system", "toolConfig", "additionalModelRequestFields")
"""What ``CountTokens`` takes of a Converse request (its ``ConverseTokensRequest``)."""

_BUDGETS = {True: 4096, "low": 1024, "medium": 4096, "high": 16384}
_MIN_BUDGET = 1024
_LEVELS = ("low", "medium", "high")
_REFUSED = frozenset({"guardrail_intervened", "content_filtered"})
"""Stop reasons that mean the answer was withheld: the reply is a refusal."""

_ERRORS: dict[str, type[ProviderError]] = {
    "ThrottlingException": RateLimitedError,
    "ModelNotReadyException": RateLimitedError,
    "ServiceQuotaExceededException": QuotaExhaustedError,
    "ValidationException": BadRequestError,
    "ConflictException": BadRequestError,
    "AccessDeniedException": AuthenticationError,
    "UnrecognizedClientException": AuthenticationError,
    "InvalidSignatureException": AuthenticationError,
    "ExpiredTokenException": AuthenticationError,
    "IncompleteSignature": AuthenticationError,
    "MissingAuthenticationTokenException": AuthenticationError,
    "ResourceNotFoundException": ModelNotFoundError,
    "ModelTimeoutException": ProviderTimeoutError,
    "InternalServerException": ServerError,
    "ServiceUnavailableException": ServerError,
    "ModelErrorException": ServerError,
    "ModelStreamErrorException": ServerError,
}
"""Each Bedrock Runtime error code (``x-amzn-ErrorType``, or an exception event's type) and the class it is."""


def error_class(code: str, status: int) -> type[ProviderError]:
    """The class of a Bedrock error: by its code (an event's ``modelStreamErrorException`` as
    ``ModelStreamErrorException``), else by its status (5xx a server error, else a bad request)."""
    known = _ERRORS.get(code[:1].upper() + code[1:])
    if known is not None:
        return known
    return ServerError if status >= 500 else BadRequestError


def _is_claude(model: str) -> bool:
    return "anthropic.claude" in model or "claude-" in model


class BedrockAdapter(StreamingAdapter):
    name = "bedrock"
    description = "Amazon Bedrock Converse API through the official AWS SDK (pip install 'promptwire[bedrock]')"
    sdk = "boto3"
    extra = "bedrock"
    protocol = "bedrock"
    stream_flags: ClassVar[Mapping[str, Any]] = {}
    """A stream is another operation (``converse_stream``, ``/converse-stream``), not a flag in the body."""
    no_parameters: ClassVar[Mapping[str, Any]] = {"type": "object", "properties": {}}
    count_endpoint: ClassVar[str | None] = "POST /model/{modelId}/count-tokens"

    def __init__(self, *, base_url: str | None = None) -> None:
        super().__init__(base_url=base_url)
        self._resolved: dict[Endpoint, str] = {}

    def with_base_url(self, url: str) -> BedrockAdapter:
        moved = super().with_base_url(url)
        moved._resolved = {}
        return moved

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        model_id = self.model_name(model)
        writer = ConverseMessages()
        system, messages = writer.write(rendered.messages)
        notes = writer.notes
        kwargs: dict[str, Any] = {"modelId": model_id, "messages": messages}
        if system:
            kwargs["system"] = system
        inference: dict[str, Any] = {}
        if config.max_output is not None:
            inference["maxTokens"] = config.max_output.output_tokens
        if config.temperature is not None:
            inference["temperature"] = config.temperature
        if inference:
            kwargs["inferenceConfig"] = inference
        if rendered.tools:
            tools: list[dict[str, Any]] = []
            for tool in rendered.tools:
                spec: dict[str, Any] = {"name": tool.name}
                if tool.description:  # Converse refuses an empty description
                    spec["description"] = tool.description
                spec["inputSchema"] = {"json": self.parameters(tool)}
                tools.append({"toolSpec": spec})
            kwargs["toolConfig"] = {"tools": tools}
            notes.extend(returns_left_out(rendered.tools, "Bedrock"))
        output: dict[str, Any] = {}
        _thinking(kwargs, output, config, notes)
        if contract is not None:
            schema = _schema_text(contract.json_schema)
            output["textFormat"] = {"type": "json_schema", "structure": {"jsonSchema": {"schema": schema}}}
        if output:
            kwargs["outputConfig"] = output
        _cache_settings(kwargs, rendered.cache, notes)
        return ProviderRequest(kwargs, tuple(notes), model=model_id)

    def endpoint(self, request: ProviderRequest) -> Endpoint:
        """The base URL given (``--base-url``), else botocore's variables for it
        (``AWS_ENDPOINT_URL_BEDROCK_RUNTIME``, then ``AWS_ENDPOINT_URL``, unless
        ``AWS_IGNORE_CONFIGURED_ENDPOINT_URLS`` is true), read here so that a client is kept per
        URL; else none, and botocore finds it (the profile's, the region's). No key: the AWS SDK
        finds the credentials, and every variable that holds one is masked in every message."""
        url = self.base_url
        if not url and (environment_value("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS") or "").lower() != "true":
            url = environment_value("AWS_ENDPOINT_URL_BEDROCK_RUNTIME") or environment_value("AWS_ENDPOINT_URL")
        return Endpoint((url or "").rstrip("/"))

    def request_path(self, request: ProviderRequest) -> str:
        """The path below the endpoint ``request`` goes to sent whole: ``model/MODEL_ID/converse``,
        the id percent-encoded as botocore encodes a URI label (all but ``-._~`` and
        alphanumerics: ``v1:0`` is ``v1%3A0``): a recording's ``path``. Streamed, it goes to
        ``converse-stream``, the body the same (the recording says ``streamed``)."""
        model_id = request.kwargs.get("modelId", request.model)
        return f"model/{quote(str(model_id), safe='-._~')}/converse"

    def _shown_where(self, endpoint: Endpoint) -> str:
        """The URL calls go to, the one botocore resolved when none was given."""
        return shown_url(endpoint.url or self._resolved.get(endpoint, "the AWS SDK's Bedrock Runtime endpoint"))

    def client(self, endpoint: Endpoint, seconds: float) -> Any:
        import boto3
        from botocore.config import Config

        config = Config(
            connect_timeout=seconds,
            read_timeout=seconds,
            retries={"total_max_attempts": 1, "mode": "standard"},
            max_pool_connections=WORKER_THREADS,  # a connection for each worker thread an async call may take
        )
        client = boto3.session.Session().client("bedrock-runtime", endpoint_url=endpoint.url or None, config=config)
        events = client.meta.events
        events.register("before-parameter-build.bedrock-runtime", _take_body)
        events.register("before-call.bedrock-runtime", _put_body)
        events.register("before-send.bedrock-runtime", functools.partial(_bounded_send, client._endpoint.http_session))
        self._resolved[endpoint] = client.meta.endpoint_url
        return client

    def post(self, client: Any, body: bytes) -> Any:
        model_id, wire = _split(body)
        return client.converse(modelId=model_id, **{_BODY: wire})

    def post_stream(self, client: Any, body: bytes) -> Any:
        model_id, wire = _split(body)
        return client.converse_stream(modelId=model_id, **{_BODY: wire})["stream"]

    def stream_reader(self) -> StreamReader:
        return EventReader()

    def count_body(self, request: ProviderRequest) -> dict[str, Any]:
        """The ``CountTokens`` request of ``request``: its ``modelId`` (in the URL), and ``input.converse``
        holding what the endpoint takes of the Converse body (``messages``, ``system``, ``toolConfig``,
        ``additionalModelRequestFields``); the inference and output settings are not input and are
        left out, as the endpoint refuses them."""
        kwargs = request.kwargs
        converse = {key: kwargs[key] for key in _COUNTED if key in kwargs}
        return {"modelId": kwargs["modelId"], "input": {"converse": converse}}

    def count_tokens(self, request: ProviderRequest) -> int:
        """The input tokens of ``request``, as Bedrock's ``CountTokens`` counts them for its model."""
        seconds, endpoint = self._where(request, None)
        with self._told(endpoint, seconds):
            model_id, wire = _split(to_bytes(self.count_body(request)))
            client = self._kept(endpoint, seconds)
            # ``input`` is required by botocore's check of the parameters; the body sent is ``wire``.
            raw = client.count_tokens(modelId=model_id, input={"converse": {}}, **{_BODY: wire})
        count = raw.get("inputTokens")
        if not isinstance(count, int) or isinstance(count, bool):
            raise missing_part("Bedrock CountTokens response has no inputTokens", _without_metadata(raw))
        return count

    async def acount_tokens(self, request: ProviderRequest) -> int:
        """:meth:`count_tokens` in a worker thread (the AWS SDK has no async client)."""
        return await in_worker(self.count_tokens, request)

    def recorded_reply(self, raw: Any) -> Any:
        """A reply as data for a recording: as on the wire, without botocore's ``ResponseMetadata``
        (the request id, headers), bytes as base64 text."""
        return _wire(_without_metadata(raw))

    def replayed_reply(self, data: Any) -> Any:
        """A recorded reply as botocore parses one: base64 text back to bytes where Converse sends bytes."""
        return _parsed(data)

    def failure(self, exc: Exception, endpoint: Endpoint, seconds: float) -> ProviderError | None:
        import botocore.exceptions as aws
        from botocore.parsers import ResponseParserError

        if isinstance(exc, aws.EventStreamError):  # an exception event in a stream begun with 200
            return _client_error(exc, stream=True)
        if isinstance(exc, aws.ClientError):
            return _client_error(exc, stream=False)
        if isinstance(exc, aws.ConnectTimeoutError | aws.ReadTimeoutError):
            return self.timed_out(endpoint, seconds)
        if isinstance(exc, aws.NoCredentialsError | aws.PartialCredentialsError):
            return AuthenticationError(
                f"bedrock:// models need AWS credentials, and the AWS SDK found none ({exc}): set AWS_ACCESS_KEY_ID "
                "and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or AWS_BEARER_TOKEN_BEDROCK"
            )
        if isinstance(exc, aws.NoRegionError):
            return BadRequestError(
                "bedrock:// models need an AWS region: set AWS_DEFAULT_REGION or the profile's region"
            )
        if isinstance(exc, aws.ParamValidationError):
            return BadRequestError(f"Bedrock request refused by the AWS SDK: {body_excerpt(str(exc))}")
        if isinstance(exc, aws.HTTPClientError | aws.ResponseStreamingError):
            return connection_failed(exc)
        import urllib3.exceptions as http  # what botocore's event stream lets through as it reads

        if isinstance(exc, http.ReadTimeoutError):
            return self.timed_out(endpoint, seconds)
        if isinstance(exc, http.HTTPError):
            return connection_failed(exc)
        if isinstance(exc, ResponseParserError):
            excerpt = body_excerpt(str(exc))
            return MalformedResponseError(
                f"LLM provider returned a response that cannot be read: {excerpt}", body=excerpt
            )
        if isinstance(exc, aws.BotoCoreError | aws.EventStreamError):  # a broken event stream (its checksums, lengths)
            excerpt = body_excerpt(str(exc))
            return MalformedResponseError(
                f"LLM provider sent a broken event stream: {excerpt}", status=200, body=excerpt
            )
        return super().failure(exc, endpoint, seconds)

    def reply(self, raw: Any) -> Reply:
        message = raw["output"]["message"]
        blocks = message["content"]
        if not isinstance(blocks, list):
            raise missing_part("Bedrock response is missing content", _without_metadata(raw))
        text = "".join(block["text"] for block in blocks if "text" in block)
        stop = raw.get("stopReason")
        if stop in _REFUSED:
            raise refused(text)
        turn = reply_turn(message)
        thinking: list[str] = []
        for block in blocks:  # a loop: a comprehension is a call of its own (Python 3.11)
            if "reasoningText" in block.get("reasoningContent", {}):
                thinking.append(block["reasoningContent"]["reasoningText"]["text"])
        called = _calls_of(turn)
        calls = (
            tuple(ToolCall(name=part.name, id=part.id, arguments=part.arguments or {}) for part in called)
            if called
            else ()
        )
        usage = raw.get("usage")
        return Reply(
            text=text,
            raw=raw,
            reasoning="".join(thinking) or None,
            usage=_usage(usage) if isinstance(usage, dict) else None,
            finish_reason=stop,
            tool_calls=calls,
            turn=turn,
        )


def _calls_of(turn: ChatTurn) -> list[ToolCallPart]:
    """The turn's tool calls, by their exact class (see :data:`~promptwire.core.prompt.PART_CLASSES`:
    ``isinstance`` of a part that is not one goes through pydantic's ABC check)."""
    called: list[ToolCallPart] = []
    for part in turn.content:  # a loop: a comprehension is a call of its own (Python 3.11)
        if type(part) is ToolCallPart:
            called.append(part)
    return called


def _usage(usage: dict[str, Any]) -> Usage:
    """Converse's token counts, as it spells them (``inputTokens``, ``cacheReadInputTokens``...)."""
    read, written = usage.get("inputTokens"), usage.get("outputTokens")
    return Usage(read if isinstance(read, int) else None, written if isinstance(written, int) else None, dict(usage))


def _thinking(kwargs: dict[str, Any], output: dict[str, Any], config: GenerateConfig, notes: list[str]) -> None:
    """A thinking setting for Claude models, in ``additionalModelRequestFields`` as the Messages API
    spells it (models up to 4.5 on a token budget below ``maxTokens``, later ones adaptive with an
    effort level in ``outputConfig``); other models have no common setting, and the note says so."""
    think = config.think
    if think is False:
        return
    model = kwargs["modelId"]
    if not _is_claude(model):
        notes.append(f"think {think!r} left out: Bedrock has no common thinking setting for {model}")
        return
    from .anthropic import _budget_thinking

    if not _budget_thinking(model):
        kwargs["additionalModelRequestFields"] = {"thinking": {"type": "adaptive"}}
        if think in _LEVELS:
            output["effort"] = think
        return
    if think == "auto":
        notes.append(f"think 'auto': {model} has no adaptive thinking; thinking left off")
        return
    budget = _BUDGETS[think]
    inference = kwargs.setdefault("inferenceConfig", {})
    if "maxTokens" not in inference:
        inference["maxTokens"] = budget + 1024
        notes.append(f"maxTokens {budget + 1024}: the thinking budget {budget} plus 1024 for the answer")
    elif budget >= inference["maxTokens"]:
        if inference["maxTokens"] <= _MIN_BUDGET:
            notes.append(
                f"think {think!r} dropped: {model} needs a thinking budget of at least {_MIN_BUDGET} tokens "
                f"below maxTokens, and max_output is {inference['maxTokens']}"
            )
            return
        notes.append(f"thinking budget {budget} clamped to {inference['maxTokens'] - 1}: it must stay below maxTokens")
        budget = inference["maxTokens"] - 1
    kwargs["additionalModelRequestFields"] = {"thinking": {"type": "enabled", "budget_tokens": budget}}


def _cache_settings(kwargs: dict[str, Any], cache: PromptCache | None, notes: list[str]) -> None:
    """The tools' breakpoint, a ``cachePoint`` after the last tool; OpenAI's cache key and retention,
    which Bedrock has not, noted."""
    if cache is None:
        return
    if cache.tools is not None:
        if "toolConfig" in kwargs:
            kwargs["toolConfig"]["tools"].append(cache_point({"ttl": cache.tools.ttl}))
        else:
            notes.append("cache.tools: there are no tools to mark; cache breakpoint left out")
    if cache.key is not None:
        notes.append(f"cache key {cache.key!r} left out: Bedrock has no cache key (it caches up to each cachePoint)")
    if cache.retention is not None:
        notes.append(
            f"cache retention {cache.retention!r} left out: Bedrock has no retention setting (a cachePoint's ttl says how long)"
        )


_schema_text = json_writer()
"""``json.dumps(schema, ensure_ascii=False)``, the output schema as ``textFormat`` carries it, with
its C encoder made once: ``json.dumps`` makes a new one for each call given an option, and so does
``json.JSONEncoder.encode``. (Not :func:`~promptwire.core.json_text.dumps`: half a character stays
raw here, and is escaped once, where the body is written.)"""

_HEAD = b'{"modelId":'
_DECODER = json.JSONDecoder()


def _split(body: bytes) -> tuple[str, bytes]:
    """A request as built (``modelId`` first, as :func:`to_bytes` writes it) -> the model id, which
    goes in the URL, and the body sent: the same bytes without it (cut out, not parsed and written
    again: that cost 70 us of a 1 KB body's call)."""
    if body.startswith(_HEAD):
        head = body[len(_HEAD) : len(_HEAD) + 4 * 2048 + 8].decode(
            "utf-8", "ignore"
        )  # an id is at most 2048 characters
        try:
            model_id, end = _DECODER.raw_decode(head)
        except ValueError:
            model_id = None
        if isinstance(model_id, str):
            rest = body[len(_HEAD) + len(head[:end].encode("utf-8", "surrogatepass")) :]
            if rest[:1] == b",":
                return model_id, b"{" + rest[1:]
            if rest == b"}":
                return model_id, b"{}"
    data = json.loads(body)  # a body written otherwise (edited, or keys reordered): parsed
    model_id = data.pop("modelId")
    return model_id, to_bytes(data)


def _take_body(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    """``before-parameter-build``: the body as built, out of the parameters botocore checks."""
    if _BODY in params:
        context[_BODY] = params.pop(_BODY)


def _put_body(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    """``before-call``: the request's body is the one built, byte for byte (signed after this)."""
    body = context.get(_BODY)
    if body is not None:
        params["body"] = body
        params["headers"]["Content-Type"] = "application/json"


def _bounded_send(http_session: Any, request: Any, **_: Any) -> Any:
    """``before-send``: send ``request`` as botocore would (its own session) and read the reply
    within the bound: headers checked first, then every chunk counted (:mod:`.reply_size`)."""
    request.headers["Accept-Encoding"] = "identity"
    response = http_session.send(request)
    limit = checked_reply(response)
    response.raw = _BoundedRaw(response.raw, limit)
    return response


class _BoundedRaw:
    """urllib3's response, its ``stream()`` (which botocore reads every body through) counted."""

    def __init__(self, raw: Any, limit: int) -> None:
        self._raw = raw
        self._limit = limit

    def stream(self, *args: Any, **kwargs: Any) -> Iterator[bytes]:
        return bounded_chunks(self._raw.stream(*args, **kwargs), self._limit)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


def _client_error(exc: Any, *, stream: bool) -> ProviderError:
    """A botocore ``ClientError`` (an HTTP error, or an exception event mid-stream) as its class,
    quoting Bedrock's message, with the wait asked for when it said one."""
    response = exc.response
    error = response.get("Error", {})
    code = str(error.get("Code", ""))
    meta = response.get("ResponseMetadata", {})
    status = 200 if stream else int(meta.get("HTTPStatusCode") or 500)
    excerpt = body_excerpt(f"{code}: {error.get('Message', '')}")
    told = "stream failed" if stream else f"request failed ({status})"
    failure = error_class(code, 500 if stream else status)(
        f"LLM provider {told}: {excerpt}", status=status, body=excerpt
    )
    headers = meta.get("HTTPHeaders") or {}
    failure.retry_after = retry_after(_Headers(headers))
    return failure


class _Headers:
    def __init__(self, headers: Mapping[str, str]) -> None:
        self.headers = {key.lower(): value for key, value in headers.items()}


def _without_metadata(raw: Any) -> Any:
    return {key: value for key, value in raw.items() if key != "ResponseMetadata"} if isinstance(raw, dict) else raw


def _wire(value: Any) -> Any:
    """``value`` with bytes as base64 text, as the wire has them."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {key: _wire(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_wire(item) for item in value]
    return value


_BLOBS = frozenset({"redactedContent", "bytes"})
"""The reply fields Converse sends as bytes (base64 on the wire): redacted reasoning, a made image's bytes."""


def _parsed(value: Any, key: str = "") -> Any:
    """Wire data as botocore parses it: the base64 text of a bytes field as bytes."""
    if key in _BLOBS and isinstance(value, str):
        return base64.b64decode(value)
    if isinstance(value, dict):
        return {name: _parsed(item, name) for name, item in value.items()}
    if isinstance(value, list):
        return [_parsed(item) for item in value]
    return value


class EventReader:
    """ConverseStream events folded into the reply ``converse`` would have sent whole."""

    def __init__(self) -> None:
        self.role = "assistant"
        self.blocks: dict[int, dict[str, Any]] = {}
        self.pieces: dict[int, list[str]] = {}
        self.stop: dict[str, Any] | None = None
        self.metadata: dict[str, Any] = {}

    def feed(self, event: Any) -> str | None:
        if "contentBlockDelta" in event:
            delta_event = event["contentBlockDelta"]
            index, delta = delta_event["contentBlockIndex"], delta_event["delta"]
            if "text" in delta:
                piece = delta["text"]
                if not isinstance(piece, str):
                    raise TypeError(f"a text delta is {type(piece).__name__}, not text")
                self._block(index, "text").setdefault("text", [])
                self.pieces.setdefault(index, []).append(piece)
                return piece
            if "toolUse" in delta:
                self.pieces.setdefault(index, []).append(str(delta["toolUse"]["input"]))
            elif "reasoningContent" in delta:
                reasoning = delta["reasoningContent"]
                block = self._block(index, "reasoningContent")["reasoningContent"]
                if "text" in reasoning:
                    self.pieces.setdefault(index, []).append(reasoning["text"])
                if "signature" in reasoning:
                    block["signature"] = reasoning["signature"]
                if "redactedContent" in reasoning:
                    block["redactedContent"] = block.get("redactedContent", b"") + reasoning["redactedContent"]
        elif "contentBlockStart" in event:
            start = event["contentBlockStart"]
            if "toolUse" in start["start"]:
                self.blocks[start["contentBlockIndex"]] = {"toolUse": dict(start["start"]["toolUse"])}
        elif "messageStart" in event:
            self.role = event["messageStart"]["role"]
        elif "messageStop" in event:
            self.stop = event["messageStop"]
        elif "metadata" in event:
            self.metadata = event["metadata"]
        return None

    def _block(self, index: int, kind: str) -> dict[str, Any]:
        return self.blocks.setdefault(index, {kind: {}})

    def whole(self) -> Any:
        if self.stop is None:
            raise cut_short()
        try:
            return self._whole(self.stop)
        except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:  # events of the wrong shape
            folded = {"blocks": self.blocks, "stop": self.stop, "metadata": self.metadata}
            raise missing_part(f"LLM provider response has an unexpected shape: {exc}", folded) from None

    def _whole(self, stop: Any) -> Any:
        content: list[dict[str, Any]] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            joined = "".join(self.pieces.get(index, ()))
            if "text" in block:
                content.append({"text": joined})
            elif "toolUse" in block:
                content.append({"toolUse": {**block["toolUse"], "input": json.loads(joined or "{}")}})
            else:
                reasoning = block["reasoningContent"]
                if "redactedContent" in reasoning:
                    content.append({"reasoningContent": {"redactedContent": reasoning["redactedContent"]}})
                else:
                    text = {
                        "text": joined,
                        **({"signature": reasoning["signature"]} if "signature" in reasoning else {}),
                    }
                    content.append({"reasoningContent": {"reasoningText": text}})
        whole: dict[str, Any] = {"output": {"message": {"role": self.role, "content": content}}}
        whole.update({key: value for key, value in stop.items()})
        whole.update({key: value for key, value in self.metadata.items() if key in ("usage", "metrics")})
        return whole


adapter = BedrockAdapter()
