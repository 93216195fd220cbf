"""The conformance corpus: conversations as prompt data, one JSON file each in ``conversations/``.

A file holds ``about`` (what it is, in a sentence), ``prompt`` (a :class:`~promptwire.Prompt` as
plain data, its ``history`` the conversation), ``features`` (each feature of the fidelity table the
conversation shows, with the prompt paths that hold it: ``history[1].content[0]``, ``cache.key``)
and, for a conversation every provider refuses, ``refused``: the turn the refusal names
(``messages[2]``). ``generated_history`` makes a long history from one round of turns, repeated
``rounds`` times with ``{n}`` in its strings replaced by the round's number (1, 2, ...), before the
prompt's own history: the file stays short and the conversation is the same every time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import FieldError
from ...core.prompt import Prompt
from ...core.validation import validate_model

__all__ = ["FOLDER", "Conversation", "conversations", "load", "parse_path"]

FOLDER = Path(__file__).with_name("conversations")
"""Where the corpus's conversations are (installed with the package)."""

_STEP = re.compile(r"([a-z_]+)|\[(\d+)\]")


@dataclass(frozen=True)
class Conversation:
    """One conversation of the corpus, its generated history written out."""

    name: str
    about: str
    prompt: Mapping[str, Any]
    """The prompt as plain data (what :func:`promptwire.render` takes), validated."""
    features: Mapping[str, tuple[str, ...]]
    refused: str | None = None
    generated: range = range(0)
    """The history indices a ``generated_history`` made (its rounds between the first and the last
    repeat the same parts with another number, so the checks look at those two rounds only)."""
    round_size: int = 0
    """How many turns one generated round has."""


def conversations(folder: Path = FOLDER) -> list[Conversation]:
    """Every conversation of the corpus in ``folder``, by file name."""
    return [load(path) for path in sorted(folder.glob("*.json"))]


def load(path: Path) -> Conversation:
    """The conversation in ``path``; a file of the wrong shape is a :class:`FieldError` naming the key."""
    data = json.loads(path.read_text(encoding="utf-8"))
    where = path.name
    if not isinstance(data, dict) or not isinstance(data.get("prompt"), dict):
        raise FieldError(where, "a conversation is an object with a 'prompt' object")
    unknown = sorted(set(data) - {"about", "prompt", "features", "refused", "generated_history"})
    if unknown:
        raise FieldError(f"{where}: {unknown[0]}", "unknown key")
    prompt = dict(data["prompt"])
    generated, round_size = range(0), 0
    if "generated_history" in data:
        turns = _generated(data["generated_history"], f"{where}: generated_history")
        generated, round_size = range(len(turns)), len(data["generated_history"]["turns"])
        prompt["history"] = turns + list(prompt.get("history", []))
    validate_model(Prompt, prompt, root=f"{where}: prompt")
    features = data.get("features", {})
    if not isinstance(features, dict) or not all(
        isinstance(paths, list) and all(isinstance(p, str) for p in paths) for paths in features.values()
    ):
        raise FieldError(f"{where}: features", "map each feature to a list of prompt paths")
    for feature, paths in features.items():
        for step_path in paths:
            try:
                parse_path(step_path)
            except ValueError as exc:
                raise FieldError(f"{where}: features.{feature}", str(exc)) from None
    refused = data.get("refused")
    if refused is not None and not re.fullmatch(r"messages\[\d+\]", str(refused)):
        raise FieldError(f"{where}: refused", "name the turn the refusal names, as messages[N]")
    return Conversation(
        name=path.stem,
        about=str(data.get("about", "")),
        prompt=prompt,
        features={feature: tuple(paths) for feature, paths in features.items()},
        refused=refused,
        generated=generated,
        round_size=round_size,
    )


def _generated(spec: Any, where: str) -> list[Any]:
    if not isinstance(spec, dict) or not isinstance(spec.get("rounds"), int) or not isinstance(spec.get("turns"), list):
        raise FieldError(where, "give 'rounds' (a number) and 'turns' (the turns of one round)")
    return [_numbered(turn, n) for n in range(1, spec["rounds"] + 1) for turn in spec["turns"]]


def _numbered(value: Any, n: int) -> Any:
    """``value`` with ``{n}`` in every string (keys too) replaced by ``n``."""
    if isinstance(value, str):
        return value.replace("{n}", str(n))
    if isinstance(value, list):
        return [_numbered(item, n) for item in value]
    if isinstance(value, dict):
        return {_numbered(key, n): _numbered(item, n) for key, item in value.items()}
    return value


def parse_path(path: str) -> list[str | int]:
    """``history[2].content[0].cache`` as its steps: ``["history", 2, "content", 0, "cache"]``."""
    steps: list[str | int] = []
    position = 0
    for match in _STEP.finditer(path):
        if match.start() != position and path[position : match.start()] != ".":
            break
        steps.append(match.group(1) if match.group(1) else int(match.group(2)))
        position = match.end()
    if position != len(path) or not steps:
        raise ValueError(f"{path!r} is not a prompt path (history[1].content[0], cache.key)")
    return steps
