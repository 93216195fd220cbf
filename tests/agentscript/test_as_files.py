"""Programs that span files: ``import agent X from "p.as"``.

A program is checked as it runs (``asrender check`` merges imported agents the way a run does), and
everything it reports names the file the code is in: call sites in the display, ``--output json``,
the trace's ``notes`` events, the inspector and ``asrender snapshot``; parse, check, import and
runtime errors, with that file's line under them. An imported file is named as the user would type
it: the folder of the importing file's name joined with the import's path.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire.frontend.asrender.cli import main
from promptwire.frontend.asrender.inspector.state import program_state

from hypothesis_profile import examples

CRITIC = """\
import llm M from "openai://gpt-4o"

agent Critic {
    model M
    role "Critic"
    description "Finds problems."

    main func(draft) {
        use draft as draft
        generate({ input: "List the problems.", temperature: 0.2 }) -> {
            problems list[string]
        }
    }
}
"""

MAIN = """\
import llm M from "openai://gpt-4o"
import agent Critic from "./critic.as"

main agent Editor {
    model M
    role "Editor"
    description "Edits."

    main func(input) {
        review = Critic(input.draft)
        review.problems
    }
}
"""

INPUT = '{"draft": "A huge fire."}'


@pytest.fixture
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``desk/main.as`` importing ``desk/critic.as``, run from the folder above ``desk``."""
    folder = tmp_path / "desk"
    folder.mkdir()
    (folder / "main.as").write_text(MAIN, encoding="utf-8")
    (folder / "critic.as").write_text(CRITIC, encoding="utf-8")
    (folder / "notes.md").write_text("Notes.", encoding="utf-8")
    (folder / "main.input.json").write_text(INPUT, encoding="utf-8")  # for the inspector and snapshot
    monkeypatch.chdir(tmp_path)
    return folder


