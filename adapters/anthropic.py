"""``anthropic``: the Messages API through the official ``anthropic`` SDK (an optional extra).

``build_request`` gives the keyword arguments of ``client.messages.create``: ``model``,
``max_tokens`` (required: 1024 when the generate sets none), ``system``, ``messages`` (tool calls as
``tool_use`` blocks, their results as ``tool_result`` blocks in the next user turn), ``thinking``,
``output_config`` (the schema as structured output, and the effort of a thinking level) and
``tools``. The current SDK and API refuse ``temperature``: it is dropped and the notes say so, as
they say everything else changed on the way. The SDK is imported only to send (``client``, ``post``).

A conversation goes as the Messages API holds one: an assistant turn's blocks in its order
(Anthropic's own thinking back with its signature, redacted thinking with its data; reasoning
of another provider, or unsigned, left out with a note, never as text), the results of its tool
calls gathered into the user turn after it in call order, with the user content that follows (the
API wants turns to alternate), tool-call ids it refuses mapped one way (:class:`ToolIds`), and
order rules it enforces refused before sending, naming the turn. A cache breakpoint is
``cache_control`` on its block (a message's on its last block, the system's on the last system
block, the tools' on the last tool), at most four, the last ones kept. The reply's blocks are its
:attr:`Reply.turn`, which goes back as the same blocks.

Streamed (``"stream": true``), the events are folded into the ``Message`` the reply would have been:
``message_start`` (with the input tokens), each content block from its start and deltas (text,
thinking and its signature, tool input JSON), ``message_delta`` (the stop reason, the output
tokens); a stream without ``message_stop`` was cut short, and an ``error`` event is the provider's
failure (the SDK raises it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from ..core.call import ProviderRequest, Reply, cut_short
from ..core.contract import OutputContract
from ..core.errors import BadRequestError, ProviderError
from ..core.prompt import (
    ChatTurn,
    GenerateConfig,
    PromptCache,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolCallPart,
    TurnPart,
)
from ..core.rendered import Message, RenderedPrompt
from .base import (
    Endpoint,
    StreamingAdapter,
    StreamReader,
    api_stream,
    returns_left_out,
    split_data_url,
    usage_of,
)
from .reply_size import bounded_hooks
from .status import missing_part, refused, unchecked_reply
from .turns import ToolIds, foreign_reasoning, turn_error

__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicAdapter", "adapter"]

DEFAULT_MAX_TOKENS = 1024
_LEVELS = ("low", "medium", "high")


# Claude models up to 4.5 think within a token budget ({"type": "enabled", "budget_tokens": N});
# 4.6 and later decide for themselves ("adaptive") and the Claude 5 family refuses a budget.
_VERSIONED_NAME = re.compile(
    r"claude-(?:(?P<major>\d+)(?:-(?P<minor>\d)(?!\d))?-(?:opus|sonnet|haiku)"
    r"|(?:opus|sonnet|haiku)-(?P<major2>\d+)(?:-(?P<minor2>\d)(?!\d))?)"
)
_BUDGETS = {True: 4096, "low": 1024, "medium": 4096, "high": 16384}
_MIN_BUDGET = 1024


def _budget_thinking(model: str) -> bool:
    """Whether ``model`` is a Claude model older than 4.6 (a name that says no version is taken
    as current)."""
    match = _VERSIONED_NAME.search(model)
    if match is None:
        return False
    major = int(match["major"] or match["major2"])
    minor = int(match["minor"] or match["minor2"] or 0)
    return (major, minor) < (4, 6)


def _thinking_budget(kwargs: dict[str, Any], config: GenerateConfig, notes: list[str]) -> None:
    """Thinking on a budget model: a budget of at least 1024 tokens, below ``max_tokens`` (which
    thinking counts against), and "auto" left to the model, which for these models means off."""
    model = kwargs["model"]
    if config.think == "auto":
        notes.append(f"think 'auto': {model} has no adaptive thinking; thinking left off")
        return
    budget = _BUDGETS[config.think]
    if config.max_output is None:
        kwargs["max_tokens"] = budget + DEFAULT_MAX_TOKENS
        notes[:] = [note for note in notes if not note.startswith(f"max_tokens {DEFAULT_MAX_TOKENS}:")]
        notes.append(
            f"max_tokens {kwargs['max_tokens']}: the thinking budget {budget} plus {DEFAULT_MAX_TOKENS} for the answer "
            "(Anthropic requires a limit and the generate set none)"
        )
    elif budget >= kwargs["max_tokens"]:
        if kwargs["max_tokens"] <= _MIN_BUDGET:
            notes.append(
                f"think {config.think!r} dropped: {model} needs a thinking budget of at least {_MIN_BUDGET} tokens "
                f"below max_tokens, and max_output is {kwargs['max_tokens']}"
            )
            return
        notes.append(f"thinking budget {budget} clamped to {kwargs['max_tokens'] - 1}: it must stay below max_tokens")
        budget = kwargs["max_tokens"] - 1
    kwargs["thinking"] = {"type": "enabled", "budget_tokens": budget}


class AnthropicAdapter(StreamingAdapter):
    name = "anthropic"
    description = "Anthropic Messages API through the official SDK (pip install 'promptwire[anthropic]')"
    sdk = "anthropic"
    extra = "anthropic"
    protocol = "anthropic"
    path = "v1/messages"
    default_url = "https://api.anthropic.com"
    url_variable = "ANTHROPIC_BASE_URL"
    key_variable = "ANTHROPIC_API_KEY"
    no_parameters: ClassVar[Mapping[str, Any]] = {"type": "object"}
    """A tool that takes no parameters: all the Messages API requires of ``input_schema`` is that
    it is an object schema (the SDK's ``InputSchema`` type makes only ``type`` required)."""
    count_endpoint: ClassVar[str | None] = "POST /v1/messages/count_tokens"
    count_fields: ClassVar[frozenset[str]] = frozenset(
        {"model", "messages", "system", "tools", "tool_choice", "thinking", "output_config", "cache_control", "speed"}
    )
    """The body fields ``POST /v1/messages/count_tokens`` takes (its reference, and the SDK's
    ``messages.count_tokens``): the Messages body without what only shapes the answer.
    ``max_tokens``, ``stream``, ``temperature``, ``metadata``, ``stop_sequences``, ``top_k`` and
    ``top_p`` are refused there, so left out."""

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        notes: list[str] = []
        max_tokens = config.max_output.output_tokens if config.max_output is not None else DEFAULT_MAX_TOKENS
        if config.max_output is None:
            notes.append(f"max_tokens {DEFAULT_MAX_TOKENS}: Anthropic requires a limit and the generate set none")
        kwargs: dict[str, Any] = {"model": self.model_name(model), "max_tokens": max_tokens}
        system, turns, marked = _split_system(rendered.messages, notes)
        if system:
            kwargs["system"] = system
        kwargs["messages"] = turns
        output_config: dict[str, Any] = {}
        if config.think is not False and _budget_thinking(kwargs["model"]):
            _thinking_budget(kwargs, config, notes)
        elif config.think is True or config.think == "auto":
            kwargs["thinking"] = {"type": "adaptive"}
        elif config.think in _LEVELS:
            kwargs["thinking"] = {"type": "adaptive"}
            output_config["effort"] = config.think
        if contract is not None:
            output_config["format"] = {"type": "json_schema", "schema": contract.json_schema}
        if output_config:
            kwargs["output_config"] = output_config
        if config.temperature is not None:
            notes.append(
                f"temperature {config.temperature} dropped: the Anthropic API and SDK no longer accept sampling parameters"
            )
        if rendered.tools:
            kwargs["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": self.parameters(t)}
                for t in rendered.tools
            ]
            notes.extend(returns_left_out(rendered.tools, "Anthropic"))
        marked = _cache_settings(kwargs, rendered.cache, notes) + marked
        _keep_last_breakpoints(marked, notes)
        return ProviderRequest(kwargs, tuple(notes))

    def client(self, endpoint: Endpoint, seconds: float) -> Any:
        import anthropic

        http = anthropic.DefaultHttpxClient(event_hooks=bounded_hooks())  # the SDK's defaults, replies bounded
        return anthropic.Anthropic(
            api_key=endpoint.key, base_url=endpoint.url, max_retries=0, timeout=seconds, http_client=http
        )

    def async_client(self, endpoint: Endpoint, seconds: float) -> Any:
        import anthropic

        http = anthropic.DefaultAsyncHttpxClient(event_hooks=bounded_hooks(asynchronous=True))
        return anthropic.AsyncAnthropic(
            api_key=endpoint.key, base_url=endpoint.url, max_retries=0, timeout=seconds, http_client=http
        )

    def post(self, client: Any, body: bytes) -> Any:
        import anthropic

        return client.post("/v1/messages", cast_to=anthropic.types.Message, content=body)

    def post_stream(self, client: Any, body: bytes) -> Any:
        import anthropic

        return api_stream(anthropic, client, "/v1/messages", anthropic.types.RawMessageStreamEvent, body)

    def post_count(self, client: Any, body: bytes) -> Any:
        import anthropic

        return client.post("/v1/messages/count_tokens", cast_to=anthropic.types.MessageTokensCount, content=body)

    def stream_reader(self) -> StreamReader:
        return EventReader()

    def replayed_reply(self, data: Any) -> Any:
        """A recorded reply (:mod:`promptwire.calls.recording`) as the SDK's object again, built
        as the SDK builds the one it receives (without validating it)."""
        import anthropic

        return unchecked_reply(anthropic.types.Message, data)

    def failure(self, exc: Exception, endpoint: Endpoint, seconds: float) -> ProviderError | None:
        import anthropic

        return self.api_failure(anthropic, exc, endpoint, seconds, "error_code") or super().failure(
            exc, endpoint, seconds
        )

    def reply(self, raw: Any) -> Reply:
        blocks = getattr(raw, "content", None)
        if not isinstance(blocks, list):
            raise missing_part("Anthropic response is missing content", raw)
        texts = [block.text for block in blocks if block.type == "text"]
        if raw.stop_reason == "refusal":
            raise refused("".join(texts))
        thinking = [block.thinking for block in blocks if block.type == "thinking"]
        calls = tuple(
            ToolCall(name=block.name, id=block.id, arguments=dict(block.input or {}))
            for block in blocks
            if block.type == "tool_use"
        )
        return Reply(
            text="".join(texts),
            raw=raw,
            reasoning="".join(thinking) or None,
            usage=usage_of(raw),
            finish_reason=raw.stop_reason,
            tool_calls=calls,
            turn=ChatTurn(role="assistant", content=[part for block in blocks if (part := _turn_part(block))]),
        )


