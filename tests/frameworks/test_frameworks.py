"""The opt-in ``frameworks`` tier: promptwire embedded in two real frameworks from PyPI, LangChain and
pydantic-ai, each talking to the fake provider over real HTTP.

Not in the default run (``-m "not frameworks"`` in the pytest settings): the frameworks are no
dependency of promptwire. Install them with ``pip install -e '.[frameworks]'`` and run
``python -m pytest -m frameworks tests/frameworks``. Without them the tier fails, saying what to
install, rather than skipping in silence.

Three ways a framework's user meets promptwire (docs/embedding.md, "Your framework's model sends"):
promptwire renders and checks, the framework sends (``check_output`` on its reply); the
framework's model sends inside promptwire's loop of attempts (``adapter=FunctionAdapter(...)``);
and a framework's agent given promptwire's system and user text.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import promptwire
from promptwire import FunctionAdapter, Prompt, check_output
from promptwire.testing.provider_servers import answering, fake_provider

pytestmark = pytest.mark.frameworks

SCHEMA = {
    "type": "object",
    "properties": {"label": {"type": "string"}, "score": {"type": "number"}},
    "required": ["label", "score"],
    "additionalProperties": False,
}
PROMPT = Prompt(
    identity={"role": "Triage", "description": "Classify support tickets."},
    instruction="Classify the ticket.",
    context=[{"value": "My invoice is wrong.", "label": "ticket"}],
    output={"schema": SCHEMA},
)


def _need(module: str) -> Any:
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        pytest.fail(f"frameworks tier: {module} is missing: pip install -e '.[frameworks]'", pytrace=False)


def _langchain_chat(base_url: str) -> Any:
    chat_openai = _need("langchain_openai").ChatOpenAI
    return chat_openai(model="gpt-4o-mini", base_url=base_url, api_key="sk-fake", max_retries=0)


def test_langchain_sends_what_promptwire_built_and_promptwire_checks_the_reply() -> None:
    request = promptwire.build_request(PROMPT, "openai", "gpt-4o-mini").kwargs
    with fake_provider(text=answering(['```json\n{"label": "billing", "score": "0.9"}\n```'])) as server:
        reply = _langchain_chat(server.base_url).invoke(request["messages"], response_format=request["response_format"])
    assert check_output(reply.content, PROMPT) == {"label": "billing", "score": 0.9}  # found, and coerced
    (sent,) = server.requests
    assert sent["messages"] == request["messages"]  # the bytes promptwire rendered
    assert sent["response_format"] == request["response_format"]


def test_a_langchain_model_sends_inside_promptwires_attempts() -> None:
    with fake_provider(text=answering(["I think it is billing."])) as server:
        chat = _langchain_chat(server.base_url)

        def ask(messages: list[dict[str, Any]], schema: Any) -> Any:
            response_format = {"type": "json_schema", "json_schema": {"name": "result", "schema": schema}}
            return chat.invoke(messages, response_format=response_format).content

        result = promptwire.generate(PROMPT, adapter=FunctionAdapter(ask, name="langchain"), attempts=2)
    assert result.value == {"label": "fake", "score": 0}  # the fake provider's shaped answer, attempt 2
    assert [call.error for call in result.calls] == ["LLM provider did not return JSON: I think it is billing.", None]
    repair = json.dumps(server.requests[1]["messages"])
    assert "Previous generation failed." in repair and "I think it is billing." in repair


def test_a_pydantic_ai_agent_asks_promptwires_prompt() -> None:
    pydantic_ai = _need("pydantic_ai")
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    rendered = promptwire.render(PROMPT, "agentscript")
    assert isinstance(rendered.system, str) and isinstance(rendered.user, str)
    with fake_provider(text=answering()) as server:
        model = OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(base_url=server.base_url, api_key="sk-fake"))
        output = pydantic_ai.NativeOutput(pydantic_ai.StructuredDict(SCHEMA, name="result"))
        agent = pydantic_ai.Agent(model, instructions=rendered.system, output_type=output)
        answer = agent.run_sync(rendered.user).output
    assert check_output(answer, PROMPT) == {"label": "fake", "score": 0}
    (sent,) = server.requests
    built = promptwire.build_request(PROMPT, "openai", "gpt-4o-mini", format="agentscript").kwargs
    assert sent["messages"] == built["messages"]  # the system and user text promptwire renders, as sent
    assert sent["response_format"]["json_schema"]["schema"]["properties"] == SCHEMA["properties"]
