"""``generate``: one model call with attempts, the repair text, coercion and validation.

One implementation for every caller (the AgentScript interpreter and Python code alike). The caller
gives a :class:`Prompt`, a ``render`` function (core never imports a renderer) and a
:class:`ModelAdapter`; each attempt renders the prompt, asks the adapter for a :class:`Reply`, reads
JSON from it when the prompt has an output contract, and checks the result. Only replies that are
not JSON and results that fail the check are retried, with the reason (and the rejected output)
in ``Prompt.retry``, which every format shows as its repair text; everything else is raised at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from .coercion import ResultError, check_result
from .contract import OutputContract
from .errors import ModelOutputError, PromptwireError, ProviderError
from .prompt import GenerateConfig, Prompt, Retry, ToolCall
from .rendered import RenderedPrompt
from .secrets import mask
from .timeout import check_timeout

__all__ = [
    "GenerateResult",
    "ModelAdapter",
    "ModelCall",
    "NotJsonError",
    "ProviderRequest",
    "Reply",
    "generate",
    "read_json",
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


class ModelAdapter(Protocol):
    """A provider: ``build_request`` is pure (the exact request, printable in a dry run), ``send``
    makes the call, ``parse_reply`` reads what came back."""

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


@dataclass(slots=True)
class GenerateResult:
    value: Any
    attempts: int
    calls: list[ModelCall] = field(default_factory=list)


def generate(
    prompt: Prompt,
    *,
    render: Callable[[Prompt], RenderedPrompt],
    adapter: ModelAdapter,
    model: str | None = None,
    locations: Mapping[str, str] | None = None,
    on_call: Callable[[ModelCall], None] | None = None,
    debug: IO[str] | None = None,
    agent: str = "__main_agent",
    timeout: float | None = None,
) -> GenerateResult:
    """Run ``prompt.config.attempts`` attempts at most; return the first accepted result.

    ``locations`` maps contract fields to their ``L:C`` for messages; ``on_call`` sees every
    attempt as it is made; with ``prompt.config.debug`` each attempt's prompt is written to
    ``debug`` (AgentScript's debug block). The last failure is raised when no attempt succeeds.
    ``timeout`` is seconds per request (None: the adapter's default).
    """
    check_timeout(timeout)
    config = prompt.config
    contract = prompt.output
    calls: list[ModelCall] = []
    current = prompt
    for attempt in range(1, config.attempts + 1):
        rendered = render(current)
        if config.debug and debug is not None:
            debug.write(debug_text(agent, attempt, rendered, contract) + "\n")
        try:
            request = adapter.build_request(rendered, config, contract, model)
            reply = adapter.parse_reply(adapter.send(request, timeout))
        except ProviderError as exc:
            if exc.provider is None:  # an adapter need not repeat its own name on every error
                exc.provider = adapter.name
            raise
        except RecursionError:  # an SDK's own JSON walk; no provider takes a schema this deep anyway
            raise PromptwireError(
                f"{adapter.name}: the request or its reply is nested too deeply for the SDK to handle"
            ) from None
        try:
            value = _accept(reply, contract, config.strict, locations)
        except ModelOutputError as exc:
            call = ModelCall(attempt, current, rendered, request, reply, str(exc))
            calls.append(call)
            if on_call is not None:
                on_call(call)
            if attempt == config.attempts:
                raise
            retry = Retry(reason=str(exc), attempt=attempt)
            if isinstance(exc, ResultError):
                retry = Retry(reason=str(exc), previous_output=_raw_value(reply), attempt=attempt)
            current = prompt.model_copy(update={"retry": retry})
            continue
        call = ModelCall(attempt, current, rendered, request, reply)
        calls.append(call)
        if on_call is not None:
            on_call(call)
        return GenerateResult(value, attempt, calls)
    raise AssertionError("unreachable: attempts is at least 1")  # pragma: no cover


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


def _js_int(text: str) -> int | float:
    """An integer as JSON.parse reads it: exact below 2**53, from there the nearest double (never
    Python's digit limit for int())."""
    number = float(text)
    return int(text) if abs(number) < 2**53 else number


def _not_json(text: str) -> Any:
    """NaN and Infinity are Python's JSON extensions, not JSON: JSON.parse refuses them."""
    raise ValueError(f"{text} is not JSON")


_DECODER = json.JSONDecoder(parse_int=_js_int, parse_constant=_not_json)
"""JSON.parse's reading, built once: ``json.loads`` with hooks builds a decoder per call."""


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


def debug_text(agent: str, attempt: int, rendered: RenderedPrompt, contract: OutputContract | None) -> str:
    """AgentScript's debug block for one attempt (written to stderr before the call)."""
    schema = "" if contract is None else json.dumps(contract.json_schema, indent=2, ensure_ascii=False)
    user = rendered.user
    final = user if isinstance(user, str) else json.dumps(user, ensure_ascii=False)
    return "\n".join(
        [
            f"--- AgentScript generate debug: {agent} attempt {attempt} ---",
            "System:",
            rendered.system or "",
            "Final user message:",
            final or "",
            "Return schema:",
            schema,
            "--- end AgentScript generate debug ---",
        ]
    )
