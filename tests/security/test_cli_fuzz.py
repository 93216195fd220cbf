"""``asrender`` fuzzed through its entry point, ``frontend.asrender.cli.main``: whatever the command
line and whatever the program, the exit status is 0, 1 or 2 and stderr is plain lines (each
``asrender: ...``, a located error block, a debug block or a snapshot's ``NAME: cannot render``
head), never a traceback, never ``internal error``, never a raw control, never past the alarm.

Two targets: random command lines (every flag of every command, with hostile values, over a folder
of fixtures), and random ``.as`` sources (token soup around hostile imports and ``debug: true``)
checked and run. ``PROMPTWIRE_FUZZ_EXAMPLES=20000`` runs that many of each; otherwise the number
of examples is the Hypothesis profile's (``HYPOTHESIS_PROFILE``, when the conftest registers one).
``asrender serve`` is left out: it serves until stopped (its bounds are tested on their own).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from promptwire.frontend.asrender.cli import _parser

from fuzzing import asrender, check_stderr
from hypothesis_profile import fuzz_examples

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FUZZ_EXAMPLES = fuzz_examples()
"""How many inputs each target tries: ``PROMPTWIRE_FUZZ_EXAMPLES`` for a volume run, else the profile's."""


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder of things to name on a command line: programs (good, broken, with a debug block),
    prompt files, inputs, replies, a folder of programs, an empty file; the fuzz runs from it, with
    every provider pointed at a closed port (nothing leaves the machine)."""
    folder = tmp_path_factory.mktemp("cli-fuzz")
    for name in ("strict-invoice", "evidence-qa", "lessons"):
        for suffix in (".as", ".input.json", ".responses.json"):
            (folder / f"{name}{suffix}").write_bytes((EXAMPLES / f"{name}{suffix}").read_bytes())
    (folder / "support-ticket.yaml").write_bytes((EXAMPLES / "support-ticket.yaml").read_bytes())
    (folder / "prompt.json").write_text(json.dumps({"instruction": "hi\x1b[2J", "config": {"debug": True}}))
    (folder / "broken.as").write_text("main agent A {\n  main func() { generate( }\n}\n")
    (folder / "debug.as").write_text(
        (EXAMPLES / "strict-invoice.as").read_text().replace("attempts: 3", "attempts: 3, debug: true")
    )
    (folder / "empty.yaml").write_text("")
    (folder / "programs").mkdir()
    for name in ("strict-invoice.as", "broken.as"):
        (folder / "programs" / name).write_bytes((folder / name).read_bytes())
    previous = Path.cwd()
    os.chdir(folder)
    saved = {name: os.environ.get(name) for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OLLAMA_HOST")}
    os.environ.update(
        OPENAI_BASE_URL="http://127.0.0.1:1/v1", ANTHROPIC_BASE_URL="http://127.0.0.1:1", OLLAMA_HOST="127.0.0.1:1"
    )
    try:
        yield folder
    finally:
        os.chdir(previous)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


FILES = [
    "strict-invoice.as", "evidence-qa.as", "lessons.as", "debug.as", "broken.as", "support-ticket.yaml",
    "prompt.json", "empty.yaml", "strict-invoice.input.json", "evidence-qa.responses.json", "programs",
    "missing.as", "missing.yaml", "-", "/dev/null", "/proc/self/environ", ".", "",
]  # fmt: skip
HOSTILE = ["", "-", "--", "0", "-1", "A\x1b[2J\nasrender: forged", "\u202e", "\udc80", "\x00", "x" * 300]
VALUES: dict[str, list[str]] = {
    "--format": ["agentscript", "agens", "agently", "messages", "conversation", "template", "nope"],
    "--from": [
        "prompt",
        "agens",
        "agently",
        "openai-chat",
        "openai-responses",
        "anthropic",
        "ollama",
        "gemini",
        "bedrock",
        "nope",
    ],
    "--output": ["display", "json", "text", "trace", "nope"],
    "--input": ["{}", '{"invoice": "x"}', '{"question": 1}', "[]", "null", '{"a":', "1e999", '{"a": "\udc80"}'],
    "--input-file": FILES,
    "--responses": FILES,
    "--allow-read": ["/", ".", "programs", "/proc", "missing"],
    "--allow-write": [".", "/", "out.txt"],
    "--allow-env": ["HOME", "OPENAI_API_KEY", "A,B", ","],
    "--allow-net": ["api.example.com", "https://api.example.com", "ftp://x", "127.0.0.1:1", "*", "http://[::1", ","],
    "--agent": ["Extractor", "Nope", "main"],
    "--function": ["main", "nope"],
    "--provider": ["openai", "anthropic", "ollama", "openai-responses", "offline", "nope"],
    "--model": ["gpt-4o-mini", "e400", "x"],
    "--timeout": ["0.01", "1", "1e999", "nan", "inf", "soon"],
    "--option": ["layout=agens", "strict=true", "clock=1", "template=missing.txt", "x=y", "=", "key"],
    "--max-input-size": ["99999999999G", "1K", "64M", "64G", "65G", "lots", "K", "1"],
    "--label-rule": ["release", "late", "nope"],
    "--port": ["0", "-1", "99999", "x"],
}


def _commands() -> dict[str, list[argparse.Action]]:
    """Each command's options, as its parser declares them (``[]``: the ``asrender FILE`` form)."""
    subparsers = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    commands = {name: [a for a in sub._actions if a.option_strings] for name, sub in subparsers.choices.items()}
    commands.pop("serve")  # it serves until stopped
    return commands


