"""Whatever text comes in, the lexer, parser and checks fail only with promptwire's own errors.

A CLI user must never see a traceback, so arbitrary text and damaged versions of real programs may
raise nothing but :class:`PromptwireError` subclasses (a ``ParseError`` for bad syntax); every program
that parses must also get through the checks and both printers. A program the checks accept must
run to a value or to one located error, through ``asrender`` itself. ``PROMPTWIRE_FUZZ_EXAMPLES``
sets every target's count for a volume run (``hypothesis_profile.fuzz_examples``).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import signal
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from promptwire.core.errors import PromptwireError
from promptwire.frontend.agentscript import check, expression_source, parse, to_json
from promptwire.frontend.agentscript.syntax import Use
from promptwire.frontend.agentscript.syntax_json import write_json
from promptwire.frontend.asrender.cli import main

from hypothesis_profile import fuzz_examples

DATA = Path(__file__).parents[1] / "data" / "as"
PROGRAMS = [path.read_text(encoding="utf-8") for path in sorted(DATA.rglob("*.as"))]
FRAGMENTS = [
    "{", "}", "(", ")", "[", "]", ".", ",", ":", "=", "==", "->", "<", "not", "use", "max", "as", "2k", "1e5",
    '"s"', "'", '"', "\\", "\n", "generate", "main", "agent", "func", "import", "model", "role", "if", "else",
    "for", "in", "loop", "until", "repeat", "*", "return", "-", "//", "#", "\U0001f600", "input",
]  # fmt: skip


def _exercise(source: str, label_rule: str = "release") -> None:
    try:
        program = parse(source, "fuzz.as", label_rule=label_rule)
    except PromptwireError:
        return
    for diagnostic in check(program):
        assert diagnostic.reference_text
    pieces: list[str] = []
    write_json(program, pieces.append)
    assert json.loads("".join(pieces)) == to_json(program)
    for agent in program.agents:
        for function in agent.functions:
            for statement in function.body:
                if isinstance(statement, Use):
                    expression_source(statement.value)


@settings(max_examples=fuzz_examples())
@given(st.text())
def test_arbitrary_text(source: str) -> None:
    _exercise(source)


@settings(max_examples=fuzz_examples())
@given(st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=3), max_size=60).map(" ".join))
def test_token_soup(source: str) -> None:
    _exercise(source)
    _exercise(source, "late")


@settings(max_examples=fuzz_examples(3))
@given(st.sampled_from(PROGRAMS), st.data())
def test_damaged_reference_programs(program: str, data: st.DataObject) -> None:
    text = program
    for _ in range(data.draw(st.integers(1, 4))):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, min(len(text), start + 12)))
        insert = data.draw(st.sampled_from(["", *FRAGMENTS]))
        text = text[:start] + insert + text[end:]
    _exercise(text)
    _exercise(text, "late")


# --- Programs that check accepts run to a value or to a located error ----------------------------
# Budget units other than k (2K, 4kb, 10tokens) are left out: the interpreter does not read them yet
# (an internal error for now, being fixed with the other fidelity facts).

LOCATED = re.compile(r"^p\.as:\d+:\d+: error\[[A-Z_]+\]: .*\n.*\n[ \t]*\^\n\Z", re.MULTILINE)
"""The end of stderr when a run fails: one located error, its source line and a caret (a generate
with ``debug: true`` writes its prompt on stderr before)."""
HOSTILE_WHOLE = ["1" + "0" * 400, "9" * 5000, "9223372036854775808", "100000000000000000000", "1000001", "0"]
HOSTILE_NUMBERS = ["1e999", *HOSTILE_WHOLE]
SHAPE_TYPES = ["string", "number", "boolean", "json", "list", "list[string]", "list[number]", "list[json]"]
IMPORTS = """\
import llm M from "openai://gpt-4o-mini"
import memory Notes from "file://./notes.jsonl"
import memory Store from "sqlite://./store.db#ns"
import tool File from "file://."
import tool Find from "sh://find"
import tool Env from "env://"
import file Doc from "./doc.txt"
"""
WORKER = """
agent W {
    model M
    role "Worker"
    description "Works on one task."
    main func(task) {
        use task as task
        generate({ input: "Work on the task." }) -> { done boolean }
    }
    func echo(x) {
        x
    }
}
"""
HELPER_BODIES = ["a", "helper(a)", "generate({ input: a }) -> { answer string }", "W.echo([a, a])"]
"""What ``helper`` does: hand back, recurse without end (a located call-depth error), ask, delegate."""
REPLIES = [{"answer": "a", "score": "0.5", "ok": "TRUE"}, "not json", "text", {"items": [1]}, [1], {"done": "no"}]
"""Canned model replies: a string is the model's raw text, anything else that JSON."""
INPUT = {"q": "What is AgentScript?", "items": [1, "two", {"three": 3}], "n": 2, "nested": {"a": {"b": [1]}}}


