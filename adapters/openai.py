"""``openai``: Chat Completions through the official ``openai`` SDK (an optional extra).

``build_request`` is pure: the keyword arguments of ``client.chat.completions.create`` in the order
AgentScript's reference sends its body (``model``, ``messages``, ``response_format``, ``temperature``,
``reasoning_effort``, ``max_completion_tokens``, then ``tools``), plus notes on everything changed on
the way. The SDK is imported only in ``send``; its client is built with ``max_retries=0`` so that one
attempt of ``generate`` is one request. The body is written by :func:`promptwire.core.json_text.to_bytes`
(compact, these keys in this order, half a character as its ``\\udXXX`` escape, as the reference
sends it) and posted through the SDK's client, which adds the headers, sends, maps the errors and
reads the reply: the SDK's own JSON encoder fails on half a character.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from ..core.contract import OutputContract
from ..core.errors import AuthenticationError, ProviderTimeoutError
from ..core.generate import ProviderRequest, Reply
from ..core.json_text import to_bytes
from ..core.prompt import GenerateConfig, ToolCall, ToolDefinition
from ..core.rendered import Message, RenderedPrompt
from ..core.timeout import DEFAULT_TIMEOUT
from . import model_uri
from .clients import kept_clients
from .status import connection_failed, malformed_json, missing_part, read_reply, refused, sdk_status_error

__all__ = ["OpenAIAdapter", "adapter", "model_name"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
SCHEMA_NAME = "agentscript_generate"
_EFFORTS = {True: "medium", "low": "low", "medium": "medium", "high": "high"}


def model_name(model: str | None) -> str:
    """``openai://gpt-4.1-mini`` -> ``gpt-4.1-mini`` (a bare name is taken as it is)."""
    return model_uri.model_name(model, "openai")


class OpenAIAdapter:
    name = "openai"
    description = "OpenAI Chat Completions through the official SDK (pip install 'promptwire[openai]')"

    def __init__(self, *, api_key: str | None = None, base_url: str | None = None) -> None:
        self.api_key = api_key
        self.base_url = base_url
        self._clients: dict[tuple[str, str, float], Any] = kept_clients(self)  # one client (and connection pool) each

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        notes: list[str] = []
        kwargs: dict[str, Any] = {
            "model": model_name(model),
            "messages": [_message(message, index, notes) for index, message in enumerate(rendered.messages)],
        }
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
        effort = _EFFORTS.get(config.think) if config.think is not False else None
        if effort is not None:
            kwargs["reasoning_effort"] = effort
        elif config.think == "auto":
            notes.append("think 'auto' has no Chat Completions setting: reasoning_effort is left to the model")
        if config.max_output is not None:
            kwargs["max_completion_tokens"] = config.max_output.output_tokens
        if rendered.tools:
            kwargs["tools"] = [_tool(tool, notes) for tool in rendered.tools]
        return ProviderRequest(kwargs, tuple(notes))

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        import openai

        api_key = self.api_key or os.environ.get("OPENAI_API_KEY")
        if not api_key:
            raise AuthenticationError("OPENAI_API_KEY is required for openai:// models")
        base_url = (self.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        seconds = timeout or DEFAULT_TIMEOUT
        key = (api_key, base_url, seconds)
        client = self._clients.get(key)
        if client is None:  # building a client costs ~20 ms (TLS context, pool): once per setting
            client = self._clients[key] = openai.OpenAI(
                api_key=api_key, base_url=base_url, max_retries=0, timeout=seconds
            )
        try:
            return self._create(client, request.kwargs)
        except openai.APITimeoutError:  # before APIConnectionError, its base class
            raise ProviderTimeoutError(
                f"LLM provider request timed out after {seconds}s: {base_url}/{self.path}"
            ) from None
        except openai.APIConnectionError as exc:
            raise connection_failed(exc) from None
        except openai.APIStatusError as exc:
            raise sdk_status_error(exc, code=exc.code, secret=api_key) from None
        except json.JSONDecodeError as exc:
            raise malformed_json(exc, api_key) from None

    path = "chat/completions"

    def _create(self, client: Any, kwargs: Mapping[str, Any]) -> Any:
        from openai.types.chat import ChatCompletion

        return client.post("/chat/completions", cast_to=ChatCompletion, content=to_bytes(kwargs))

    def parse_reply(self, raw: Any) -> Reply:
        return read_reply(self._reply, raw)

    def _reply(self, raw: Any) -> Reply:
        choices = getattr(raw, "choices", None)
        choice: Any = choices[0] if choices else None
        message = getattr(choice, "message", None)
        if message is None:
            raise missing_part("LLM provider response is missing 'choices.0.message'", raw)
        if message.refusal:
            raise refused(message.refusal)
        calls = tuple(
            ToolCall(name=call.function.name, id=call.id, arguments=_arguments(call.function.arguments))
            for call in (message.tool_calls or ())
        )
        usage = raw.usage.model_dump(warnings=False) if getattr(raw, "usage", None) is not None else None
        reasoning = (message.model_extra or {}).get("reasoning_content")
        return Reply(
            text=_text(message.content),
            raw=raw,
            reasoning=reasoning if isinstance(reasoning, str) else None,
            usage=usage,
            finish_reason=choice.finish_reason,
            tool_calls=calls,
        )


def _message(message: Message, index: int, notes: list[str]) -> dict[str, Any]:
    role = message.role
    if role == "tool" and message.tool_call_id is None:
        notes.append(f"messages[{index}]: a tool turn that answers no call needs a tool_call_id; sent as a user turn")
        role = "user"
    data: dict[str, Any] = {"role": role, "content": message.content}
    if message.name is not None and role == "tool":
        notes.append(f"messages[{index}]: OpenAI tool messages have no name; the tool is known by its call id")
    elif message.name is not None:
        data["name"] = message.name
    if message.tool_calls:
        data["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
            }
            for call in message.tool_calls
        ]
    if message.tool_call_id is not None:
        data["tool_call_id"] = message.tool_call_id
    if message.is_error:
        notes.append(f"messages[{index}]: OpenAI tool messages cannot mark an error; the result text is sent as is")
    return data


def _tool(tool: ToolDefinition, notes: list[str]) -> dict[str, Any]:
    function: dict[str, Any] = {"name": tool.name}
    if tool.description:
        function["description"] = tool.description
    function["parameters"] = tool.parameters or {"type": "object", "properties": {}}
    if tool.returns is not None:
        notes.append(f"tool {tool.name!r}: OpenAI tools have no place for what a tool returns; 'returns' left out")
    return {"type": "function", "function": function}


def _text(content: object) -> str | None:
    if content is None or isinstance(content, str):
        return content
    raise TypeError(f"the message content is {type(content).__name__}, not text")


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {"_raw": text}
    return value if isinstance(value, dict) else {"_value": value}


adapter = OpenAIAdapter()
