"""docs/embedding.md runs as written: its snippets, in order, as one program, with the OpenAI SDK
pointed at the local fake provider (the snippet reads the usual environment variables)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from promptwire.core.errors import UnsupportedFieldsWarning
from promptwire.testing.provider_servers import fake_provider

DOC = Path(__file__).resolve().parents[2] / "docs" / "embedding.md"


def test_the_snippets_run_in_order(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    snippets = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(snippets) == 5
    namespace: dict[str, Any] = {}
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for snippet in snippets:
                exec(snippet, namespace)
    assert [(w.category, str(w.message).rsplit(": ", 1)[1]) for w in caught] == [
        (UnsupportedFieldsWarning, "identity, context.source"),  # as the snippets' comments say
        (UnsupportedFieldsWarning, "sections"),
    ]
    (sent,) = server.requests
    assert sent["messages"] == namespace["messages"]  # what was rendered is what went out
    assert namespace["answer"] == {"ok": True}
    history = namespace["rendered"].sections[2].body
    assert history.startswith("[\n  ") and len(history) < 80  # clipped to its budget
    assert "agentscript" in capsys.readouterr().out
