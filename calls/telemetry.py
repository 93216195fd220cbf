"""OpenTelemetry spans for runs, agent calls and model calls, by the GenAI semantic conventions.

Off, and OpenTelemetry not even imported, until :func:`enable` (``asrender --otel``) makes a
:class:`Spans` the process's observer (:mod:`.observe`). Then a program's run is an
``invoke_workflow`` span, each generate (an AgentScript ``generate``, a ``promptwire.generate``
call) an ``invoke_agent`` span inside it, and each attempt sent to the provider a ``chat`` span
inside that: a retried generate has one ``chat`` span per attempt, side by side, the refused ones
saying why (``promptwire.rejected``). Each carries what the conventions name: the provider (the
adapter's name without the API it speaks: ``openai-responses`` is ``openai``), the requested model,
temperature and token limit, the model that answered, its finish reason and token counts; a failure
sets the span's error status and ``error.type`` (the exception's class name: ``RateLimitedError``,
``NotJsonError``...).

What was sent and received (``gen_ai.input.messages``, ``gen_ai.output.messages``, as JSON text)
and error messages, which may quote a reply, are recorded only when asked for: prompts hold what
users and tools gave them. ``capture_content=True``, or the conventions' environment variable
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``, asks.

The spans go to the tracer provider given, else to the one configured for the process
(``opentelemetry.trace.set_tracer_provider``, or ``opentelemetry-instrument``'s set-up from the
``OTEL_*`` environment variables).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..core.errors import ModelOutputError, PromptwireError, ProviderError
from ..core.json_text import dumps, escape_surrogates
from ..core.secrets import mask
from .watch import Watcher, set_observer

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer, TracerProvider

    from ..core.call import GenerateResult, ModelCall, Reply
    from ..core.prompt import Prompt
    from ..core.rendered import Message

__all__ = [
    "CAPTURE_CONTENT",
    "INSTALL",
    "UNCONFIGURED",
    "Spans",
    "TelemetryUnavailable",
    "disable",
    "enable",
    "tracer_provider_configured",
]

CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The environment variable that, set to ``true``, records what was sent and received."""

INSTALL = "pip install 'promptwire[otel]'"

UNCONFIGURED = (
    "no OpenTelemetry tracer provider is configured, so the spans go nowhere: "
    "run under opentelemetry-instrument, or set one up (docs/telemetry.md)"
)


class TelemetryUnavailable(PromptwireError):
    """Telemetry was asked for and OpenTelemetry is not installed."""


def enable(tracer_provider: TracerProvider | None = None, *, capture_content: bool | None = None) -> None:
    """Make spans of every run, generate and model call from now on, in this process.

    ``tracer_provider``: where the spans go (the process's configured provider by default).
    ``capture_content``: record the messages sent and the replies (by default: when
    ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` is ``true``). Raises
    :class:`TelemetryUnavailable` when OpenTelemetry is not installed.
    """
    try:
        from opentelemetry import trace
    except ImportError:
        raise TelemetryUnavailable(f"OpenTelemetry is not installed: {INSTALL}") from None
    if capture_content is None:
        capture_content = os.environ.get(CAPTURE_CONTENT, "").strip().lower() == "true"
    set_observer(Spans(trace.get_tracer("promptwire", tracer_provider=tracer_provider), capture_content))


def tracer_provider_configured() -> bool:
    """Whether the process has a tracer provider of its own (else spans made for it go nowhere)."""
    from opentelemetry import trace

    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def disable() -> None:
    """Stop making spans (those already started still end)."""
    set_observer(None)


