"""Nothing a program, a prompt file, a folder or a provider says can forge a line on stderr or act
on the terminal.

Every place where text someone else chose reaches stderr, with every kind of control: each payload
is ``A<control>asrender: forged``, and stderr must hold no raw control (but the newlines of its own
lines) and no line starting ``asrender: forged``.

| place | how the text gets there |
|---|---|
| a debug block | a program's prompt, with ``debug: true`` (its own newlines are kept: the block shows the prompt) |
| a warning | a prompt file's name, quoted in the warning about ``1.10`` |
| an error quoting a path | a prompt file that does not exist; a program's ``import file``; a file tool's path |
| an agent name | ``--agent`` |
| a tool name | the scheme of ``import tool`` |
| a provider's body | a model name the fake provider repeats in its error body |
| the command line | an argument argparse does not know |
| a program's file name | ``asrender snapshot`` naming a program that fails |
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_servers import fake_provider

CONTROLS = {
    "CSI": "\x1b[2J",
    "OSC": "\x1b]0;owned\x07",
    "CR": "\r",
    "LF": "\n",
    "C1 NEL": "\x85",
    "C1 CSI": "\x9b2J",
    "DEL": "\x7f",
    "RLO": "\u202e",
    "LRI": "\u2066",
    "LS": "\u2028",
    "PS": "\u2029",
    "BEL": "\x07",
}
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
FORGED = "asrender: forged"
PROGRAM = """\
import llm M from "openai://gpt-4o-mini"
{imports}
main agent A {{
    model M
    role "R"
    description "D"
    main func() {{
        {body}
    }}
}}
"""


def _program(folder: Path, body: str, imports: str = "") -> str:
    path = folder / "p.as"
    path.write_text(PROGRAM.format(imports=imports, body=body), encoding="utf-8")
    return str(path)


def _debug(folder: Path, payload: str) -> list[str]:
    return [_program(folder, f'generate({{ input: "{payload}", debug: true }})')]


def _warning(folder: Path, payload: str) -> list[str]:
    path = folder / f"{payload}.yaml"
    path.write_text("instruction: hi\nconfig:\n  temperature: 1.10\n", encoding="utf-8")
    return ["render", str(path)]


def _missing_prompt_file(folder: Path, payload: str) -> list[str]:
    return ["render", str(folder / f"{payload}.yaml")]


def _import_file(folder: Path, payload: str) -> list[str]:
    return [_program(folder, "Doc", f'import file Doc from "{payload}.txt"')]


def _tool_path(folder: Path, payload: str) -> list[str]:
    return [_program(folder, f'File.read({{ path: "{payload}" }})', 'import tool File from "file://."')]


def _agent(folder: Path, payload: str) -> list[str]:
    return [_program(folder, '"x"'), "--agent", payload]


def _tool_name(folder: Path, payload: str) -> list[str]:
    return [_program(folder, "T.run({ x: 1 })", f'import tool T from "{payload}://x"')]


def _unknown_argument(folder: Path, payload: str) -> list[str]:
    return [_program(folder, '"x"'), payload]


def _snapshot_name(folder: Path, payload: str) -> list[str]:
    (folder / "programs").mkdir()
    (folder / "programs" / f"{payload}.as").write_text("not a program\n", encoding="utf-8")
    return ["snapshot", str(folder / "programs")]


PLACES: dict[str, Callable[[Path, str], list[str]]] = {
    "debug block": _debug,
    "warning": _warning,
    "prompt file path": _missing_prompt_file,
    "import file path": _import_file,
    "tool path": _tool_path,
    "agent name": _agent,
    "tool name": _tool_name,
    "unknown argument": _unknown_argument,
    "snapshot program name": _snapshot_name,
}


def _asrender(argv: list[str]) -> int:
    """``asrender`` as the shell runs it: a bad command line exits with status 2."""
    try:
        return main(argv)
    except SystemExit as exit_info:
        return int(str(exit_info.code))


def _assert_safe(err: str, *, own_newlines: bool = False) -> None:
    assert not RAW.search(err), err
    if not own_newlines:
        assert not any(line.startswith(FORGED) for line in err.splitlines()), err


@pytest.mark.parametrize("control", CONTROLS, ids=list(CONTROLS))
@pytest.mark.parametrize("place", PLACES, ids=list(PLACES))
def test_no_control_reaches_stderr_raw(
    place: str, control: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    payload = f"A{CONTROLS[control]}{FORGED}"
    code = _asrender(PLACES[place](tmp_path, payload))
    err = capsys.readouterr().err
    assert err, "every place writes something on stderr"
    assert code in (0, 1, 2)
    # A debug block shows the prompt's own lines: a newline in the prompt stays one.
    _assert_safe(err, own_newlines=place == "debug block" and control == "LF")


@pytest.mark.parametrize("control", CONTROLS, ids=list(CONTROLS))
def test_a_provider_body_is_one_line(
    control: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("instruction: hi\n", encoding="utf-8")
    with fake_provider() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        model = f"e400{CONTROLS[control]}{FORGED}"
        code = main(["render", str(path), "--provider", "openai", "--model", model])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("asrender: BadRequestError [openai 400]"), err
    _assert_safe(err)
    assert len(err.splitlines()) == 1


def test_a_debug_block_keeps_the_prompt_lines_and_escapes_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = _program(tmp_path, 'generate({ input: "one\\ntwo\x1b[2J\ttab", debug: true })')
    assert main([program]) == 0
    err = capsys.readouterr().err
    assert "Instruction:\none\ntwo\\x1b[2J\ttab\n" in err
    assert json.dumps(err)  # text, nothing a terminal acts on
