"""``anthropic``: the Messages API through the official ``anthropic`` SDK (an optional extra).

``build_request`` gives the keyword arguments of ``client.messages.create``: ``model``,
``max_tokens`` (required: 1024 when the generate sets none), ``system``, ``messages`` (tool calls as
``tool_use`` blocks, their results as ``tool_result`` blocks in the next user turn), ``thinking``,
``output_config`` (the schema as structured output, and the effort of a thinking level) and
``tools``. The current SDK and API refuse ``temperature``: it is dropped and the notes say so, as
they say everything else changed on the way. The SDK is imported only in ``send``; the body is
written by :func:`promptwire.core.json_text.to_bytes` (half a character as its ``\\udXXX`` escape,
which the SDK's own JSON encoder fails on) and posted through the SDK's client, which adds the
headers, sends, maps the errors and reads the reply.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from ..core.contract import OutputContract
from ..core.errors import AuthenticationError, ProviderTimeoutError
from ..core.generate import ProviderRequest, Reply
from ..core.json_text import to_bytes
from ..core.prompt import GenerateConfig, ToolCall
from ..core.rendered import Message, RenderedPrompt
from ..core.timeout import DEFAULT_TIMEOUT
from .clients import kept_clients
from .model_uri import model_name
from .status import connection_failed, malformed_json, missing_part, read_reply, refused, sdk_status_error

__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicAdapter", "adapter"]

DEFAULT_BASE_URL = "https://api.anthropic.com"
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


class AnthropicAdapter:
    name = "anthropic"
    description = "Anthropic Messages API through the official SDK (pip install 'promptwire[anthropic]')"

    def __init__(self, *, api_key: str | None = None, base_url: str | None = None) -> None:
        self.api_key = api_key
        self.base_url = base_url
        self._clients: dict[tuple[str, str, float], Any] = kept_clients(self)  # one client (and connection pool) each

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        notes: list[str] = []
        max_tokens = config.max_output.output_tokens if config.max_output is not None else DEFAULT_MAX_TOKENS
        if config.max_output is None:
            notes.append(f"max_tokens {DEFAULT_MAX_TOKENS}: Anthropic requires a limit and the generate set none")
        kwargs: dict[str, Any] = {"model": model_name(model, "anthropic"), "max_tokens": max_tokens}
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
                {"name": t.name, "description": t.description, "input_schema": t.parameters or {"type": "object"}}
                for t in rendered.tools
            ]
            notes.extend(
                f"tool {t.name!r}: Anthropic tools have no place for what a tool returns; 'returns' left out"
                for t in rendered.tools
                if t.returns is not None
            )
        return ProviderRequest(kwargs, tuple(notes))

    def send(self, request: ProviderRequest, timeout: float | None) -> Any:
        import anthropic

        api_key = self.api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not api_key:
            raise AuthenticationError("ANTHROPIC_API_KEY is required for anthropic:// models")
        base_url = (self.base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        seconds = timeout or DEFAULT_TIMEOUT
        key = (api_key, base_url, seconds)
        client = self._clients.get(key)
        if client is None:  # building a client costs ~20 ms (TLS context, pool): once per setting
            client = self._clients[key] = anthropic.Anthropic(
                api_key=api_key, base_url=base_url, max_retries=0, timeout=seconds
            )
        try:
            return client.post("/v1/messages", cast_to=anthropic.types.Message, content=to_bytes(request.kwargs))
        except anthropic.APITimeoutError:  # before APIConnectionError, its base class
            raise ProviderTimeoutError(
                f"LLM provider request timed out after {seconds}s: {base_url}/v1/messages"
            ) from None
        except anthropic.APIConnectionError as exc:
            raise connection_failed(exc) from None
        except anthropic.APIStatusError as exc:
            raise sdk_status_error(exc, code=exc.error_code, secret=api_key) from None
        except json.JSONDecodeError as exc:
            raise malformed_json(exc, api_key) from None

    def parse_reply(self, raw: Any) -> Reply:
        return read_reply(self._reply, raw)

    def _reply(self, raw: Any) -> Reply:
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
        usage = raw.usage.model_dump(warnings=False) if getattr(raw, "usage", None) is not None else None
        return Reply(
            text="".join(texts),
            raw=raw,
            reasoning="".join(thinking) or None,
            usage=usage,
            finish_reason=raw.stop_reason,
            tool_calls=calls,
        )


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
            notes.append(f"messages[{index}].content[{position}]: Anthropic cannot carry this {kind} part; left out")
    return blocks


def _source(url: str) -> dict[str, Any]:
    if url.startswith("data:") and ";base64," in url:
        media_type, data = url[5:].split(";base64,", 1)
        return {"type": "base64", "media_type": media_type, "data": data}
    return {"type": "url", "url": url}


adapter = AnthropicAdapter()