class Spans(Watcher):
    """The observer that makes the spans: see the module docstring."""

    def __init__(self, tracer: Tracer, capture_content: bool) -> None:
        self.tracer = tracer
        self.capture_content = capture_content

    @contextmanager
    def run(self, name: str) -> Iterator[None]:
        name = escape_surrogates(name)  # see Spans.failed
        attributes = {"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": name}
        with self.tracer.start_as_current_span(
            f"invoke_workflow {name}", attributes=attributes, record_exception=False, set_status_on_exception=False
        ) as span:
            try:
                yield
            except BaseException as exc:
                self.failed(span, exc)
                raise

    def generate(self, prompt: Prompt, provider: str, streaming: bool) -> Watcher:
        return _AgentCall(self, prompt, provider.partition("-")[0], streaming)

    def failed(self, span: Span, error: BaseException) -> None:
        """``span`` ended in ``error``: its status and ``error.type``; the message only when content
        is captured (a provider's error may quote the request: without capture its status says the
        error's class, provider and HTTP status only), its keys masked.

        Text from a prompt or a reply may hold half a character, which an exporter's UTF-8 encoding
        refuses (losing the whole batch): it is written as its ``\\udXXX`` escape, here and in
        every name taken from a prompt or a program."""
        from opentelemetry.trace import Status, StatusCode

        span.set_attribute("error.type", type(error).__qualname__)
        if self.capture_content:
            said: str | None = escape_surrogates(mask(str(error)))
        elif isinstance(error, ProviderError):  # its body may quote the request: the kind and status only
            said = " ".join(
                part for part in (type(error).__qualname__, error.provider, str(error.status or "")) if part
            )
        else:
            said = None
        span.set_status(Status(StatusCode.ERROR, said))


class _AgentCall(Watcher):
    """One generate's ``invoke_agent`` span, and its attempts' ``chat`` spans. Neither is made the
    current span: the loop is a generator, stepped wherever its caller iterates it, so each ``chat``
    span names its parent instead."""

    def __init__(self, spans: Spans, prompt: Prompt, provider: str, streaming: bool) -> None:
        from opentelemetry.trace import SpanKind, set_span_in_context

        self.spans = spans
        self.shared: dict[str, Any] = {"gen_ai.provider.name": provider, **_parameters(prompt)}
        if streaming:
            self.shared["gen_ai.request.stream"] = True
        attributes = {"gen_ai.operation.name": "invoke_agent", **self.shared}
        name = "invoke_agent"
        if prompt.identity is not None and prompt.identity.role:
            attributes["gen_ai.agent.name"] = escape_surrogates(prompt.identity.role)  # see Spans.failed
            name = f"invoke_agent {attributes['gen_ai.agent.name']}"
            if prompt.identity.description:
                attributes["gen_ai.agent.description"] = escape_surrogates(prompt.identity.description)
        self.span = spans.tracer.start_span(name, kind=SpanKind.INTERNAL, attributes=attributes)
        self.parent = set_span_in_context(self.span)
        self.call: Span | None = None
        self.answered_at: int | None = None
        self.tokens: list[int | None] = [None, None]

    def call_started(self, call: ModelCall) -> None:
        from opentelemetry.trace import SpanKind

        attempt, rendered, request = call.attempt, call.rendered, call.request
        self._close_call()
        attributes = {"gen_ai.operation.name": "chat", **self.shared, "promptwire.attempt": attempt}
        model = request.model_asked()
        if isinstance(model, str):
            attributes["gen_ai.request.model"] = model
            self.span.set_attribute("gen_ai.request.model", model)
        if self.spans.capture_content:
            attributes["gen_ai.input.messages"] = dumps([_message(message) for message in rendered.messages])
        name = f"chat {model}" if isinstance(model, str) else "chat"
        self.call = self.spans.tracer.start_span(name, context=self.parent, kind=SpanKind.CLIENT, attributes=attributes)

    def call_replied(self, made: ModelCall) -> None:
        call, reply = self.call, made.reply
        if call is None or reply is None:
            return
        self.answered_at = time.time_ns()  # the call's end; its span ends once the reply is checked
        for key, name in (("gen_ai.response.model", "model"), ("gen_ai.response.id", "id")):
            value = _field(reply.raw, name)
            if isinstance(value, str):
                call.set_attribute(key, mask(value))  # a provider may echo the key in them
        if reply.finish_reason is not None:
            call.set_attribute("gen_ai.response.finish_reasons", [str(reply.finish_reason)])
        for index, count in enumerate(_counts(reply)):
            if count is not None:
                call.set_attribute(_TOKEN_KEYS[index], count)
                self.tokens[index] = (self.tokens[index] or 0) + count
        if self.spans.capture_content:
            call.set_attribute("gen_ai.output.messages", dumps([_reply_message(reply)]))

    def call_ended(self, call: ModelCall, error: BaseException | None) -> None:
        """A rejected reply is not a failed call (the provider answered): the attempt's span says
        why its reply was not taken, by the error's class name. A failed call's span ends with the
        generate, which fails with it."""
        if self.call is not None and isinstance(error, ModelOutputError):
            self.call.set_attribute("promptwire.rejected", type(error).__qualname__)

    def generate_ended(self, result: GenerateResult | None, error: BaseException | None) -> None:
        if self.call is not None and self.answered_at is None and error is not None:  # the call in flight failed
            self.spans.failed(self.call, error)
        self._close_call()
        for key, total in zip(_TOKEN_KEYS, self.tokens, strict=True):
            if total is not None:  # the sum over the attempts whose provider counted them
                self.span.set_attribute(key, total)
        if error is not None:
            self.spans.failed(self.span, error)
        self.span.end()

    def _close_call(self) -> None:
        """End the attempt's span, at the time its reply came (now, when none came)."""
        if self.call is not None:
            self.call.end(end_time=self.answered_at)
        self.call, self.answered_at = None, None