class _ProgramBuilder:
    """Draws one program statement by statement, keeping to names in scope, so that most programs
    pass the checks; hostile numbers are drawn where a number goes, now and then."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data
        self.scopes: list[list[str]] = [["input"]]
        self.counter = 0
        self.depth = 0

    def draw(self, strategy: st.SearchStrategy[Any]) -> Any:
        return self.data.draw(strategy)

    def chance(self, percent: int) -> bool:
        return bool(self.draw(st.integers(0, 99)) < percent)

    def names(self) -> list[str]:
        return [name for scope in self.scopes for name in scope]

    def fresh(self) -> str:
        self.counter += 1
        return f"v{self.counter}"

    def number(self, *, whole: bool = False, small: bool = False) -> str:
        if self.chance(8):
            return str(self.draw(st.sampled_from(HOSTILE_WHOLE if whole else HOSTILE_NUMBERS)))
        if small:
            return str(self.draw(st.integers(0, 3)))
        if whole:
            return str(self.draw(st.integers(0, 1000)))
        return str(self.draw(st.sampled_from(["0", "1", "2", "0.5", "2.50", "1e5", "2k", "1.5k", "3"])))

    def budget(self) -> str:
        if self.chance(8):
            return str(self.draw(st.sampled_from(HOSTILE_WHOLE)))
        return str(self.draw(st.sampled_from(["1", "5", "40", "0.01k", "2k", "1.5k", "0.0004k"])))

    def string(self) -> str:
        return json.dumps(self.draw(st.sampled_from(["x", "", "hello world", "ünï", "\U0001f600", 'q"uote'])))

    def expression(self, depth: int = 0) -> str:
        names = self.names()
        choices = ["number", "string", "literal", "name", "name", "member", "index"]
        if depth < 2:
            choices += ["list", "object", "not", "binary", "length"]
        kind = self.draw(st.sampled_from(choices))
        if kind == "number":
            return self.number()
        if kind == "string":
            return self.string()
        if kind == "literal":
            return str(self.draw(st.sampled_from(["true", "false", "none"])))
        if kind == "name":
            return str(self.draw(st.sampled_from(names)))
        if kind == "member":
            owner = self.draw(st.sampled_from(names))
            return f"{owner}.{self.draw(st.sampled_from(['q', 'items', 'n', 'nested', 'missing', 'a']))}"
        if kind == "index":
            owner = self.draw(st.sampled_from(["input.items", *names]))
            return f"{owner}[{self.number(small=True)}]"
        if kind == "length":
            return f"{self.draw(st.sampled_from(['input.items', *names]))}.length"
        if kind == "list":
            items = [self.expression(depth + 1) for _ in range(self.draw(st.integers(0, 3)))]
            return "[" + ", ".join(items) + "]"
        if kind == "object":
            keys = self.draw(st.lists(st.sampled_from(["a", "b", "text", "kind", "limit"]), max_size=3, unique=True))
            return "{ " + ", ".join(f"{key}: {self.expression(depth + 1)}" for key in keys) + " }"
        if kind == "not":
            return f"not {self.expression(depth + 1)}"
        operator = self.draw(st.sampled_from(["==", "!=", "<", "and", "or"]))
        return f"{self.expression(depth + 1)} {operator} {self.expression(depth + 1)}"

    def generate(self) -> str:
        options = [f"input: {self.expression()}"]
        if self.chance(30):
            options.append(f"max_output: {self.budget()}")
        if self.chance(30):
            options.append(f"attempts: {self.draw(st.sampled_from(['1', '2', '3']))}")
        if self.chance(30):
            options.append(f"temperature: {self.number()}")
        if self.chance(20):
            think = self.draw(st.sampled_from(["true", "false", '"auto"', '"low"', '"high"']))
            options.append(f"think: {think}")
        if self.chance(20):
            options.append(f"strict: {self.draw(st.sampled_from(['true', 'false']))}")
        if self.chance(10):
            options.append(f"debug: {self.draw(st.sampled_from(['true', 'false']))}")
        text = "generate({ " + ", ".join(options) + " })"
        if self.chance(60):
            names = self.draw(st.lists(st.sampled_from(["answer", "score", "ok", "items"]), min_size=1, unique=True))
            fields = "\n".join(f"    {name} {self.draw(st.sampled_from(SHAPE_TYPES))}" for name in names)
            text += " -> {\n" + fields + "\n}"
        return text

    def block(self, statements: int) -> list[str]:
        self.scopes.append([])
        self.depth += 1
        try:
            return [line for _ in range(statements) for line in self.statement()]
        finally:
            self.depth -= 1
            self.scopes.pop()

    def body(self, header: str, item: str | None = None) -> list[str]:
        self.scopes.append([item] if item else [])
        self.depth += 1
        try:
            lines = [line for _ in range(self.draw(st.integers(0, 2))) for line in self.statement()]
        finally:
            self.depth -= 1
            self.scopes.pop()
        return [header + " {", *("    " + line for line in lines), "}"]

    def assign(self, value: str) -> list[str]:
        name = self.fresh()
        self.scopes[-1].append(name)
        return [f"{name} = {value}"]

    def statement(self) -> list[str]:
        kinds = ["assign", "assign", "use", "generate", "generate", "memory", "tool", "call", "add", "member_set"]
        kinds += ["config", "return"]
        if self.depth < 2:
            kinds += ["repeat", "for", "loop", "if"]
        kind = self.draw(st.sampled_from(kinds))
        if kind == "assign":
            return self.assign(self.expression())
        if kind == "config":
            return [self.draw(st.sampled_from(['role "Other"', 'description "Elsewhere."', "model M"]))]
        if kind == "return":
            return [f"return {self.expression()}"]
        if kind == "use":
            # A use of a call or of a generate is evaluated when a later generate builds its prompt.
            lazy = ["helper(input.q)", "W(input)", 'generate({ input: "inner" })']
            text = f"use {self.draw(st.sampled_from(['input.q', 'input', 'Doc', *lazy, *self.names()]))}"
            if self.chance(40):
                text += f" max {self.budget()}"
            if self.chance(40):
                text += f" as {self.draw(st.sampled_from(['evidence', 'user question', 'notes (v2)', 'user']))}"
            return [text]
        if kind == "generate":
            return self.assign(self.generate())
        if kind == "memory":
            if self.chance(50):
                memory = self.draw(st.sampled_from(["Notes", "Store"]))
                return self.assign(f'{memory}.add({{ text: {self.string()}, kind: "note", n: {self.number()} }})')
            memory = self.draw(st.sampled_from(["Notes", "Store"]))
            return self.assign(f"{memory}.query({{ text: {self.string()}, limit: {self.number()} }})")
        if kind == "tool":
            call = self.draw(
                st.sampled_from(
                    [
                        'File.read({ path: "doc.txt" })',
                        'File.list({ path: "." })',
                        f'Find.run({{ path: ".", name: "*.txt", max: {self.number()} }})',
                        'File.read({ path: "../outside.txt" })',
                        'Env.get({ name: "HOME" })',
                    ]
                )
            )
            return self.assign(call)
        if kind == "call":
            call = self.draw(st.sampled_from(["W", "W.echo", "helper"]))
            return self.assign(f"{call}({self.expression()})")
        if kind == "add":
            return [f"{self.draw(st.sampled_from(self.names()))}.add({self.expression()})"]
        if kind == "member_set":
            target = self.draw(st.sampled_from(self.names()))
            return [f"{target}.{self.draw(st.sampled_from(['a', 'q', 'items']))} = {self.expression()}"]
        if kind == "repeat":
            return self.body(f"repeat * {self.number(whole=True, small=True)}")
        if kind == "for":
            item = self.fresh()
            iterable = self.draw(st.sampled_from(["input.items", "[1, 2]", *self.names()]))
            return self.body(f"for {item} in {iterable} max {self.number(whole=True, small=True)}", item)
        if kind == "loop":
            return self.body(f"loop until {self.expression()} max {self.number(whole=True, small=True)}")
        return self.body(f"if {self.expression()}")

    def program(self) -> str:
        lines = [line for _ in range(self.draw(st.integers(1, 6))) for line in self.statement()]
        final = [] if self.chance(20) else [self.expression()]
        body = "\n".join("        " + line for line in [*lines, *final])
        return (
            IMPORTS
            + WORKER
            + '\nmain agent A {\n    model M\n    role "Tester"\n    description "Tests things."\n'
            + f"    func helper(a) {{\n        {self.draw(st.sampled_from(HELPER_BODIES))}\n    }}\n"
            + f"    main func(input) {{\n{body}\n    }}\n}}\n"
        )


class _TooSlow(BaseException):
    """Raised by the alarm: a BaseException, so that asrender's own ``except Exception`` lets it through."""


