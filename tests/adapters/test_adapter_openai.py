"""The openai adapter: the exact request (AgentScript's reference bodies, byte for byte), and the
real SDK client over real HTTP against a local fake provider, errors included."""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest
from test_generate import TC09_REPLIES, _tc09

from promptwire import PluginHost, Prompt
from promptwire.adapters.offline import OfflineAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.calls.generate import generate
from promptwire.core.errors import AuthenticationError, BadRequestError
from promptwire.renderers.agentscript import renderer, shape_contract
from promptwire.testing.provider_servers import fake_provider

HOST = PluginHost(entry_points=False)

# The reference's OpenAI body for attempt 3 of its retry example (tc09), as JSON.stringify prints it.
TC09_ATTEMPT_3_BODY = (
    '{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are Classifier.\\nClassify."},'
    '{"role":"user","content":"Context:\\n[text]\\nsource: input.text\\nBuy now!!!\\nInstruction:\\nClassify the '
    'text.\\n\\nPrevious generation failed.\\n\\nPrevious output:\\n{\\n  \\"label\\": \\"spam\\",\\n  '
    '\\"confidence\\": \\"high\\"\\n}\\n\\nError:\\nLLM result field must be a number at 12:13\\n\\nReturn '
    'corrected JSON matching the requested schema only.\\nReturn JSON matching this schema:\\n{\\n  \\"type\\": '
    '\\"object\\",\\n  \\"properties\\": {\\n    \\"label\\": {\\n      \\"type\\": \\"string\\"\\n    },\\n    '
    '\\"confidence\\": {\\n      \\"type\\": \\"number\\"\\n    }\\n  },\\n  \\"required\\": [\\n    \\"label\\",\\n'
    '    \\"confidence\\"\\n  ],\\n  \\"additionalProperties\\": false\\n}"}],"response_format":{"type":'
    '"json_schema","json_schema":{"name":"agentscript_generate","strict":false,"schema":{"type":"object",'
    '"properties":{"label":{"type":"string"},"confidence":{"type":"number"}},"required":["label","confidence"],'
    '"additionalProperties":false}}}}'
)


def _compact(kwargs: Any) -> str:
    return json.dumps(kwargs, ensure_ascii=False, separators=(",", ":"))


def test_the_tc09_retry_body_is_the_references_byte_for_byte() -> None:
    calls = generate(
        _tc09(),
        render=renderer.render,
        adapter=OfflineAdapter(TC09_REPLIES),
        locations={"label": "11:13", "confidence": "12:13"},
    ).calls
    request = OpenAIAdapter().build_request(
        calls[2].rendered, calls[2].prompt.config, calls[2].prompt.output, "openai://gpt-4o-mini"
    )
    assert _compact(request.kwargs) == TC09_ATTEMPT_3_BODY
    assert request.notes == ()


def test_generate_options_map_to_chat_completion_parameters_in_the_reference_order() -> None:
    prompt = Prompt(
        instruction="Plan.",
        output=shape_contract({"steps": "list[string]"}),
        config={"max_output": "2k", "temperature": 0.7, "think": True, "strict": True},
    )
    request = OpenAIAdapter().build_request(renderer.render(prompt), prompt.config, prompt.output, "openai://gpt-4.1")
    assert list(request.kwargs) == [
        "model",
        "messages",
        "response_format",
        "temperature",
        "reasoning_effort",
        "max_completion_tokens",
    ]
    assert request.kwargs["reasoning_effort"] == "medium"
    assert request.kwargs["max_completion_tokens"] == 2000
    assert request.kwargs["response_format"]["json_schema"]["strict"] is True


