"""Every adapter's request for every corpus prompt, pinned: the body (keys in the order a dry run
shows them, as the one JSON writer writes them) and the notes on what the adapter dropped or changed. A prompt is rendered by the
messages format, the one that carries tools, tool calls, results and attachments to an adapter."""

from __future__ import annotations

import warnings

import pytest
from syrupy.assertion import SnapshotAssertion

from promptwire import PluginHost
from promptwire.core.errors import PromptwireError
from promptwire.core.json_text import dumps

from corpus import CORPUS

HOST = PluginHost(entry_points=False)
PROVIDERS = ("openai", "anthropic", "ollama")
CASES = [pytest.param(provider, name, id=f"{provider}-{name}") for provider in PROVIDERS for name in CORPUS]


@pytest.mark.parametrize(("provider", "name"), CASES)
def test_request(provider: str, name: str, snapshot: SnapshotAssertion) -> None:
    prompt = CORPUS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            rendered = HOST.renderer("messages").render(prompt)
            request = HOST.adapter(provider).build_request(rendered, prompt.config, prompt.output, "model-x")
        except PromptwireError as exc:  # the render's own refusal, pinned like a request
            assert (f"!!! {type(exc).__name__}: {exc}\n") == snapshot
            return
    shown = {"body": request.kwargs, "notes": list(request.notes), "endpoint": request.endpoint}
    assert dumps(shown, indent=2) + "\n" == snapshot  # the one JSON writer: half a character as its escape
