"""A program that shares one list at every level of forty (``x1 = [x0, x0]``, ``x2 = [x1, x1]``...)
holds 41 lists and stands for 2**40 values. Every place it reaches that writes a value out (the
prompt, the trace, a tool's arguments, a comparison, the program's value) is bounded the way a
prompt is (``core.nesting``): a located error in a fraction of a second, never a run that copies it
until memory runs out (each of these ran for minutes at 5 GB and more before).

| where the value goes | what asrender says |
|---|---|
| ``use x39 as data`` then ``generate`` | the ``use`` line: ``context[0].value: parts used in several places print as more than 1,000,000 values`` |
| ``generate({ input: x39 })`` | the generate: ``instruction: ...`` |
| the program's value | ``The program's value is too large to write out: ...`` |
| ``x39 == x39``, ``for item in x39``, ``File.write(..., x39)``, ``x39.summary`` | that statement: ``The value is too large to write out: ...`` |
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from promptwire.core.nesting import MAX_REPEATED_VALUES

REFUSED = f"parts used in several places print as more than {MAX_REPEATED_VALUES:,} values in all"
BUILD = "\n".join(['        x0 = ["a", "b"]', *(f"        x{i} = [x{i - 1}, x{i - 1}]" for i in range(1, 40))])
HEAD = (
    'import llm M from "openai://m"\nimport tool File from "file://workspace"\n'
    'main agent A {\n    model M\n    role "R"\n    description "D"\n    main func(input) {\n'
)
LINE = 3 + 4 + 40 + 1  # the first line after the forty assignments

CASES = {
    "use": (
        '        use x39 as data\n        generate({ input: "Hi." })\n',
        f":{LINE}:9:",
        "context[0].value: " + REFUSED,
    ),
    "instruction": ("        generate({ input: x39 })\n", f":{LINE}:9:", "instruction: " + REFUSED),
    "value": ("        x39\n", "", "The program's value is too large to write out: " + REFUSED),
    "comparison": (
        "        same = x39 == x39\n        same\n",
        f":{LINE}:9:",
        "The value is too large to write out: " + REFUSED,
    ),
    "loop": (
        "        n = 0\n        for item in x39 max 5 {\n            n = 1\n        }\n        n\n",
        f":{LINE + 1}:9:",
        "The value is too large to write out: " + REFUSED,
    ),
    "tool": ('        File.write("out.json", x39)\n', f":{LINE}:9:", "The value is too large to write out: " + REFUSED),
    "summary": (
        "        s = x39.summary\n        1\n",
        f":{LINE}:9:",
        "The value is too large to write out: " + REFUSED,
    ),
}


@pytest.mark.parametrize(
    ("case", "output"), [*((case, "display") for case in CASES), ("value", "trace"), ("loop", "trace")]
)
def test_a_value_shared_at_forty_levels_ends_the_run_at_once_with_a_located_error(
    case: str, output: str, tmp_path: Path
) -> None:
    body, where, message = CASES[case]
    program = tmp_path / "p.as"
    program.write_text(HEAD + BUILD + "\n" + body + "    }\n}\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "promptwire", str(program), "--output", output, "--allow-write"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert message in done.stderr
    assert f"p.as{where}" in done.stderr if where else done.stderr.startswith("asrender: ")
    assert not (tmp_path / "out.json").exists()
