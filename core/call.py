"""A model call's data: the request an adapter builds, the reply it reads, the attempt as a run keeps
it, and the :class:`Call` record that travels through the links around the send.

Plain records, no machinery: the attempt loop and the links that move them live in
:mod:`promptwire.calls`. Facts about a call (its site, its attempt, whether it streams, its timeout,
the request as built before any stream flag) ride on the :class:`Call`, so no link has to find them
again in a context variable or by a request's identity.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Protocol

from .errors import ProviderConnectionError
from .records import FACTORY, dataclass_record, field_setters

if TYPE_CHECKING:
    from .contract import OutputContract
    from .prompt import ChatTurn, GenerateConfig, Prompt, ToolCall
    from .rendered import RenderedPrompt

__all__ = [
    "Call",
    "GenerateResult",
    "ModelAdapter",
    "ModelCall",
    "ProviderRequest",
    "Reply",
    "Site",
    "TextCallback",
    "Usage",
    "Whole",
    "cut_short",
]


@dataclass_record(frozen=True, slots=True)
class Usage:
    """A reply's token counts: read (``input``) and written (``output``), each ``None`` when the
    provider did not say, and ``details``, what it said as it spelt it (recorded and shown as is)."""

    input: int | None = None
    output: int | None = None
    details: Mapping[str, Any] | None = None

    def __init__(
        self,
        input: int | None = None,
        output: int | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        _usage_input(self, input)
        _usage_output(self, output)
        _usage_details(self, details)

    @classmethod
    def read(cls, usage: Mapping[str, Any] | Usage | None) -> Usage | None:
        """The counts of a provider's ``usage`` object, whichever names it gives them
        (``input_tokens``/``output_tokens``, or Chat Completions' ``prompt_tokens``/
        ``completion_tokens``): the one place a provider's spelling is read. A count is an integer (a boolean is not one); anything else
        is no count."""
        if usage is None or isinstance(usage, Usage):
            return usage
        return cls(
            _count(usage, "input_tokens", "prompt_tokens"),
            _count(usage, "output_tokens", "completion_tokens"),
            usage,
        )

    def as_data(self) -> dict[str, Any]:
        """What the provider said, as plain data (recorded, and shown by ``--output json``); the
        counts under their common names when an adapter gave counts only."""
        if self.details is not None:
            return dict(self.details)
        return {"input_tokens": self.input, "output_tokens": self.output}

    def __bool__(self) -> bool:
        """Whether the provider counted anything (an empty ``usage`` object counts nothing)."""
        return bool(self.details) if self.details is not None else (self.input, self.output) != (None, None)


_usage_input, _usage_output, _usage_details = field_setters(Usage)


def _count(usage: Mapping[str, Any], *names: str) -> int | None:
    for name in names:
        value = usage.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


@dataclass_record(slots=True)
class Reply:
    """What a model returned: its text, and the JSON value when the adapter already has one (a
    canned or mock value, a provider's parsed structured output), with what else the provider said.
    ``usage`` may be given as the provider's own mapping: it is read into a :class:`Usage` here."""

    text: str | None
    value: Any = None
    has_value: bool = False
    raw: Any = None
    reasoning: str | None = None
    usage: Usage | None = None
    finish_reason: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    turn: ChatTurn | None = None
    """The assistant turn exactly as the provider returned it: its text, its tool calls (with the
    provider's own argument text) and its reasoning (with the signature or encrypted content that
    lets the provider take it back), in the provider's order. Append it to the prompt's ``history``
    to go on with the conversation; built-in adapters set it, and :meth:`as_turn` builds one for an
    adapter that does not."""

    def __init__(
        self,
        text: str | None,
        value: Any = None,
        has_value: bool = False,
        raw: Any = None,
        reasoning: str | None = None,
        usage: Usage | None = None,
        finish_reason: str | None = None,
        tool_calls: tuple[ToolCall, ...] = (),
        turn: ChatTurn | None = None,
    ) -> None:
        self.text = text
        self.value = value
        self.has_value = has_value
        self.raw = raw
        self.reasoning = reasoning
        self.usage = usage
        self.finish_reason = finish_reason
        self.tool_calls = tool_calls
        self.turn = turn
        self.__post_init__()

    def __post_init__(self) -> None:
        if self.usage is not None and not isinstance(self.usage, Usage):
            self.usage = Usage.read(self.usage)

    def as_turn(self) -> ChatTurn:
        """The reply as the conversation's next turn: :attr:`turn` when the adapter set it, else
        one made of the reasoning text (unsigned: no provider takes it back), the text and the
        tool calls."""
        if self.turn is not None:
            return self.turn
        from .prompt import ChatTurn, ReasoningPart, TextPart, ToolCallPart

        parts: list[Any] = []
        if self.reasoning:
            parts.append(ReasoningPart(text=self.reasoning))
        if self.text:
            parts.append(TextPart(text=self.text))
        parts.extend(ToolCallPart(id=call.id, name=call.name, arguments=call.arguments) for call in self.tool_calls)
        return ChatTurn(role="assistant", content=parts)


@dataclass_record(slots=True)
class ProviderRequest:
    """The exact keyword arguments of the SDK call (the request body, keys in the order a dry run
    shows them), and ``notes``: every parameter the adapter dropped, renamed or clamped, and why."""

    kwargs: Mapping[str, Any]
    notes: tuple[str, ...] = ()
    endpoint: str | None = None
    """Where the request goes (a base URL or host) when the model URI decides it."""
    provider: str | None = None
    """The adapter it goes to (its registered name), set by the loop from the call's route: a dry
    run shows it."""
    model: str | None = None
    """The model it asks for, when the body does not say it (a provider whose model goes in the
    URL: a deployment, a path); see :meth:`model_asked`."""

    def __init__(
        self,
        kwargs: Mapping[str, Any],
        notes: tuple[str, ...] = (),
        endpoint: str | None = None,
        provider: str | None = None,
        model: str | None = None,
    ) -> None:
        self.kwargs = kwargs
        self.notes = notes
        self.endpoint = endpoint
        self.provider = provider
        self.model = model

    def model_asked(self) -> Any:
        """The model the request asks for: :attr:`model` when the adapter set it, else the body's
        ``model`` (what progress lines, ``--output json``, dry runs and recordings show)."""
        return self.model if self.model is not None else self.kwargs.get("model")


class ModelAdapter(Protocol):
    """A provider: ``build_request`` is pure (the exact request, printable in a dry run), ``send``
    makes the call, ``parse_reply`` reads what came back. Streaming and async calls use the optional
    ``streamed``, ``stream``, ``asend`` and ``astream`` when an adapter has them (only the bottom
    link of :mod:`promptwire.calls.links` asks), and do without when it has not."""

    name: str

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest: ...

    def send(self, request: ProviderRequest, timeout: float | None) -> Any: ...

    def parse_reply(self, raw: Any) -> Reply: ...


@dataclass_record(frozen=True)
class Site:
    """Where a model call came from: ``file:line:col`` of its generate, and its agent (``""`` for
    none: a prompt file's call)."""

    file: str
    line: int
    column: int
    agent: str = ""

    def __init__(self, file: str, line: int, column: int, agent: str = "") -> None:
        object.__setattr__(self, "file", file)
        object.__setattr__(self, "line", line)
        object.__setattr__(self, "column", column)
        object.__setattr__(self, "agent", agent)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass_record(slots=True)
class ModelCall:
    """One attempt: what was rendered and sent, and what came back (or why it was rejected), with
    the :class:`Site` it came from (``None`` for a Python caller that named none)."""

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
    site: Site | None = None
    built: ProviderRequest | None = None
    """The request as built, before a streamed call's stream flags (``request`` is the one sent);
    ``None`` when it is ``request`` itself."""

    def __init__(
        self,
        attempt: int,
        prompt: Prompt,
        rendered: RenderedPrompt,
        request: ProviderRequest,
        reply: Reply | None = None,
        error: str | None = None,
        provider: str | None = None,
        seconds: float | None = None,
        value: Any = None,
        site: Site | None = None,
        built: ProviderRequest | None = None,
    ) -> None:
        self.attempt = attempt
        self.prompt = prompt
        self.rendered = rendered
        self.request = request
        self.reply = reply
        self.error = error
        self.provider = provider
        self.seconds = seconds
        self.value = value
        self.site = site
        self.built = built

    @property
    def agent(self) -> str:
        """The agent whose generate made the call (``""`` for none: a prompt file's, a Python caller's)."""
        return "" if self.site is None else self.site.agent


@dataclass_record(slots=True)
class GenerateResult:
    """What ``generate`` returns: the accepted value, the attempts it took and every call made."""

    value: Any
    attempts: int
    calls: list[ModelCall] = field(default_factory=list)

    def __init__(self, value: Any, attempts: int, calls: list[ModelCall] = FACTORY) -> None:
        self.value = value
        self.attempts = attempts
        self.calls = list() if calls is FACTORY else calls


@dataclass_record(frozen=True, slots=True)
class Call:
    """One attempt on its way to the provider, as the links around the send see it.

    ``request`` is the request as built (what a recording keys a reply by); ``sent`` the one sent,
    with the provider's stream flags when ``stream`` (the same object otherwise). ``adapter`` is the
    provider the call was routed to, registered as ``provider``; ``model`` the model name as that
    adapter reads it. ``timeout`` is seconds for the whole call (``None``: the adapter's default).
    ``record`` is the attempt as the run keeps it (what watchers are told of).
    """

    request: ProviderRequest
    sent: ProviderRequest
    adapter: ModelAdapter
    provider: str
    attempt: int
    site: Site | None
    stream: bool
    timeout: float | None
    rendered: RenderedPrompt
    prompt: Prompt
    model: str | None
    record: ModelCall

    def __init__(
        self,
        request: ProviderRequest,
        sent: ProviderRequest,
        adapter: ModelAdapter,
        provider: str,
        attempt: int,
        site: Site | None,
        stream: bool,
        timeout: float | None,
        rendered: RenderedPrompt,
        prompt: Prompt,
        model: str | None,
        record: ModelCall,
    ) -> None:
        _call_request(self, request)
        _call_sent(self, sent)
        _call_adapter(self, adapter)
        _call_provider(self, provider)
        _call_attempt(self, attempt)
        _call_site(self, site)
        _call_stream(self, stream)
        _call_timeout(self, timeout)
        _call_rendered(self, rendered)
        _call_prompt(self, prompt)
        _call_model(self, model)
        _call_record(self, record)


(
    _call_request,
    _call_sent,
    _call_adapter,
    _call_provider,
    _call_attempt,
    _call_site,
    _call_stream,
    _call_timeout,
    _call_rendered,
    _call_prompt,
    _call_model,
    _call_record,
) = field_setters(Call)
"""Each field's setter (:func:`~promptwire.core.records.field_setters`: every attempt makes a Call)."""


@dataclass_record(frozen=True, slots=True)
class Whole:
    """The last item of a stream: the whole reply, as ``parse_reply`` reads it (``raw``), and, once
    a link has read it, the :class:`Reply` it says (a link that answers in place of the provider,
    a dry run or a replay, answers with both)."""

    raw: Any
    reply: Reply | None = None

    def __init__(self, raw: Any, reply: Reply | None = None) -> None:
        _whole_raw(self, raw)
        _whole_reply(self, reply)


_whole_raw, _whole_reply = field_setters(Whole)


def cut_short() -> ProviderConnectionError:
    """A stream that ended before the provider said the reply was complete: its text so far is not
    the answer (the connection can end cleanly in the middle, a proxy's timeout for one)."""
    return ProviderConnectionError("LLM provider stream ended before the reply was complete")


TextCallback = Callable[[str], None]
"""Receives a streamed reply's text, piece by piece, as it arrives (each attempt's in turn)."""
