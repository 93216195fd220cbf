from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator, Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from time_bounds import AT_ONCE  # tests/time_bounds.py (pytest's pythonpath)

from promptwire import Budget, FieldError, Prompt, render
from promptwire.core import ContextItem, GenerateConfig, Identity, OutputContract, Retry
from promptwire.core.errors import SourceError, field_path
from promptwire.core.nesting import (
    FRAMES_PER_LEVEL,
    MAX_DEPTH,
    check_nesting,
    nesting_room,
    recursion_room,
    with_nesting_room,
)
from promptwire.core.prompt import assembled_prompt
from promptwire.core.validation import validate_model
from promptwire.renderers.agentscript.shape import shape_contract


class TestBudget:
    @pytest.mark.parametrize(
        ("raw", "amount", "unit", "limit", "tokens"),
        [
            ("2k", 2.0, "k", 2000, 2000),
            ("500", 500.0, None, 500, 500),
            ("1.5k", 1.5, "k", 1500, 1500),
            ("0.005k", 0.005, "k", 5, 5),
            ("2.9", 2.9, None, 2, 2),
            ("0.001k", 0.001, "k", 1, 1),
        ],
    )
    def test_parse_and_readings(self, raw: str, amount: float, unit: str | None, limit: int, tokens: int) -> None:
        budget = Budget.parse(raw)
        assert (budget.amount, budget.unit) == (amount, unit)
        assert budget.context_limit == limit
        assert budget.output_tokens == tokens

    @pytest.mark.parametrize("raw", ["1e5", "k", "-1", "2 k", "", "1.k"])
    def test_rejects_bad_literals(self, raw: str) -> None:
        with pytest.raises(ValueError, match="invalid budget"):
            Budget.parse(raw)

    @pytest.mark.parametrize("raw", ["0", "0k", "0.0"])
    def test_amount_must_be_positive(self, raw: str) -> None:
        with pytest.raises(ValueError, match="greater than 0"):
            Budget.parse(raw)

    @pytest.mark.parametrize("raw", ["2K", "2kb", "1.5M", "10tokens"])
    def test_refuses_units_it_does_not_know(self, raw: str) -> None:
        # Upstream AgentScript counts these plainly ("2kb" is 2); a prompt model that guessed would
        # clip silently to two characters. The .as front end applies the reference's own rule.
        with pytest.raises(ValueError, match="unknown budget unit"):
            Budget.parse(raw)

    @pytest.mark.parametrize("raw", ["0.5", "0.0004k", 0.25])
    def test_refuses_budgets_below_one_unit(self, raw: str | float) -> None:
        with pytest.raises(ValueError, match="less than one unit"):
            Budget.model_validate(raw)

    @pytest.mark.parametrize("data", [{"amount": 1.0e306, "unit": "k"}, 1e300, 2**53 + 2])
    def test_refuses_budgets_too_large_to_count(self, data: object) -> None:
        with pytest.raises(ValueError, match="too large"):
            Budget.model_validate(data)

    def test_budget_errors_name_the_field(self) -> None:
        with pytest.raises(FieldError, match=r"^prompt\.context\[0\]\.budget: .*unknown budget unit 'kb'"):
            render({"context": [{"value": "x", "budget": "2kb"}]})

    def test_accepts_number_string_and_mapping(self) -> None:
        assert Budget.model_validate(300) == Budget(amount=300)
        assert Budget.model_validate("3k") == Budget(amount=3, unit="k")
        assert Budget.model_validate({"amount": 3, "unit": "k"}).context_limit == 3000

    def test_bool_is_not_a_budget(self) -> None:
        with pytest.raises(ValueError):
            Budget.model_validate(True)

    @given(st.integers(min_value=1, max_value=10**6), st.sampled_from(["", "k"]))
    def test_str_round_trips(self, amount: int, unit: str) -> None:
        budget = Budget.parse(f"{amount}{unit}")
        assert Budget.parse(str(budget)) == budget