def _turn_part(block: Any) -> TurnPart | None:
    """A reply's content block as a part of the assistant turn it goes back as: its thinking with
    the signature (or redacted thinking with its data), text, or tool call with its input; ``None``
    for a block a turn has no part for (a server tool's)."""
    kind = block.type
    if kind == "thinking":
        return ReasoningPart(text=block.thinking, signature=block.signature, provider="anthropic")
    if kind == "redacted_thinking":
        return ReasoningPart(encrypted=block.data, redacted=True, provider="anthropic")
    if kind == "text":
        return TextPart(text=block.text)
    if kind == "tool_use":
        return ToolCallPart(id=block.id, name=block.name, arguments=dict(block.input or {}))
    return None


_DELTAS = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}
"""Each kind of content delta, and its field of text: the block's text, thinking, or input JSON."""


class EventReader:
    """Messages stream events folded into the ``Message`` the reply would have been sent whole as."""

    def __init__(self) -> None:
        self.message: dict[str, Any] | None = None
        self.blocks: dict[int, dict[str, Any]] = {}
        self.pieces: dict[int, list[str]] = {}
        self.stopped = False

    def feed(self, event: Any) -> str | None:
        kind = event.type
        if kind == "content_block_delta":
            delta = event.delta
            field = _DELTAS.get(delta.type)
            if field is not None:
                piece = getattr(delta, field)
                if not isinstance(piece, str):
                    raise TypeError(f"a {delta.type} is {type(piece).__name__}, not text")
                self.pieces.setdefault(event.index, []).append(piece)
                return piece if field == "text" else None
            if delta.type == "signature_delta":
                self.blocks[event.index]["signature"] = delta.signature
        elif kind == "message_start":
            self.message = event.message.model_dump(exclude_unset=True, warnings=False)
        elif kind == "content_block_start":
            self.blocks[event.index] = event.content_block.model_dump(exclude_unset=True, warnings=False)
        elif kind == "message_delta":
            if self.message is None:
                raise ValueError("message_delta before message_start")
            self.message.update(event.delta.model_dump(exclude_unset=True, warnings=False))
            usage = event.usage.model_dump(exclude_none=True, warnings=False) if event.usage is not None else {}
            self.message["usage"] = {**self.message.get("usage", {}), **usage}
        elif kind == "message_stop":
            self.stopped = True
        return None

    def whole(self) -> Any:
        import anthropic

        if self.message is None or not self.stopped:
            raise cut_short()
        content = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            joined = "".join(self.pieces.get(index, ()))
            if block.get("type") == "text":
                block["text"] = block.get("text", "") + joined
            elif block.get("type") == "thinking":
                block["thinking"] = block.get("thinking", "") + joined
            elif joined:  # a tool's input, as JSON text in pieces
                block["input"] = json.loads(joined)
            content.append(block)
        return anthropic.types.Message.construct(**{**self.message, "content": content})