def _asrender(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# --- check is the run's loading --------------------------------------------------------------


def test_a_program_that_runs_checks_clean(desk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It used to fail: "Agent 'Critic' has no callable main func", since check never read critic.as.
    assert _asrender(capsys, "check", "desk/main.as") == (0, "desk/main.as: ok, no diagnostics\n", "")
    assert _asrender(capsys, "desk/main.as", "--input", INPUT)[0] == 0


def test_check_resolves_imports_without_loading_the_runtime(desk: Path) -> None:
    # The start-up of check stays light: merging imported agents needs the parser and checks only.
    code = (
        "import sys; from promptwire.frontend.asrender.cli import main; status = main(['check', 'desk/main.as']); "
        "loaded = [m for m in ('promptwire.frontend.agentscript.interpreter', 'promptwire.runs.run', "
        "'promptwire.calls.generate') if m in sys.modules]; print(status, loaded)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=desk.parent)
    assert (done.stdout, done.stderr) == ("desk/main.as: ok, no diagnostics\n0 []\n", "")


ERRORS = {
    "parse error": (
        ("critic.as", "use draft as draft", "use draft as draft\n        x = ("),
        "desk/critic.as:10:13: error[PARSE_ERROR]: Expected expression\n        x = (\n            ^\n",
    ),
    "check error": (
        ("critic.as", "use draft as draft", "use drafts as draft"),
        "desk/critic.as:9:13: error[UNKNOWN_IDENTIFIER]: Unknown identifier 'drafts'\n"
        "        use drafts as draft\n            ^\n",
    ),
    "circular import": (
        ("critic.as", "\n\nagent Critic", '\nimport agent Editor from "./main.as"\n\nagent Critic'),
        "desk/critic.as:2:1: error[IMPORT_ERROR]: Circular agent import './main.as'\n"
        'import agent Editor from "./main.as"\n^\n',
    ),
    "agent not defined there": (
        ("critic.as", "agent Critic {", "agent Checker {"),
        "desk/main.as:2:1: error[IMPORT_ERROR]: Agent 'Critic' is not defined in './critic.as'\n"
        'import agent Critic from "./critic.as"\n^\n',
    ),
    "missing file": (
        ("main.as", '"./critic.as"', '"./critics.as"'),
        "desk/main.as:2:1: error[IMPORT_ERROR]: Cannot read agent file './critics.as': no such file\n"
        'import agent Critic from "./critics.as"\n^\n',
    ),
}


@pytest.mark.parametrize("case", ERRORS)
def test_an_imported_file_fails_check_as_it_fails_the_run_located_in_its_file(
    case: str, desk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (name, old, new), expected = ERRORS[case]
    _edit(desk / name, old, new)
    assert _asrender(capsys, "check", "desk/main.as") == (1, "", expected)
    assert _asrender(capsys, "desk/main.as", "--input", INPUT) == (1, "", expected)


def test_an_imported_file_that_checks_alone_may_fail_in_the_program(
    desk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # critic.as is fine alone, but main.as's own Notes (a tool) wins the name in the program both
    # make up: the finding is in critic.as, not in the main program checked.
    _edit(desk / "critic.as", "\n\nagent", '\nimport file Notes from "./notes.md"\n\nagent')
    _edit(desk / "critic.as", "use draft as draft", "use Notes as notes")
    _edit(desk / "main.as", "\nimport agent", '\nimport tool Notes from "sh://grep"\nimport agent')
    assert _asrender(capsys, "check", "desk/critic.as") == (0, "desk/critic.as: ok, no diagnostics\n", "")
    expected = (
        "desk/critic.as:10:13: error[INVALID_USE_RESOURCE]: Resource 'Notes' cannot be used as prompt context\n"
        "        use Notes as notes\n            ^\n"
    )
    assert _asrender(capsys, "check", "desk/main.as") == (1, "", expected)
    assert _asrender(capsys, "desk/main.as", "--input", INPUT) == (1, "", expected)


def test_a_runtime_error_in_an_imported_agent_shows_its_file_and_line(
    desk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _edit(desk / "critic.as", "use draft as draft", "for line in draft max 3 {\n        }")
    assert _asrender(capsys, "check", "desk/main.as") == (0, "desk/main.as: ok, no diagnostics\n", "")
    assert _asrender(capsys, "desk/main.as", "--input", INPUT) == (
        1,
        "",
        "desk/critic.as:9:21: error[RUNTIME_ERROR]: for ... in requires a list value\n"
        "        for line in draft max 3 {\n                    ^\n",
    )


def test_a_call_to_an_imported_agent_that_fails_is_located_at_the_call(
    desk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The arity of a call is the caller's fault: main.as, where the call is written.
    _edit(desk / "main.as", "Critic(input.draft)", "Critic(input.draft, 2)")
    expected = (
        "desk/main.as:10:18: error[INVALID_ARGUMENT_COUNT]: Function 'Critic.__main' expects 1 argument(s), got 2\n"
        "        review = Critic(input.draft, 2)\n                 ^\n"
    )
    assert _asrender(capsys, "check", "desk/main.as") == (1, "", expected)
    assert _asrender(capsys, "desk/main.as", "--input", INPUT) == (1, "", expected)


def test_imports_of_imports_are_named_from_the_main_programs_folder(
    desk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # main.as -> lib/middle.as -> lib/deep/critic.as, each path relative to the file that writes it.
    # An imported agent brings its file's other imports but not the agents that file imports (as
    # in AgentScript), so main.as imports Critic too; middle.as, a program of two agents, names
    # its main one.
    (desk / "lib" / "deep").mkdir(parents=True)
    (desk / "critic.as").rename(desk / "lib" / "deep" / "critic.as")
    middle = MAIN.replace("Editor", "Middle").replace("input.draft", "input").replace("./critic.as", "deep/critic.as")
    (desk / "lib" / "middle.as").write_text(middle, encoding="utf-8")
    _edit(
        desk / "main.as",
        'import agent Critic from "./critic.as"',
        'import agent Middle from "lib/middle.as"\nimport agent Critic from "lib/deep/critic.as"',
    )
    _edit(desk / "main.as", "Critic(input.draft)\n        review.problems", "Middle(input.draft)\n        review")
    assert _asrender(capsys, "check", "desk/main.as") == (0, "desk/main.as: ok, no diagnostics\n", "")
    code, out, _ = _asrender(capsys, "desk/main.as", "--input", INPUT)
    assert (code, out.partition("\n")[0]) == (0, "=== desk/lib/deep/critic.as:10:9 agent Critic attempt 1 ===")
    _edit(desk / "lib" / "deep" / "critic.as", "use draft as draft", "use draft as draft\n        x = (")
    expected = "desk/lib/deep/critic.as:10:13: error[PARSE_ERROR]: Expected expression\n        x = (\n            ^\n"
    assert _asrender(capsys, "check", "desk/main.as") == (1, "", expected)  # met first through middle.as
    assert _asrender(capsys, "desk/main.as", "--input", INPUT) == (1, "", expected)


def test_an_absolute_main_path_names_imported_files_absolutely(desk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _asrender(capsys, str(desk / "main.as"), "--input", INPUT)
    assert code == 0
    assert out.startswith(f"=== {desk / 'critic.as'}:10:9 agent Critic attempt 1 ===\n")


# --- call sites name the file of their generate ----------------------------------------------


def test_call_sites_name_the_imported_file_in_every_output(desk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _asrender(capsys, "desk/main.as", "--input", INPUT)
    assert code == 0
    assert out.startswith("=== desk/critic.as:10:9 agent Critic attempt 1 ===\n")
    code, out, _ = _asrender(capsys, "desk/main.as", "--input", INPUT, "--output", "json")
    assert [call["site"] for call in json.loads(out)] == ["desk/critic.as:10:9"]
    code, out, _ = _asrender(
        capsys, "desk/main.as", "--input", INPUT, "--provider", "anthropic", "--dry-run", "--output", "trace"
    )
    (agent_call,) = json.loads(out)["trace"]
    notes = [event for event in agent_call["data"]["trace"] if event["kind"] == "notes"]
    assert [event["data"]["site"] for event in notes] == ["desk/critic.as:10:9"]  # temperature dropped


def test_the_inspector_names_the_imported_file(desk: Path) -> None:
    state = program_state(desk.parent, "desk/main.as")
    assert state["error"] is None
    assert [(call["site"], call["title"]) for call in state["calls"]] == [
        ("desk/critic.as:10:9", "=== desk/critic.as:10:9 agent Critic attempt 1 ===")
    ]
    _edit(desk / "critic.as", "use draft as draft", "use drafts as draft")
    error = program_state(desk.parent, "desk/main.as")["error"]
    assert (error["file"], error["line"], error["column"]) == ("desk/critic.as", 9, 13)
    assert [(d["file"], d["code"]) for d in error["diagnostics"]] == [("desk/critic.as", "UNKNOWN_IDENTIFIER")]
    assert error["text"].startswith("desk/critic.as:9:13: error[UNKNOWN_IDENTIFIER]")


def test_snapshot_stores_the_imported_file_in_the_site(desk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _asrender(capsys, "snapshot", "desk", "--update")
    assert (code, err) == (0, "")
    stored = (desk / "__prompts__" / "main.as.agentscript.txt").read_text(encoding="utf-8")
    assert stored.startswith("=== critic.as:10:9 agent Critic attempt 1 ===\n")  # as `cd desk && asrender main.as`
    _edit(desk / "critic.as", "use draft as draft", "use draft as draft\n        x = (")
    code, _, err = _asrender(capsys, "snapshot", "desk")
    assert code == 2
    assert "desk/main.as: cannot render\ncritic.as:10:13: error[PARSE_ERROR]: Expected expression\n" in err


# --- check and run agree on any small two-file program ---------------------------------------

CRITIC_BODIES = {
    "valid": "        use draft as draft\n        generate({ input: draft })",
    "parse error": "        x = (",
    "unknown name": "        use drafts as draft",
    "runtime error": "        for line in draft max 3 {\n        }",
    "tool clash": "        use Notes as notes",
}


@st.composite
def two_file_programs(draw: st.DrawFn) -> tuple[dict[str, str], str]:
    """Files (relative path -> text) of a main program importing one agent, and the main's path."""
    folder = draw(st.sampled_from(["", "sub/"]))
    target = draw(st.sampled_from(["critic.as", "lib/critic.as"]))
    written = draw(st.sampled_from(["./" + target, target, "missing.as"]))
    defined = draw(st.sampled_from(["Critic", "Checker"]))
    function = draw(st.sampled_from(["main func(draft)", "main func(draft, more)", "func review(draft)"]))
    body = CRITIC_BODIES[draw(st.sampled_from(sorted(CRITIC_BODIES)))]
    circular = draw(st.booleans())
    clash = draw(st.booleans())
    back = "../" * target.count("/") + "main.as"
    critic = (
        'import llm M from "openai://gpt-4o"\n'
        'import file Notes from "./notes.md"\n'
        + (f'import agent Editor from "{back}"\n' if circular else "")
        + f'agent {defined} {{\n    model M\n    role "Critic"\n    description "D."\n'
        f"    {function} {{\n{body}\n    }}\n}}\n"
    )
    call = draw(st.sampled_from(["Critic(input)", "Critic.review(input)"]))
    main_program = (
        'import llm M from "openai://gpt-4o"\n'
        + ('import tool Notes from "sh://grep"\n' if clash else "")
        + f'import agent Critic from "{written}"\n'
        + 'main agent Editor {\n    model M\n    role "Editor"\n    description "E."\n'
        f"    main func(input) {{\n        {call}\n    }}\n}}\n"
    )
    critic_folder = folder + target.rpartition("/")[0]
    files = {
        folder + "main.as": main_program,
        folder + target: critic,
        (critic_folder + "/" if critic_folder else "") + "notes.md": "notes",
    }
    return files, folder + "main.as"


def _run_quietly(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def _assert_located(err: str) -> None:
    """Every error block's head names a file whose line is the one shown under it."""
    lines = err.splitlines()
    for index, line in enumerate(lines):
        if ": error[" not in line:
            continue
        place = line.split(": error[")[0]
        file, number = place.rsplit(":", 2)[:2]
        shown = Path(file).read_text(encoding="utf-8").split("\n")[int(number) - 1]
        assert lines[index + 1] == shown, (line, shown)


@settings(max_examples=examples(0.8))
@given(two_file_programs())
def test_check_fails_exactly_when_the_run_fails_before_it_starts(program: tuple[dict[str, str], str]) -> None:
    files, main_path = program
    with contextlib.ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text, encoding="utf-8")
        stack.enter_context(contextlib.chdir(root))
        checked, check_err = _run_quietly(["check", main_path])
        ran, run_err = _run_quietly([main_path, "--input", '{"x": 1}'])
        if checked:
            assert (ran, run_err) == (checked, check_err)
        else:
            assert check_err == ""
            assert ran == 0 or ": error[RUNTIME_ERROR]: " in run_err.splitlines()[0], run_err
        _assert_located(check_err + run_err)


# --- tool and memory paths resolve the same way from anywhere --------------------------------

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE_PROGRAMS = sorted(
    path.relative_to(EXAMPLES).as_posix()
    for path in EXAMPLES.rglob("*.as")
    if not path.relative_to(EXAMPLES).as_posix().startswith("plugins/")
)


def _example_copy(root: Path) -> Path:
    shutil.copytree(EXAMPLES, root / "examples", ignore=shutil.ignore_patterns("plugins", "*.jsonl", "__prompts__"))
    return root / "examples"


@pytest.mark.parametrize("name", EXAMPLE_PROGRAMS)
def test_an_example_renders_the_same_from_any_folder(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # From the program's own folder (as its golden snapshots are made), from the repository root,
    # from a sub-folder of the examples, and from elsewhere by absolute path: tools (file://,
    # sh://) read the program's folder, memory is kept beside the program. Only the call sites
    # differ, each spelled from where the user stands.
    folder_of_program = str(Path("examples", name).parent)
    places = [
        (folder_of_program, lambda examples: ""),
        (".", lambda examples: "examples/"),
        ("examples/project/src", lambda examples: "../../"),
        (None, lambda examples: f"{examples}/"),
    ]
    outputs = []
    for index, (where, typed_examples) in enumerate(places):
        root = tmp_path / str(index)
        examples = _example_copy(root)
        program = examples / name
        folder = typed_examples(examples) + ("" if where == folder_of_program else name[: -len(program.name)])
        argv = [folder + program.name]
        for flag, kind in (("--input-file", "input"), ("--responses", "responses")):
            if program.with_name(f"{program.stem}.{kind}.json").exists():
                argv += [flag, f"{folder}{program.stem}.{kind}.json"]
        if program.stem == "lessons":  # it keeps a memory beside itself
            argv += ["--allow-write", f"{folder}lessons.jsonl"]
        monkeypatch.chdir(root / where if where is not None else tmp_path)
        code, out, err = _asrender(capsys, *argv)
        assert (code, err) == (0, ""), argv
        heads = [line for line in out.splitlines() if line.startswith("=== ")]
        assert heads[-2] == "=== value ===" and heads[-1].endswith(", answered offline ===")
        assert all(line.startswith(f"=== {folder}") for line in heads[:-2]) and heads[:-2]
        outputs.append(out.replace(f"=== {folder}", "=== "))
    assert outputs[1:] == outputs[:1] * 3


# --- a program's source is read one way -------------------------------------------------------

CRLF_CRITIC = (
    'import llm M from "openai://gpt-4o"\r\n\r\nagent Critic {\r\n    model M\r\n    role "Critic"\r\n'
    '    description "Finds\r\nproblems."\r\n\r\n    main func(draft) {\r\n        use draft as draft\r\n'
    '        generate({ input: "List\r\nthem." })\r\n    }\r\n}\r\n'
)
CRLF_MAIN = (
    'import llm M from "openai://gpt-4o"\r\nimport agent Critic from "./critic.as"\r\n\r\n'
    'main agent Editor {\r\n    model M\r\n    role "Editor"\r\n    description "Edits\r\nfirmly."\r\n\r\n'
    '    main func(input) {\r\n        use input.draft as draft\r\n        first = generate({ input: "Read\r\nit." })\r\n'
    "        Critic(input.draft)\r\n    }\r\n}\r\n"
)


def test_a_crlf_string_literal_renders_the_same_through_asrender_an_imported_agent_and_the_inspector(
    desk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It used to differ: asrender read the program's bytes, but a run of a Path (the inspector) and
    # an imported agent file went through Python's text mode, which turns \r\n into \n.
    (desk / "main.as").write_bytes(CRLF_MAIN.encode())
    (desk / "critic.as").write_bytes(CRLF_CRITIC.encode())
    code, out, err = _asrender(capsys, "desk/main.as", "--input", INPUT, "--output", "json")
    assert (code, err) == (0, "")
    calls = json.loads(out)
    users = [call["messages"][-1]["content"] for call in calls]
    systems = [call["messages"][0]["content"] for call in calls]
    assert users[0].endswith("Instruction:\nRead\r\nit.") and users[1].endswith("Instruction:\nList\r\nthem.")
    assert systems == ["You are Editor.\nEdits\r\nfirmly.", "You are Critic.\nFinds\r\nproblems."]
    page = program_state(desk, "main.as")
    assert page["error"] is None
    shown = [call["renders"]["agentscript"]["display"] for call in page["calls"]]
    assert shown == [call.split("\n", 1)[1] for call in _displays(capsys)]


def _displays(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """Each call block of ``asrender desk/main.as`` (heading line and render, without the offline
    reply under it; the value and summary after the calls left out)."""
    code, out, _ = _asrender(capsys, "desk/main.as", "--input", INPUT)
    assert code == 0
    *calls, value, summary = ["=== " + block for block in out.split("=== ")[1:]]
    assert (value.startswith("=== value ===\n"), summary) == (True, "=== 2 calls, 2 attempts, answered offline ===\n")
    return [call.partition("--- value ---\n")[0] for call in calls]
