"""What an adapter does with each feature of the corpus, and the table of it in the docs.

A feature's outcome is the worst of its items' (:mod:`.check`): ``sent to another provider``
(reasoning that reached the body of a provider that did not produce it) and ``dropped silently``
(each a broken rule), then ``left out``, ``converted``, ``kept``; ``refused`` when the adapter refuses the
conversation. Its notes are the notes that name its items. The table is made from the expected
files only (:func:`page`), so it says what the files say and a test holds it to them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .check import Outcome
from .corpus import Conversation

__all__ = ["CELLS", "features", "page"]

_ORDER = ("kept", "converted", "left out", "dropped silently", "sent to another provider")
CELLS = {
    "kept": "kept",
    "converted": "converted",
    "left out": "left out, noted",
    "dropped silently": "**dropped silently**",
    "sent to another provider": "**sent to another provider**",
    "refused": "refused",
}
"""A feature's outcome as its table cell says it."""

_PLACE_PREFIX = re.compile(r"^(?:messages|history)\[\d+\](?:\.content\[\d+\])?: ")


def features(outcome: Outcome) -> dict[str, dict[str, Any]]:
    """Each feature of the conversation with its outcome and the notes that say it."""
    conversation, built = outcome.conversation, outcome.built
    if built.error is not None:
        message = f"{type(built.error).__name__}: {built.error}"
        return {name: {"outcome": "refused", "notes": [message]} for name in conversation.features}
    traces = {trace.item.path: trace for trace in outcome.traces}
    found: dict[str, dict[str, Any]] = {}
    for name, paths in conversation.features.items():
        unknown = [path for path in paths if path not in traces]
        if unknown:
            raise ValueError(f"{conversation.name}: feature {name!r} names {unknown[0]}, which is no item of it")
        worst = max((traces[path].outcome for path in paths), key=_ORDER.index)
        notes = [note for path in paths for note in traces[path].notes]
        found[name] = {"outcome": worst, "notes": list(dict.fromkeys(notes))}
    return found


def page(
    corpus: Sequence[Conversation], records: Mapping[str, Mapping[str, Mapping[str, Any]]], *, intro: str, source: str
) -> str:
    """The fidelity table as a Markdown page: a row per feature (in the corpus's order), a column per
    adapter of ``records`` (adapter -> conversation name -> its expected record), each cell the
    outcome, the notes numbered below the table. ``source`` says where a conversation's file is, as
    a link's prefix."""
    adapters = list(records)
    rows: list[str] = [
        "| feature | conversation | " + " | ".join(f"`{a}`" for a in adapters) + " |",
        "|---|---|" + "---|" * len(adapters),
    ]
    footnotes: list[str] = []
    for conversation in corpus:
        for feature in conversation.features:
            cells = []
            for adapter in adapters:
                said = records[adapter][conversation.name]["fidelity"][feature]
                cell = CELLS[said["outcome"]]
                if said["notes"]:
                    footnotes.append(f"{adapter}, {feature}: " + "; ".join(_how(note) for note in said["notes"]))
                    cell += f" [{len(footnotes)}]"
                cells.append(cell)
            link = f"[{conversation.name}]({source}{conversation.name}.json)"
            rows.append(f"| {_cell(feature)} | {link} | " + " | ".join(cells) + " |")
    notes = [f"{number}. {_cell(text)}" for number, text in enumerate(footnotes, 1)]
    listing = [f"- [`{c.name}`]({source}{c.name}.json): {c.about}" for c in corpus]
    return "\n".join([intro.rstrip("\n"), "", *rows, "", *notes, "", "## The conversations", "", *listing, ""])


def _how(note: str) -> str:
    """A note without the place it names (the table's row says which part)."""
    return _PLACE_PREFIX.sub("", note)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
