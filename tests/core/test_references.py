"""Whole-string ``†kind.path`` references: parsing, resolving against a context, writing output paths."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from promptwire.core.errors import FieldError, PromptwireError
from promptwire.core.nesting import MAX_DEPTH
from promptwire.core.references import (
    InvalidReference,
    OutputPathError,
    Reference,
    RefPath,
    UnresolvedReference,
    parse_reference,
    resolve,
    write_output,
)

from hypothesis_profile import examples

CONTEXT: dict[str, Any] = {
    "input": {"userName": "Ada", "имя": "Ада", "count": 3},
    "state": {
        "user": {"profile": {"summary": "likes maths", "age": 36}},
        "items": ["first", {"id": 7}, None],
        "flags": {"0": "a key, not an index"},
        "ok": True,
        "nothing": None,
        "name": "plain string",
    },
}


class TestParse:
    def test_single_path(self) -> None:
        assert parse_reference("†input.userName") == Reference("†input.userName", (RefPath("input", ("userName",)),))

    def test_bare_kind_is_the_whole_message(self) -> None:
        assert parse_reference("†state") == Reference("†state", (RefPath("state"),))

    def test_operators_with_or_without_spaces(self) -> None:
        expected = (RefPath("state", ("a",)), RefPath("input", ("b",)))
        for text in ("†state.a || †input.b", "†state.a||†input.b", "  †state.a   ||\t†input.b  "):
            parsed = parse_reference(text)
            assert parsed is not None
            assert (parsed.paths, parsed.operator) == (expected, "||")
            assert str(parsed) == "†state.a || †input.b"

    def test_many_operands_of_one_operator(self) -> None:
        parsed = parse_reference("†a && †b.c && †d")
        assert parsed is not None
        assert parsed.operator == "&&"
        assert [str(p) for p in parsed.paths] == ["†a", "†b.c", "†d"]

    def test_segments_may_be_non_ascii_and_punctuation(self) -> None:
        parsed = parse_reference("†состояние.успех.a-b_c:d[0]")
        assert parsed is not None
        assert parsed.paths == (RefPath("состояние", ("успех", "a-b_c:d[0]")),)

    @pytest.mark.parametrize("text", ["Hi †input.name", "input.name", "", "  ", "a † b", "††input.name", " ††"])
    def test_literals_are_not_references(self, text: str) -> None:
        assert parse_reference(text) is None

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("†", "invalid reference '†': expected a kind after '†', found the end"),
            ("† state", "invalid reference '† state': expected a kind after '†', found ' '"),
            ("†.x", "invalid reference '†.x': expected a kind after '†', found '.x'"),
            ("†state..x", "invalid reference '†state..x': expected a path segment after '†state.', found '.x'"),
            ("†state.", "invalid reference '†state.': expected a path segment after '†state.', found the end"),
            ("†a || †b && †c", "invalid reference '†a || †b && †c': cannot mix '||' and '&&' in one expression"),
            ("†a && †b || †c", "invalid reference '†a && †b || †c': cannot mix '&&' and '||' in one expression"),
            ("†a ||", "invalid reference '†a ||': expected a reference after '†a ||', found the end"),
            ("†a && b", "invalid reference '†a && b': expected a reference after '†a &&', found 'b'"),
            ("†a || ††b", "invalid reference '†a || ††b': expected a kind after '†a || †', found '†b'"),
            (
                "†input.name is here",
                "invalid reference '†input.name is here': expected '||' or '&&' after '†input.name', found 'is'",
            ),
            ("†a | †b", "invalid reference '†a | †b': expected '||' or '&&' after '†a', found '|'"),
            ("†a †b", "invalid reference '†a †b': expected '||' or '&&' after '†a', found '†b'"),
            ("  †a.b c  ", "invalid reference '†a.b c': expected '||' or '&&' after '†a.b', found 'c'"),
        ],
    )
    def test_invalid_references_name_the_text(self, text: str, message: str) -> None:
        with pytest.raises(InvalidReference) as caught:
            parse_reference(text)
        assert str(caught.value) == message
        assert isinstance(caught.value, PromptwireError)
        assert caught.value.text == text.strip()


class TestResolve:
    def test_seed_example(self) -> None:
        call = {"_tool": "greetUser", "userName": "†input.userName"}
        assert resolve(call, CONTEXT) == {"_tool": "greetUser", "userName": "Ada"}
        assert call == {"_tool": "greetUser", "userName": "†input.userName"}  # the input is left alone

    def test_nested_paths_and_values(self) -> None:
        args = {"profile": {"text": "†state.user.profile.summary", "raw": ["†state.user.profile.age", "x"]}}
        assert resolve(args, CONTEXT) == {"profile": {"text": "likes maths", "raw": [36, "x"]}}

    def test_non_string_results_are_raw_json(self) -> None:
        assert resolve("†state.user", CONTEXT) is CONTEXT["state"]["user"]
        assert resolve(["†input.count", "†state.ok", "†state.nothing"], CONTEXT) == [3, True, None]
        assert resolve("†state.items", CONTEXT) == ["first", {"id": 7}, None]

    def test_list_indexing(self) -> None:
        assert resolve("†state.items.0", CONTEXT) == "first"
        assert resolve("†state.items.1.id", CONTEXT) == 7
        assert resolve("†state.items.2", CONTEXT) is None

    def test_numeric_segment_on_an_object_is_a_key(self) -> None:
        assert resolve("†state.flags.0", CONTEXT) == "a key, not an index"

    def test_non_ascii_paths(self) -> None:
        assert resolve("†input.имя", CONTEXT) == "Ада"

    def test_surrounding_blanks_are_trimmed(self) -> None:
        assert resolve("  †input.userName\n", CONTEXT) == "Ada"

    def test_dict_keys_are_never_resolved(self) -> None:
        assert resolve({"†input.userName": "†input.count"}, CONTEXT) == {"†input.userName": 3}

    def test_tuples_and_scalars(self) -> None:
        assert resolve(("†input.count", 1.5), CONTEXT) == (3, 1.5)
        assert resolve(None, CONTEXT) is None

    def test_resolved_values_are_not_resolved_again(self) -> None:
        assert resolve("†state.ref", {"state": {"ref": "†state.ref"}}) == "†state.ref"

    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            ("Hi †input.userName", "Hi †input.userName"),
            ("no dagger at all", "no dagger at all"),
            ("††input.userName", "†input.userName"),
            ("  ††x", "  †x"),
            ("†††x", "††x"),
            ("††", "†"),
            ("a ††b", "a ††b"),  # only a leading escape is one
        ],
    )
    def test_literals(self, value: str, expected: str) -> None:
        assert resolve(value, CONTEXT) == expected

    def test_or_takes_the_first_that_exists(self) -> None:
        assert resolve("†state.missing || †input.userName", CONTEXT) == "Ada"
        assert resolve("†input.count || †input.userName", CONTEXT) == 3
        assert resolve("†state.nothing || †input.userName", CONTEXT) is None  # null exists
        assert resolve("†a || †b || †input.count", CONTEXT) == 3

    def test_and_needs_all_and_takes_the_last(self) -> None:
        assert resolve("†input.userName && †input.count", CONTEXT) == 3
        assert resolve("†input.count && †state.items.0", CONTEXT) == "first"

    @pytest.mark.parametrize(
        ("text", "message", "missing"),
        [
            (
                "†state.user.name",
                "unresolved reference '†state.user.name': '†state.user' has no 'name'",
                [("†state.user.name", "name")],
            ),
            (
                "†state.nope.deeper",
                "unresolved reference '†state.nope.deeper': '†state' has no 'nope'",
                [("†state.nope.deeper", "nope")],
            ),
            ("†data.x", "unresolved reference '†data.x': the context has no 'data'", [("†data.x", "data")]),
            (
                "†state.items.3",
                "unresolved reference '†state.items.3': '†state.items' is a list of 3 items and has no item 3",
                [("†state.items.3", "3")],
            ),
            (
                "†state.items.first",
                "unresolved reference '†state.items.first': '†state.items' is a list and 'first' is not an index",
                [("†state.items.first", "first")],
            ),
            (
                "†state.items.-1",
                "unresolved reference '†state.items.-1': '†state.items' is a list and '-1' is not an index",
                [("†state.items.-1", "-1")],
            ),
            (
                "†state.name.first",
                "unresolved reference '†state.name.first': '†state.name' is a string and has no 'first'",
                [("†state.name.first", "first")],
            ),
            (
                "†state.nothing.x",
                "unresolved reference '†state.nothing.x': '†state.nothing' is null and has no 'x'",
                [("†state.nothing.x", "x")],
            ),
            (
                "†state.a || †input.b",
                "unresolved reference '†state.a || †input.b': '†state' has no 'a'; '†input' has no 'b'",
                [("†state.a", "a"), ("†input.b", "b")],
            ),
            (
                "†state.a && †input.count",
                "unresolved reference '†state.a && †input.count': '†state' has no 'a'",
                [("†state.a", "a")],
            ),
            (
                "†input.count && †state.a",
                "unresolved reference '†input.count && †state.a': '†state' has no 'a'",
                [("†state.a", "a")],
            ),
        ],
    )
    def test_missing_references(self, text: str, message: str, missing: list[tuple[str, str]]) -> None:
        with pytest.raises(UnresolvedReference) as caught:
            resolve(text, CONTEXT)
        assert str(caught.value) == message
        assert list(caught.value.missing) == missing
        assert (caught.value.reference, caught.value.segment) == missing[0]
        assert isinstance(caught.value, PromptwireError)

    def test_errors_name_the_field_where_the_reference_sat(self) -> None:
        with pytest.raises(UnresolvedReference) as missing:
            resolve({"args": [1, {"who": "†input.nobody"}]}, CONTEXT)
        assert str(missing.value) == "args[1].who: unresolved reference '†input.nobody': '†input' has no 'nobody'"
        assert missing.value.field == "args[1].who"
        with pytest.raises(InvalidReference) as invalid:
            resolve({"userName": "†input..userName"}, CONTEXT)
        assert str(invalid.value) == (
            "userName: invalid reference '†input..userName': expected a path segment after '†input.', found '.userName'"
        )

    def test_too_deep_values_raise_the_projects_error(self) -> None:
        deep: Any = "†input.userName"
        for _ in range(MAX_DEPTH + 5):
            deep = [deep]
        with pytest.raises(FieldError, match=f"nested deeper than {MAX_DEPTH} levels"):
            resolve(deep, CONTEXT)

    def test_the_deepest_allowed_value_resolves(self) -> None:
        deep: Any = "†input.userName"
        for _ in range(MAX_DEPTH):
            deep = {"k": deep}
        out = resolve(deep, CONTEXT)
        for _ in range(MAX_DEPTH):
            out = out["k"]
        assert out == "Ada"

    def test_a_value_containing_itself_raises_the_projects_error(self) -> None:
        looped: list[Any] = ["†input.userName"]
        looped.append(looped)
        with pytest.raises(FieldError, match="contains itself"):
            resolve(looped, CONTEXT)


class TestWriteOutput:
    def test_sets_and_creates_intermediate_objects(self) -> None:
        before = copy.deepcopy(CONTEXT)
        after = write_output("†state.a.b", {"done": True}, CONTEXT)
        assert after["state"]["a"] == {"b": {"done": True}}
        assert after["state"]["user"] is CONTEXT["state"]["user"]  # untouched parts are shared
        assert before == CONTEXT  # copy-on-write: the given context is never changed

    def test_creates_a_missing_kind(self) -> None:
        assert write_output("†data.user.status", "inactive", {}) == {"data": {"user": {"status": "inactive"}}}

    def test_bare_kind_replaces_the_whole_message(self) -> None:
        assert write_output("†state", {"x": 1}, CONTEXT)["state"] == {"x": 1}

    def test_replaces_existing_values_and_list_items(self) -> None:
        after = write_output("†state.items.1.id", 8, CONTEXT)
        assert after["state"]["items"] == ["first", {"id": 8}, None]
        assert CONTEXT["state"]["items"][1] == {"id": 7}
        assert write_output("†state.name", ["now", "a list"], CONTEXT)["state"]["name"] == ["now", "a list"]

    def test_numeric_segment_creates_an_object_key(self) -> None:
        assert write_output("†state.new.0", "x", CONTEXT)["state"]["new"] == {"0": "x"}

    def test_fan_out_writes_every_path(self) -> None:
        after = write_output("†state.a && †state.b.c && †data.d", 5, CONTEXT)
        assert (after["state"]["a"], after["state"]["b"], after["data"]) == (5, {"c": 5}, {"d": 5})

    def test_fan_out_later_paths_win_where_they_overlap(self) -> None:
        assert write_output("†state.a.b && †state.a", 1, {})["state"] == {"a": 1}

    def test_alternatives_write_the_chosen_branch(self) -> None:
        expr = "†state.receipt || †state.error"
        assert "error" not in write_output(expr, "ok", CONTEXT, branch=0)["state"]
        after = write_output(expr, "boom", CONTEXT, branch=1)
        assert after["state"]["error"] == "boom"
        assert "receipt" not in after["state"]

    def test_a_single_path_accepts_branch_zero(self) -> None:
        assert write_output("†state.x", 1, {}, branch=0) == {"state": {"x": 1}}

    def test_written_values_resolve(self) -> None:
        after = write_output("†state.profileSummary", "short", CONTEXT)
        assert resolve({"summary": "†state.profileSummary"}, after) == {"summary": "short"}

    @pytest.mark.parametrize(
        ("expr", "branch", "message"),
        [
            (
                "†state.name.first",
                None,
                "cannot write to '†state.name.first': '†state.name' is a string, not an object",
            ),
            ("†state.nothing.x", None, "cannot write to '†state.nothing.x': '†state.nothing' is null, not an object"),
            ("†state.ok.x.y", None, "cannot write to '†state.ok.x.y': '†state.ok' is a boolean, not an object"),
            (
                "†state.items.5",
                None,
                "cannot write to '†state.items.5': '†state.items' is a list of 3 items and has no item 5",
            ),
            (
                "†state.items.x.y",
                None,
                "cannot write to '†state.items.x.y': '†state.items' is a list and 'x' is not an index",
            ),
            (
                "†state.a && †state.name.x",
                None,
                "cannot write to '†state.a && †state.name.x': '†state.name' is a string, not an object",
            ),
            (
                "†state.a || †state.b",
                None,
                "cannot write to '†state.a || †state.b': '||' names 2 alternative outcomes; pass branch=0..1",
            ),
            ("†state.a || †state.b", 2, "cannot write to '†state.a || †state.b': branch 2 is out of range 0..1"),
            ("†state.a || †state.b", -1, "cannot write to '†state.a || †state.b': branch -1 is out of range 0..1"),
            ("†state.a", 1, "cannot write to '†state.a': branch 1 is out of range 0..0"),
            (
                "†state.a && †state.b",
                0,
                "cannot write to '†state.a && †state.b': '&&' writes every path; branch must be None, not 0",
            ),
            ("state.a", None, "cannot write to 'state.a': an output path is a reference such as '†state.result'"),
            ("††state.a", None, "cannot write to '††state.a': an output path is a reference such as '†state.result'"),
        ],
    )
    def test_errors_name_the_path(self, expr: str, branch: int | None, message: str) -> None:
        before = copy.deepcopy(CONTEXT)
        with pytest.raises(OutputPathError) as caught:
            write_output(expr, 1, CONTEXT, branch=branch)
        assert str(caught.value) == message
        assert before == CONTEXT

    def test_an_invalid_output_path_is_an_invalid_reference(self) -> None:
        with pytest.raises(InvalidReference, match="cannot mix"):
            write_output("†a || †b && †c", 1, {})

    def test_a_failed_fan_out_writes_nothing(self) -> None:
        context: dict[str, Any] = {"state": {"s": "text"}}
        with pytest.raises(OutputPathError):
            write_output("†state.a && †state.s.x", 1, context)
        assert context == {"state": {"s": "text"}}


# --- properties ------------------------------------------------------------------------------------

KEYS = st.sampled_from(["input", "state", "a", "0", "1", "x", "имя", "||", "†", "a.b", ""])
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=15,
)
CONTEXTS = st.dictionaries(KEYS, JSON, max_size=4)
SEGMENT_CHARS = st.characters(exclude_characters=".†|&").filter(lambda c: not c.isspace())
SEGMENTS = st.sampled_from(["input", "state", "a", "0", "1", "2", "x", "имя"]) | st.text(SEGMENT_CHARS, min_size=1)
REF_PATHS = st.builds(RefPath, SEGMENTS, st.lists(SEGMENTS, max_size=4).map(tuple))
# Any text, biased towards reference-looking text: daggers, dots, operators and blanks.
PATH_TEXT = st.text(st.sampled_from("†.|& \tax0имя") | st.characters(), max_size=20)
EXPRESSIONS = PATH_TEXT | PATH_TEXT.map(lambda s: "†" + s) | REF_PATHS.map(str)


@settings(max_examples=examples(2))
@given(CONTEXTS, EXPRESSIONS)
def test_resolve_returns_a_value_or_raises_its_own_error(context: dict[str, Any], text: str) -> None:
    try:
        resolve({"arg": text, "list": [text]}, context)
    except PromptwireError:
        assert text.strip().startswith("†")  # only a string that starts with a dagger can fail


@settings(max_examples=examples(2))
@given(CONTEXTS, JSON)
def test_resolve_leaves_values_without_daggers_unchanged(context: dict[str, Any], value: Any) -> None:
    assume("†" not in json.dumps(value, ensure_ascii=False))
    assert resolve(value, context) == value


@settings(max_examples=examples(2))
@given(CONTEXTS, REF_PATHS, JSON)
def test_writing_then_resolving_the_same_path_round_trips(context: dict[str, Any], path: RefPath, value: Any) -> None:
    before = copy.deepcopy(context)
    try:
        after = write_output(str(path), value, context)
    except OutputPathError:
        assume(False)  # a non-object in the way: covered by the error tests
        raise
    assert resolve(str(path), after) is value
    assert context == before


@settings(max_examples=examples(2))
@given(CONTEXTS, st.lists(REF_PATHS, min_size=2, max_size=3), JSON)
def test_fan_out_then_the_last_path_resolves(context: dict[str, Any], paths: list[RefPath], value: Any) -> None:
    expr = " && ".join(map(str, paths))
    try:
        after = write_output(expr, value, context)
    except OutputPathError:
        assume(False)
        raise
    assert resolve(str(paths[-1]), after) is value