MAX_BREAKPOINTS = 4
"""The most ``cache_control`` blocks the Messages API takes in one request."""


def _cache_settings(
    kwargs: dict[str, Any], cache: PromptCache | None, notes: list[str]
) -> list[tuple[dict[str, Any], str]]:
    """The prompt's caching for the whole request: the tools breakpoint on the last tool (returned,
    for the count of breakpoints); the cache key and retention, which Anthropic has not, noted."""
    if cache is None:
        return []
    marked: list[tuple[dict[str, Any], str]] = []
    if cache.tools is not None:
        if kwargs.get("tools"):
            last = kwargs["tools"][-1]
            last["cache_control"] = _cache_control({"ttl": cache.tools.ttl})
            marked.append((last, "cache.tools"))
        else:
            notes.append("cache.tools: there are no tools to mark; cache breakpoint left out")
    if cache.key is not None:
        notes.append(
            f"cache key {cache.key!r} left out: Anthropic has no cache key (it caches the request's prefix up to each breakpoint)"
        )
    if cache.retention is not None:
        notes.append(
            f"cache retention {cache.retention!r} left out: Anthropic has no retention setting "
            "(a breakpoint's ttl, 5m or 1h, says how long)"
        )
    return marked


def _keep_last_breakpoints(marked: list[tuple[dict[str, Any], str]], notes: list[str]) -> None:
    """At most :data:`MAX_BREAKPOINTS` breakpoints, as the API takes: the last ones are kept (the
    API reads a request as tools, system, messages, and the last breakpoints cover the longest
    prefixes, the earlier ones' included), and each one dropped is named."""
    dropped = max(0, len(marked) - MAX_BREAKPOINTS)
    for block, where in marked[:dropped]:
        del block["cache_control"]
        notes.append(
            f"{where}: cache breakpoint left out: Anthropic takes at most {MAX_BREAKPOINTS} per request, "
            "and the last ones are kept"
        )
    shorter = None
    for block, where in marked[dropped:]:
        if block["cache_control"].get("ttl") != "1h":
            shorter = shorter or where
        elif shorter is not None:
            raise BadRequestError(
                f"{where}: a 1h cache breakpoint cannot come after a 5-minute one ({shorter}): "
                "Anthropic requires the breakpoints of the longer ttl first"
            )


