"""The AgentScript parser: data-driven trees for valid programs, exact errors for invalid ones.

``tests/data/as/valid/NAME.as`` parses to the tree in ``NAME.json`` (positions included);
``tests/data/as/invalid/NAME.expected`` holds, for a program that fails to parse, the line
``ParseError: <text> at L:C`` exactly as the reference reports it. Programs named ``late_*`` are read
with the late label rule. Set ``PROMPTWIRE_UPDATE_AS_DATA=1`` to rewrite the ``.json`` trees after an
intended change of the tree's shape (then review the diff).
"""

from __future__ import annotations

import gc
import json
import os
import re
from pathlib import Path

import pytest

from promptwire.frontend.agentscript import parse, to_json
from promptwire.frontend.agentscript.diagnostics import ParseError
from promptwire.frontend.agentscript.parser import MAX_NESTING, parse_expression
from promptwire.frontend.agentscript.syntax import (
    Assign,
    Binary,
    Call,
    ExprStmt,
    Function,
    Generate,
    Identifier,
    Index,
    Member,
    Not,
    Number,
    Program,
    Use,
)

DATA = Path(__file__).parents[1] / "data" / "as"
VALID = sorted((DATA / "valid").glob("*.as"))
PARSE_FAILURES = sorted(
    path
    for path in (DATA / "invalid").glob("*.as")
    if path.with_suffix(".expected").read_text(encoding="utf-8").startswith("ParseError: ")
)


def _dump(data: object) -> str:
    text = json.dumps(data, indent=1, ensure_ascii=False)
    position = r'\{\s*"line": (\d+),\s*"column": (\d+),\s*"offset": (\d+)\s*\}'
    return re.sub(position, r'{"line": \1, "column": \2, "offset": \3}', text) + "\n"


def _main_body(program: Program) -> tuple[object, ...]:
    function: Function = next(f for f in program.agents[0].functions if f.is_main)
    return function.body


@pytest.mark.parametrize("path", VALID, ids=lambda path: path.stem)
def test_valid_program_parses_to_its_tree(path: Path) -> None:
    tree = to_json(parse(path.read_text(encoding="utf-8"), path.name))
    expected_path = path.with_suffix(".json")
    if os.environ.get("PROMPTWIRE_UPDATE_AS_DATA"):
        expected_path.write_text(_dump(tree), encoding="utf-8")
    assert tree == json.loads(expected_path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", PARSE_FAILURES, ids=lambda path: path.stem)
def test_invalid_program_fails_with_the_reference_error(path: Path) -> None:
    rule = "late" if path.stem.startswith("late_") else "release"
    with pytest.raises(ParseError) as caught:
        parse(path.read_text(encoding="utf-8"), path.name, label_rule=rule)
    expected = path.with_suffix(".expected").read_text(encoding="utf-8")
    assert f"ParseError: {caught.value.reference_message}\n" == expected


def test_the_test_data_has_every_reference_program() -> None:
    names = {path.stem for path in (DATA / "valid").glob("tc*.as")} | {
        path.stem for path in (DATA / "invalid").glob("tc*.as")
    }
    assert len(names) == 20


# Labels of `use ... as` ---------------------------------------------------------------------------


def _labels(source_lines: str, label_rule: str = "release") -> list[tuple[str | None, str | None]]:
    body = "".join(f"        {line}\n" for line in source_lines.splitlines())
    program = parse(f"main agent A {{\n    main func(input) {{\n{body}    }}\n}}\n", label_rule=label_rule)
    return [
        (stmt.label, stmt.budget.raw if stmt.budget else None) for stmt in _main_body(program) if isinstance(stmt, Use)
    ]


def test_release_labels_take_the_rest_of_the_line() -> None:
    # Token texts are joined, with one space wherever the source had a gap; strings give their value.
    assert _labels(
        "use input.q as user\n"
        "use input.q as user question\n"
        'use input.q as "quoted label"\n'
        "use input.docs max 2k as retrieved  evidence (v2)\n"
        "use x as foo.bar-baz\n"
        "use x as a max 3\n"
    ) == [
        ("user", None),
        ("user question", None),
        ("quoted label", None),
        ("retrieved evidence (v2)", "2k"),
        ("foo.bar-baz", None),
        ("a max 3", None),  # 'max' after the label is label text, not a budget
    ]


def test_a_release_label_stops_at_a_closing_brace() -> None:
    program = parse("main agent A {\n    main func(input) { use input as the end }\n}\n")
    (use,) = _main_body(program)
    assert isinstance(use, Use) and use.label == "the end"


def test_the_late_rule_takes_one_name_or_string() -> None:
    assert _labels('use input.q as user\nuse input.q as "user question"', label_rule="late") == [
        ("user", None),
        ("user question", None),
    ]


@pytest.mark.parametrize(
    ("name", "where"), [("tc03_labels", "10:29"), ("tc10_scopes", "20:25"), ("tc18_multiline", "9:38")]
)
def test_the_late_rule_rejects_the_multi_word_labels_of_three_reference_programs(name: str, where: str) -> None:
    # Under the late rule only these three of the twenty reference programs fail, all on a label.
    source = (DATA / "valid" / f"{name}.as").read_text(encoding="utf-8")
    with pytest.raises(ParseError) as caught:
        parse(source, label_rule="late")
    assert caught.value.reference_message == f"Expected newline after context label at {where}"


def test_every_other_reference_program_parses_under_the_late_rule() -> None:
    for path in VALID:
        if not path.stem.startswith("tc") or path.stem.startswith(("tc03", "tc10", "tc18")):
            continue
        assert to_json(parse(path.read_text(encoding="utf-8"), label_rule="late")) == to_json(
            parse(path.read_text(encoding="utf-8"))
        )


def test_an_unknown_label_rule_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="label_rule"):
        parse("", label_rule="strict")