class TestGenerateConfig:
    def test_defaults_match_the_seed(self) -> None:
        config = GenerateConfig()
        assert (config.max_output, config.attempts, config.temperature) == (None, 1, None)
        assert (config.think, config.strict, config.debug) == (False, False, False)

    @pytest.mark.parametrize("think", [False, True, "auto", "low", "medium", "high"])
    def test_think_values(self, think: object) -> None:
        assert GenerateConfig.model_validate({"think": think}).think == think

    @pytest.mark.parametrize(
        ("data", "field"),
        [
            ({"think": "extreme"}, "think"),
            ({"think": 1}, "think"),
            ({"attempts": 0}, "attempts"),
            ({"attempts": 1.5}, "attempts"),
            ({"attempts": True}, "attempts"),
            ({"max_output": "0k"}, "max_output"),
            ({"strict": "yes"}, "strict"),
            ({"temperature": float("nan")}, "temperature"),
            ({"bogus": 1}, "bogus"),
        ],
    )
    def test_bad_values_name_the_field(self, data: dict[str, object], field: str) -> None:
        with pytest.raises(FieldError) as info:
            validate_model(GenerateConfig, data, root="config")
        assert info.value.field == f"config.{field}"


def _typed_fields(instruction: object, schema: dict[str, object] | None = None) -> dict[str, object]:
    """A prompt's fields as the interpreter gives them: models it validated, and JSON values."""
    return {
        "identity": Identity(role="Analyst", description="Careful"),
        "context": [
            ContextItem(value={"rows": [1, 2]}, label="data", source="input", budget=Budget(amount=2, unit="k"))
        ],
        "instruction": instruction,
        "output": None if schema is None else OutputContract(json_schema=schema),
        "config": GenerateConfig(attempts=2, temperature=0.5),
    }


def _circular() -> list[object]:
    value: list[object] = []
    value.append(value)
    return value


def _deep(levels: int) -> object:
    value: object = {}
    for _ in range(levels):
        value = {"a": value}
    return value


class TestAssembledPrompt:
    """:func:`assembled_prompt` (a program's run) makes the prompt validation makes of typed fields,
    without building the prompt's validator."""

    @pytest.mark.parametrize("schema", [None, {"type": "object", "properties": {"n": {"type": "integer"}}}])
    def test_the_prompt_is_the_one_validation_makes(self, schema: dict[str, object] | None) -> None:
        fields = _typed_fields({"question": "why?", "n": [1.5, None, True]}, schema)
        assembled, validated = assembled_prompt(dict(fields)), validate_model(Prompt, dict(fields))
        assert assembled == validated
        assert assembled.model_fields_set == validated.model_fields_set
        assert assembled.model_dump() == validated.model_dump()
        assert assembled.model_dump_json() == validated.model_dump_json()
        assert assembled.populated_fields() == validated.populated_fields()

    @pytest.mark.parametrize(
        ("instruction", "schema"),
        [
            (_circular(), None),
            (_deep(1500), None),
            ("x", {"type": "object", "default": float("nan")}),
        ],
        ids=["circular", "too-deep", "schema-not-json"],
    )
    def test_a_value_is_refused_in_validation_s_words(
        self, instruction: object, schema: dict[str, object] | None
    ) -> None:
        with pytest.raises(FieldError) as validated:
            validate_model(Prompt, _typed_fields(instruction, schema))
        with pytest.raises(FieldError) as assembled:
            assembled_prompt(_typed_fields(instruction, schema))
        assert (assembled.value.field, assembled.value.reason) == (validated.value.field, validated.value.reason)


