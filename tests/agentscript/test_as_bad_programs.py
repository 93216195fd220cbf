"""Bad programs get a located error, never ``internal error`` and never a run without end.

What the checks can know (a literal number a run cannot use) is a diagnostic of ``asrender check``,
under the reference's code for that place; what only the run knows is a located runtime error.
Each program is built here, around the one line that matters.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptwire.core.budget import MAX_BUDGET
from promptwire.frontend.agentscript.analyzer import MAX_ITERATIONS
from promptwire.frontend.asrender.cli import main

HUGE = "1" + "0" * 400  # reads as infinity
THOUSANDS_OF_DIGITS = "9" * 5000  # more than Python turns into an int


def _program(*body: str, imports: str = "") -> str:
    lines = "\n".join(f"        {line}" for line in body)
    return (
        f'import llm M from "openai://gpt-4o-mini"\n{imports}'
        'main agent A {\n    model M\n    role "R"\n    description "D."\n'
        f"    main func(input) {{\n{lines}\n    }}\n}}\n"
    )


def _run(capsys: pytest.CaptureFixture[str], tmp_path: Path, source: str, *argv: str) -> tuple[int, str, str]:
    path = tmp_path / "bad.as"
    path.write_text(source, encoding="utf-8")
    command = list(argv[:1]) if argv[:1] in (("check",), ("parse",)) else []
    code = main([*command, str(path), *argv[len(command) :]])
    out, err = capsys.readouterr()
    return code, out, err.replace(str(path), "bad.as")


STATIC = [
    pytest.param(
        ['generate({ input: "x", temperature: 1e999 })'],
        "7:45",
        "INVALID_GENERATE_TEMPERATURE",
        "generate temperature must be a finite number",
        id="temperature 1e999",
    ),
    pytest.param(
        [f'generate({{ input: "x", temperature: {HUGE} }})'],
        "7:45",
        "INVALID_GENERATE_TEMPERATURE",
        "generate temperature must be a finite number",
        id="temperature of 400 digits",
    ),
    pytest.param(
        [f'generate({{ input: "x", max_output: {HUGE} }})'],
        "7:44",
        "INVALID_GENERATE_MAX_OUTPUT",
        f"generate max_output must come to at most {MAX_BUDGET} (2^53) tokens",
        id="max_output of 400 digits",
    ),
    pytest.param(
        ['generate({ input: "x", max_output: 9007199254741k })'],
        "7:44",
        "INVALID_GENERATE_MAX_OUTPUT",
        f"generate max_output must come to at most {MAX_BUDGET} (2^53) tokens",
        id="max_output past 2^53 in thousands",
    ),
    pytest.param(
        [f"use input max {HUGE}k", 'generate({ input: "x" })'],
        "7:9",
        "INVALID_BUDGET",
        "Budget must be a finite number",
        id="use budget of 400 digits",
    ),
    pytest.param(
        ["repeat * 9223372036854775808 { y = 1 }"],
        "7:9",
        "INVALID_ITERATION_LIMIT",
        f"Iteration count must be at most {MAX_ITERATIONS}",
        id="repeat 2^63",
    ),
    pytest.param(
        [f"repeat * {MAX_ITERATIONS + 1} {{ y = 1 }}"],
        "7:9",
        "INVALID_ITERATION_LIMIT",
        f"Iteration count must be at most {MAX_ITERATIONS}",
        id="repeat one past the ceiling",
    ),
    pytest.param(
        [f"for x in [1] max {THOUSANDS_OF_DIGITS} {{ y = x }}"],
        "7:9",
        "INVALID_ITERATION_LIMIT",
        f"Iteration count must be at most {MAX_ITERATIONS}",
        id="for with thousands of digits",
    ),
    pytest.param(
        [f"loop until false max {THOUSANDS_OF_DIGITS} {{ y = 1 }}"],
        "7:9",
        "INVALID_ITERATION_LIMIT",
        f"Iteration count must be at most {MAX_ITERATIONS}",
        id="loop with thousands of digits",
    ),
]


@pytest.mark.parametrize(("body", "where", "code", "message"), STATIC)
def test_a_number_no_run_can_use_is_a_diagnostic_of_check(
    body: list[str], where: str, code: str, message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = _run(capsys, tmp_path, _program(*body), "check")
    assert (status, out) == (1, "")
    assert err.startswith(f"bad.as:{where}: error[{code}]: {message}\n")
    assert err.count("error[") == 1
    status, out, err = _run(capsys, tmp_path, _program(*body))  # running it is refused the same way
    assert (status, out) == (1, "")
    assert f"bad.as:{where}: error[{code}]: {message}" in err
    assert "internal error" not in err


def test_counts_up_to_the_ceiling_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    body = [f"for x in [1, 2] max {MAX_ITERATIONS} {{ n = x }}", "n = 0", "repeat * 3 { n = 1 }", "n"]
    status, out, err = _run(capsys, tmp_path, _program(*body), "-O", "trace")
    assert (status, err) == (0, "")
    assert json.loads(out)["value"] == 1


def test_a_count_of_thousands_of_digits_parses_and_prints_as_javascript_reads_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = _run(capsys, tmp_path, _program(f"repeat * {THOUSANDS_OF_DIGITS} {{ }}"), "parse")
    assert (status, err) == (0, "")
    (repeat,) = json.loads(out)["agents"][0]["functions"][0]["body"]
    assert repeat["kind"] == "Repeat"
    assert repeat["count"] is None  # infinity, written as JSON.stringify writes it


RUNTIME = [
    pytest.param(["[1][1e999]"], "10:13", "List index must be a non-negative integer", id="list index 1e999"),
    pytest.param(
        ['L.query({ text: "x", limit: 1e999 })'],
        "10:9",
        "memory.query limit must be a positive integer",  # the memory's own words, unprefixed
        id="jsonl memory limit 1e999",
    ),
    pytest.param(
        ['S.query({ text: "x", limit: 1e999 })'],
        "10:9",
        "memory.query limit must be a positive integer",
        id="sqlite memory limit 1e999",
    ),
    pytest.param(
        ['Find.run({ path: ".", max: 1e999 })'],
        "10:9",
        "Tool Find.run (sh://find) failed: Expected a positive integer, got Infinity",
        id="find max 1e999",
    ),
]
RESOURCES = 'import memory L from "file://./m.jsonl"\nimport memory S from "sqlite://./m.db"\nimport tool Find from "sh://find"\n'


@pytest.mark.parametrize(("body", "where", "message"), RUNTIME)
def test_a_number_only_the_run_knows_is_a_located_runtime_error(
    body: list[str], where: str, message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = _run(capsys, tmp_path, _program(*body, imports=RESOURCES))
    assert (status, out) == (1, "")
    assert err.startswith(f"bad.as:{where}: error[RUNTIME_ERROR]: {message.format(dir=tmp_path)}\n")


def test_a_memory_stores_infinity_as_json_does_null(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    body = ['L.add({ text: "x", n: 1e999 })', 'S.add({ text: "x", n: 1e999 })']
    status, _, err = _run(capsys, tmp_path, _program(*body, imports=RESOURCES), "--allow-write")
    assert (status, err) == (0, "")
    (line,) = (tmp_path / "m.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["record"] == {"text": "x", "n": None}  # strict JSON: no Infinity
    status, out, err = _run(capsys, tmp_path, _program('S.query({ text: "x" })', imports=RESOURCES), "-O", "trace")
    assert (status, err) == (0, "")
    assert json.loads(out)["value"][0]["record"] == {"text": "x", "n": None}


def test_an_http_timeout_past_what_a_timer_holds_is_refused_before_any_request() -> None:
    from promptwire.core.tools import ToolContext, ToolError, ToolRequest
    from promptwire.tools.http import MAX_TIMEOUT_MS, http_tool

    request = ToolRequest("Api", "http://127.0.0.1:9", "get", [{"url": "/", "timeout": 1e300}])
    with pytest.raises(ToolError, match=rf"^Http.timeout must be at most {MAX_TIMEOUT_MS} ms, got "):
        http_tool(request, ToolContext(Path.cwd(), net=frozenset({"http://127.0.0.1:9"})))


def test_json_sent_or_stored_by_a_tool_writes_infinity_as_null() -> None:
    from promptwire.tools.arguments import js_json

    assert js_json({"a": [1.5, float("inf"), {"b": float("-inf")}], "c": "é"}) == '{"a":[1.5,null,{"b":null}],"c":"é"}'
    assert js_json({"a": 1}, (", ", ": ")) == '{"a": 1}'