# Expressions and statements -----------------------------------------------------------------------


def test_a_newline_does_not_end_an_expression() -> None:
    program = parse((DATA / "valid" / "tc20_newline_postfix.as").read_text(encoding="utf-8"))
    (assign,) = _main_body(program)
    assert isinstance(assign, Assign)
    assert isinstance(assign.value, Index)
    assert isinstance(assign.value.object, Member)


def test_precedence_from_or_down_to_not() -> None:
    expr = parse_expression("not a == b and c < d or e != f")
    assert isinstance(expr, Binary) and expr.operator == "or"
    left = expr.left
    assert isinstance(left, Binary) and left.operator == "and"
    assert isinstance(left.left, Binary) and left.left.operator == "=="
    assert isinstance(left.left.left, Not)  # `not` binds tighter than `==`
    assert isinstance(left.right, Binary) and left.right.operator == "<"


def test_binary_operators_associate_to_the_left() -> None:
    expr = parse_expression("a == b == c")
    assert isinstance(expr, Binary) and isinstance(expr.left, Binary)
    assert isinstance(expr.right, Identifier) and expr.right.name == "c"


def test_number_values_follow_javascript_parse_float() -> None:
    values = {raw: parse_expression(raw) for raw in ("2k", "1.5k", "1e5", "1.", "2.50", "1e-2x")}
    assert {raw: expr.value for raw, expr in values.items() if isinstance(expr, Number)} == {
        "2k": 2.0,
        "1.5k": 1.5,
        "1e5": 100000.0,
        "1.": 1.0,
        "2.50": 2.5,
        "1e-2x": 0.01,
    }


def test_keywords_serve_as_names_keys_and_properties() -> None:
    expr = parse_expression("max.list(json, { for: 1, in: 2 })")
    assert isinstance(expr, Call) and isinstance(expr.callee, Member)
    assert isinstance(expr.callee.object, Identifier) and expr.callee.object.name == "max"


def test_a_statement_is_recognised_by_the_token_value_whatever_its_kind() -> None:
    # The reference dispatches on values, so a string "use" starts a use statement.
    program = parse('main agent A {\n    main func(input) {\n        "use" input\n    }\n}\n')
    (stmt,) = _main_body(program)
    assert isinstance(stmt, Use)


