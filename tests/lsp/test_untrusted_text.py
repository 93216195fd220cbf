"""What the server does with any text an editor sends: a program someone else wrote, half typed.

Checked in-process (the server's modules, not a server): the findings of any text are placed inside
it, the outline of any text that parses is built without error and its names lie inside it, and
a position maps back to the offset it came from in every encoding.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire.frontend.agentscript import parse
from promptwire.frontend.agentscript.diagnostics import ParseError
from promptwire.frontend.lsp.findings import check_source
from promptwire.frontend.lsp.outline import Outline
from promptwire.frontend.lsp.placing import Placement

from hypothesis_profile import examples

FRAGMENTS = [
    "{", "}", "(", ")", "[", "]", ".", ",", ":", "=", "->", "<", "not", "use", "max", "as", "2k", "\n", "\r\n",
    "\r", '"s"', "'", '"', "generate", "main", "agent", "func", "import", "model", "role", "description",
    "if", "else", "for", "in", "loop", "until", "repeat", "*", "return", "//", "input", "x", "A", "é", "😀",
    'import agent X from "./x.as"\n', 'import llm M from "openai://x"\n', "generate({ input: \"go\" })",
    "use input as notes\n", " ", "    ",
]  # fmt: skip
SKELETON = 'import llm M from "openai://x"\nmain agent A {{\n    model M\n    role "R"\n    description "D"\n    main func(input) {{\n{body}\n    }}\n}}\n'

texts = st.one_of(
    st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join),
    st.lists(st.sampled_from(FRAGMENTS), max_size=20).map(lambda parts: SKELETON.format(body="".join(parts))),
)


@settings(max_examples=examples(1), deadline=None)
@given(texts)
def test_findings_of_any_text_are_placed_inside_it(text: str) -> None:
    path = str(Path("/nonexistent-folder-for-lsp-tests") / "p.as")
    for finding in check_source(text, path):
        if finding.file != path:
            continue  # an import: its file, if any
        placement = Placement(finding.text)
        start = placement.offset_of(finding.line, finding.column)
        end = placement.offset_of(finding.end_line, finding.end_column)
        assert 0 <= start <= len(text)
        assert 0 <= end <= len(text)


@settings(max_examples=examples(1), deadline=None)
@given(texts)
def test_the_outline_of_any_program_lies_inside_it(text: str) -> None:
    try:
        program = parse(text, "p.as")
    except (ParseError, RecursionError):
        return
    outline = Outline(program)
    for name in outline.names:
        assert 0 <= name.start <= name.end <= len(text)
        assert outline.at(name.start) is name
    for start, end in outline.folds:
        assert 0 <= start <= end <= len(text)


@settings(max_examples=examples(1), deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", "é", "😀", "\n", "\r", "\t", " "]), max_size=60), st.data())
def test_a_position_maps_back_to_its_offset(text: str, data: st.DataObject) -> None:
    offset = data.draw(st.integers(0, len(text)))
    if 0 < offset < len(text) and text[offset - 1 : offset + 1] == "\r\n":
        offset -= 1  # inside a line break: no position names it
    for encoding in ("utf-8", "utf-16", "utf-32"):
        placement = Placement(text, encoding)
        assert placement.offset(*placement.position(offset)) == offset