COMMANDS = _commands()


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    """Mostly the options of the command drawn, with values for each (plausible or hostile); now and
    then any option, a stray argument, or ``--flag=value``."""
    name = draw(st.sampled_from([*COMMANDS, "FILE"]))
    options = COMMANDS["render" if name == "FILE" else name]
    argv: list[str] = [] if name == "FILE" else [name]
    if draw(st.integers(0, 9)):
        argv.append(draw(st.sampled_from(FILES)))
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.integers(0, 9)) == 0:
            argv.append(draw(st.sampled_from(HOSTILE) | st.text(max_size=8) | st.sampled_from(["--nope", "-x"])))
            continue
        pool = options if draw(st.integers(0, 9)) else [a for actions in COMMANDS.values() for a in actions]
        action = draw(st.sampled_from(pool))
        flag = draw(st.sampled_from(action.option_strings))
        if action.nargs == 0:
            argv.append(flag)
            continue
        value = draw(st.sampled_from(VALUES.get(action.option_strings[-1], FILES)) | st.sampled_from(HOSTILE))
        argv += [f"{flag}={value}"] if flag.startswith("--") and draw(st.booleans()) else [flag, value]
    return argv


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command_lines())
def test_any_command_line_ends_in_a_known_status_and_plain_lines(fixtures: Path, argv: list[str]) -> None:
    if "--update" in argv:
        argv = [arg for arg in argv if arg != "--update"]  # the fixtures stay as they are
    code, _, err = asrender(argv, stdin=b"instruction: from stdin\n")
    assert code in (0, 1, 2), (argv, code, err)
    check_stderr(err)
    event(f"exit {code}")


FRAGMENTS = [
    "{", "}", "(", ")", "[", "]", ".", ",", ":", "=", "==", "->", "<", "not", "use", "max", "as", "2k", "1e999",
    '"s"', "'", '"', "\\", "\n", "generate", "main", "agent", "func", "import", "model", "role", "if", "else",
    "for", "in", "loop", "until", "repeat", "*", "return", "-", "//", "#", "input", "debug: true", "M", "A",
    '"\x1b[2J\nasrender: forged"', '"\u202e"', '"\x85\r"', "\x1b", "\u2028",
    'import agent X from "/proc/self/environ"\n', 'import agent X from "../../etc/passwd"\n',
    'import agent X from "p.as"\n', 'import file F from "/etc/passwd"\n', 'import tool T from "file://."\n',
    'import tool E from "env://"\n', 'import memory N from "file://n.jsonl"\n', 'import llm M from "openai://x"\n',
    'T.read({ path: "/etc/passwd" })', 'E.get({ name: "HOME" })', 'N.add({ text: "x" })',
]  # fmt: skip
SKELETON = """\
import llm M from "openai://gpt-4o-mini"
main agent A {{
    model M
    role "R"
    description "D"
    main func(input) {{
        {body}
    }}
}}
"""


STRINGS = ['"x"', '"\x1b[2J\\nasrender: forged"', '"\u202e\u2028\x85\r"', '"<script>"', '""']
STATEMENTS = [
    "generate({{ input: {s} }})",
    "generate({{ input: {s}, debug: true }})",
    "generate({{ input: {s}, debug: true, attempts: 2 }}) -> {{ answer string }}",
    "use {s} as {s2}",
    "use input max 1 as notes",
    "x = {s}",
    "T.read({{ path: {s} }})",
    "T.list({{ path: {s} }})",
    "E.get({{ name: {s} }})",
    "N.add({{ text: {s} }})",
    "N.query({{ text: {s}, limit: 1e400 }})",
    "X()",
    "F",
    "helper",
]
IMPORTS = [
    'import file F from "/etc/passwd"', 'import file F from "p.as"', 'import agent X from "/proc/self/environ"',
    'import agent X from "../x.as"', 'import agent X from "strict-invoice.as"', 'import tool H from "http://127.0.0.1:1"',
]  # fmt: skip


USED = ['import tool T from "file://."', 'import tool E from "env://"', 'import memory N from "file://n.jsonl"']
"""The imports the statements use, in every structured program (the drawn ones add hostile files)."""


@st.composite
def sources(draw: st.DrawFn) -> str:
    """A third token soup, a third a program of statements with hostile strings and imports, a third
    such a program damaged by a few inserted fragments."""
    kind = draw(st.integers(0, 2))
    if kind == 0:
        soup = " ".join(draw(st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=40)))
        return soup if draw(st.booleans()) else SKELETON.format(body=soup)
    lines = [
        draw(st.sampled_from(STATEMENTS)).format(
            s=draw(st.sampled_from(STRINGS)), s2=draw(st.sampled_from(["a", "b c"]))
        )
        for _ in range(draw(st.integers(1, 5)))
    ]
    extra = draw(st.lists(st.sampled_from(IMPORTS), max_size=2, unique_by=lambda line: line.split()[2]))
    imports = "\n".join([*USED, *extra])
    text = imports + "\n" + SKELETON.format(body="\n        ".join(lines))
    if kind == 2:
        for _ in range(draw(st.integers(1, 3))):
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.sampled_from(FRAGMENTS)) + text[at:]
    return text


@settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sources(), st.sampled_from([[], ["-O", "trace"], ["--allow-read", "/"], ["--provider", "openai", "--dry-run"]]))
def test_any_program_is_checked_and_run_to_a_known_status_and_plain_lines(
    fixtures: Path, source: str, flags: list[str]
) -> None:
    (fixtures / "p.as").write_text(source, encoding="utf-8", errors="surrogatepass")
    for argv in (["check", "p.as"], ["p.as", *flags]):
        code, _, err = asrender(argv)
        assert code in (0, 1, 2), (source, argv, code, err)
        check_stderr(err)
        event(f"{argv[0]}: exit {code}")
    (fixtures / "n.jsonl").unlink(missing_ok=True)
