"""The anthropic adapter: the request built from a render, and the real SDK client over real HTTP."""

from __future__ import annotations

import pytest

from promptwire import PluginHost, Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.calls.generate import generate
from promptwire.core.errors import AuthenticationError
from promptwire.renderers.agentscript import renderer, shape_contract
from promptwire.testing.provider_servers import fake_provider

HOST = PluginHost(entry_points=False)


def _prompt(**config: object) -> Prompt:
    return Prompt(
        identity={"role": "Checker", "description": "Check."},
        instruction="Check.",
        output=shape_contract({"ok": "boolean"}),
        config=config,
    )


def test_the_request_follows_the_messages_api_and_notes_what_it_drops() -> None:
    prompt = _prompt(temperature=0.7, think="high")
    request = AnthropicAdapter().build_request(
        renderer.render(prompt), prompt.config, prompt.output, "anthropic://claude-sonnet-4-6"
    )
    assert list(request.kwargs) == ["model", "max_tokens", "system", "messages", "thinking", "output_config"]
    assert request.kwargs["model"] == "claude-sonnet-4-6"
    assert request.kwargs["max_tokens"] == 1024
    assert request.kwargs["system"] == "You are Checker.\nCheck."
    assert request.kwargs["messages"][0]["role"] == "user"
    assert request.kwargs["thinking"] == {"type": "adaptive"}
    assert request.kwargs["output_config"] == {
        "effort": "high",
        "format": {"type": "json_schema", "schema": prompt.output.json_schema},  # type: ignore[union-attr]
    }
    assert "temperature" not in request.kwargs
    assert [note.split(":")[0] for note in request.notes] == ["max_tokens 1024", "temperature 0.7 dropped"]


@pytest.mark.parametrize(
    ("model", "think", "max_output", "thinking", "max_tokens", "note"),
    [
        ("claude-sonnet-4-5", "high", 32000, {"type": "enabled", "budget_tokens": 16384}, 32000, None),
        ("claude-3-7-sonnet-20250219", True, 8000, {"type": "enabled", "budget_tokens": 4096}, 8000, None),
        ("claude-opus-4-1-20250805", "low", None, {"type": "enabled", "budget_tokens": 1024}, 2048, "max_tokens 2048"),
        ("claude-haiku-4-5", "high", 5000, {"type": "enabled", "budget_tokens": 4999}, 5000, "thinking budget 16384"),
        ("claude-sonnet-4-20250514", "medium", 1000, None, 1000, "think 'medium' dropped"),
        ("claude-sonnet-4-5", "auto", 4000, None, 4000, "think 'auto'"),
        ("claude-opus-4-6", True, 4000, {"type": "adaptive"}, 4000, None),
        ("claude-opus-5", "auto", 4000, {"type": "adaptive"}, 4000, None),
    ],
)
def test_models_up_to_4_5_think_within_a_budget_below_max_tokens(
    model: str, think: object, max_output: int | None, thinking: object, max_tokens: int, note: str | None
) -> None:
    prompt = _prompt(think=think, max_output=max_output)
    request = AnthropicAdapter().build_request(renderer.render(prompt), prompt.config, prompt.output, model)
    assert request.kwargs.get("thinking") == thinking
    assert request.kwargs["max_tokens"] == max_tokens
    assert "effort" not in request.kwargs["output_config"] or thinking == {"type": "adaptive"}
    assert len(request.notes) == (1 if note else 0)
    assert note is None or request.notes[0].startswith(note)


def test_tool_calls_and_results_become_blocks_and_images_sources() -> None:
    prompt = Prompt(
        instruction="Weather?",
        attachments=[
            {"type": "image", "data": "QUJD", "media_type": "image/png"},
            {"type": "image", "url": "https://x/a.png"},
        ],
        tools=[{"name": "weather", "parameters": {"type": "object"}}],
        tool_calls=[{"name": "weather", "id": "t1", "arguments": {"city": "Oslo"}}, {"name": "weather", "id": "t2"}],
        tool_results=[{"call_id": "t1", "content": "3 C"}, {"call_id": "t2", "content": "down", "is_error": True}],
    )
    request = AnthropicAdapter().build_request(HOST.renderer("messages").render(prompt), prompt.config, None, "claude")
    user, assistant, results = request.kwargs["messages"]
    assert user["content"][1:] == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "QUJD"}},
        {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}},
    ]
    assert assistant == {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Oslo"}},
            {"type": "tool_use", "id": "t2", "name": "weather", "input": {}},
        ],
    }
    assert results == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "3 C"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "down", "is_error": True},
        ],
    }
    assert request.kwargs["tools"] == [{"name": "weather", "description": "", "input_schema": {"type": "object"}}]


def test_a_generate_over_real_http_reads_text_thinking_and_usage() -> None:
    with fake_provider() as server:
        adapter = AnthropicAdapter(api_key="test-key", base_url=server.root)
        result = generate(_prompt(max_output=200), render=renderer.render, adapter=adapter, model="ok")
        assert result.value == {"ok": True}
        (sent,) = server.requests
        assert sent["max_tokens"] == 200 and sent["system"] == "You are Checker.\nCheck."
        assert "temperature" not in sent
        assert server.headers[0]["authorization"] == "Bearer test-key"
    reply = result.calls[0].reply
    assert reply is not None
    assert (reply.reasoning, reply.finish_reason, reply.usage and reply.usage.output) == ("Easy.", "end_turn", 3)


def test_a_missing_key_is_the_references_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(AuthenticationError, match="ANTHROPIC_API_KEY is required for anthropic:// models"):
        generate(_prompt(), render=renderer.render, adapter=AnthropicAdapter(), model="anthropic://claude")
