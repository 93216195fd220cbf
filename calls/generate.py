"""``generate``: one model call with attempts, the repair text, coercion and validation.

One implementation for every caller (a front end's interpreter and Python code alike). The caller
gives a :class:`Prompt`, a ``render`` function (neither core nor this package imports a renderer)
and where its calls go: a :class:`ModelAdapter`, or a :class:`~.targets.Router` that picks the
adapter for each call's model (:mod:`.targets`, :mod:`.routing`). Each attempt renders the prompt, builds the request
for the call's target, sends it through the run's :class:`~.links.Chain` of links (record, replay,
rate limits, a dry run...: :mod:`.links`), reads JSON from the reply when the prompt has an output
contract, and checks the result. Only replies that are not JSON and results that fail the check are
retried, with the reason (and the rejected output) in ``Prompt.retry``, which every format shows as
its repair text; everything else is raised at once. The attempts come back on the result, or on the
error when none succeeded (``error.calls``): the caller reads them afterwards, the loop calls
nobody back but the render, the adapter and the watchers (:mod:`.watch`: the process's own, which
sees nothing unless telemetry is enabled, then the caller's: progress lines, a debug text...).

The loop's decisions are made once, in a generator (:func:`_loop`) that yields each :class:`Call`
to make and is given back its reply (or the exception the call raised). Drivers step it:
:func:`generate` and :func:`generate_stream` from synchronous code, :func:`agenerate` and
:func:`agenerate_stream` on an event loop with the adapter's async client. A streamed call
(``on_text``, or the ``_stream`` functions) sends the request with the provider's stream flags and
passes on the reply's text as it arrives; the whole text is still read, coerced and checked at the
end, and a reply none of whose text came as it arrived (an adapter that does not stream) is passed
on whole when it comes.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.call import Call, GenerateResult, ModelAdapter, ModelCall, ProviderRequest, Reply, Site, Whole, cut_short
from ..core.coercion import ResultError, check_result
from ..core.contract import OutputContract
from ..core.errors import ModelOutputError, PromptwireError, ProviderError
from ..core.prompt import Prompt, Retry
from ..core.rendered import RenderedPrompt, warning_lines
from ..core.secrets import mask
from ..core.timeout import check_timeout
from .links import Chain, streamed_request
from .targets import Router, Target, router_of
from .watch import Watcher, Watchers, observer, text_to

__all__ = [
    "NotJsonError",
    "TextCallback",
    "agenerate",
    "agenerate_stream",
    "generate",
    "generate_stream",
    "read_json",
    "with_render_notes",
]

_BARE = Chain()
"""No link: each call goes straight to its adapter."""


class NotJsonError(ModelOutputError):
    """The reply holds no JSON although the prompt asks for it (retryable)."""


TextCallback = Callable[[str], None]
"""Receives a streamed reply's text, piece by piece, as it arrives (each attempt's in turn)."""


def generate(
    prompt: Prompt,
    *,
    render: Callable[[Prompt], RenderedPrompt],
    adapter: ModelAdapter | Router,
    model: str | None = None,
    locations: Mapping[str, str] | None = None,
    timeout: float | None = None,
    on_text: TextCallback | None = None,
    stream: bool = False,
    watchers: Sequence[Watcher] = (),
    chain: Chain = _BARE,
    site: Site | None = None,
) -> GenerateResult:
    """Run ``prompt.config.attempts`` attempts at most; return the first accepted result.

    ``adapter`` answers every call, or a router picks each call's adapter by its model.
    ``locations`` maps contract fields to their ``L:C`` for messages. The last failure is raised
    when no attempt succeeds, any failure with the attempts made so far on it (``error.calls``).
    ``timeout`` is seconds per request (None: the adapter's default). With ``on_text`` (or
    ``stream``) each call is streamed and its text given to ``on_text`` (and to the watchers) as it
    arrives. ``watchers`` are told of the
    generate and of each attempt (see :class:`~.watch.Watcher`), after the process's own. Each
    call goes through ``chain``'s links; ``site`` is where the calls come from (each
    :class:`ModelCall` and :class:`Call` says).
    """
    check_timeout(timeout)
    streaming = stream or on_text is not None
    watching = _watching(watchers, on_text)
    steps = _loop(prompt, render, router_of(adapter), model, locations, streaming, watching, timeout, site)
    for item in _driven(steps, chain, watching):
        if isinstance(item, GenerateResult):
            return item
    raise AssertionError("unreachable: a driver ends with the result")  # pragma: no cover


def generate_stream(
    prompt: Prompt,
    *,
    render: Callable[[Prompt], RenderedPrompt],
    adapter: ModelAdapter | Router,
    model: str | None = None,
    locations: Mapping[str, str] | None = None,
    timeout: float | None = None,
    watchers: Sequence[Watcher] = (),
    chain: Chain = _BARE,
    site: Site | None = None,
) -> Iterator[str | GenerateResult]:
    """:func:`generate` streamed, as an iterator: each reply's text as it arrives, then the result.
    Closing it early closes the call in flight (its connection)."""
    check_timeout(timeout)
    watching = _watching(watchers, None)
    steps = _loop(prompt, render, router_of(adapter), model, locations, True, watching, timeout, site)
    return _driven(steps, chain, watching)


async def agenerate(
    prompt: Prompt,
    *,
    render: Callable[[Prompt], RenderedPrompt],
    adapter: ModelAdapter | Router,
    model: str | None = None,
    locations: Mapping[str, str] | None = None,
    timeout: float | None = None,
    on_text: TextCallback | None = None,
    stream: bool = False,
    watchers: Sequence[Watcher] = (),
    chain: Chain = _BARE,
    site: Site | None = None,
) -> GenerateResult:
    """:func:`generate` on an event loop: the same attempts and checks, each call sent with the
    adapter's async client (see :mod:`.links`). Cancelling it cancels the call in flight."""
    check_timeout(timeout)
    streaming = stream or on_text is not None
    watching = _watching(watchers, on_text)
    steps = _loop(prompt, render, router_of(adapter), model, locations, streaming, watching, timeout, site)
    async for item in _adriven(steps, chain, watching):
        if isinstance(item, GenerateResult):
            return item
    raise AssertionError("unreachable: a driver ends with the result")  # pragma: no cover


