"""``openai``: Chat Completions through the official ``openai`` SDK (an optional extra).

``build_request`` is pure: the keyword arguments of ``client.chat.completions.create`` in the order
AgentScript's reference sends its body (``model``, ``messages``, ``response_format``, ``temperature``,
``reasoning_effort``, ``max_completion_tokens``, ``tools``, then the prompt's ``prompt_cache_key`` and
``prompt_cache_retention``), plus notes on everything changed on the way. A conversation's turns are
written by :mod:`.openai_turns` (tool calls and tool messages, the order rules OpenAI enforces, what
Chat Completions cannot take back), which also reads a reply into the next turn (``Reply.turn``). The SDK is imported only to send (``client``, ``post``, ``failure``); its client is built
with ``max_retries=0`` so that one attempt of ``generate`` is one request. The body goes out as the
skeleton writes it (compact, these keys in this order) and is posted through the SDK's client, which
adds the headers, sends, maps the errors and reads the reply.

Streamed, the request adds ``"stream": true`` and ``"stream_options": {"include_usage": true}``
(Chat Completions sends the usage only when asked, in a last chunk without choices); the chunks
are folded into the ``ChatCompletion`` the reply would have been, which :meth:`reply` reads.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, ClassVar

from ..core.call import ProviderRequest, Reply, cut_short
from ..core.contract import OutputContract
from ..core.errors import ProviderError
from ..core.prompt import GenerateConfig, ToolCall, ToolDefinition
from ..core.rendered import RenderedPrompt
from .base import Endpoint, StreamingAdapter, StreamReader, api_stream, returns_left_out, tool_arguments, usage_of
from .openai_turns import ChatMessages, cache_breakpoints_note, reply_turn
from .reply_size import bounded_hooks
from .status import missing_part, refused, unchecked_reply

__all__ = ["OpenAIAdapter", "adapter"]

SCHEMA_NAME = "agentscript_generate"
_NO_BREAKPOINTS = (
    "Chat Completions caches a request's prefix by itself and takes no breakpoints "
    "(prompt_cache_key and prompt_cache_retention steer it)"
)
EFFORTS = {True: "medium", "low": "low", "medium": "medium", "high": "high"}
"""The OpenAI reasoning effort of each ``think`` value that has one."""


class OpenAIAdapter(StreamingAdapter):
    name = "openai"
    description = "OpenAI Chat Completions through the official SDK (pip install 'promptwire[openai]')"
    sdk = "openai"
    extra = "openai"
    protocol = "openai"
    path = "chat/completions"
    default_url = "https://api.openai.com/v1"
    url_variable = "OPENAI_BASE_URL"
    key_variable = "OPENAI_API_KEY"
    stream_flags: ClassVar[Mapping[str, Any]] = {"stream": True, "stream_options": {"include_usage": True}}
    reply_type: ClassVar[str] = "openai.types.chat:ChatCompletion"
    event_type: ClassVar[str] = "openai.types.chat:ChatCompletionChunk"
    """The SDK's classes of a reply from :attr:`path` and of one event of its stream, as
    ``module:name`` (imported when a request is sent; ``openai-responses`` names its own)."""
    no_count_hint: ClassVar[str] = (
        "OpenAI's Chat Completions API has none; the Responses API counts a request's input: "
        "--provider openai-responses"
    )

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        writer = ChatMessages()
        messages = writer.write_all(rendered.messages)
        notes = writer.notes
        kwargs: dict[str, Any] = {"model": self.model_name(model), "messages": messages}
        if contract is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": contract.name or SCHEMA_NAME,
                    "strict": config.strict,
                    "schema": contract.json_schema,
                },
            }
        if config.temperature is not None:
            kwargs["temperature"] = config.temperature
        effort = self.effort(config)
        if effort is not None:
            kwargs["reasoning_effort"] = effort
        elif config.think == "auto":
            notes.append("think 'auto' has no Chat Completions setting: reasoning_effort is left to the model")
        if config.max_output is not None:
            kwargs["max_completion_tokens"] = config.max_output.output_tokens
        if rendered.tools:
            kwargs["tools"] = [self._tool(tool) for tool in rendered.tools]
            notes.extend(returns_left_out(rendered.tools, "OpenAI"))
        notes.extend(writer.ids.notes())
        cache = rendered.cache
        if cache is not None and cache.tools is not None:
            writer.breakpoints.append("cache.tools")
        notes.extend(cache_breakpoints_note(writer.breakpoints, _NO_BREAKPOINTS))
        if cache is not None and cache.key is not None:
            kwargs["prompt_cache_key"] = cache.key
        if cache is not None and cache.retention is not None:
            kwargs["prompt_cache_retention"] = cache.retention
        return ProviderRequest(kwargs, tuple(notes))

    @staticmethod
    def effort(config: GenerateConfig) -> str | None:
        """The reasoning effort ``think`` asks for; none for ``false`` and ``"auto"``."""
        return EFFORTS.get(config.think) if config.think is not False else None

    def client(self, endpoint: Endpoint, seconds: float) -> Any:
        import openai

        http = openai.DefaultHttpxClient(event_hooks=bounded_hooks())  # the SDK's defaults, replies bounded
        return openai.OpenAI(
            api_key=endpoint.key, base_url=endpoint.url, max_retries=0, timeout=seconds, http_client=http
        )

    def async_client(self, endpoint: Endpoint, seconds: float) -> Any:
        import openai

        http = openai.DefaultAsyncHttpxClient(event_hooks=bounded_hooks(asynchronous=True))
        return openai.AsyncOpenAI(
            api_key=endpoint.key, base_url=endpoint.url, max_retries=0, timeout=seconds, http_client=http
        )

    def post(self, client: Any, body: bytes) -> Any:
        return client.post("/" + self.path, cast_to=_sdk_type(self.reply_type), content=body)

    def post_stream(self, client: Any, body: bytes) -> Any:
        import openai

        return api_stream(openai, client, "/" + self.path, _sdk_type(self.event_type), body)

    def stream_reader(self) -> StreamReader:
        return ChunkReader()

    def replayed_reply(self, data: Any) -> Any:
        """A recorded reply (:mod:`promptwire.calls.recording`) as the SDK's object again, built
        as the SDK builds the one it receives (without validating it)."""
        return unchecked_reply(_sdk_type(self.reply_type), data)

    def failure(self, exc: Exception, endpoint: Endpoint, seconds: float) -> ProviderError | None:
        import openai

        return self.api_failure(openai, exc, endpoint, seconds, "code") or super().failure(exc, endpoint, seconds)

    def reply(self, raw: Any) -> Reply:
        choices = getattr(raw, "choices", None)
        choice: Any = choices[0] if choices else None
        message = getattr(choice, "message", None)
        if message is None:
            raise missing_part("LLM provider response is missing 'choices.0.message'", raw)
        if message.refusal:
            raise refused(message.refusal)
        calls = tuple(
            ToolCall(name=call.function.name, id=call.id, arguments=tool_arguments(call.function.arguments))
            for call in (message.tool_calls or ())
        )
        reasoning = (message.model_extra or {}).get("reasoning_content")
        return Reply(
            text=_text(message.content),
            raw=raw,
            reasoning=reasoning if isinstance(reasoning, str) else None,
            usage=usage_of(raw),
            finish_reason=choice.finish_reason,
            tool_calls=calls,
            turn=reply_turn(message),
        )

    def _tool(self, tool: ToolDefinition) -> dict[str, Any]:
        function: dict[str, Any] = {"name": tool.name}
        if tool.description:
            function["description"] = tool.description
        function["parameters"] = self.parameters(tool)
        return {"type": "function", "function": function}


def _sdk_type(where: str) -> Any:
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


class ChunkReader:
    """Chat Completions chunks folded into the ``ChatCompletion`` the reply would have been sent
    whole as: its text, refusal, reasoning (compatible servers' ``reasoning_content``) and tool
    calls joined from their pieces, the finish reason, and the usage of the last chunk. A stream
    without a finish reason was cut short."""

    def __init__(self) -> None:
        self.head: Any = None
        self.texts: list[str] = []
        self.refusals: list[str] = []
        self.reasoning: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish: str | None = None
        self.usage: Any = None

    def feed(self, chunk: Any) -> str | None:
        if self.head is None:
            self.head = chunk
        if chunk.usage is not None:
            self.usage = chunk.usage
        if not chunk.choices:
            return None
        choice = chunk.choices[0]
        if choice.finish_reason is not None:
            self.finish = choice.finish_reason
        delta = choice.delta
        if delta.refusal:
            self.refusals.append(_text_piece(delta.refusal))
        if delta.tool_calls:
            self._call_pieces(delta.tool_calls)
        if delta.model_extra and delta.model_extra.get("reasoning_content"):
            self.reasoning.append(_text_piece(delta.model_extra["reasoning_content"]))
        text = delta.content
        if not text:
            return None
        self.texts.append(_text_piece(text))
        return text  # type: ignore[no-any-return]

    def _call_pieces(self, pieces: Any) -> None:
        for piece in pieces:
            call = self.calls.setdefault(piece.index, {"id": None, "type": "function", "function": {"arguments": ""}})
            if piece.id:
                call["id"] = piece.id
            function = call["function"]
            for name in ("name", "arguments"):
                part = getattr(piece.function, name, None) if piece.function is not None else None
                if part:
                    function[name] = function.get(name, "") + _text_piece(part)

    def whole(self) -> Any:
        from openai.types.chat import ChatCompletion

        if self.finish is None:
            raise cut_short()
        texts = "".join(self.texts)
        message: dict[str, Any] = {
            "role": "assistant",
            "content": texts if texts or not (self.refusals or self.calls) else None,
            "refusal": "".join(self.refusals) or None,
        }
        if self.calls:
            message["tool_calls"] = [self.calls[index] for index in sorted(self.calls)]
        if self.reasoning:
            message["reasoning_content"] = "".join(self.reasoning)
        head = self.head
        whole = {"id": head.id, "object": "chat.completion", "created": head.created, "model": head.model}
        whole["choices"] = [{"index": 0, "message": message, "finish_reason": self.finish}]
        if hasattr(self.usage, "model_dump"):
            whole["usage"] = self.usage.model_dump(exclude_unset=True, warnings=False)
        elif self.usage is not None:  # not an object ("usage": "x"): as sent, for the reader to refuse
            whole["usage"] = self.usage
        return ChatCompletion.construct(**whole)


def _text_piece(piece: object) -> str:
    """A piece of streamed text; anything else is a malformed stream (quoted by the skeleton)."""
    if not isinstance(piece, str):
        raise TypeError(f"a piece of streamed text is {type(piece).__name__}, not text")
    return piece


def _text(content: object) -> str | None:
    if content is None or isinstance(content, str):
        return content
    raise TypeError(f"the message content is {type(content).__name__}, not text")


adapter = OpenAIAdapter()
