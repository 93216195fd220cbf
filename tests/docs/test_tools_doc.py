"""docs/tools.md runs as written: its Python snippets execute and do what their comments say."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from promptwire.core.tools import ToolContext, ToolError, ToolRequest
from promptwire.plugins.builtins import TOOL_SCHEMES

DOC = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


def _snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_the_tool_call_snippet_resolves_and_writes_back() -> None:
    namespace: dict[str, Any] = {}
    exec(_snippets()[0], namespace)
    assert namespace["ready"].arguments == {"text": "a long text", "_outputPath": "†state.summary"}
    assert namespace["context"]["state"] == {"summary": "a summary"}


def test_the_third_party_scheme_snippet_defines_a_working_scheme() -> None:
    namespace: dict[str, Any] = {}
    exec(_snippets()[1], namespace)
    buckets = namespace["Buckets"]()
    assert (buckets.name, buckets.kinds) == ("s3", frozenset({"tool"}))
    registered: list[Any] = []
    namespace["register_tool_schemes"](registered.append)
    assert type(registered[0]).__name__ == "Buckets"
    with pytest.raises(ToolError, match=r"^not a memory$"):
        buckets.call_memory(ToolRequest("B", "s3://b", "add", [{}]), ToolContext(Path.cwd()))


def test_every_builtin_scheme_is_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for name in TOOL_SCHEMES:
        assert f"{name}://" in text, name