def agenerate_stream(
    prompt: Prompt,
    *,
    render: Callable[[Prompt], RenderedPrompt],
    adapter: ModelAdapter | Router,
    model: str | None = None,
    locations: Mapping[str, str] | None = None,
    timeout: float | None = None,
    watchers: Sequence[Watcher] = (),
    chain: Chain = _BARE,
    site: Site | None = None,
) -> AsyncIterator[str | GenerateResult]:
    """:func:`generate_stream` on an event loop, as an async iterator."""
    check_timeout(timeout)
    watching = _watching(watchers, None)
    steps = _loop(prompt, render, router_of(adapter), model, locations, True, watching, timeout, site)
    return _adriven(steps, chain, watching)


_Loop = Generator[Call, Reply, GenerateResult]
"""The attempts: each call to make is yielded; the driver sends back its reply, or throws in the
exception the call raised; the result is the return value."""


def _watching(watchers: Sequence[Watcher], on_text: TextCallback | None) -> Watcher:
    """The process's watcher, then the caller's, then ``on_text`` as one; the process's alone when
    there are no others (each event then one call, not a loop over a list of one)."""
    if not watchers and on_text is None:
        return observer()
    return Watchers([observer(), *watchers, *([] if on_text is None else [text_to(on_text)])])


def _loop(
    prompt: Prompt,
    render: Callable[[Prompt], RenderedPrompt],
    router: Router,
    model: str | None,
    locations: Mapping[str, str] | None,
    streaming: bool,
    watching: Watcher,
    timeout: float | None,
    site: Site | None,
) -> _Loop:
    calls: list[ModelCall] = []
    watched = watching.generate(prompt, router.name, streaming)
    try:
        result = yield from _attempts(
            prompt, render, router, model, locations, streaming, watched, timeout, site, calls
        )
    except BaseException as exc:  # a cancelled or closed generate ends its watch too
        if isinstance(exc, PromptwireError):
            exc.calls = tuple(calls)
        watched.generate_ended(None, exc)
        raise
    watched.generate_ended(result, None)
    return result


