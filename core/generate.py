"""``generate``: one model call with attempts, the repair text, coercion and validation.

One implementation for every caller (a front end's interpreter and Python code alike). The caller
gives a :class:`Prompt`, a ``render`` function (core never imports a renderer) and a
:class:`ModelAdapter`; each attempt renders the prompt, asks the adapter for a :class:`Reply`, reads
JSON from it when the prompt has an output contract, and checks the result. Only replies that are
not JSON and results that fail the check are retried, with the reason (and the rejected output)
in ``Prompt.retry``, which every format shows as its repair text; everything else is raised at once.
The attempts come back on the result, or on the error when none succeeded (``error.calls``): the
caller reads them afterwards, the loop calls nobody back but the render, the adapter, the
caller's debug writer and the process's observer (:mod:`.observe`, which sees nothing unless
telemetry is enabled).

The loop's decisions are made once, in a generator (:func:`_loop`) that yields each request to send
and is given back its reply (or the exception its call raised). Drivers step it: :func:`generate`
and :func:`generate_stream` from synchronous code, :func:`agenerate` and :func:`agenerate_stream`
on an event loop with the adapter's async client. A streamed call (``on_text``, or the ``_stream``
functions) sends the request with the provider's stream flags and passes on the reply's text as it
arrives; the whole text is still read, coerced and checked at the end, and a reply none of whose
text came as it arrived (an adapter that does not stream) is passed on whole when it comes. How one
call is exchanged with the adapter, and what an adapter may add for it, is :mod:`.exchange`.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from . import exchange, observe
from .coercion import ResultError, check_result
from .contract import OutputContract
from .errors import ModelOutputError, PromptwireError, ProviderError
from .origin import attempting
from .prompt import GenerateConfig, Prompt, Retry, ToolCall
from .rendered import RenderedPrompt, warning_lines
from .secrets import mask
from .timeout import check_timeout

__all__ = [
    "CallWatcher",
    "DebugWriter",
    "GenerateResult",
    "ModelAdapter",
    "ModelCall",
    "NotJsonError",
    "ProviderRequest",
    "Reply",
    "TextCallback",
    "agenerate",
    "agenerate_stream",
    "generate",
    "generate_stream",
    "read_json",
    "with_render_notes",
]


@dataclass(slots=True)
class Reply:
    """What a model returned: its text, and the JSON value when the adapter already has one (a
    canned or mock value, a provider's parsed structured output), with what else the provider said."""

    text: str | None
    value: Any = None
    has_value: bool = False
    raw: Any = None
    reasoning: str | None = None
    usage: Mapping[str, Any] | None = None
    finish_reason: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(slots=True)
class ProviderRequest:
    """The exact keyword arguments of the SDK call (the request body, keys in the order a dry run
    shows them), and ``notes``: every parameter the adapter dropped, renamed or clamped, and why."""

    kwargs: Mapping[str, Any]
    notes: tuple[str, ...] = ()
    endpoint: str | None = None
    """Where the request goes (a base URL or host) when the model URI decides it."""
    provider: str | None = None
    """The adapter it goes to, when a run routes each call by its model's URI scheme
    (``--provider auto``): a dry run shows it."""


class ModelAdapter(Protocol):
    """A provider: ``build_request`` is pure (the exact request, printable in a dry run), ``send``
    makes the call, ``parse_reply`` reads what came back. Streaming and async calls use the optional
    ``streamed``, ``stream``, ``asend`` and ``astream`` when an adapter has them (see
    :mod:`.exchange`), and do without when it has not."""

    name: str

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest: ...

    def send(self, request: ProviderRequest, timeout: float | None) -> Any: ...

    def parse_reply(self, raw: Any) -> Reply: ...


class NotJsonError(ModelOutputError):
    """The reply holds no JSON although the prompt asks for it (retryable)."""


@dataclass(slots=True)
class ModelCall:
    """One attempt: what was rendered and sent, and what came back (or why it was rejected)."""

    attempt: int
    prompt: Prompt
    rendered: RenderedPrompt
    request: ProviderRequest
    reply: Reply | None = None
    error: str | None = None
    provider: str | None = None
    """The adapter the request went to (its registered name)."""
    seconds: float | None = None
    """How long the call took, from sending the request to its whole reply (or its failure); an
    adapter's first call also loads its SDK and opens a connection (about a second for OpenAI's)."""
    value: Any = None
    """The value the attempt gave the caller, when it was accepted (``error`` is None)."""


class CallWatcher(Protocol):
    """Told of each attempt as it is sent and when it has ended, for whoever shows a run as it
    happens (progress lines, a live display). ``call_started`` gets the attempt before its reply;
    ``call_ended`` the same attempt with its reply, seconds and value, or with ``error`` set: the
    rejection reason, or the provider's failure (``reply`` None), an attempt that ``error.calls``
    does not hold because it never came back."""

    def call_started(self, call: ModelCall, /) -> None: ...

    def call_ended(self, call: ModelCall, /) -> None: ...


@dataclass(slots=True)
class GenerateResult:
    value: Any
    attempts: int
    calls: list[ModelCall] = field(default_factory=list)


DebugWriter = Callable[[int, RenderedPrompt, ProviderRequest], None]
"""Shows one attempt of a generate that asks for debug output: its number, its render and its
request (with the adapter's notes), before the request is sent. Each front end writes its own."""

TextCallback = Callable[[str], None]
"""Receives a streamed reply's text, piece by piece, as it arrives (each attempt's in turn)."""


def generate(
    prompt: Prompt,
    *,
    render: Callable[[Prompt], RenderedPrompt],
    adapter: ModelAdapter,
    model: str | None = None,
    locations: Mapping[str, str] | None = None,
    debug: DebugWriter | None = None,
    timeout: float | None = None,
    watch: CallWatcher | None = None,
    on_text: TextCallback | None = None,
) -> GenerateResult:
    """Run ``prompt.config.attempts`` attempts at most; return the first accepted result.

    ``locations`` maps contract fields to their ``L:C`` for messages; with ``prompt.config.debug``
    each attempt is shown to ``debug`` before it is sent. The last failure is raised when no
    attempt succeeds, any failure with the attempts made so far on it (``error.calls``).
    ``timeout`` is seconds per request (None: the adapter's default). With ``on_text`` each call
    is streamed and its text given to ``on_text`` as it arrives. ``watch`` is told of each attempt
    as it is sent and as it ends (see :class:`CallWatcher`).
    """
    check_timeout(timeout)
    streaming = on_text is not None
    for item in _driven(
        _loop(prompt, render, adapter, model, locations, debug, streaming, watch), adapter, timeout, streaming
    ):
        if isinstance(item, GenerateResult):
            return item
        if on_text is not None:
            on_text(item)
    raise AssertionError("unreachable: a driver ends with the result")  # pragma: no cover


def generate_stream(
    prompt: Prompt,
    *,
    render: Callable[[Prompt], RenderedPrompt],
    adapter: ModelAdapter,
    model: str | None = None,
    locations: Mapping[str, str] | None = None,
    debug: DebugWriter | None = None,
    timeout: float | None = None,
    watch: CallWatcher | None = None,
) -> Iterator[str | GenerateResult]:
    """:func:`generate` streamed, as an iterator: each reply's text as it arrives, then the result.
    Closing it early closes the call in flight (its connection)."""
    check_timeout(timeout)
    return _driven(_loop(prompt, render, adapter, model, locations, debug, True, watch), adapter, timeout, True)


async def agenerate(
    prompt: Prompt,
    *,
    render: Callable[[Prompt], RenderedPrompt],
    adapter: ModelAdapter,
    model: str | None = None,
    locations: Mapping[str, str] | None = None,
    debug: DebugWriter | None = None,
    timeout: float | None = None,
    watch: CallWatcher | None = None,
    on_text: TextCallback | None = None,
) -> GenerateResult:
    """:func:`generate` on an event loop: the same attempts and checks, each call sent with the
    adapter's async client (see :mod:`.exchange`). Cancelling it cancels the call in flight."""
    check_timeout(timeout)
    streaming = on_text is not None
    steps = _loop(prompt, render, adapter, model, locations, debug, streaming, watch)
    async for item in _adriven(steps, adapter, timeout, streaming):
        if isinstance(item, GenerateResult):
            return item
        if on_text is not None:
            on_text(item)
    raise AssertionError("unreachable: a driver ends with the result")  # pragma: no cover


def agenerate_stream(
    prompt: Prompt,
    *,
    render: Callable[[Prompt], RenderedPrompt],
    adapter: ModelAdapter,
    model: str | None = None,
    locations: Mapping[str, str] | None = None,
    debug: DebugWriter | None = None,
    timeout: float | None = None,
    watch: CallWatcher | None = None,
) -> AsyncIterator[str | GenerateResult]:
    """:func:`generate_stream` on an event loop, as an async iterator."""
    check_timeout(timeout)
    return _adriven(_loop(prompt, render, adapter, model, locations, debug, True, watch), adapter, timeout, True)


_Loop = Generator[ProviderRequest, Reply, GenerateResult]
"""The attempts: each request to send is yielded; the driver sends back its reply, or throws in the
exception its call raised; the result is the return value."""


def _loop(
    prompt: Prompt,
    render: Callable[[Prompt], RenderedPrompt],
    adapter: ModelAdapter,
    model: str | None,
    locations: Mapping[str, str] | None,
    debug: DebugWriter | None,
    streaming: bool,
    watch: CallWatcher | None,
) -> _Loop:
    calls: list[ModelCall] = []
    observed = observe.observer().generate(prompt, adapter.name, streaming)
    try:
        result = yield from _attempts(
            prompt, render, adapter, model, locations, debug, streaming, watch, calls, observed
        )
    except BaseException as exc:  # a cancelled or closed generate ends its observation too
        if isinstance(exc, PromptwireError):
            exc.calls = tuple(calls)
        observed.ended(None, exc)
        raise
    observed.ended(result, None)
    return result


def _attempts(
    prompt: Prompt,
    render: Callable[[Prompt], RenderedPrompt],
    adapter: ModelAdapter,
    model: str | None,
    locations: Mapping[str, str] | None,
    debug: DebugWriter | None,
    streaming: bool,
    watch: CallWatcher | None,
    calls: list[ModelCall],
    observed: observe.Watch,
) -> _Loop:
    config = prompt.config
    contract = prompt.output
    current = prompt
    for attempt in range(1, config.attempts + 1):
        rendered = render(current)
        call: ModelCall | None = None
        try:
            request = with_render_notes(adapter.build_request(rendered, config, contract, model), rendered)
            if streaming:
                request = exchange.streamed_request(adapter, request)
            if config.debug and debug is not None:
                debug(attempt, rendered, request)
            call = ModelCall(attempt, current, rendered, request, provider=request.provider or adapter.name)
            if watch is not None:
                watch.call_started(call)
            observed.sending(attempt, rendered, request)
            started = time.perf_counter()
            try:
                with attempting(attempt):  # for whoever wraps the adapter (a recording names it)
                    reply = yield request
            finally:
                call.seconds = time.perf_counter() - started
            observed.replied(reply)
        except ProviderError as exc:
            if exc.provider is None:  # an adapter need not repeat its own name on every error
                exc.provider = call.provider if call is not None else adapter.name  # a routed call's own
            _failed(watch, call, exc)
            raise
        except RecursionError:  # an SDK's own JSON walk; no provider takes a schema this deep anyway
            failure = PromptwireError(
                f"{adapter.name}: the request or its reply is nested too deeply for the SDK to handle"
            )
            _failed(watch, call, failure)
            raise failure from None
        except BaseException as exc:  # cancelled, interrupted, an SDK's own bug: the watcher still hears
            _failed(watch, call, exc)
            raise
        call.reply = reply
        try:
            call.value = _accept(reply, contract, config.strict, locations)
        except ModelOutputError as exc:
            observed.rejected(exc)
            call.error = str(exc)
            calls.append(call)
            if watch is not None:
                watch.call_ended(call)
            if attempt == config.attempts:
                raise
            retry = Retry(reason=str(exc), attempt=attempt)
            if isinstance(exc, ResultError):
                retry = Retry(reason=str(exc), previous_output=_raw_value(reply), attempt=attempt)
            current = prompt.model_copy(update={"retry": retry})
            continue
        calls.append(call)
        if watch is not None:
            watch.call_ended(call)
        return GenerateResult(call.value, attempt, calls)
    raise AssertionError("unreachable: attempts is at least 1")  # pragma: no cover


def _failed(watch: CallWatcher | None, call: ModelCall | None, failure: BaseException) -> None:
    """Tell ``watch`` that ``call`` (sent, if it is not None) ended in ``failure``."""
    if watch is not None and call is not None:
        call.error = f"{type(failure).__name__}: {failure}"
        watch.call_ended(call)


def with_render_notes(request: ProviderRequest, rendered: RenderedPrompt) -> ProviderRequest:
    """``request`` noting, before the adapter's own notes, what the format left out of the prompt
    it carries (the render's warnings): nothing is dropped on the way to a provider without a word
    in the request."""
    lines = warning_lines(rendered.warnings)
    return replace(request, notes=(*lines, *request.notes)) if lines else request


def _driven(
    steps: _Loop, adapter: ModelAdapter, timeout: float | None, streaming: bool
) -> Iterator[str | GenerateResult]:
    """``steps`` driven from synchronous code: each request sent (streamed when the loop streams),
    its text passed on, its reply or failure given back; the result last."""
    step: ProviderRequest | GenerateResult = next(steps)
    while isinstance(step, ProviderRequest):
        call = _Call(adapter, streaming)
        try:
            if streaming:
                with contextlib.closing(exchange.stream(adapter, step, timeout)) as items:
                    for item in items:
                        if text := call.take(item):
                            yield text
            else:
                call.take(exchange.Whole(adapter.send(step, timeout)))
        except Exception as exc:  # the loop decides what a failed call means
            call.failure = exc
        except BaseException as exc:  # closed early, cancelled: the loop ends with it now, not when collected
            steps.throw(exc)  # which raises it again
            raise
        text, step = call.settled(steps)
        if text is not None:
            yield text
    yield step


async def _adriven(
    steps: _Loop, adapter: ModelAdapter, timeout: float | None, streaming: bool
) -> AsyncIterator[str | GenerateResult]:
    """:func:`_driven` on an event loop."""
    step: ProviderRequest | GenerateResult = next(steps)
    while isinstance(step, ProviderRequest):
        call = _Call(adapter, streaming)
        try:
            if streaming:
                items = exchange.astream(adapter, step, timeout)
                try:
                    async for item in items:
                        if text := call.take(item):
                            yield text
                finally:  # its connection, however the iteration ends
                    await exchange.aclose(items)
            else:
                call.take(exchange.Whole(await exchange.asend(adapter, step, timeout)))
        except Exception as exc:  # the loop decides what a failed call means
            call.failure = exc
        except BaseException as exc:  # closed early, cancelled: the loop ends with it now, not when collected
            steps.throw(exc)  # which raises it again
            raise
        text, step = call.settled(steps)
        if text is not None:
            yield text
    yield step


class _Call:
    """What one call brought, for the drivers: the whole reply (or the failure), and whether any
    of its text came as it arrived; :meth:`settled` hands it to the loop."""

    __slots__ = ("adapter", "failure", "shown", "streaming", "whole")

    def __init__(self, adapter: ModelAdapter, streaming: bool) -> None:
        self.adapter = adapter
        self.streaming = streaming
        self.whole: exchange.Whole | None = None
        self.failure: Exception | None = None
        self.shown = False

    def take(self, item: str | exchange.Whole) -> str | None:
        """An item of the stream: text to pass on, or (``None``) the whole reply, kept. Empty
        text is nothing to pass on."""
        if isinstance(item, exchange.Whole):
            self.whole = item
            return None
        self.shown = self.shown or bool(item)
        return item

    def settled(self, steps: _Loop) -> tuple[str | None, ProviderRequest | GenerateResult]:
        """The reply read and given to the loop (or the failure thrown in): the reply's text to pass
        on now (when streaming and none of it came as it arrived), and the loop's next step."""
        try:
            if self.failure is not None:
                raise self.failure
            if self.whole is None:
                raise exchange.cut_short()
            reply = self.adapter.parse_reply(self.whole.raw)
        except Exception as exc:
            return None, _next_step(steps, failure=exc)
        late = reply.text if self.streaming and not self.shown and reply.text else None
        return late, _next_step(steps, reply)


def _next_step(
    steps: _Loop, reply: Reply | None = None, failure: Exception | None = None
) -> ProviderRequest | GenerateResult:
    """What the loop does with a call's reply (or failure): its next request, or its result."""
    try:
        return steps.throw(failure) if failure is not None else steps.send(reply)  # type: ignore[arg-type]
    except StopIteration as done:
        result: GenerateResult = done.value
        return result


def _accept(reply: Reply, contract: OutputContract | None, strict: bool, locations: Mapping[str, str] | None) -> Any:
    if contract is None:
        return reply.value if reply.has_value else reply.text
    value = _raw_value(reply)
    return check_result(value, contract.json_schema, strict=strict, locations=locations)


def _raw_value(reply: Reply) -> Any:
    if reply.has_value:
        return reply.value
    return read_json(reply.text or "")


_FENCED = re.compile(r"```(?:json)?[ \t]*\n?(.*?)```", re.DOTALL)


def read_json(text: str) -> Any:
    """The JSON in a model's text: the whole text, else each fenced block in order, else the first
    balanced ``{...}`` (strings respected); else :class:`NotJsonError` quoting the start of it."""
    for candidate in _json_candidates(text):
        try:
            return _DECODER.decode(candidate)
        except (json.JSONDecodeError, RecursionError, ValueError):
            continue
    snippet = mask(" ".join(text.split()))
    if len(snippet) > 160:
        snippet = snippet[:157] + "..."
    raise NotJsonError(f"LLM provider did not return JSON: {snippet}")


def _integer(text: str) -> int | float:
    """An integer exactly; one with more digits than Python's ``int()`` converts, as the nearest
    float (infinity past the largest), rather than no value at all."""
    try:
        return int(text)
    except ValueError:
        return float(text)


def _not_json(text: str) -> Any:
    """NaN and Infinity are Python's JSON extensions, not JSON."""
    raise ValueError(f"{text} is not JSON")


_DECODER = json.JSONDecoder(parse_int=_integer, parse_constant=_not_json)
"""JSON as the JSON grammar has it, built once: ``json.loads`` with hooks builds a decoder per call.
A dialect whose numbers are something else (AgentScript's are JavaScript's doubles) converts the
accepted value itself."""


def _json_candidates(text: str) -> Iterator[str]:
    """Where the JSON may be, in the order tried, each looked for only when the ones before failed
    (a reply is usually the JSON itself)."""
    yield text
    for match in _FENCED.finditer(text):
        yield match.group(1).strip()
    first = _first_object(text)
    if first is not None:
        yield first


def _first_object(text: str) -> str | None:
    start = text.find("{")
    if start < 0:
        return None
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    return None