class TestPromptValidation:
    def test_error_names_nested_field(self) -> None:
        with pytest.raises(FieldError) as info:
            validate_model(Prompt, {"context": [{"value": 1}, {"value": 2, "budget": "lots"}]})
        assert info.value.field == "context[1].budget"
        assert "invalid budget 'lots'" in str(info.value)

    def test_unknown_field_is_named(self) -> None:
        with pytest.raises(FieldError, match=r"^instructions: unknown field$"):
            validate_model(Prompt, {"instructions": "typo"})

    def test_image_needs_exactly_one_source(self) -> None:
        with pytest.raises(FieldError) as info:
            validate_model(Prompt, {"attachments": [{"type": "image"}]})
        assert info.value.field == "attachments[0]"
        assert "exactly one of 'url' or 'data'" in info.value.reason

    def test_unknown_part_type(self) -> None:
        with pytest.raises(FieldError) as info:
            validate_model(Prompt, {"attachments": [{"type": "video", "url": "x"}]})
        assert info.value.field == "attachments[0]"

    def test_render_validates_plain_data(self) -> None:
        with pytest.raises(FieldError, match=r"^prompt\.config\.attempts: "):
            render({"instruction": "x", "config": {"attempts": 0}})

    def test_populated_fields_ignore_defaults_and_config(self) -> None:
        prompt = Prompt(instruction="x", config=GenerateConfig(attempts=3))
        assert prompt.populated_fields() == ("instruction",)
        assert Prompt(previous_result="").populated_fields() == ("previous_result",)

    def test_a_config_is_changed_by_copy_not_in_place(self) -> None:
        prompt = Prompt(instruction="x")
        copy = prompt.model_copy()
        with pytest.raises(ValidationError, match="frozen"):
            copy.config.attempts = 3  # type: ignore[misc]
        changed = copy.model_copy(update={"config": copy.config.model_copy(update={"attempts": 3})})
        assert (prompt.config.attempts, copy.config.attempts, changed.config.attempts) == (1, 1, 3)
        assert Prompt().config == GenerateConfig() and Prompt().config.model_fields_set == set()
        assert Prompt.model_validate({"config": {"attempts": 2}}).config.attempts == 2

    def test_retry_previous_output_present_only_when_set(self) -> None:
        assert not Retry(reason="bad").has_previous_output
        assert Retry(reason="bad", previous_output=None).has_previous_output

    @given(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(), lambda c: st.lists(c) | st.dictionaries(st.text(), c)
        )
    )
    def test_any_json_value_is_a_valid_instruction(self, value: object) -> None:
        assert Prompt(instruction=value).instruction == value


class TestOutputContract:
    def test_shape_to_schema_follows_agentscript(self) -> None:
        contract = shape_contract(
            {
                "title": "string",
                "score": "number",
                "ok": "boolean",
                "meta": "json",
                "raw": "list",
                "tags": "list[string]",
                "rows": "list[json]",
                "grid": "list[list[number]]",
            }
        )
        assert contract.json_schema == {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "score": {"type": "number"},
                "ok": {"type": "boolean"},
                "meta": {},
                "raw": {"type": "array"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "rows": {"type": "array", "items": {}},
                "grid": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
            },
            "required": ["title", "score", "ok", "meta", "raw", "tags", "rows", "grid"],
            "additionalProperties": False,
        }
        assert list(contract.json_schema["properties"]) == list(contract.json_schema["required"])

    def test_unknown_shape_type_names_the_field(self) -> None:
        with pytest.raises(ValueError, match="shape field 'n': unsupported shape type 'integer'"):
            shape_contract({"n": "integer"})

    def test_schema_alias(self) -> None:
        assert OutputContract.model_validate({"schema": {"type": "string"}}).json_schema == {"type": "string"}


class TestErrors:
    def test_field_path_spelling(self) -> None:
        assert field_path(["context", 2, "budget"]) == "context[2].budget"
        assert field_path([0, "a"]) == "[0].a"
        assert field_path([]) == "<root>"

    def test_source_error_prints_like_a_compiler(self) -> None:
        err = SourceError("Expected ','", file="a.as", line=3, column=5, source_line="\tx = {a: 1 b: 2}\n")
        assert str(err) == "a.as:3:5: error: Expected ','\n\tx = {a: 1 b: 2}\n\t   ^"


class TestRoundTrip:
    """A prompt saved and loaded again means the same: "not given" is not "given as null"."""

    @pytest.mark.parametrize(
        "prompt",
        [
            Prompt(context=[{"value": 1}]),
            Prompt(instruction=None),
            Prompt(retry={"reason": "bad"}),
            Prompt(instruction="x", retry={"reason": "bad", "previous_output": None}),
        ],
        ids=["no-instruction", "null-instruction", "no-previous-output", "null-previous-output"],
    )
    def test_dump_and_load_keep_what_was_given(self, prompt: Prompt) -> None:
        for again in (Prompt.model_validate_json(prompt.model_dump_json()), Prompt(**prompt.model_dump())):
            assert again == prompt
            assert ("instruction" in again.model_fields_set) == ("instruction" in prompt.model_fields_set)
            assert render(again).messages == render(prompt).messages

    def test_native_entries_are_reported_by_name(self) -> None:
        prompt = Prompt(instruction="x", native={"agens": {"tool_results": {}}})
        assert prompt.populated_fields() == ("instruction", "native.agens")


