"""A model's tool call may point at data instead of copying it: ``ToolCall.resolved`` gives what the
tool receives, ``ToolCall.write_result`` files the tool's answer under the call's ``_outputPath``."""

from __future__ import annotations

import pytest

from promptwire.core.prompt import ToolCall
from promptwire.core.references import InvalidReference, OutputPathError, UnresolvedReference, resolve_arguments

CONTEXT = {"input": {"userName": "Ada", "report": {"pages": 40}}, "state": {"draft": ["a", "b"]}}


def test_references_resolve_to_raw_values_and_meta_properties_stay_as_written() -> None:
    call = ToolCall(
        name="summarise",
        id="c1",
        arguments={"report": "†input.report", "who": "†input.userName", "n": 2, "_outputPath": "†state.summary"},
    )
    resolved = call.resolved(CONTEXT)
    assert resolved.arguments == {
        "report": {"pages": 40},
        "who": "Ada",
        "n": 2,
        "_outputPath": "†state.summary",
    }
    assert list(resolved.arguments) == ["report", "who", "n", "_outputPath"]
    assert (resolved.name, resolved.id) == ("summarise", "c1")
    assert call.arguments["report"] == "†input.report"  # the call itself is left alone


def test_a_missing_path_names_the_argument() -> None:
    call = ToolCall(name="t", arguments={"options": {"items": ["x", "†state.nope"]}})
    with pytest.raises(UnresolvedReference) as caught:
        call.resolved(CONTEXT)
    assert caught.value.field == "options.items[1]"
    assert caught.value.reference == "†state.nope"


def test_a_malformed_reference_names_the_argument() -> None:
    with pytest.raises(InvalidReference, match=r"^who: invalid reference"):
        ToolCall(name="t", arguments={"who": "†input.userName &&"}).resolved(CONTEXT)


def test_write_result_files_the_answer_under_the_output_path_without_touching_the_old_context() -> None:
    call = ToolCall(name="t", arguments={"_outputPath": "†state.summary && †state.last"})
    updated = call.write_result({"text": "short"}, CONTEXT)
    assert updated["state"] == {"draft": ["a", "b"], "summary": {"text": "short"}, "last": {"text": "short"}}
    assert CONTEXT["state"] == {"draft": ["a", "b"]}


def test_write_result_needs_a_branch_for_alternative_outcomes() -> None:
    call = ToolCall(name="t", arguments={"_outputPath": "†state.receipt || †state.error"})
    with pytest.raises(OutputPathError):
        call.write_result("paid", CONTEXT)
    assert call.write_result("declined", CONTEXT, branch=1)["state"]["error"] == "declined"


def test_a_call_without_an_output_path_writes_nothing() -> None:
    assert ToolCall(name="t").write_result("x", CONTEXT) == CONTEXT


def test_an_output_path_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(OutputPathError, match="_outputPath must be a string"):
        ToolCall(name="t", arguments={"_outputPath": 3}).write_result("x", CONTEXT)


def test_resolve_arguments_leaves_every_underscore_name_alone() -> None:
    arguments = {"_instance": "†not.a.value", "_scopes": ["†state.x"], "v": "†state.draft.0"}
    assert resolve_arguments(arguments, CONTEXT) == {**arguments, "v": "a"}