def _split_system(
    messages: tuple[Message, ...], notes: list[str]
) -> tuple[str | list[dict[str, Any]], list[dict[str, Any]], list[tuple[dict[str, Any], str]]]:
    """The leading system and developer text as ``system``; the rest as Anthropic turns; and the
    blocks that carry a breakpoint, in the order the request holds them, each with where it came from."""
    leading = 0
    while leading < len(messages) and messages[leading].role in ("system", "developer"):
        leading += 1
    writer = _TurnWriter(notes)
    system = writer.system(messages[:leading])
    for index in range(leading, len(messages)):
        writer.message(messages[index], index)
    writer.close()
    notes.extend(writer.ids.notes())
    return system, writer.turns, writer.marked


class _TurnWriter:
    """Rendered messages as Anthropic turns: text and media blocks, ``tool_use`` / ``tool_result``
    blocks (the results of one assistant turn gathered into the user turn after it, in call order,
    with the user content that follows), signed ``thinking`` and ``redacted_thinking``, and each
    breakpoint as ``cache_control`` on its block. Turn order rules the API enforces are refused
    here, naming the turn, rather than sent to fail."""

    def __init__(self, notes: list[str]) -> None:
        self.notes = notes
        self.ids = ToolIds("Anthropic", "a-zA-Z0-9_-", 64)
        self.turns: list[dict[str, Any]] = []
        self.marked: list[tuple[dict[str, Any], str]] = []
        self.used: set[str] = set()
        """The ids of the tool calls so far (an id goes once in a conversation)."""
        self.waiting: _Answers | None = None
        """The tool calls of the last assistant turn, while the messages after it answer them."""

    def system(self, leading: tuple[Message, ...]) -> str | list[dict[str, Any]]:
        """The system text: one string as before, or, when a breakpoint is in it, a list of text
        blocks (one per message or text part) with ``cache_control`` where it was marked."""
        marked = any(_holds_mark(message) for message in leading)
        texts: list[str] = []
        blocks: list[dict[str, Any]] = []
        for index, message in enumerate(leading):
            if message.role == "developer":
                self.notes.append(f"messages[{index}]: developer text is sent as part of the system prompt")
            if not marked:
                texts.append(_plain_text(message, index, self.notes))
                continue
            parts = [{"type": "text", "text": message.content}] if isinstance(message.content, str) else message.content
            if any(part.get("type") != "text" for part in parts):
                self.notes.append(
                    f"messages[{index}]: only the text parts of this message can go here; the others are left out"
                )
            own = [
                self.mark({"type": "text", "text": part["text"]}, part.get("cache"), index, position)
                for position, part in enumerate(parts)
                if part.get("type") == "text" and part["text"]  # Anthropic refuses an empty text block
            ]
            blocks += self.mark_last(own, message, index)
        return blocks if marked else "\n\n".join(texts)

    def message(self, message: Message, index: int) -> None:
        if message.name is not None and message.role != "tool":  # a tool's name is its call's
            self.notes.append(f"messages[{index}]: Anthropic turns have no speaker name; {message.name!r} left out")
        if message.role == "tool" and message.tool_call_id is not None:
            self.close()
            self._one_round_result(message, index)
            return
        content: Any
        if message.role == "assistant":
            self.close()
            content = self.content(message, index)
            calls = self._calls(message)
            if content == [] and message.content:  # every part was left out, each with its note
                self.notes.append(f"messages[{index}]: nothing of this assistant turn can go to Anthropic; left out")
                return
            self.turns.append({"role": "assistant", "content": content})
            if calls:
                self.waiting = _Answers(index, calls, self.ids, self.notes)
            return
        if message.role == "tool" and not _results(message):
            self.notes.append(
                f"messages[{index}]: a tool turn that answers no call has no tool_result form; sent as user text"
            )
            text = _plain_text(message, index, self.notes)
            self.turns.append({"role": "user", "content": self.mark_last(text, message, index)})
            return
        if message.role not in ("user", "tool"):
            self.notes.append(f"messages[{index}]: role {message.role!r} has no Anthropic turn; sent as a user turn")
        content = self.content(message, index)
        if self.waiting is not None:
            self.waiting.take(content, index)
            return
        for block in content if isinstance(content, list) else ():
            if block.get("type") == "tool_result":
                named = self.ids.original(block["tool_use_id"])
                raise turn_error(index, f"the tool result for {named!r} {_NOT_AFTER_ITS_CALL}")
        self.turns.append({"role": "user", "content": content})

    def close(self) -> None:
        """The user turn that answers the waiting tool calls: their results in call order, then
        the user content that came with them; refused when a call is left unanswered."""
        waiting, self.waiting = self.waiting, None
        if waiting is None:
            return
        unanswered = [self.ids.original(call) for call in waiting.calls if call not in waiting.answered]
        if unanswered:
            raise turn_error(
                waiting.index,
                f"{_calls_named(unanswered)} no tool result in the turn after it "
                "(Anthropic requires every tool_use to be answered by a tool_result in the next user turn)",
            )
        results = sorted(waiting.results, key=lambda block: waiting.calls.index(block["tool_use_id"]))
        self.turns.append({"role": "user", "content": results + waiting.others})

    def content(self, message: Message, index: int) -> Any:
        """The message's content: its text as it is when nothing marks it, else its blocks."""
        if isinstance(message.content, str) and not message.tool_calls:
            return self.mark_last(message.content, message, index)
        blocks = [] if isinstance(message.content, str) else self.blocks(message.content, index, message.role)
        if message.tool_calls:  # the one-round calls (``Prompt.tool_calls``), after the text
            if isinstance(message.content, str) and message.content:
                blocks.insert(0, {"type": "text", "text": message.content})
            blocks += [
                {"type": "tool_use", "id": self.ids(str(c.id)), "name": c.name, "input": c.arguments}
                for c in message.tool_calls
            ]
        return self.mark_last(blocks, message, index)

    def blocks(self, parts: list[dict[str, Any]], index: int, role: str, within: str = "") -> list[dict[str, Any]]:
        """Content parts as blocks, each with its breakpoint; ``within`` names the tool result
        whose content they are (``.content[2]``), for the notes."""
        blocks: list[dict[str, Any]] = []
        for position, part in enumerate(parts):
            kind = part.get("type")
            block: dict[str, Any] | None
            if kind == "reasoning":
                block = self._thinking(part, index, position, role)
            elif kind == "tool_call":
                block = self._tool_use(part, index, position, role)
            elif kind == "tool_result":
                block = self._tool_result(part, index, position, role)
            else:
                block = _media_block(part)
                detail = (part.get("image_url") or {}).get("detail") if kind == "image_url" else None
                if detail is not None:
                    self.notes.append(
                        f"{_where(index, position, within)}: Anthropic has no image detail level; {detail!r} left out"
                    )
                filename = (part.get("file") or {}).get("filename") if block is not None and kind == "file" else None
                if filename is not None:
                    self.notes.append(
                        f"{_where(index, position, within)}: Anthropic documents have no file name; {filename!r} left out"
                    )
            if block is None:
                if kind != "reasoning":  # reasoning left out says why itself
                    self.notes.append(
                        f"{_where(index, position, within)}: Anthropic cannot carry this {kind} part; left out"
                    )
                continue
            blocks.append(self.mark(block, part.get("cache"), index, position, within))
        return blocks

    def mark(
        self, block: dict[str, Any], mark: dict[str, Any] | None, index: int, position: int | None, within: str = ""
    ) -> dict[str, Any]:
        """``block`` with the breakpoint ``mark`` as its ``cache_control`` (thinking takes none: noted)."""
        if mark is None:
            return block
        where = _where(index, position, within)
        if block["type"] in ("thinking", "redacted_thinking"):
            self.notes.append(f"{where}: Anthropic takes no cache breakpoint on a thinking block; left out")
            return block
        block["cache_control"] = _cache_control(mark)
        self.marked.append((block, where))
        return block

    def mark_last(self, content: Any, message: Message, index: int) -> Any:
        """``content`` with the message's breakpoint on its last block (text becomes one block)."""
        if message.cache is None:
            return content
        if isinstance(content, str):
            if not content:
                self.notes.append(
                    f"messages[{index}]: an empty message has no block to mark; cache breakpoint left out"
                )
                return content
            content = [{"type": "text", "text": content}]
        if not content:
            self.notes.append(f"messages[{index}]: an empty message has no block to mark; cache breakpoint left out")
            return content
        last = content[-1]
        if "cache_control" in last:  # the last part's own mark is the same breakpoint
            return content
        self.mark(last, message.cache, index, None)
        return content

    def _thinking(self, part: dict[str, Any], index: int, position: int, role: str) -> dict[str, Any] | None:
        """Anthropic's own reasoning, signed, as it came: ``thinking`` with its signature, or
        ``redacted_thinking`` with its data; anything else is left out with a note."""
        foreign = foreign_reasoning(part, "anthropic", index, position)
        where = f"messages[{index}].content[{position}]"
        if foreign is not None:
            self.notes.append(foreign)
        elif role != "assistant":
            self.notes.append(f"{where}: Anthropic takes thinking in assistant turns only; left out")
        elif part.get("redacted"):
            if part.get("encrypted") is not None:
                return {"type": "redacted_thinking", "data": part["encrypted"]}
            self.notes.append(f"{where}: redacted thinking without its data cannot be sent back to anthropic; left out")
        elif part.get("signature") is not None:
            return {"type": "thinking", "thinking": part.get("text") or "", "signature": part["signature"]}
        else:
            self.notes.append(
                f"{where}: thinking without its signature cannot be sent back to anthropic "
                "(the API refuses unsigned thinking); left out"
            )
        return None

    def _tool_use(self, part: dict[str, Any], index: int, position: int, role: str) -> dict[str, Any]:
        where = f"content[{position}]: tool call {part['name']!r}"
        if role != "assistant":
            raise turn_error(index, f"{where} is in a {role} turn; Anthropic takes tool calls in assistant turns only")
        if part.get("id") is None:
            raise turn_error(index, f"{where} has no id, which Anthropic needs to pair it with its result")
        if part.get("arguments") is None:
            raise turn_error(
                index,
                f"{where} has arguments that are not a JSON object ({part.get('arguments_text')!r}); "
                "Anthropic takes a call's input as an object",
            )
        if part["id"] in self.used:
            raise turn_error(
                index, f"{where}: its id {part['id']!r} is an earlier call's (Anthropic takes each id once)"
            )
        self.used.add(part["id"])
        return {"type": "tool_use", "id": self.ids(part["id"]), "name": part["name"], "input": part["arguments"]}

    def _tool_result(self, part: dict[str, Any], index: int, position: int, role: str) -> dict[str, Any]:
        if role == "assistant":
            raise turn_error(
                index, f"content[{position}]: a tool result is in an assistant turn; Anthropic takes it in a user turn"
            )
        content = part["content"]
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": self.ids(part["call_id"]),
            "content": content
            if isinstance(content, str)
            else self.blocks(content, index, role, f".content[{position}]"),
        }
        if part.get("is_error"):
            block["is_error"] = True
        if part.get("name") is not None:
            self.notes.append(
                f"messages[{index}].content[{position}]: Anthropic tool results have no name; "
                "the tool is known by its call id"
            )
        return block

    def _calls(self, message: Message) -> list[str]:
        """The ids (as sent) of the assistant message's tool calls that are conversation parts."""
        if isinstance(message.content, str):
            return []
        return [self.ids(part["id"]) for part in message.content if part.get("type") == "tool_call"]

    def _one_round_result(self, message: Message, index: int) -> None:
        """A one-round result (``Prompt.tool_results``), as it has always been sent: with the results before it."""
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": self.ids(str(message.tool_call_id)),
            "content": _plain_text(message, index, self.notes),
        }
        if message.is_error:
            block["is_error"] = True
        if self.turns and self.turns[-1]["role"] == "user" and _is_tool_results(self.turns[-1]):
            self.turns[-1]["content"].append(block)
        else:
            self.turns.append({"role": "user", "content": [block]})