def test_a_statement_start_that_is_an_object_literal_is_an_expression() -> None:
    program = parse("main agent {\n    main func(input) {\n        { ok: true }\n    }\n}\n")
    (stmt,) = _main_body(program)
    assert isinstance(stmt, ExprStmt)
    assert program.agents[0].name == "__main_agent" and program.agents[0].functions[0].name == "__main"


def test_max_output_keeps_the_raw_budget() -> None:
    expr = parse_expression('generate({ input: "x", max_output: 1.5k, max_output: 0.0001k })')
    assert isinstance(expr, Generate)
    assert expr.options.max_output is not None and expr.options.max_output.raw == "0.0001k"  # the last one
    assert [prop.key for prop in expr.options.properties] == ["input", "max_output", "max_output"]


def test_spans_match_the_positions_the_reference_reports_at_run_time() -> None:
    # The reference locates a failed generate at the generate (9:9 in tc19) and a bad result field
    # at the shape field (12:13 in tc09, 10:13 in tc19).
    tc19 = parse((DATA / "valid" / "tc19_strict.as").read_text(encoding="utf-8"))
    (stmt,) = _main_body(tc19)
    assert isinstance(stmt, ExprStmt) and isinstance(stmt.expr, Generate)
    assert str(stmt.expr.span.start) == "9:9"
    assert stmt.expr.shape is not None and str(stmt.expr.shape.fields[0].span.start) == "10:13"
    tc09 = parse((DATA / "valid" / "tc09_retry.as").read_text(encoding="utf-8"))
    generate = _main_body(tc09)[1]
    assert isinstance(generate, ExprStmt) and isinstance(generate.expr, Generate)
    assert generate.expr.shape is not None and str(generate.expr.shape.fields[1].span.start) == "12:13"


def test_deep_nesting_is_a_parse_error_not_a_crash() -> None:
    depth = MAX_NESTING + 5
    with pytest.raises(ParseError, match="nests deeper"):
        parse_expression("[" * depth + "]" * depth)
    # Long flat chains nest the tree too (every later walk recurses on them), so they count as well.
    for chain in ("not " * depth + "x", "x" + "[0]" * depth, "x" + ".y" * depth, " or ".join(["x"] * depth)):
        with pytest.raises(ParseError, match="nests deeper"):
            parse_expression(chain)
    assert parse_expression("[" * (MAX_NESTING - 1) + "]" * (MAX_NESTING - 1))
    assert parse_expression("x" + ".y" * (MAX_NESTING - 2))


def test_parse_errors_print_like_a_compiler() -> None:
    source = "main agent A {\n    main func(input) {\n        x = { a: 1 b: 2 }\n    }\n}\n"
    with pytest.raises(ParseError) as caught:
        parse(source, "prog.as")
    assert str(caught.value) == (
        "prog.as:3:20: error[PARSE_ERROR]: Expected ','\n        x = { a: 1 b: 2 }\n                   ^"
    )


BIG_PROGRAM = "agent A {\n" + "".join(f"    func f{i}() {{ x = [{i}, {{ k: 'v' }}] }}\n" for i in range(6000)) + "}\n"


def test_a_big_tree_goes_straight_to_the_oldest_generation() -> None:
    # The first young collection after a parse would otherwise walk every node of the tree, a third
    # of parse + check for a 2 MB program (issue 28).
    gc.collect()
    program = parse(BIG_PROGRAM)
    assert gc.isenabled()
    assert any(node is program for node in gc.get_objects(generation=2))


def test_a_big_parse_leaves_objects_frozen_by_the_caller_frozen() -> None:
    gc.collect()
    gc.freeze()  # as a server does before forking
    try:
        frozen = gc.get_freeze_count()
        program = parse(BIG_PROGRAM)
        assert gc.get_freeze_count() == frozen
        assert not any(node is program for node in gc.get_objects(generation=2))
    finally:
        gc.unfreeze()