class TestNesting:
    """Values too deep to print, or containing themselves, fail the same clear way for every format."""

    @staticmethod
    def nested(depth: int) -> object:
        value: object = 0
        for _ in range(depth):
            value = [value]
        return value

    def test_a_chat_without_json_fields_skips_their_check(self, monkeypatch: pytest.MonkeyPatch) -> None:
        # The JSON-by-definition fields (schemas, call arguments) are checked only when the prompt
        # has some: the usual chat paid a list, two generators and a scan of nothing on every render.
        import promptwire.core.prompt as prompt_module

        checked: list[list[object]] = []
        monkeypatch.setattr(prompt_module, "check_json_values", lambda values: checked.append([p for p, _ in values]))
        Prompt(instruction="x", history=[{"content": "hi"}], context=[{"value": {"a": [1]}}])
        assert checked == []
        Prompt(tools=[{"name": "t", "parameters": {"type": "object"}}], tool_calls=[{"name": "t"}])
        assert checked == [[("tools", 0, "parameters"), ("tool_calls", 0, "arguments")]]

    def test_a_value_at_the_limit_is_accepted(self) -> None:
        Prompt(instruction=self.nested(MAX_DEPTH))

    def test_deeper_is_refused_naming_the_field_and_the_limit(self) -> None:
        with pytest.raises(FieldError, match=rf"^prompt\.context\[0\]\.value: .* deeper than {MAX_DEPTH} levels"):
            render({"context": [{"value": self.nested(MAX_DEPTH + 1)}]})

    def test_a_value_containing_itself_is_refused(self) -> None:
        loop: list[object] = []
        loop.append({"again": loop})
        with pytest.raises(FieldError, match=r"^prompt\.sections\[0\]\.value: the value contains itself"):
            render({"sections": [{"kind": "info", "value": loop}]})

    def test_shared_parts_are_checked_once(self) -> None:
        value: object = ["x"]
        for _ in range(15):  # 2**15 paths, 16 containers
            value = [value, value]
        check_nesting(value, ("instruction",))
        for _ in range(65):  # 2**80 paths, 81 containers: a walk per path would never end
            value = [value, value]
        started = time.perf_counter()
        with pytest.raises(FieldError, match=r"^instruction: parts used in several places print as more than"):
            check_nesting(value, ("instruction",))
        assert time.perf_counter() - started < AT_ONCE  # a walk per path would never end

    def test_a_turns_call_arguments_are_named_when_refused(self) -> None:
        # The turns' call arguments are checked without their paths (made only when a check
        # fails): the error still names the call, for the nesting walk and for the JSON check.
        turns: list[dict[str, object]] = [{"role": "user", "content": "Go."}]
        for index in range(3):
            call = {"id": f"c{index}", "name": "f", "arguments": {"n": index}}
            turns.append({"role": "assistant", "content": "", "tool_calls": [call]})
            turns.append({"role": "tool", "tool_call_id": f"c{index}", "content": "ok"})
        deep = [dict(turn) for turn in turns]
        deep[3] = {**deep[3], "tool_calls": [{"id": "c1", "name": "f", "arguments": {"n": self.nested(MAX_DEPTH)}}]}
        with pytest.raises(FieldError, match=r"^prompt\.history\[3\]\.content\[0\]\.arguments: .* deeper than"):
            render({"history": deep})
        not_json = [dict(turn) for turn in turns]
        not_json[5] = {**not_json[5], "tool_calls": [{"id": "c2", "name": "f", "arguments": {"n": {1, 2}}}]}
        with pytest.raises(FieldError, match=r"^prompt\.history\[5\]\.content\[0\]\.arguments\.n: a set has no"):
            render({"history": not_json})
        Prompt(history=turns)  # the same conversation with plain arguments passes

    def test_values_made_for_the_check_are_each_walked(self) -> None:
        # _free_values handed each tool call's arguments and native over in a new tuple (from a
        # generator, freed once the next was read); the check told containers by id, and a later
        # tuple given a freed one's id passed for a repeat of it, unwalked (tool_calls[4] and [5]
        # here were accepted).
        calls: list[dict[str, object]] = [{"name": f"t{index}"} for index in range(4)]
        calls += [{"name": f"t{index}", "native": self.nested(MAX_DEPTH + 1)} for index in range(4, 8)]
        with pytest.raises(FieldError, match=rf"^prompt\.tool_calls\[4\]: .* deeper than {MAX_DEPTH} levels"):
            render({"tool_calls": calls})

    def test_values_a_mapping_makes_when_asked_are_each_walked(self) -> None:
        deep = self.nested(MAX_DEPTH)

        class Made(Mapping[str, object]):
            """A mapping whose values are made anew each time they are read (a list of one item)."""

            def __init__(self, keys: int, deep_from: int) -> None:
                self.keys, self.deep_from = keys, deep_from

            def __getitem__(self, key: str) -> object:
                index = int(key)
                return [index] if index < self.deep_from else [deep]

            def __iter__(self) -> Iterator[str]:
                return iter(str(index) for index in range(self.keys))

            def __len__(self) -> int:
                return self.keys

        check_nesting(Made(8, 8), ("instruction",))
        with pytest.raises(FieldError, match=rf"^instruction: .* deeper than {MAX_DEPTH} levels"):
            check_nesting(Made(8, 4), ("instruction",))

    def test_nesting_room_lets_a_recursive_walk_reach_the_limit(self) -> None:
        def depth(value: object) -> int:
            return 1 + depth(value[0]) if isinstance(value, list) else 0  # type: ignore[index]

        with nesting_room():
            assert depth(self.nested(MAX_DEPTH)) == MAX_DEPTH

    def test_with_nesting_room_makes_room_only_when_the_walk_runs_out(self, default_limit: int) -> None:
        limits: list[int] = []

        def depth(value: object) -> int:
            limits.append(sys.getrecursionlimit())
            return 1 + depth(value[0]) if isinstance(value, list) else 0  # type: ignore[index]

        assert with_nesting_room(depth, self.nested(3)) == 3
        assert set(limits) == {default_limit}  # shallow: no room made
        limits.clear()
        assert with_nesting_room(depth, self.nested(MAX_DEPTH)) == MAX_DEPTH
        assert max(limits) > default_limit  # the second walk ran with room
        assert sys.getrecursionlimit() == default_limit

    @pytest.mark.parametrize("format_name", ["agentscript", "agently", "agens", "messages"])
    def test_every_format_prints_a_value_at_the_limit(self, format_name: str, default_limit: int) -> None:
        deep = self.nested(MAX_DEPTH)
        rendered = render({"instruction": "x", "context": [{"value": deep, "label": "deep"}]}, format_name)
        assert "".join(str(message.content) for message in rendered.messages).count("[") >= MAX_DEPTH
        assert sys.getrecursionlimit() == default_limit


