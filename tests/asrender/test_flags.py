"""argparse's ``Namespace`` is read once, by ``frontend/asrender/flags.py``, into a typed record per
sub-command; every other module of the command line takes the record. A batch's record holds the
batch's flags and no made-up ones of ``render``'s."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from promptwire.frontend.asrender.cli import COMMANDS, _parser
from promptwire.frontend.asrender.flags import BatchFlags, RenderFlags, read_flags

ASRENDER = Path(__file__).resolve().parents[2] / "frontend" / "asrender"
SMALLEST = {
    "plugins": [],
    "render": ["p.as"],
    "batch": ["p.as", "--out", "results.jsonl"],
    "snapshot": ["programs"],
    "serve": ["programs"],
    "check": ["p.as"],
    "parse": ["p.as"],
    "lsp": [],
}


def test_every_command_is_tried_here() -> None:
    assert set(SMALLEST) == set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_each_flag_of_a_command_is_a_field_of_its_record_and_each_field_a_flag(command: str) -> None:
    args = _parser(command).parse_args([command, *SMALLEST[command]])
    flags = read_flags(args)
    assert type(flags) is args.flags
    assert set(vars(flags)) == set(vars(args)) - {"command", "run", "flags"}


def test_a_batch_has_no_display_or_recording_flags_made_up_for_it() -> None:
    args = _parser("batch").parse_args(["batch", "p.as", "--out", "results.jsonl"])
    made_up = {"output", "stream", "progress", "record", "accept_drift", "input", "input_file"}
    assert not made_up & set(vars(args))
    assert isinstance(read_flags(args), BatchFlags)


def test_the_record_holds_the_values_argparse_made() -> None:
    args = _parser("render").parse_args(
        ["render", "p.as", "--timeout", "2.5", "--allow-env", "A, B", "--allow-write", "-o", "k=1", "-o", "j=x"]
    )
    flags = read_flags(args)
    assert isinstance(flags, RenderFlags)
    assert (flags.timeout, flags.allow_env, flags.allow_write) == (2.5, [["A", "B"]], [""])
    assert flags.option == ["k=1", "j=x"]
    assert flags.program_flags() == ["--allow-write", "--allow-env"]


def test_a_flag_without_a_field_is_refused_rather_than_ignored() -> None:
    args = _parser("plugins").parse_args(["plugins"])
    args.unread = True
    with pytest.raises(TypeError, match="flags without a field \\['unread'\\]"):
        read_flags(args)


def test_a_field_without_a_flag_is_refused_rather_than_left_unset() -> None:
    args = _parser("plugins").parse_args(["plugins"])
    del args.json
    with pytest.raises(TypeError, match="fields without a flag \\['json'\\]"):
        read_flags(args)


def test_the_flags_are_read_only_and_a_changed_copy_is_another_record() -> None:
    flags = read_flags(_parser("batch").parse_args(["batch", "p.as", "--out", "results.jsonl"]))
    assert isinstance(flags, BatchFlags)
    with pytest.raises(AttributeError, match="read-only"):
        flags.provider = "openai"
    changed = flags.but(provider="openai")
    assert (flags.provider, changed.provider, changed.out) == (None, "openai", "results.jsonl")


def _namespace_readers(path: Path) -> list[str]:
    """The functions of ``path`` that take a ``Namespace``, and the attributes it assigns to one."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for arg in [*node.args.args, *node.args.kwonlyargs]:
                if arg.annotation is not None and "Namespace" in ast.unparse(arg.annotation):
                    found.append(f"{node.name}({arg.arg})")
        elif isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and ast.unparse(target.value) in ("args", "namespace"):
                    found.append(f"{ast.unparse(target)} =")
    return found


def test_only_flags_py_reads_the_namespace_and_nothing_changes_it() -> None:
    readers = {
        str(path.relative_to(ASRENDER)): found
        for path in sorted(ASRENDER.rglob("*.py"))
        if (found := _namespace_readers(path))
    }
    # argparse's own hook: an action is handed the namespace (--version reads nothing of it)
    assert readers == {"flags.py": ["read_flags(args)"], "cli.py": ["__call__(namespace)"]}
