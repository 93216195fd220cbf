"""The ollama adapter: the reference's request bytes, and the real SDK client over real HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptwire import PluginHost, Prompt
from promptwire.adapters.ollama import OllamaAdapter, model_and_host
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.calls.generate import generate
from promptwire.core.call import Usage
from promptwire.core.errors import AuthenticationError
from promptwire.renderers.agentscript import renderer, shape_contract
from promptwire.runs.run import run
from promptwire.testing.provider_servers import fake_provider

HOST = PluginHost(entry_points=False)
USE_CONTEXT = Path(__file__).parents[1] / "data" / "as" / "runs" / "use_context.as"
INPUT = {"question": "What is AgentScript?", "docs": {"summary": "AgentScript makes prompt context explicit."}}

# The reference's request bodies for its use-context example (JSON.stringify, compact).
OLLAMA_BODY = '{"model":"qwen3.6","stream":false,"think":false,"messages":[{"role":"system","content":"You are Answerer.\\nAnswer using only explicitly selected context."},{"role":"user","content":"Context:\\n[user question]\\nsource: input.question\\nWhat is AgentScript?\\n[evidence]\\nsource: input.docs.summary\\nAgentScript makes prompt context explicit.\\nInstruction:\\nAnswer from the selected evidence\\nReturn JSON matching this schema:\\n{\\n  \\"type\\": \\"object\\",\\n  \\"properties\\": {\\n    \\"answer\\": {\\n      \\"type\\": \\"string\\"\\n    },\\n    \\"citations\\": {\\n      \\"type\\": \\"array\\",\\n      \\"items\\": {\\n        \\"type\\": \\"string\\"\\n      }\\n    }\\n  },\\n  \\"required\\": [\\n    \\"answer\\",\\n    \\"citations\\"\\n  ],\\n  \\"additionalProperties\\": false\\n}"}],"format":{"type":"object","properties":{"answer":{"type":"string"},"citations":{"type":"array","items":{"type":"string"}}},"required":["answer","citations"],"additionalProperties":false},"options":{"num_predict":500}}'
OPENAI_BODY = '{"model":"qwen3.6","messages":[{"role":"system","content":"You are Answerer.\\nAnswer using only explicitly selected context."},{"role":"user","content":"Context:\\n[user question]\\nsource: input.question\\nWhat is AgentScript?\\n[evidence]\\nsource: input.docs.summary\\nAgentScript makes prompt context explicit.\\nInstruction:\\nAnswer from the selected evidence\\nReturn JSON matching this schema:\\n{\\n  \\"type\\": \\"object\\",\\n  \\"properties\\": {\\n    \\"answer\\": {\\n      \\"type\\": \\"string\\"\\n    },\\n    \\"citations\\": {\\n      \\"type\\": \\"array\\",\\n      \\"items\\": {\\n        \\"type\\": \\"string\\"\\n      }\\n    }\\n  },\\n  \\"required\\": [\\n    \\"answer\\",\\n    \\"citations\\"\\n  ],\\n  \\"additionalProperties\\": false\\n}"}],"response_format":{"type":"json_schema","json_schema":{"name":"agentscript_generate","strict":false,"schema":{"type":"object","properties":{"answer":{"type":"string"},"citations":{"type":"array","items":{"type":"string"}}},"required":["answer","citations"],"additionalProperties":false}}},"max_completion_tokens":500}'


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_the_use_context_bodies_are_the_references_byte_for_byte() -> None:
    (call,) = run(USE_CONTEXT, INPUT, host=HOST).calls
    prompt, rendered = call.prompt, call.rendered
    ollama = OllamaAdapter().build_request(rendered, prompt.config, prompt.output, "ollama://localhost:11434/qwen3.6")
    assert _compact(ollama.kwargs) == OLLAMA_BODY
    assert ollama.endpoint == "http://localhost:11434"
    openai = OpenAIAdapter().build_request(rendered, prompt.config, prompt.output, "qwen3.6")
    assert _compact(openai.kwargs) == OPENAI_BODY


@pytest.mark.parametrize(
    ("uri", "model", "host"),
    [
        ("ollama://localhost:11434/qwen3.6", "qwen3.6", "http://localhost:11434"),
        ("ollama://gpu:8080/org/Model%20X", "org/Model X", "http://gpu:8080"),
        ("ollama://llama3", "llama3", "http://localhost:11434"),
        ("llama3", "llama3", "http://localhost:11434"),
    ],
)
def test_the_model_uri_names_the_model_and_the_host(uri: str, model: str, host: str) -> None:
    assert model_and_host(uri) == (model, host)  # the suite's conftest clears OLLAMA_BASE_URL and OLLAMA_HOST


def test_images_travel_as_bare_base64_and_other_parts_are_noted() -> None:
    prompt = Prompt(
        instruction="Look.",
        attachments=[
            {"type": "image", "data": "QUJD", "media_type": "image/png"},
            {"type": "image", "url": "https://x/a.png"},
        ],
    )
    rendered = HOST.renderer("messages").render(prompt)
    request = OllamaAdapter().build_request(rendered, prompt.config, None, "llava")
    (user,) = request.kwargs["messages"]
    assert user == {"role": "user", "content": "Instruction:\nLook.", "images": ["QUJD"]}
    assert request.notes == ("messages[0].content[2]: Ollama cannot carry this image_url part; left out",)


def _shaped() -> Prompt:
    return Prompt(
        instruction="Check.", output=shape_contract({"ok": "boolean"}), config={"think": True, "max_output": 50}
    )


def test_a_generate_over_real_http_reads_content_thinking_and_usage() -> None:
    with fake_provider() as server:
        model = f"ollama://{server.root.removeprefix('http://')}/qwen3.6"
        result = generate(_shaped(), render=renderer.render, adapter=OllamaAdapter(), model=model)
        assert result.value == {"ok": True}
        (sent,) = server.requests
        assert sent["think"] is True and sent["options"] == {"num_predict": 50} and sent["stream"] is False
        assert sent["messages"] == result.calls[0].request.kwargs["messages"]
    reply = result.calls[0].reply
    assert reply is not None
    assert (reply.reasoning, reply.finish_reason, reply.usage) == (
        "Easy.",
        "stop",
        Usage(12, 3, {"input_tokens": 12, "output_tokens": 3}),
    )


def test_the_host_comes_from_ollama_base_url_then_the_sdks_ollama_host(monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_provider() as server:
        monkeypatch.setenv("OLLAMA_HOST", server.root.removeprefix("http://"))  # the SDK's form: host:port
        assert generate(_shaped(), render=renderer.render, adapter=OllamaAdapter(), model="ok").value == {"ok": True}
        assert len(server.requests) == 1
        monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # AgentScript's variable comes first
        monkeypatch.setenv("OLLAMA_BASE_URL", server.root)
        assert generate(_shaped(), render=renderer.render, adapter=OllamaAdapter(), model="ok").value == {"ok": True}
        assert len(server.requests) == 2


def test_the_ollama_api_key_the_sdk_sends_is_masked_in_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_API_KEY", "ollama-secret-key")
    with fake_provider() as server:
        with pytest.raises(AuthenticationError) as caught:
            generate(_shaped(), render=renderer.render, adapter=OllamaAdapter(host=server.root), model="e401echo")
        assert server.headers[0]["authorization"] == "Bearer ollama-secret-key"
    assert str(caught.value) == "LLM provider request failed (401): failure e401echo: incorrect API key provided: ***"


def test_a_tool_without_parameters_is_shown_as_the_sdk_sends_it() -> None:
    # The SDK reads each tool into its own model, whose parameters default to {"type": "object"}:
    # a request showing {} would not be the bytes on the wire.
    prompt = Prompt(instruction="Check.", tools=[{"name": "ping"}])
    rendered = HOST.renderer("messages").render(prompt)
    with fake_provider() as server:
        adapter = OllamaAdapter(host=server.root)
        request = adapter.build_request(rendered, prompt.config, None, "ok")
        adapter.send(request, 5)
    assert server.requests[0]["tools"] == request.kwargs["tools"]
    assert request.kwargs["tools"][0]["function"]["parameters"] == {"type": "object"}
