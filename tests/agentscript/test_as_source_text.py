"""The ``source:`` text of an expression: the reference's spelling, and it reads back as the same tree."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from promptwire.frontend.agentscript import expression_source, parse, to_json
from promptwire.frontend.agentscript.parser import parse_expression
from promptwire.frontend.agentscript.syntax import Use

DATA = Path(__file__).parents[1] / "data" / "as"


def _use_sources(name: str) -> list[str]:
    program = parse((DATA / "valid" / f"{name}.as").read_text(encoding="utf-8"))
    body = next(function for function in program.agents[0].functions if function.is_main).body
    return [expression_source(stmt.value) for stmt in body if isinstance(stmt, Use)]


def test_the_sources_of_the_reference_prompts() -> None:
    # These are the `source:` lines of the reference's expected prompts for the same programs.
    assert _use_sources("tc13_sources") == [
        "items[1]",
        '"literal \\"quoted\\"\\ttab"',
        "2.50",
        "input.a == input.b",
        "not input.flag",
        "{ k: items.length, list: [1, none, true] }",
        "none",
        "3 < 4",
    ]
    assert _use_sources("tc18_multiline") == ['"first\\nsecond"']
    assert _use_sources("tc11_lazy") == ["scratch.summary", "scratch.length"]
    assert _use_sources("tc05_clip_list") == ["items", "record", "12345"]
    assert _use_sources("tc14_file_import") == ["Notes", "Config"]


def test_calls_generates_and_empty_containers() -> None:
    cases = {
        "f(a,b)": "f(a, b)",
        "Tool.run({path:'.'})": 'Tool.run({ path: "." })',
        'generate({input:"x",max_output:2k}) -> { a string }': 'generate({ input: "x", max_output: 2k })',
        "[]": "[]",
        "{}": "{  }",  # the reference joins zero properties between two spaces
        '{ "quoted key": 1 }': "{ quoted key: 1 }",  # keys are printed bare
    }
    assert {source: expression_source(parse_expression(source)) for source in cases} == cases


# Round trip ----------------------------------------------------------------------------------------
# The printed text parses back to the same tree, except where the reference's spelling loses
# information, which the strategy below therefore avoids: object keys that are not names (printed
# bare), the `-> shape` of a generate (dropped), a member read directly on a number (`1 .x` prints as
# the single number token `1.x`) and control characters other than newline, tab and carriage return
# (JSON escapes such as \b or \u0001 mean other characters to the AgentScript lexer).

_RESERVED = {"true", "false", "none", "not", "and", "or", "generate"}
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,6}", fullmatch=True).filter(lambda name: name not in _RESERVED)
numbers = st.from_regex(r"[0-9]{1,4}(\.[0-9]{0,3})?([a-z][a-z0-9]{0,2})?", fullmatch=True)
texts = st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n\t\r"), max_size=12)
gaps = st.sampled_from([" ", "", "\n", "  ", " // note\n"])


def _string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _join(parts: list[str], gap: str) -> str:
    return f",{gap}".join(parts)


@st.composite
def expressions(draw: st.DrawFn, depth: int = 0) -> str:
    operands = draw(st.lists(unaries(depth), min_size=1, max_size=3))
    operators = draw(
        st.lists(
            st.sampled_from(["or", "and", "==", "!=", "<"]), min_size=len(operands) - 1, max_size=len(operands) - 1
        )
    )
    gap = draw(gaps)
    text = operands[0]
    for operator, operand in zip(operators, operands[1:], strict=True):
        text += f" {operator}{gap} {operand}"
    return text


@st.composite
def unaries(draw: st.DrawFn, depth: int) -> str:
    return "not " * draw(st.integers(0, 2)) + draw(postfixes(depth))


@st.composite
def postfixes(draw: st.DrawFn, depth: int) -> str:
    if draw(st.booleans()):
        return draw(numbers) + ("[0]" if draw(st.booleans()) else "")
    text = draw(primaries(depth))
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["member", "index", "call"]))
        if kind == "member":
            text += f".{draw(names)}"
        elif depth < 3 and kind == "index":
            text += f"[{draw(expressions(depth + 1))}]"
        elif depth < 3:
            text += f"({_join(draw(st.lists(expressions(depth + 1), max_size=3)), draw(gaps))})"
    return text


@st.composite
def primaries(draw: st.DrawFn, depth: int) -> str:
    choices = ["name", "string", "literal"] + (["list", "object", "generate"] if depth < 3 else [])
    kind = draw(st.sampled_from(choices))
    if kind == "name":
        return draw(names)
    if kind == "string":
        return _string(draw(texts))
    if kind == "literal":
        return draw(st.sampled_from(["true", "false", "none"]))
    gap = draw(gaps)
    if kind == "list":
        return f"[{_join(draw(st.lists(expressions(depth + 1), max_size=3)), gap)}]"
    pairs = draw(st.lists(st.tuples(names, expressions(depth + 1)), max_size=3))
    body = _join([f"{key}:{gap}{value}" for key, value in pairs], gap)
    if kind == "object":
        return f"{{{body}}}"
    return f"generate({{{body}}})"


@given(expressions())
def test_the_printed_source_parses_back_to_the_same_tree(source: str) -> None:
    tree = parse_expression(source)
    printed = expression_source(tree)
    assert to_json(parse_expression(printed), positions=False) == to_json(tree, positions=False)
    assert expression_source(parse_expression(printed)) == printed