def _attempts(
    prompt: Prompt,
    render: Callable[[Prompt], RenderedPrompt],
    router: Router,
    model: str | None,
    locations: Mapping[str, str] | None,
    streaming: bool,
    watched: Watcher,
    timeout: float | None,
    site: Site | None,
    calls: list[ModelCall],
) -> _Loop:
    config = prompt.config
    contract = prompt.output
    current = prompt
    for attempt in range(1, config.attempts + 1):
        rendered = render(current)
        call: ModelCall | None = None
        target: Target | None = None
        try:
            target = router.target(model)
            built = target.request(rendered, config, contract)
            request = with_render_notes(built, rendered)
            sent = _streamed(target, request) if streaming else request
            call = ModelCall(
                attempt,
                current,
                rendered,
                sent,
                provider=sent.provider or target.name,
                site=site,
                built=None if sent is request else request,
            )
            watched.call_started(call)
            started = time.perf_counter()
            try:
                reply = yield Call(
                    request, sent, target.adapter, call.provider or target.name, attempt, site, streaming,
                    timeout, rendered, current, target.model, call,
                )  # fmt: skip
            finally:
                call.seconds = time.perf_counter() - started
            call.reply = reply
            watched.call_replied(call)
        except ProviderError as exc:
            if exc.provider is None:  # an adapter need not repeat its own name on every error
                exc.provider = call.provider if call is not None else (target or router).name  # a routed call's own
            _failed(watched, call, exc)
            raise
        except RecursionError:  # an SDK's own JSON walk; no provider takes a schema this deep anyway
            failure = PromptwireError(
                f"{(target or router).name}: the request or its reply is nested too deeply for the SDK to handle"
            )
            _failed(watched, call, failure)
            raise failure from None
        except BaseException as exc:  # cancelled, interrupted, an SDK's own bug: the watchers still hear
            _failed(watched, call, exc)
            raise
        try:
            call.value = _accept(reply, contract, config.strict, locations)
        except ModelOutputError as exc:
            call.error = str(exc)
            calls.append(call)
            watched.call_ended(call, exc)
            if attempt == config.attempts:
                raise
            retry = Retry(reason=str(exc), attempt=attempt)
            if isinstance(exc, ResultError):
                retry = Retry(reason=str(exc), previous_output=_raw_value(reply), attempt=attempt)
            current = prompt.model_copy(update={"retry": retry})
            continue
        calls.append(call)
        watched.call_ended(call, None)
        return GenerateResult(call.value, attempt, calls)
    raise AssertionError("unreachable: attempts is at least 1")  # pragma: no cover


def _streamed(target: Target, request: ProviderRequest) -> ProviderRequest:
    """``request`` with the target adapter's stream flags, still naming the provider the route
    named (an adapter off the skeleton may build a new request)."""
    sent = streamed_request(target.adapter, request)
    if request.provider is not None and sent.provider != request.provider:
        sent = replace(sent, provider=request.provider)
    return sent


def _failed(watched: Watcher, call: ModelCall | None, failure: BaseException) -> None:
    """Tell the watchers that ``call`` (sent, if it is not None) ended in ``failure``."""
    if call is not None:
        call.error = f"{type(failure).__name__}: {failure}"
        watched.call_ended(call, failure)


