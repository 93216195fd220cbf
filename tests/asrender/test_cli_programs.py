"""asrender check and parse on AgentScript programs: compiler-style errors, JSON syntax trees."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from promptwire.frontend import CheckError, check, ensure_valid, parse
from promptwire.frontend.agentscript.diagnostics import MAX_SHOWN_DIAGNOSTICS
from promptwire.frontend.agentscript.positions import SHOWN_WIDTH, shown_line
from promptwire.frontend.agentscript.syntax_json import to_json, write_json
from promptwire.frontend.asrender.cli import main

DATA = Path(__file__).parents[1] / "data" / "as"
VALID = sorted((DATA / "valid").glob("*.as"))
INVALID = sorted((DATA / "invalid").glob("*.as"))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_a_valid_program_checks_clean_and_parses_to_its_tree(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "check", str(path)) == (0, f"{path}: ok, no diagnostics\n", "")
    code, out, err = _run(capsys, "parse", str(path))
    assert (code, err) == (0, "")
    assert json.loads(out) == to_json(parse(path.read_text(encoding="utf-8"), str(path)))


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_every_diagnostic_is_shown_with_its_line_and_a_caret(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = path.read_text(encoding="utf-8")
    rule = "late" if path.stem.startswith("late_") else "release"  # invalid under the late label rule only
    code, out, err = _run(capsys, "check", str(path), "--label-rule", rule)
    assert (code, out) == (1, "")
    try:
        diagnostics = check(source, str(path), label_rule=rule)
    except Exception as exc:  # a syntax error: one block
        assert err == str(exc) + "\n"
        return
    assert diagnostics
    for diagnostic in diagnostics:
        head = f"{path}:{diagnostic.line}:{diagnostic.column}: error[{diagnostic.code}]: {diagnostic.message}"
        assert head in err
    assert err.count("^") >= len(diagnostics)


def test_a_syntax_error_from_stdin_points_at_its_column(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"agent A {\n  x = \x1b (\n}\n")))
    code, out, err = _run(capsys, "check", "-")
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert lines[0].startswith("<stdin>:2:7: error[PARSE_ERROR]: ")
    assert "\x1b" not in err
    assert lines[2] == " " * 6 + "^"


def test_check_errors_of_a_run_are_blocks_as_check_prints_them(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # `asrender FILE.as` used to print them on one line, each line break shown as \x0a.
    monkeypatch.chdir(tmp_path)
    source = (DATA / "valid" / "tc10_scopes.as").read_text(encoding="utf-8")
    (tmp_path / "u.as").write_text(source.replace("use input.goal as goal", "use nope as goal\n        use gone"))
    expected = (
        "u.as:9:13: error[UNKNOWN_IDENTIFIER]: Unknown identifier 'nope'\n        use nope as goal\n            ^\n"
        "u.as:10:13: error[UNKNOWN_IDENTIFIER]: Unknown identifier 'gone'\n        use gone\n            ^\n"
    )
    assert _run(capsys, "check", "u.as") == (1, "", expected)
    assert _run(capsys, "u.as", "--input", "{}") == (1, "", expected)


def test_a_missing_program_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = _run(capsys, "check", str(tmp_path / "nope.as"))
    assert (code, err) == (1, f"asrender: {tmp_path / 'nope.as'}: no such file\n")


def test_rendering_a_prompt_file_does_not_import_the_language() -> None:
    import subprocess

    code = (
        "import sys; from promptwire.frontend.asrender.cli import main; import promptwire.frontend as f; "
        "print(sorted(m for m in sys.modules if m.startswith('promptwire.frontend.') and m.split('.')[-1] in "
        "('lexer', 'parser', 'analyzer', 'language')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


TC09 = DATA / "valid" / "tc09_retry.as"


def test_a_program_is_the_main_form_and_prints_one_block_per_model_call(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text('["not json at all"]', encoding="utf-8")
    code, out, err = _run(capsys, str(TC09), "--input", '{"text": "Buy now!!!"}', "--responses", str(replies))
    assert (code, err) == (0, "")
    heads = [line for line in out.splitlines() if line.startswith("=== ")]
    assert heads == [
        f"=== {TC09}:10:9 agent A attempt 1 ===",
        f"=== {TC09}:10:9 agent A attempt 2 ===",
        "=== value ===",
        "=== 1 call, 2 attempts, answered offline ===",
    ]
    # Under the first attempt's prompt, its reply and why it was rejected; the second's mock value.
    assert (
        "--- reply ---\nnot json at all\n--- rejected ---\nLLM provider did not return JSON: not json at all\n" in out
    )


def test_json_output_is_one_object_per_model_call(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "render", str(TC09), "--input", '{"text": "x"}', "-f", "messages", "-O", "json")
    assert code == 0
    (call,) = json.loads(out)
    assert list(call)[:6] == ["site", "agent", "attempt", "schema", "format", "messages"]
    assert call["schema"]["required"] == ["label", "confidence"]


def test_trace_output_is_value_and_trace(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(TC09), "--input", '{"text": "x"}', "-O", "trace")
    assert code == 0
    data = json.loads(out)
    assert data["value"] == {"label": "", "confidence": 0}
    assert [event["kind"] for event in data["trace"]] == ["use", "generate"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--input", "[1]"], "--input must be a JSON object"),
        (["--input", "{bad"], "--input:1:2: invalid JSON"),
        (["--agent", "Nope"], "Unknown agent 'Nope'"),
    ],
)
def test_bad_program_options_are_clear_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, str(TC09), *argv)
    assert code == 1
    assert message in err
    assert "internal error" not in err


def test_program_options_are_refused_for_prompt_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    prompt = tmp_path / "p.yaml"
    prompt.write_text("instruction: hi\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main([str(prompt), "--input", "{}"])
    assert exit_info.value.code == 2
    assert "--input apply to .as programs only" in capsys.readouterr().err


def test_running_a_program_imports_no_sdk_schema_template_or_yaml_module() -> None:
    import subprocess

    code = (
        "import sys; from promptwire.frontend.asrender.cli import main; "
        f"main([{str(TC09)!r}, '--input', '{{\"text\": \"x\"}}', '-f', 'messages']); "
        "heavy = {'openai', 'anthropic', 'ollama', 'jsonschema', 'jinja2', 'yaml', 'httpx'}; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stderr.strip() == "[]"


def test_program_input_numbers_are_read_as_javascript_reads_them(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, str(TC09), "--input", '{"text": 12345678901234567890}', "-O", "json")
    assert code == 0
    (call,) = json.loads(out)
    assert "12345678901234567000" in call["messages"][1]["content"]


@pytest.mark.parametrize(("levels", "ok"), [(900, True), (3000, False)])
def test_a_deep_returned_value_prints_or_says_why_not(
    levels: int, ok: bool, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    program = tmp_path / "deep.as"
    program.write_text(
        'import llm M from "openai://gpt-4o"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        f"    main func(input) {{\n        x = []\n        repeat * {levels} {{\n            x = [x]\n        }}\n"
        "        x\n    }\n}\n",
        encoding="utf-8",
    )
    code, out, err = _run(capsys, str(program), "-O", "trace")
    if ok:
        assert (code, err) == (0, "")
        assert json.loads(out)["value"] is not None
    else:
        assert (code, out) == (1, "")
        assert err == "asrender: the value or trace is nested deeper than 1000 levels; it cannot be printed\n"


def _duplicate_parameters(count: int) -> str:
    return "main agent A {\n    main func(" + " ".join(["a"] * count) + ") {\n    }\n}\n"


def test_thousands_of_diagnostics_print_the_first_hundred_and_count_the_rest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    program = tmp_path / "dup.as"
    program.write_text(_duplicate_parameters(5000), encoding="utf-8")
    code, out, err = _run(capsys, "check", str(program))
    assert (code, out) == (1, "")
    heads = [line for line in err.splitlines() if ": error[DUPLICATE_PARAM]: " in line]
    assert len(heads) == MAX_SHOWN_DIAGNOSTICS
    assert err.endswith(f"\n... {4999 - MAX_SHOWN_DIAGNOSTICS} more errors not shown (4999 in all)\n")
    # Each block shows a window of the 10 kB line, not all of it: the output is the cap's size.
    assert len(err) < MAX_SHOWN_DIAGNOSTICS * (3 * SHOWN_WIDTH)
    # The library keeps every finding, in both forms.
    diagnostics = check(program.read_text(encoding="utf-8"))
    assert len(diagnostics) == 4999
    with pytest.raises(CheckError) as caught:
        ensure_valid(parse(program.read_text(encoding="utf-8"), str(program)))
    assert len(caught.value.diagnostics) == 4999
    assert len(caught.value.reference_message.splitlines()) == 4999
    assert str(caught.value).endswith("(4999 in all)")


def test_a_caret_on_a_long_line_points_into_a_window_of_it() -> None:
    line = "x" * 1000 + "\U0001f600" + "y" * 500 + "\tHERE" + "z" * 1000
    column = len(line[: line.index("HERE")].encode("utf-16-le")) // 2 + 1  # UTF-16 units, the emoji is two
    shown, padding = shown_line(line, column)
    assert shown.startswith("...") and shown.endswith("...")
    assert len(shown) == SHOWN_WIDTH + 6
    assert shown[len(padding) :].startswith("HERE")
    assert padding.endswith("\t")  # the tab before HERE stays a tab, so the caret lands under H
    short = "ab\U0001f600cd"
    assert shown_line(short, 5) == (short, "   ")  # 'c' is at UTF-16 column 5: a, b, and the emoji's two units


def test_parse_writes_a_number_json_cannot_hold_as_null(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    program = tmp_path / "inf.as"
    program.write_text("main agent A {\n    main func(input) {\n        x = 1e999\n    }\n}\n", encoding="utf-8")
    code, out, err = _run(capsys, "parse", str(program))
    assert (code, err) == (0, "")
    assert "Infinity" not in out
    (statement,) = json.loads(out)["agents"][0]["functions"][0]["body"]
    assert statement["value"]["kind"] == "Number"
    assert statement["value"]["value"] is None
    assert statement["value"]["raw"] == "1e999"


def test_a_large_tree_is_written_in_pieces_of_bounded_size() -> None:
    source = "main agent A {\n    main func(input) {\n        x = [" + "1 " * 50_000 + "]\n    }\n}\n"
    pieces: list[str] = []
    write_json(parse(source), pieces.append)
    assert len(pieces) > 10
    assert max(len(piece) for piece in pieces) < 2**17
    assert json.loads("".join(pieces)) == to_json(parse(source))