_TOKEN_KEYS = ("gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens")


def _counts(reply: Reply) -> tuple[int | None, int | None]:
    """The tokens read and written, as the reply's usage counts them."""
    usage = reply.usage
    return (None, None) if usage is None else (usage.input, usage.output)


def _parameters(prompt: Prompt) -> dict[str, Any]:
    """The generation options the conventions name, as the prompt sets them."""
    config = prompt.config
    found: dict[str, Any] = {}
    if config.temperature is not None:
        found["gen_ai.request.temperature"] = config.temperature
    if config.max_output is not None:
        found["gen_ai.request.max_tokens"] = config.max_output.output_tokens
    if prompt.output is not None:
        found["gen_ai.output.type"] = "json"
    return found


def _field(raw: Any, name: str) -> Any:
    """``raw.name`` (an SDK's reply object) or ``raw[name]`` (a reply as plain data)."""
    return raw.get(name) if isinstance(raw, Mapping) else getattr(raw, name, None)


def _message(message: Message) -> dict[str, Any]:
    """A rendered message in the conventions' input-message form: a role and its parts."""
    parts: list[dict[str, Any]] = []
    content = message.content
    if isinstance(content, str):
        parts.append({"type": "text", "content": content})
    else:
        parts.extend(_part(part) for part in content)
    if message.role == "tool":
        parts = [{"type": "tool_call_response", "id": message.tool_call_id, "response": _text_of(parts)}]
    parts.extend(
        {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}
        for call in message.tool_calls
    )
    return {"role": message.role, "parts": parts}


def _part(part: Mapping[str, Any]) -> dict[str, Any]:
    """A content part: text as text; any other kind (an image, a file) named by its type only."""
    if part.get("type") == "text":
        return {"type": "text", "content": part.get("text", "")}
    return {"type": str(part.get("type", "unknown"))}


def _text_of(parts: Sequence[Mapping[str, Any]]) -> str:
    return "".join(str(part.get("content", "")) for part in parts)


def _reply_message(reply: Reply) -> dict[str, Any]:
    """A reply in the conventions' output-message form: its text and tool calls, and why it ended."""
    parts: list[dict[str, Any]] = []
    if reply.text:
        parts.append({"type": "text", "content": reply.text})
    parts.extend(
        {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}
        for call in reply.tool_calls
    )
    return {"role": "assistant", "parts": parts, "finish_reason": str(reply.finish_reason or "stop")}
