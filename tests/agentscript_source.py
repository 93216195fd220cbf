"""AgentScript programs for tests that need one small program: the body is the test's subject, the
lines around it are always the same.

The layout is fixed, so a test may pin the line and column of an error in the body: with ``n``
imports, the body's first line is line ``n + 9``, at column 9.
"""

from __future__ import annotations

import textwrap


def as_program(body: str, *imports: str, model: str = "openai://gpt-4o") -> str:
    """A program that imports the model ``M`` from ``model`` and then each of ``imports`` (whole
    lines, such as ``import tool Env from "env://"``), and whose main agent ``A`` (role "R",
    description "D") runs ``body`` in its main function. ``body`` is written as it reads: its common
    indentation is removed and the function's put in its place."""
    head = "".join(f"{line}\n" for line in (f'import llm M from "{model}"', *imports))
    lines = textwrap.dedent(body).strip("\n").split("\n")
    main = "".join(f"        {line}\n" if line else "\n" for line in lines)
    return f'{head}\nmain agent A {{\n    model M\n    role "R"\n    description "D"\n\n    main func(input) {{\n{main}    }}\n}}\n'
