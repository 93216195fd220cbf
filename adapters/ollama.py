"""``ollama``: ``/api/chat`` through the official ``ollama`` SDK (an optional extra).

``build_request`` gives the keyword arguments of ``Client.chat`` in AgentScript's body order
(``model``, ``stream``, ``think``, ``messages``, ``format``, ``options`` with ``num_predict`` then
``temperature``, then ``tools``) and the host: the one the model URI names
(``ollama://HOST:PORT/MODEL``), else the adapter's, else ``OLLAMA_BASE_URL``, then ``OLLAMA_HOST``.
Ollama takes images as bare base64 on the message; what it cannot carry is in the notes. The SDK is
imported only in ``send``, with an explicit timeout (its default waits forever). The body is written
by :func:`promptwire.core.json_text.to_bytes` (these keys in this order, half a character as its
``\\udXXX`` escape, as the reference sends it; the SDK's HTTP client fails on half a character) and
sent by the SDK's client, which also maps the errors and reads the reply.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import unquote, urlsplit

from ..core.contract import OutputContract
from ..core.errors import (
    BadRequestError,
    MalformedResponseError,
    ProviderTimeoutError,
    body_excerpt,
)
from ..core.generate import ProviderRequest, Reply
from ..core.json_text import to_bytes
from ..core.prompt import GenerateConfig, ToolCall
from ..core.rendered import Message, RenderedPrompt
from ..core.timeout import DEFAULT_TIMEOUT
from .clients import kept_clients
from .status import connection_failed, malformed_json, status_error

__all__ = ["OllamaAdapter", "adapter", "model_and_host"]

DEFAULT_HOST = "http://localhost:11434"


def model_and_host(model: str | None, default_host: str | None = None) -> tuple[str, str]:
    """``ollama://HOST:PORT/MODEL`` -> (MODEL, ``http://HOST:PORT``); ``ollama://MODEL`` or a bare name
    uses ``default_host``, then ``OLLAMA_BASE_URL`` (AgentScript's), then ``OLLAMA_HOST`` (the SDK's,
    which also reads forms like ``0.0.0.0`` or ``host:port``), then ``http://localhost:11434``."""
    fallback = (
        default_host or os.environ.get("OLLAMA_BASE_URL") or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST
    ).rstrip("/")
    if not model:
        raise BadRequestError("ollama URI must include a model name")
    if "://" not in model:
        return model, fallback
    parts = urlsplit(model)
    if parts.scheme != "ollama":
        raise BadRequestError(f"{parts.scheme} URI must include a model name")
    path = unquote(parts.path).lstrip("/")
    if path:
        return path, f"http://{parts.netloc}"
    if not parts.hostname:
        raise BadRequestError("ollama URI must include a model name")
    return unquote(parts.netloc), fallback


class OllamaAdapter:
    name = "ollama"
    description = "Ollama /api/chat through the official SDK (pip install 'promptwire[ollama]')"

    def __init__(self, *, host: str | None = None) -> None:
        self.host = host
        self._clients: dict[tuple[str, float], Any] = kept_clients(self)  # one client (and connection pool) each

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        name, host = model_and_host(model, self.host)
        notes: list[str] = []
        kwargs: dict[str, Any] = {
            "model": name,
            "stream": False,
            "think": config.think,
            "messages": [_message(message, index, notes) for index, message in enumerate(rendered.messages)],
        }
        if contract is not None:
            kwargs["format"] = contract.json_schema
        options: dict[str, Any] = {}
        if config.max_output is not None:
            options["num_predict"] = config.max_output.output_tokens
        if config.temperature is not None:
            options["temperature"] = config.temperature
        if options:
            kwargs["options"] = options
        if rendered.tools:
            kwargs["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in rendered.tools
            ]
            notes.extend(
                f"tool {t.name!r}: Ollama tools have no place for what a tool returns; 'returns' left out"
                for t in rendered.tools
                if t.returns is not None
            )
        return ProviderRequest(kwargs, tuple(notes), endpoint=host)

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        import httpx
        import ollama
        import pydantic

        host = request.endpoint or self.host or DEFAULT_HOST
        seconds = timeout or DEFAULT_TIMEOUT
        key = (host, seconds)
        client = self._clients.get(key)
        if client is None:  # building a client costs ~20 ms (TLS context, pool): once per setting
            client = self._clients[key] = ollama.Client(host=host, timeout=seconds)
        try:
            # Client.chat would encode the body itself; its request helper takes the bytes as they are.
            return client._request(ollama.ChatResponse, "POST", "/api/chat", content=to_bytes(request.kwargs))
        except ollama.ResponseError as exc:  # the SDK sends OLLAMA_API_KEY (ollama.com) when it is set
            raise status_error(exc.status_code, str(exc.error), secret=os.environ.get("OLLAMA_API_KEY")) from None
        except httpx.TimeoutException:  # before TransportError, its base class
            raise ProviderTimeoutError(f"LLM provider request timed out after {seconds}s: {host}/api/chat") from None
        except (ConnectionError, httpx.TransportError) as exc:
            raise connection_failed(exc) from None
        except json.JSONDecodeError as exc:
            raise malformed_json(exc) from None
        except pydantic.ValidationError as exc:  # JSON, but not an Ollama chat reply
            excerpt = body_excerpt(str(exc))
            raise MalformedResponseError(
                f"LLM provider returned an unexpected response: {excerpt}", status=200, body=excerpt
            ) from None

    def parse_reply(self, raw: Any) -> Reply:
        message = raw.message
        calls = tuple(
            ToolCall(name=call.function.name, arguments=dict(call.function.arguments or {}))
            for call in (message.tool_calls or ())
        )
        usage = {"input_tokens": raw.prompt_eval_count, "output_tokens": raw.eval_count}
        return Reply(
            text=message.content,
            raw=raw,
            reasoning=message.thinking,
            usage=usage,
            finish_reason=raw.done_reason,
            tool_calls=calls,
        )


def _message(message: Message, index: int, notes: list[str]) -> dict[str, Any]:
    data: dict[str, Any] = {"role": message.role}
    if isinstance(message.content, str):
        data["content"] = message.content
    else:
        texts, images = [], []
        for position, part in enumerate(message.content):
            kind = part.get("type")
            url = (part.get("image_url") or {}).get("url", "") if kind == "image_url" else ""
            if kind == "text":
                texts.append(part["text"])
            elif kind == "image_url" and url.startswith("data:") and ";base64," in url:
                images.append(url.split(";base64,", 1)[1])
            else:
                notes.append(f"messages[{index}].content[{position}]: Ollama cannot carry this {kind} part; left out")
        data["content"] = "\n".join(texts)
        if images:
            data["images"] = images
    if message.tool_calls:
        data["tool_calls"] = [
            {"function": {"name": call.name, "arguments": call.arguments}} for call in message.tool_calls
        ]
    if message.role == "tool" and message.name is not None:
        data["tool_name"] = message.name
    if message.is_error:
        notes.append(f"messages[{index}]: Ollama tool messages cannot mark an error; the result text is sent as is")
    return data


adapter = OllamaAdapter()