_MOVED = (
    "these tool results go before the user content that came before them "
    "(Anthropic wants a turn's tool_result blocks first)"
)
_NOT_AFTER_ITS_CALL = (
    "answers no tool call of the assistant turn right before it "
    "(Anthropic takes a tool_result only in the user turn after its tool_use)"
)


class _Answers:
    """The tool calls of one assistant turn (``index``), and what the messages after it bring:
    results (one per call) and other user content."""

    def __init__(self, index: int, calls: list[str], ids: ToolIds, notes: list[str]) -> None:
        self.index = index
        self.calls = calls
        self.ids = ids
        self.notes = notes
        self.moved = False
        """Whether the notes say the results go before user content that came first."""
        self.answered: set[str] = set()
        self.results: list[dict[str, Any]] = []
        self.others: list[dict[str, Any]] = []

    def take(self, content: Any, index: int) -> None:
        if isinstance(content, str):
            if content:
                self.others.append({"type": "text", "text": content})
            return
        for block in content:
            if block.get("type") != "tool_result":
                self.others.append(block)
                continue
            call = block["tool_use_id"]
            named = self.ids.original(call)
            if call not in self.calls:
                raise turn_error(index, f"the tool result for {named!r} {_NOT_AFTER_ITS_CALL} (messages[{self.index}])")
            if call in self.answered:
                raise turn_error(index, f"the tool call {named!r} of messages[{self.index}] is answered twice")
            if self.others and not self.moved:
                self.moved = True
                self.notes.append(f"messages[{index}]: {_MOVED}")
            self.answered.add(call)
            self.results.append(block)


