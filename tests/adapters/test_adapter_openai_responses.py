"""The openai-responses adapter: the Responses form of a request, and the real SDK over real HTTP."""

from __future__ import annotations

from promptwire import PluginHost, Prompt
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.calls.generate import generate
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


def test_the_request_takes_the_responses_form() -> None:
    prompt = _prompt(think="low", max_output="1k", strict=True)
    request = OpenAIResponsesAdapter().build_request(renderer.render(prompt), prompt.config, prompt.output, "gpt-5")
    assert list(request.kwargs) == ["model", "instructions", "input", "text", "reasoning", "max_output_tokens"]
    assert request.kwargs["instructions"] == "You are Checker.\nCheck."
    assert request.kwargs["input"][0]["role"] == "user"
    assert request.kwargs["text"]["format"]["strict"] is True
    assert request.kwargs["reasoning"] == {"effort": "low", "summary": "auto"}
    assert request.kwargs["max_output_tokens"] == 1000


def test_images_tool_calls_and_results_take_their_items() -> None:
    prompt = Prompt(
        instruction="Look.",
        attachments=[{"type": "image", "url": "https://x/a.png"}],
        tool_calls=[{"name": "t", "id": "c1", "arguments": {"a": 1}}],
        tool_results=[{"call_id": "c1", "content": "done"}],
    )
    request = OpenAIResponsesAdapter().build_request(HOST.renderer("messages").render(prompt), prompt.config, None, "m")
    user, call, output = request.kwargs["input"]
    assert user["content"][1] == {"type": "input_image", "image_url": "https://x/a.png", "detail": "auto"}
    assert call == {"type": "function_call", "call_id": "c1", "name": "t", "arguments": '{"a": 1}'}
    assert output == {"type": "function_call_output", "call_id": "c1", "output": "done"}


def test_files_are_input_files_and_audio_is_noted_and_left_out() -> None:
    prompt = Prompt(
        instruction="Listen and read.",
        attachments=[
            {"type": "audio", "data": "QUJD", "format": "wav"},
            {"type": "file", "data": "JVBERi0=", "media_type": "application/pdf", "filename": "a.pdf"},
        ],
    )
    request = OpenAIResponsesAdapter().build_request(HOST.renderer("messages").render(prompt), prompt.config, None, "m")
    (user,) = request.kwargs["input"]
    assert [part["type"] for part in user["content"]] == ["input_text", "input_file"]
    assert user["content"][1] == {
        "type": "input_file",
        "file_data": "data:application/pdf;base64,JVBERi0=",
        "filename": "a.pdf",
    }
    assert request.notes == ("messages[0].content[1]: the Responses API cannot carry this input_audio part; left out",)


def test_a_generate_over_real_http_reads_output_text_and_the_reasoning_summary() -> None:
    with fake_provider() as server:
        adapter = OpenAIResponsesAdapter(api_key="sk-test", base_url=server.base_url)
        result = generate(_prompt(), render=renderer.render, adapter=adapter, model="ok")
        assert result.value == {"ok": True}
        assert server.requests[0]["instructions"] == "You are Checker.\nCheck."
    reply = result.calls[0].reply
    assert reply is not None
    assert (reply.reasoning, reply.finish_reason, reply.usage and reply.usage.output) == ("Easy.", "completed", 3)


def test_what_a_tool_returns_is_noted_as_left_out() -> None:
    prompt = Prompt(instruction="x", tools=[{"name": "t", "returns": {"type": "string"}}, {"name": "u"}])
    request = OpenAIResponsesAdapter().build_request(HOST.renderer("messages").render(prompt), prompt.config, None, "m")
    assert [tool["name"] for tool in request.kwargs["tools"]] == ["t", "u"]
    assert request.notes == ("tool 't': Responses API tools have no place for what a tool returns; 'returns' left out",)


def test_a_tool_without_parameters_sends_the_empty_object_schema_openai_accepts() -> None:
    # OpenAI refuses `{}` ("object schema missing properties"); chat completions already sent this.
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    prompt = Prompt(instruction="x", tools=[{"name": "bare"}, {"name": "typed", "parameters": schema}])
    rendered = HOST.renderer("messages").render(prompt)
    request = OpenAIResponsesAdapter().build_request(rendered, prompt.config, None, "m")
    assert [tool["parameters"] for tool in request.kwargs["tools"]] == [{"type": "object", "properties": {}}, schema]
    chat = HOST.adapter("openai").build_request(rendered, prompt.config, None, "m")
    assert chat.kwargs["tools"][0]["function"]["parameters"] == request.kwargs["tools"][0]["parameters"]
