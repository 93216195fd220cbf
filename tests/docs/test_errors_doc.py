"""docs/errors.md stays true: its tree is the real hierarchy, each class that makes itself retryable
marked (its subclasses inherit it), and every provider error is in it."""

from __future__ import annotations

import re
from pathlib import Path

from promptwire.core import errors, generate
from promptwire.core.coercion import ResultError

DOC = Path(__file__).resolve().parents[2] / "docs" / "errors.md"
CLASSES = {**vars(errors), "NotJsonError": generate.NotJsonError, "ResultError": ResultError}


def _tree() -> list[tuple[int, str, bool]]:
    """(depth, class name, marked retryable) for each line of the tree block."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```\n(PromptwireError\n.*?)```", text, flags=re.DOTALL)
    assert block is not None
    rows = []
    for line in block.group(1).splitlines():
        found = re.search(r"[A-Z]\w+", line)
        assert found is not None, line
        rows.append((found.start() // 4, found.group(), line.rstrip().endswith("retryable")))
    return rows


def test_the_tree_is_the_hierarchy() -> None:
    parents: list[type] = []
    documented = set()
    for depth, name, retryable in _tree():
        cls = CLASSES[name]
        documented.add(cls)
        del parents[depth:]
        if parents:
            assert cls.__bases__[0] is parents[-1], f"{name} is documented under {parents[-1].__name__}"
            sets_it = bool(vars(cls).get("retryable"))  # marked where it is set; subclasses inherit it
            assert sets_it == retryable, f"{name}: the doc's retryable mark is wrong"
            assert cls.retryable == retryable or parents[-1].retryable
        parents.append(cls)
    provider_errors = {
        cls for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.ProviderError)
    }
    assert provider_errors <= documented


def test_every_agentscript_code_is_listed() -> None:
    from promptwire.frontend.agentscript.analyzer import CODES
    from promptwire.frontend.agentscript.diagnostics import PARSE_ERROR
    from promptwire.frontend.agentscript.interpreter import RUNTIME_ERROR
    from promptwire.frontend.agentscript.loader import IMPORT_ERROR

    section = DOC.read_text(encoding="utf-8").split("## AgentScript programs", 1)[1]
    for code in (*CODES, PARSE_ERROR, RUNTIME_ERROR, IMPORT_ERROR):
        assert f"`{code}`" in section, code