def _calls_named(calls: list[str]) -> str:
    """``tool call 'a' has`` or ``tool calls 'a', 'b' have``."""
    named = ", ".join(map(repr, calls))
    return f"tool call {named} has" if len(calls) == 1 else f"tool calls {named} have"


def _where(index: int, position: int | None, within: str = "") -> str:
    """Where a part is, for a note: ``messages[3].content[1]`` (in a tool result's content:
    ``messages[3].content[1].content[0]``), or the message itself for ``None``."""
    return f"messages[{index}]" if position is None else f"messages[{index}]{within}.content[{position}]"


def _holds_mark(message: Message) -> bool:
    return message.cache is not None or (
        isinstance(message.content, list) and any(part.get("cache") is not None for part in message.content)
    )


def _results(message: Message) -> bool:
    return isinstance(message.content, list) and any(part.get("type") == "tool_result" for part in message.content)


def _cache_control(mark: dict[str, Any]) -> dict[str, Any]:
    control: dict[str, Any] = {"type": "ephemeral"}
    if mark.get("ttl") is not None:
        control["ttl"] = mark["ttl"]
    return control


def _is_tool_results(turn: dict[str, Any]) -> bool:
    content = turn["content"]
    return isinstance(content, list) and all(block.get("type") == "tool_result" for block in content)


def _plain_text(message: Message, index: int, notes: list[str]) -> str:
    if isinstance(message.content, str):
        return message.content
    texts = [part["text"] for part in message.content if part.get("type") == "text"]
    if len(texts) != len(message.content):
        notes.append(f"messages[{index}]: only the text parts of this message can go here; the others are left out")
    return "\n".join(texts)


def _media_block(part: dict[str, Any]) -> dict[str, Any] | None:
    """A text or media part as its block; ``None`` for one Anthropic cannot carry."""
    kind = part.get("type")
    if kind == "text":
        return {"type": "text", "text": part["text"]}
    if kind == "image_url":
        return {"type": "image", "source": _source(part["image_url"]["url"])}
    if kind == "file" and str(part["file"].get("file_data", "")).startswith("data:"):
        return {"type": "document", "source": _source(part["file"]["file_data"])}
    return None


def _source(url: str) -> dict[str, Any]:
    inline = split_data_url(url)
    if inline is None:
        return {"type": "url", "url": url}
    return {"type": "base64", "media_type": inline[0], "data": inline[1]}


adapter = AnthropicAdapter()