def with_render_notes(request: ProviderRequest, rendered: RenderedPrompt) -> ProviderRequest:
    """``request`` noting, before the adapter's own notes, what the format left out of the prompt
    it carries (the render's warnings): nothing is dropped on the way to a provider without a word
    in the request."""
    if not rendered.warnings:  # the usual render: nothing to note
        return request
    lines = warning_lines(rendered.warnings)
    return replace(request, notes=(*lines, *request.notes)) if lines else request


def _driven(steps: _Loop, chain: Chain, watching: Watcher) -> Iterator[str | GenerateResult]:
    """``steps`` driven from synchronous code: each call sent through ``chain`` (streamed when the
    loop streams), its text passed on (to the watchers, and yielded), its reply or failure given
    back; the result last."""
    step: Call | GenerateResult = next(steps)
    while isinstance(step, Call):
        taken = _Taken(step, watching)
        try:
            items = chain.send(step)
            try:
                for item in items:
                    if text := taken.take(item):
                        yield text
            finally:  # its connection, however the iteration ends
                items.close()
        except Exception as exc:  # the loop decides what a failed call means
            taken.failure = exc
        except BaseException as exc:  # closed early, cancelled: the loop ends with it now, not when collected
            steps.throw(exc)  # which raises it again
            raise
        text, step = taken.settled(steps)
        if text is not None:
            yield text
    yield step


async def _adriven(steps: _Loop, chain: Chain, watching: Watcher) -> AsyncIterator[str | GenerateResult]:
    """:func:`_driven` on an event loop."""
    step: Call | GenerateResult = next(steps)
    while isinstance(step, Call):
        taken = _Taken(step, watching)
        try:
            items = chain.asend(step)
            try:
                async for item in items:
                    if text := taken.take(item):
                        yield text
            finally:  # its connection, however the iteration ends
                await items.aclose()
        except Exception as exc:  # the loop decides what a failed call means
            taken.failure = exc
        except BaseException as exc:  # closed early, cancelled: the loop ends with it now, not when collected
            steps.throw(exc)  # which raises it again
            raise
        text, step = taken.settled(steps)
        if text is not None:
            yield text
    yield step


class _Taken:
    """What one call brought, for the drivers: the whole reply (or the failure), and whether any
    of its text came as it arrived; :meth:`settled` hands it to the loop."""

    __slots__ = ("call", "failure", "shown", "watching", "whole")

    def __init__(self, call: Call, watching: Watcher) -> None:
        self.call = call
        self.watching = watching
        self.whole: Whole | None = None
        self.failure: Exception | None = None
        self.shown = False

    def take(self, item: str | Whole) -> str | None:
        """An item of the stream: text to pass on, or (``None``) the whole reply, kept. Empty
        text is nothing to pass on."""
        if isinstance(item, Whole):
            self.whole = item
            return None
        if item:
            self.shown = True
            self.watching.text(self.call.record, item)
        return item

    def settled(self, steps: _Loop) -> tuple[str | None, Call | GenerateResult]:
        """The reply read and given to the loop (or the failure thrown in): the reply's text to pass
        on now (when streaming and none of it came as it arrived), and the loop's next step."""
        try:
            if self.failure is not None:
                raise self.failure
            if self.whole is None:
                raise cut_short()
            reply = self.whole.reply if self.whole.reply is not None else self.call.adapter.parse_reply(self.whole.raw)
        except Exception as exc:
            return None, _next_step(steps, failure=exc)
        late = reply.text if self.call.stream and not self.shown and reply.text else None
        if late is not None:
            self.watching.text(self.call.record, late)
        return late, _next_step(steps, reply)


def _next_step(steps: _Loop, reply: Reply | None = None, failure: Exception | None = None) -> Call | GenerateResult:
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
    try:  # a reply is usually the JSON itself
        return _DECODER.decode(text)
    except (json.JSONDecodeError, RecursionError, ValueError):
        pass
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
    """Where else the JSON may be when the whole text is not JSON, in the order tried, each looked
    for only when the ones before failed."""
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
