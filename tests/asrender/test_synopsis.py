"""The synopsis of docs/cli.md names every flag each ``asrender`` command takes, and no flag it does not."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from promptwire.frontend.asrender.cli import COMMANDS, _parser

CLI_DOC = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
SYNOPSIS = CLI_DOC.split("## Synopsis\n\n```text\n", 1)[1].split("```", 1)[0]


def _options(parser: argparse.ArgumentParser) -> list[tuple[str, ...]]:
    """Each option's spellings (``-o`` and ``--option``), but ``--help``."""
    return [
        tuple(action.option_strings) for action in parser._actions if action.option_strings and action.dest != "help"
    ]


def _commands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _synopsis_of(command: str) -> str:
    """The synopsis lines of ``command`` (``render`` is ``asrender FILE``: both of its forms)."""
    blocks = re.split(r"\n(?=asrender |python )", SYNOPSIS)
    if command == "render":
        return "\n".join(block for block in blocks if re.match(r"asrender FILE", block))
    return "\n".join(block for block in blocks if block.startswith(f"asrender {command} "))


def test_every_command_is_in_the_synopsis_with_its_flags() -> None:
    commands = _commands()
    assert set(commands) == set(COMMANDS)
    for name, parser in commands.items():
        shown = _synopsis_of(name)
        assert shown, name
        named = set(re.findall(r"(?<![\w-])--?[a-zA-Z][a-z-]*", re.sub(r"#.*", "", shown)))
        options = _options(parser)
        assert [spellings for spellings in options if not named & set(spellings)] == [], name
        assert named <= {spelling for spellings in options for spelling in spellings}, name


def test_allow_read_says_it_does_not_widen_file_tools() -> None:
    # As the refusal and docs/security.md say: the flag widens imports and memories only.
    for name in ("render", "batch"):
        shown = " ".join(_commands()[name].format_help().split())
        assert "imports and memories may also read this; file tools never leave its folder" in shown, name
