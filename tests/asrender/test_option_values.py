"""Odd values the command-line fuzz (``tests/security/test_cli_fuzz.py``) found crashing ``asrender``:
``asrender check p.as --allow-read=--`` (argparse dropped the value ``--`` as the end of the options
and left an empty list for a path) and ``--responses '\x00'`` (a NUL byte in a path: ``open``'s
ValueError) were internal errors."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from promptwire.frontend.asrender.cli import _parser, main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _valued_options() -> list[tuple[str, str]]:
    subparsers = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    return [
        (command, action.option_strings[-1])
        for command, parser in subparsers.choices.items()
        if command != "serve"  # it serves until stopped
        for action in parser._actions
        if action.option_strings and action.nargs != 0
    ]


@pytest.mark.parametrize(("command", "option"), _valued_options())
def test_double_dash_as_a_value_is_a_value(
    command: str, option: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy2(EXAMPLES / "strict-invoice.as", tmp_path / "p.as")
    monkeypatch.chdir(tmp_path)
    target = {"snapshot": ".", "plugins": None}.get(command, "p.as")
    argv = [command, *([target] if target else []), f"{option}=--"]
    try:
        code = main(argv)
    except SystemExit as done:
        code = int(str(done.code))
    err = capsys.readouterr().err
    assert code in (0, 1, 2) and "internal error" not in err, (argv, err)


@pytest.mark.parametrize("command", [["render", "p.as"], ["check", "p.as"], ["snapshot", "."], ["plugins"]])
def test_a_nul_byte_in_any_argument_is_a_usage_error(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy2(EXAMPLES / "strict-invoice.as", tmp_path / "p.as")
    monkeypatch.chdir(tmp_path)
    for argv in ([*command, "--responses", "\x00"], [*command, "--allow-read=a\x00b"], ["p\x00.as"]):
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 2
        assert (
            capsys.readouterr().err
            == "asrender: error: an argument holds a NUL byte, which no path, name or value may\n"
        )
