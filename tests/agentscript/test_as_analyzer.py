"""The AgentScript static checks: every reference diagnostic, exact text and position, in one run.

``tests/data/as/invalid/NAME.as`` with ``NAME.expected``: the lines the reference prints for the
program (``ERROR CODE at L:C: message``), in the order it reports them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from promptwire.core.errors import PromptwireError
from promptwire.frontend.agentscript import check, ensure_valid, parse
from promptwire.frontend.agentscript.analyzer import CODES
from promptwire.frontend.agentscript.diagnostics import CheckError, format_diagnostics

DATA = Path(__file__).parents[1] / "data" / "as"
REJECTED = sorted(
    path
    for path in (DATA / "invalid").glob("*.as")
    if path.with_suffix(".expected").read_text(encoding="utf-8").startswith("ERROR ")
)


def _expected(path: Path) -> list[str]:
    return path.with_suffix(".expected").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("path", REJECTED, ids=lambda path: path.stem)
def test_rejected_program_reports_exactly_the_reference_diagnostics(path: Path) -> None:
    diagnostics = check(path.read_text(encoding="utf-8"), path.name)
    assert [diagnostic.reference_text for diagnostic in diagnostics] == _expected(path)


def test_every_diagnostic_code_has_a_program_that_triggers_it() -> None:
    seen = {line.split()[1] for path in REJECTED for line in _expected(path)}
    assert seen == CODES
    assert len(CODES) == 36


@pytest.mark.parametrize("path", sorted((DATA / "valid").glob("*.as")), ids=lambda path: path.stem)
def test_valid_program_has_no_diagnostics(path: Path) -> None:
    assert check(parse(path.read_text(encoding="utf-8"))) == []


def test_check_error_shows_every_diagnostic_like_a_compiler() -> None:
    path = DATA / "invalid" / "tc16_missing_config.as"
    source = path.read_text(encoding="utf-8")
    with pytest.raises(CheckError) as caught:
        ensure_valid(parse(source, "tc16.as"))
    error = caught.value
    assert isinstance(error, PromptwireError)
    assert str(error) == (
        "tc16.as:6:9: error[MISSING_GENERATE_CONFIG]: generate requires role in the current scope\n"
        '        generate({ input: "Z" })\n'
        "        ^\n"
        "tc16.as:6:9: error[MISSING_GENERATE_CONFIG]: generate requires description in the current scope\n"
        '        generate({ input: "Z" })\n'
        "        ^"
    )
    assert error.reference_message == "\n".join(_expected(path))


def test_the_caret_lands_under_a_utf16_column() -> None:
    path = DATA / "invalid" / "utf16_columns.as"
    source = path.read_text(encoding="utf-8")
    text = format_diagnostics(check(source), source, "u.as")
    head, line, caret = text.splitlines()
    assert head == "u.as:9:20: error[UNKNOWN_IDENTIFIER]: Unknown identifier 'missing'"
    assert line[len(caret) - 1 :].startswith("missing")  # the emoji is one character, two units


def test_a_valid_program_passes_through_ensure_valid() -> None:
    program = parse((DATA / "valid" / "tc10_scopes.as").read_text(encoding="utf-8"))
    assert ensure_valid(program) is program


def test_a_config_statement_reaches_generates_in_its_block_only() -> None:
    # A config statement counts for a generate in the same block or a nested one, and only when it
    # comes before the generate.
    source = (
        'import llm M from "openai://gpt-4o"\n'
        "main agent A {\n"
        "    model M\n"
        "    main func(input) {\n"
        '        role "R"\n'
        "        if input.ok {\n"
        '            description "Inner"\n'
        '            generate({ input: "inside" })\n'
        "        }\n"
        '        generate({ input: "outside" })\n'
        '        description "Too late"\n'
        "    }\n"
        "}\n"
    )
    assert [diagnostic.reference_text for diagnostic in check(source)] == [
        "ERROR MISSING_GENERATE_CONFIG at 10:9: generate requires description in the current scope"
    ]


def test_only_the_input_option_is_checked_for_unknown_names() -> None:
    # The reference walks the `input` value of a generate but only checks the other options' kind.
    source = (
        'import llm M from "openai://gpt-4o"\n'
        "main agent A {\n"
        '    model M\n    role "R"\n    description "D"\n'
        "    main func(input) {\n"
        "        generate({ input: nowhere, temperature: elsewhere })\n"
        "    }\n"
        "}\n"
    )
    assert [diagnostic.reference_text for diagnostic in check(source)] == [
        "ERROR UNKNOWN_IDENTIFIER at 7:27: Unknown identifier 'nowhere'",
        "ERROR INVALID_GENERATE_TEMPERATURE at 7:49: generate temperature must be a number",
    ]