@pytest.fixture
def default_limit() -> Iterator[int]:
    """Python's default recursion limit for the test, whatever the process had before."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield 1000
    sys.setrecursionlimit(before)


def test_an_inner_room_gives_back_only_its_own_room(default_limit: int) -> None:
    with recursion_room(2000):
        outer = sys.getrecursionlimit()
        with recursion_room(5000):
            assert sys.getrecursionlimit() >= 5000
        assert sys.getrecursionlimit() == outer
    assert sys.getrecursionlimit() == default_limit


def test_rooms_closed_out_of_order_in_threads_keep_the_limit_and_give_it_back(default_limit: int) -> None:
    """Thread A opens a room, B opens a bigger one, A closes first: B keeps its room; when B closes
    the limit is the default again (each room restoring what it saw left it raised, or took B's)."""
    a_open, b_open, a_closed = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, int] = {}

    def a() -> None:
        with recursion_room(2000):
            a_open.set()
            b_open.wait(5)
        a_closed.set()

    def b() -> None:
        a_open.wait(5)
        with recursion_room(3000):
            b_open.set()
            a_closed.wait(5)
            seen["b after a left"] = sys.getrecursionlimit()

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen["b after a left"] >= 3000
    assert sys.getrecursionlimit() == default_limit


def test_recursion_room_is_raised_only_while_inside_and_given_back() -> None:
    before = sys.getrecursionlimit()
    with nesting_room():
        assert sys.getrecursionlimit() >= MAX_DEPTH * FRAMES_PER_LEVEL + 100
        with recursion_room(10):  # already room enough: nothing changes
            inner = sys.getrecursionlimit()
        assert sys.getrecursionlimit() == inner
    assert sys.getrecursionlimit() == before
    with pytest.raises(KeyError), nesting_room():
        raise KeyError("an error inside still gives the room back")
    assert sys.getrecursionlimit() == before
