"""``promptwire.build_request`` and ``promptwire.generate`` never drop part of a prompt silently:
what the format cannot express is a Python warning at the caller's line and a note of every
request it is sent in. Their default format, ``messages``, sends a conversation whole and a plain
prompt in the same bytes as AgentScript's text."""

from __future__ import annotations

import asyncio
import warnings
from typing import Any

import pytest

import promptwire
from promptwire import PluginHost
from promptwire.core.errors import UnsupportedFieldsWarning
from promptwire.testing.provider_servers import fake_provider

HOST = PluginHost(entry_points=False)
CONVERSATION: dict[str, Any] = {
    "instruction": "Answer the user.",
    "history": [{"role": "user", "content": "Hello"}, {"role": "assistant", "content": "Hi!"}],
    "attachments": [{"type": "image", "url": "https://example.com/chart.png"}],
}
CHECKED = {**CONVERSATION, "output": {"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}
"""The conversation with an output contract: a reply that is not JSON is retried."""
LEFT_OUT = "format 'agentscript' cannot express these prompt fields, which were left out: history, attachments"


def _caught(call: Any) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, caught


def test_build_request_warns_at_the_callers_line_and_notes_it() -> None:
    request, caught = _caught(
        lambda: promptwire.build_request(CONVERSATION, "openai", "gpt-4o", format="agentscript", host=HOST)
    )
    ((warning),) = caught
    assert (warning.category, str(warning.message), warning.filename) == (UnsupportedFieldsWarning, LEFT_OUT, __file__)
    assert request.notes[0] == LEFT_OUT
    assert [message["role"] for message in request.kwargs["messages"]] == ["user"]  # history and image gone


@pytest.mark.parametrize("entry", ["generate", "stream", "agenerate", "astream"])
def test_every_generate_warns_once_at_the_callers_line_and_notes_every_request(entry: str) -> None:
    def call() -> Any:
        kwargs: dict[str, Any] = {"format": "agentscript", "host": HOST, "responses": ["no", "no", {"ok": True}]}
        if entry == "generate":
            return promptwire.generate(CHECKED, attempts=3, **kwargs)  # the line the warning names
        if entry == "stream":
            return list(promptwire.stream(CHECKED, attempts=3, **kwargs))[-1]

        async def awaited() -> Any:
            if entry == "agenerate":
                return await promptwire.agenerate(CHECKED, attempts=3, **kwargs)
            return [item async for item in promptwire.astream(CHECKED, attempts=3, **kwargs)][-1]

        return asyncio.run(awaited())

    result, caught = _caught(call)
    assert [(w.category, str(w.message), w.filename) for w in caught] == [
        (UnsupportedFieldsWarning, LEFT_OUT, __file__)
    ]
    assert [call.request.notes for call in result.calls] == [(LEFT_OUT,)] * 3


def test_the_default_format_sends_a_conversation_whole_over_http(monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-for-the-fake")
        result, caught = _caught(lambda: promptwire.generate(CONVERSATION, "openai", "ok", host=HOST))
    assert caught == [] and result.calls[0].request.notes == ()
    (sent,) = server.requests
    assert sent["messages"] == [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi!"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Instruction:\nAnswer the user."},
                {"type": "image_url", "image_url": {"url": "https://example.com/chart.png"}},
            ],
        },
    ]


def test_a_plain_prompt_is_sent_in_agentscripts_bytes_by_default() -> None:
    plain = {"identity": {"role": "R", "description": "D"}, "instruction": "Say ok.", "context": [{"value": [1, 2]}]}
    default = promptwire.build_request(plain, "anthropic", "claude", host=HOST)
    agentscript = promptwire.build_request(plain, "anthropic", "claude", format="agentscript", host=HOST)
    assert default.kwargs == agentscript.kwargs


def test_a_rendered_prompts_left_out_fields_are_noted_without_a_second_warning() -> None:
    rendered, first = _caught(lambda: promptwire.render(CONVERSATION, "agentscript", host=HOST))
    request, again = _caught(lambda: promptwire.build_request(rendered, "ollama", "llama3", host=HOST))
    assert [str(w.message) for w in first] == [LEFT_OUT] and again == []
    assert request.notes == (LEFT_OUT,)


def test_build_request_routes_and_retargets_as_generate_does() -> None:
    routed = promptwire.build_request({"instruction": "x"}, "auto", "anthropic://claude-x", host=HOST)
    assert (routed.provider, routed.kwargs["model"], len(routed.notes)) == ("anthropic", "claude-x", 1)  # max_tokens
    forced = promptwire.build_request({"instruction": "x"}, "openai", "anthropic://claude-x", host=HOST)
    assert (forced.provider, forced.kwargs["model"]) == ("openai", "claude-x")  # was a BadRequestError
    assert forced.notes == (  # the openai body needs no max_tokens: its one note is the retargeting
        "model anthropic://claude-x names the anthropic provider: sent to openai as 'claude-x', the provider asked for",
    )
