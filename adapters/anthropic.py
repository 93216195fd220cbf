"""``anthropic``: the Messages API through the official ``anthropic`` SDK (an optional extra).

``build_request`` gives the keyword arguments of ``client.messages.create``: ``model``,
``max_tokens`` (required: 1024 when the generate sets none), ``system``, ``messages`` (tool calls as
``tool_use`` blocks, their results as ``tool_result`` blocks in the next user turn), ``thinking``,
``output_config`` (the schema as structured output, and the effort of a thinking level) and
``tools``. The current SDK and API refuse ``temperature``: it is dropped and the notes say so, as
they say everything else changed on the way. The SDK is imported only to send (``client``, ``post``).

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
from ..core.errors import ProviderError
from ..core.prompt import GenerateConfig, ToolCall
from ..core.rendered import Message, RenderedPrompt
from .base import (
    Endpoint,
    StreamingAdapter,
    StreamReader,
    api_stream,
    part_left_out,
    returns_left_out,
    split_data_url,
    usage_of,
)
from .status import missing_part, refused, unchecked_reply

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

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        notes: list[str] = []
        max_tokens = config.max_output.output_tokens if config.max_output is not None else DEFAULT_MAX_TOKENS
        if config.max_output is None:
            notes.append(f"max_tokens {DEFAULT_MAX_TOKENS}: Anthropic requires a limit and the generate set none")
        kwargs: dict[str, Any] = {"model": self.model_name(model), "max_tokens": max_tokens}
        system, turns = _split_system(rendered.messages, notes)
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
        return ProviderRequest(kwargs, tuple(notes))

    def client(self, endpoint: Endpoint, seconds: float) -> Any:
        import anthropic

        return anthropic.Anthropic(api_key=endpoint.key, base_url=endpoint.url, max_retries=0, timeout=seconds)

    def async_client(self, endpoint: Endpoint, seconds: float) -> Any:
        import anthropic

        return anthropic.AsyncAnthropic(api_key=endpoint.key, base_url=endpoint.url, max_retries=0, timeout=seconds)

    def post(self, client: Any, body: bytes) -> Any:
        import anthropic

        return client.post("/v1/messages", cast_to=anthropic.types.Message, content=body)

    def post_stream(self, client: Any, body: bytes) -> Any:
        import anthropic

        return api_stream(anthropic, client, "/v1/messages", anthropic.types.RawMessageStreamEvent, body)

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
        )


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


def _split_system(messages: tuple[Message, ...], notes: list[str]) -> tuple[str, list[dict[str, Any]]]:
    """The leading system and developer text as ``system``; the rest as Anthropic turns."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if message.role in ("system", "developer") and not turns:
            if message.role == "developer":
                notes.append(f"messages[{index}]: developer text is sent as part of the system prompt")
            system.append(_plain_text(message, index, notes))
            continue
        if message.role == "tool" and message.tool_call_id is None:
            notes.append(
                f"messages[{index}]: a tool turn that answers no call has no tool_result form; sent as user text"
            )
            turns.append({"role": "user", "content": _plain_text(message, index, notes)})
            continue
        if message.role == "tool":
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": _plain_text(message, index, notes),
            }
            if message.is_error:
                block["is_error"] = True
            if turns and turns[-1]["role"] == "user" and _is_tool_results(turns[-1]):
                turns[-1]["content"].append(block)
            else:
                turns.append({"role": "user", "content": [block]})
            continue
        role = message.role if message.role in ("user", "assistant") else "user"
        if role != message.role:
            notes.append(f"messages[{index}]: role {message.role!r} has no Anthropic turn; sent as a user turn")
        content: Any = message.content if isinstance(message.content, str) else _blocks(message.content, index, notes)
        if message.tool_calls:
            blocks: list[dict[str, Any]] = (
                [{"type": "text", "text": content}] if isinstance(content, str) and content else []
            )
            if isinstance(content, list):
                blocks = content
            blocks += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in message.tool_calls
            ]
            content = blocks
        turns.append({"role": role, "content": content})
    return "\n\n".join(system), turns


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


def _blocks(parts: list[dict[str, Any]], index: int, notes: list[str]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for position, part in enumerate(parts):
        kind = part.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": part["text"]})
        elif kind == "image_url":
            url = part["image_url"]["url"]
            blocks.append({"type": "image", "source": _source(url)})
        elif kind == "file" and str(part["file"].get("file_data", "")).startswith("data:"):
            blocks.append({"type": "document", "source": _source(part["file"]["file_data"])})
        else:
            notes.append(part_left_out(index, position, "Anthropic", kind))
    return blocks


def _source(url: str) -> dict[str, Any]:
    inline = split_data_url(url)
    if inline is None:
        return {"type": "url", "url": url}
    return {"type": "base64", "media_type": inline[0], "data": inline[1]}


adapter = AnthropicAdapter()
