"""The conversation conformance corpus, and the pytest helper that runs an adapter against it.

The corpus (``conversations/*.json``, see :mod:`.corpus`) is a set of conversations as prompt
data: tool calls, parallel calls, results with images and errors, reasoning signed, encrypted,
redacted and foreign, cache breakpoints, media, developer text, a long history, a conversation every
provider refuses. For each adapter, an expected file per conversation holds what the adapter makes
of it: ``{"fidelity": {feature: {"outcome", "notes"}}, "notes": [...], "body": {...}}``, or
``"error"`` instead of the notes and body when it refuses it. The built-in adapters' files are in
``expected/<adapter>/``; docs/conversations.md is the table made from them.

A plugin author checks an adapter with one call in a test::

    from promptwire.testing.conformance import check_adapter

    def test_my_adapter_meets_the_conversation_corpus():
        check_adapter(MyAdapter(), Path(__file__).with_name("conformance"))

which fails listing every difference from the expected files and every rule broken (see
:mod:`.check`). Write or refresh the files with ``python -m promptwire.testing.conformance
--adapter NAME --expected DIR --write`` (the adapter registered by your plugin) or
:func:`write_expected`, and read their diff: it is what your adapter does to each conversation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .check import MODEL, Outcome, invariant_problems, run
from .corpus import FOLDER, Conversation, conversations
from .fidelity import features

__all__ = [
    "BUILTIN_ADAPTERS",
    "EXPECTED",
    "FOLDER",
    "MODEL",
    "Conversation",
    "check_adapter",
    "conversations",
    "expected_problems",
    "invariant_problems",
    "read_expected",
    "record",
    "run",
    "write_expected",
]

EXPECTED = Path(__file__).with_name("expected")
"""The built-in adapters' expected files, a folder per adapter."""

BUILTIN_ADAPTERS = (
    "openai",
    "openai-responses",
    "anthropic",
    "ollama",
    "gemini",
    "bedrock",
    "azure",
    "azure-responses",
)


def record(outcome: Outcome) -> dict[str, Any]:
    """What an expected file holds for ``outcome``."""
    kept: dict[str, Any] = {"fidelity": features(outcome)}
    if outcome.built.error is not None:
        kept["error"] = f"{type(outcome.built.error).__name__}: {outcome.built.error}"
    else:
        kept["notes"] = list(outcome.built.notes)
        kept["body"] = outcome.built.body
    return kept


def file_text(data: Any) -> str:
    """An expected file's text: JSON, two spaces, non-ASCII as it is, a newline at the end."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def read_expected(folder: Path, name: str) -> Any:
    """The expected record of conversation ``name`` in ``folder`` (``None`` when there is none)."""
    path = Path(folder) / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def write_expected(adapter: Any, folder: Path | str, corpus: Iterable[Conversation] | None = None) -> list[str]:
    """Write ``adapter``'s expected file of each conversation into ``folder``; return the rules it
    breaks (written all the same: the files say what the adapter does, the rules what it must)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    broken = []
    for conversation in corpus if corpus is not None else conversations():
        outcome = run(adapter, conversation)
        (folder / f"{conversation.name}.json").write_text(file_text(record(outcome)), encoding="utf-8")
        broken += [f"{conversation.name}: {problem}" for problem in invariant_problems(outcome)]
    return broken


def expected_problems(outcome: Outcome, folder: Path | str) -> list[str]:
    """How ``outcome`` differs from its expected file in ``folder``: the first difference of each
    part (fidelity, error, notes, body), by its JSON path."""
    name = outcome.conversation.name
    expected = read_expected(Path(folder), name)
    if expected is None:
        return [f"no expected file {Path(folder) / (name + '.json')}"]
    return [f"{where}: expected {want}, got {got}" for where, want, got in _differences(expected, record(outcome))]


def _differences(expected: Any, actual: Any, where: str = "") -> list[tuple[str, str, str]]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        found = []
        for key in dict.fromkeys([*expected, *actual]):
            if key not in actual or key not in expected:
                shown = (_short(expected.get(key, "nothing")), _short(actual.get(key, "nothing")))
                found.append((f"{where}.{key}".lstrip("."), *shown))
            else:
                found += _differences(expected[key], actual[key], f"{where}.{key}".lstrip("."))[:1]
        return found
    if isinstance(expected, list) and isinstance(actual, list):
        for index, (want, got) in enumerate(zip(expected, actual, strict=False)):
            found = _differences(want, got, f"{where}[{index}]")
            if found:
                return found[:1]
        if len(expected) != len(actual):
            return [(where, f"{len(expected)} items", f"{len(actual)}")]
        return []
    return [] if expected == actual else [(where, _short(expected), _short(actual))]


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:200] + "..."


def check_adapter(adapter: Any, expected: Path | str, *, names: Sequence[str] | None = None) -> None:
    """Run every conversation of the corpus (or those ``names`` names) through ``adapter``; fail
    with one :class:`AssertionError` listing each difference from the expected files in
    ``expected`` and each rule broken (:func:`invariant_problems`)."""
    corpus = conversations()
    unknown = sorted(set(names or ()) - {conversation.name for conversation in corpus})
    if unknown:
        raise ValueError(f"no conversation {unknown[0]!r} in the corpus")
    problems = []
    for conversation in corpus:
        if names is not None and conversation.name not in names:
            continue
        outcome = run(adapter, conversation)
        problems += [f"{conversation.name}: {p}" for p in expected_problems(outcome, expected)]
        problems += [f"{conversation.name}: rule broken: {p}" for p in invariant_problems(outcome)]
    if problems:
        raise AssertionError(f"adapter {adapter.name!r} against the conversation corpus:\n" + "\n".join(problems))