def _asrender(*argv: str, seconds: float = 20) -> tuple[int, str, str]:
    def expire(signum: int, frame: object) -> None:
        raise _TooSlow(f"asrender {' '.join(argv)} ran for more than {seconds} s")

    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=fuzz_examples(2))
@given(
    st.data(),
    st.lists(
        st.sampled_from(
            ['{"answer": "a", "score": "0.5", "ok": "TRUE"}', "not json", '"text"', '{"items": [1]}', "[1]"]
        ),
        max_size=4,
    ),
)
def test_a_program_check_accepts_runs_to_a_value_or_a_located_error(data: st.DataObject, replies: list[Any]) -> None:
    """Through the command line, offline, in a scratch folder (its memories, files and tools stay
    there): ``check`` refuses a program with located diagnostics, or the run prints a value, or it
    ends in one located error; never ``internal error``, never past the alarm. About two thirds of
    the programs pass the checks and half of those run to a value (``--hypothesis-show-statistics``);
    against the code before the numeric fixes it finds ``[1][1e999]``'s OverflowError."""
    source = _ProgramBuilder(data).program()
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        Path("p.as").write_text(source, encoding="utf-8")
        Path("doc.txt").write_text("A document.\nSecond line.\n", encoding="utf-8")
        Path("replies.json").write_text(
            json.dumps([json.loads(reply) if reply[0] in '{["' else reply for reply in replies]), encoding="utf-8"
        )
        code, out, err = _asrender("check", "p.as")
        assert "internal error" not in err, source
        if code != 0:
            assert code == 1 and LOCATED.search(err), (source, err)
            event(f"check refused: {err.split('error[', 1)[1].split(']', 1)[0]}")
            return
        event("check accepted")
        code, out, err = _asrender("p.as", "--input", json.dumps(INPUT), "--responses", "replies.json", "-O", "trace")
    assert "internal error" not in err, (source, err)
    if code == 0:
        event("ran to a value")
        json.loads(out)
    else:
        assert code == 1 and LOCATED.search(err), (source, err)
        message = err.rsplit("error[", 1)[1].split(": ", 1)[1].splitlines()[0]
        event(f"runtime error: {re.sub(r' [(].*', '', message)[:40]}")  # without the memory's temporary path
