"""What a newcomer meets in the first hour (issue 38): a program on stdin, a check that says it
passed, a closed pipe that is no error, exit status 2 for every bad flag, plain words for an empty
prompt file, the formats in ``batch --help``, and a typo in ``PROMPTWIRE_PLUGINS`` said."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from promptwire.frontend.asrender.cli import main
from promptwire.runs.inputs import starts_a_program

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROGRAM = (EXAMPLES / "evidence-qa.as").read_text(encoding="utf-8")
INPUT = '{"question": "Which version?", "evidence": "0.3.0 shipped.", "notes": "none"}'


def _asrender(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))


@pytest.mark.parametrize(
    ("text", "program"),
    [
        (PROGRAM, True),
        ("// a comment first\n\nmain agent A {\n}\n", True),
        ("\ufeffagent B {}", True),
        ('{"instruction": "Say hi."}', False),
        ("instruction: Say hi.\n", False),
        ("import: x\n", False),  # a YAML key, not the keyword
        ("agents: []\n", False),
        ("", False),
    ],
)
def test_a_program_on_stdin_is_told_from_prompt_data_by_its_first_word(text: str, program: bool) -> None:
    assert starts_a_program(text) is program


def test_a_program_on_stdin_runs_as_a_program(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _stdin(monkeypatch, PROGRAM)
    input_file = str(EXAMPLES / "evidence-qa.input.json")
    code, out, err = _asrender(capsys, "-", "--input-file", input_file, "--output", "json")
    assert (code, err) == (0, "")
    assert '"site": "<stdin>:12:18"' in out
    _stdin(monkeypatch, '{"instruction": "Say hello."}')
    assert _asrender(capsys, "-") == (0, "--- user ---\nInstruction:\nSay hello.\n", "")


def test_check_says_a_clean_program_passed(capsys: pytest.CaptureFixture[str]) -> None:
    program = str(EXAMPLES / "evidence-qa.as")
    assert _asrender(capsys, "check", program) == (0, f"{program}: ok, no diagnostics\n", "")


def test_a_reader_that_stops_reading_is_no_error() -> None:
    """``asrender ... | head``: the pipe's reader is gone before the output is written; asrender
    ends quietly with status 0, as Unix tools do."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write to the pipe now fails with EPIPE, at once and every time
    try:
        done = subprocess.run(
            [sys.executable, "-m", "promptwire", "evidence-qa.as"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            cwd=EXAMPLES,
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (
        0,
        "asrender: using evidence-qa.input.json and evidence-qa.responses.json, found beside the program "
        "(give --input-file or --responses for others)\n",
    )


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--format", "nope"], "--format: unknown renderer 'nope' (available: "),
        (["--provider", "nosuch"], "--provider: unknown adapter 'nosuch' (available: "),
        (["--from", "nope"], "--from: unknown reader 'nope' (available: "),
        (["-o", "strict=yes"], '-o strict takes true or false, got "yes"'),
        (["-f", "messages", "-o", "layout=nope"], "-o layout: unknown renderer 'nope' (available: "),
        (["--output", "xml"], "argument --output/-O: invalid choice: 'xml'"),
    ],
)
@pytest.mark.parametrize("file", ["support-ticket.yaml", "evidence-qa.as"])
def test_every_bad_flag_exits_2(
    file: str, flags: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if file.endswith(".as") and flags[0] == "--from":
        return  # a program has no reader
    monkeypatch.chdir(EXAMPLES)
    with pytest.raises(SystemExit) as exited:
        main([file, *flags])
    out, err = capsys.readouterr()
    assert (exited.value.code, out) == (2, "")
    assert err.startswith(f"asrender: error: {message}")
    assert len(err.splitlines()) == 1  # said before anything is read or run


@pytest.mark.parametrize(
    ("flags", "meant"),
    [
        (["--from", "openai"], "did you mean 'openai-chat' or 'openai-responses'?"),
        (["--format", "agentscrip"], "did you mean 'agentscript'?"),
        (["--provider", "antropic"], "did you mean 'anthropic'?"),
    ],
)
def test_a_name_close_to_a_known_one_is_offered(
    flags: list[str], meant: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EXAMPLES)
    with pytest.raises(SystemExit) as exited:
        main(["support-ticket.yaml", *flags])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert err.startswith(f"asrender: error: {flags[0]}: unknown ")
    assert f"; {meant} (available: " in err


def test_snapshot_and_batch_refuse_an_unknown_format_as_a_bad_command_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"instruction": "x"}\n', encoding="utf-8")
    for argv in (
        ["snapshot", str(tmp_path), "-f", "nope"],
        ["batch", str(rows), "--out", str(tmp_path / "o"), "-f", "nope"],
    ):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
        assert capsys.readouterr().err.startswith("asrender: error: --format: unknown renderer 'nope'")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "prompt: the document is empty; prompt data is a mapping of Prompt fields (instruction, context, ...)"),
        ("# only a comment\n", "prompt: the document is empty; prompt data is a mapping of Prompt fields"),
        ("- a\n- b\n", "prompt: must be a mapping of Prompt fields (instruction, context, ...), not list"),
    ],
)
def test_a_prompt_file_that_is_no_mapping_is_said_plainly(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    code, out, err = _asrender(capsys, str(path))
    assert (code, out) == (1, "")
    assert err.startswith(f"asrender: {path}: {message}")
    assert "Input should be" not in err and "<root>" not in err


def test_batch_help_lists_the_formats(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["batch", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert (
        "the format of each call's prompt in the results: agentscript, agens, agently, messages, conversation, template"
        in help_text
    )


def test_an_allow_list_name_no_plugin_has_is_a_warning(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptwire.plugins.manager import default_host

    monkeypatch.setenv("PROMPTWIRE_PLUGINS", "nope")
    default_host.cache_clear()
    try:
        code, out, err = _asrender(capsys, "plugins")
    finally:
        default_host.cache_clear()
    assert (code, err) == (0, "asrender: warning: PROMPTWIRE_PLUGINS names 'nope', which no installed plugin is\n")
    assert out.startswith("promptwire ")


def test_a_refused_connection_under_auto_names_where_it_tried(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--provider auto`` with the ``--base-url`` of an ``ollama://`` model forgotten: the error
    says which URL was refused (here: a closed port given for openai://, the program's scheme)."""
    import socket

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.chdir(EXAMPLES)
    code, _, err = _asrender(
        capsys, "evidence-qa.as", "--provider", "auto", "--base-url", f"openai=http://u:pw@127.0.0.1:{port}/v1"
    )
    assert code == 1
    assert err.splitlines()[-1].startswith("asrender: ProviderConnectionError [openai]: LLM provider request failed: ")
    assert err.splitlines()[-1].endswith(f"; tried http://***@127.0.0.1:{port}/v1/chat/completions")


@pytest.mark.parametrize(
    "argv",
    [
        ["--format", "messages", str(EXAMPLES / "evidence-qa.as")],
        ["-f", "messages", "--input", INPUT, str(EXAMPLES / "evidence-qa.as")],
        [f"--input={INPUT}", "--format=messages", "-O", "json", str(EXAMPLES / "evidence-qa.as")],
    ],
)
def test_flags_may_come_before_the_file(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    """``asrender --format messages FILE`` is the main form as ``asrender FILE --format messages`` is
    (it was refused as an unknown command 'messages')."""
    before = _asrender(capsys, *argv)
    file = argv[-1]
    after = _asrender(capsys, file, *argv[:-1])
    assert before == after and before[0] == 0 and before[1]


def test_asrenders_own_flags_stay_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0 and capsys.readouterr().out.startswith("asrender ")
    with pytest.raises(SystemExit) as exit:
        main(["--help"])
    assert exit.value.code == 0 and "COMMAND" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit:
        main(["--bogus", "x.as"])
    assert exit.value.code == 2 and "unrecognized arguments: --bogus" in capsys.readouterr().err