def test_what_openai_cannot_carry_is_in_the_notes() -> None:
    prompt = Prompt(
        instruction="x",
        tools=[{"name": "t", "parameters": {"type": "object"}, "returns": {"type": "string"}}],
        tool_calls=[{"name": "t", "id": "c1", "arguments": {"a": 1}}],
        tool_results=[{"call_id": "c1", "content": "boom", "is_error": True}],
        config={"think": "auto"},
    )
    rendered = HOST.renderer("messages").render(prompt)
    request = OpenAIAdapter().build_request(rendered, prompt.config, None, "gpt-4o")
    assert request.kwargs["messages"][1]["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "t", "arguments": '{"a": 1}'}}
    ]
    assert request.kwargs["messages"][2] == {"role": "tool", "content": "boom", "tool_call_id": "c1"}
    assert request.kwargs["tools"] == [
        {"type": "function", "function": {"name": "t", "parameters": {"type": "object"}}}
    ]
    assert len(request.notes) == 3
    assert "reasoning_effort" not in request.kwargs


@pytest.mark.parametrize("uri", ["", "anthropic://claude", "openai://"])
def test_a_model_uri_without_an_openai_model_is_refused(uri: str) -> None:
    with pytest.raises(BadRequestError, match="must include a model name"):
        OpenAIAdapter().model_name(uri)
    assert OpenAIAdapter().model_name("openai://org/Model%20X?x=1") == "org/Model X"


def _shaped(model_attempts: int = 1) -> Prompt:
    return Prompt(instruction="Check.", output=shape_contract({"ok": "boolean"}), config={"attempts": model_attempts})


def test_a_generate_over_real_http_sends_the_built_request_and_reads_the_reply() -> None:
    with fake_provider() as server:
        adapter = OpenAIAdapter(api_key="sk-test", base_url=server.base_url)
        result = generate(_shaped(), render=renderer.render, adapter=adapter, model="openai://ok")
        assert result.value == {"ok": True}
        (sent,) = server.requests
        assert sent == json.loads(_compact(result.calls[0].request.kwargs))
        assert server.headers[0]["authorization"] == "Bearer sk-test"
        reply = result.calls[0].reply
        assert reply is not None
        assert (reply.finish_reason, reply.usage and reply.usage.as_data()["total_tokens"]) == ("stop", 15)


def test_tool_calls_in_a_reply_come_back_as_core_tool_calls() -> None:
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        call = {"id": "call_9", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Oslo"}'}}
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        return {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "ok",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        }

    with fake_provider() as server:
        server.reply = reply
        adapter = OpenAIAdapter(api_key="sk-test", base_url=server.base_url)
        prompt = Prompt(instruction="Weather?")
        request = adapter.build_request(renderer.render(prompt), prompt.config, None, "ok")
        parsed = adapter.parse_reply(adapter.send(request, 5))
    assert parsed.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in parsed.tool_calls] == [("call_9", "weather", {"city": "Oslo"})]


def test_the_clients_an_adapter_keeps_are_closed_when_it_goes() -> None:
    # Open SDK clients left for interpreter exit fail in their __del__ ("Exception ignored").
    with fake_provider() as server:
        adapter = OpenAIAdapter(api_key="sk-test", base_url=server.base_url)
        prompt = Prompt(instruction="x")
        adapter.send(adapter.build_request(renderer.render(prompt), prompt.config, None, "ok"), 5)
        (client,) = adapter._clients.values()
        assert not client.is_closed()
        del adapter
        gc.collect()
        assert client.is_closed()


def test_a_missing_key_is_the_references_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(AuthenticationError, match="OPENAI_API_KEY is required for openai:// models"):
        generate(_shaped(), render=renderer.render, adapter=OpenAIAdapter(), model="openai://gpt-4o")


def test_the_adapter_is_registered_and_its_sdk_is_imported_only_to_send() -> None:
    import subprocess
    import sys

    assert HOST.adapter("openai").description.startswith("OpenAI Chat Completions")
    code = (
        "import sys; from promptwire import PluginHost, Prompt; h = PluginHost(entry_points=False); "
        "a = h.adapter('openai'); p = Prompt(instruction='x'); "
        "a.build_request(h.renderer('agentscript').render(p), p.config, None, 'gpt-4o'); "
        "print('openai' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "False"
