"""Output contracts written as JSON Schema (prompt files, the Python API, other dialects): the check
reads them as JSON Schema does, and a schema whose keywords are of the wrong kind is refused by name.
AgentScript shapes (every field required, no null) keep the reference's behaviour, pinned elsewhere."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import promptwire
from promptwire.adapters.offline import mock_value
from promptwire.core.coercion import ResultError, check_result, field_types, mismatch
from promptwire.core.errors import FieldError

NULLABLE = {
    "type": "object",
    "properties": {"name": {"type": ["string", "null"]}, "age": {"type": ["number", "null"]}},
    "required": ["name", "age"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"name": None, "age": None}, {"name": None, "age": None}),
        ({"name": "Ada", "age": "36"}, {"name": "Ada", "age": 36}),  # lenient: a number written as text
    ],
)
def test_a_type_or_null_takes_either(value: dict[str, Any], expected: dict[str, Any]) -> None:
    assert check_result(value, NULLABLE, strict=False) == expected


def test_a_type_or_null_refuses_another_type_saying_so() -> None:
    with pytest.raises(ResultError, match=r"^LLM result field must be a number or null$"):
        check_result({"name": "Ada", "age": "old"}, NULLABLE, strict=False)
    with pytest.raises(ResultError, match=r"^LLM result field must be a number or null$"):
        check_result({"name": "Ada", "age": "36"}, NULLABLE, strict=True)


def test_only_required_fields_must_be_there() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "number"}},
        "required": ["a", "c"],
    }
    assert check_result({"a": "x", "c": 1}, schema, strict=False) == {"a": "x", "c": 1}
    with pytest.raises(ResultError, match=r"^LLM result field must be a number$"):
        check_result({"a": "x", "b": "many", "c": 1}, schema, strict=False)  # optional, but typed when given
    with pytest.raises(ResultError, match=r"^LLM result is missing required field 'c'$"):
        check_result({"a": "x"}, schema, strict=False)  # required without a property schema
    assert check_result({}, {"type": "object", "properties": {"a": {"type": "string"}}}, strict=True) == {}


@pytest.mark.parametrize(
    ("schema", "good", "bad", "message"),
    [
        ({"type": "array", "items": {"type": "number"}}, [1, "2"], {"a": 1}, "LLM result must be a list"),
        ({"type": "string"}, "yes", 3, "LLM result must be a string"),
        ({"type": ["boolean", "null"]}, None, "maybe", "LLM result must be a boolean or null"),
    ],
)
def test_a_schema_of_another_type_checks_the_whole_result(
    schema: dict[str, Any], good: Any, bad: Any, message: str
) -> None:
    check_result(good, schema, strict=False)
    with pytest.raises(ResultError, match=f"^{message}$"):
        check_result(bad, schema, strict=False)


def test_the_offline_mock_satisfies_a_type_or_null_and_a_list_schema() -> None:
    assert mock_value(NULLABLE) == {"name": "", "age": 0}
    assert check_result(mock_value(NULLABLE), NULLABLE, strict=True) == {"name": "", "age": 0}
    assert mock_value({"type": ["null"]}) is None
    result = promptwire.generate({"instruction": "x", "output": {"schema": {"type": "array", "items": {}}}})
    assert result.value == [{}]


@pytest.mark.parametrize(
    ("schema", "field"),
    [
        ({"properties": [None]}, "output.schema.properties"),
        ({"type": "object", "properties": {"a": 5}}, "output.schema.properties.a"),
        ({"type": 7}, "output.schema.type"),
        ({"type": ["string", 1]}, "output.schema.type"),
        ({"required": "a"}, "output.schema.required"),
        ({"type": "array", "items": [True, "x"]}, "output.schema.items[1]"),
        (
            {"properties": {"a": {"items": {"properties": {"b": {"type": {}}}}}}},
            "output.schema.properties.a.items.properties.b.type",
        ),
    ],
)
def test_a_schema_keyword_of_the_wrong_kind_is_refused_by_name(schema: dict[str, Any], field: str) -> None:
    with pytest.raises(FieldError) as caught:
        promptwire.render({"instruction": "x", "output": {"schema": schema}})
    assert caught.value.field == f"prompt.{field}"


def test_boolean_schemas_and_unknown_keywords_are_left_to_the_provider() -> None:
    schema = {"type": "object", "properties": {"a": True, "b": False}, "x-note": [1], "anyOf": "?"}
    promptwire.render({"instruction": "x", "output": {"schema": schema}})


def test_a_boolean_schema_has_the_mock_value_of_a_schema_of_no_type() -> None:
    """``true`` and ``false`` are JSON Schemas (the contract accepts them); under ``properties``
    the offline mock called ``.get`` on one, an AttributeError out of ``generate`` once the canned
    replies ran out (found by the model-reply fuzz)."""
    schema = {"type": "object", "properties": {"a": False, "b": True, "c": {}}}
    assert mock_value(schema) == {"a": {}, "b": {}, "c": {}}
    assert mock_value(True) == {}


_FIELD_SCHEMAS = st.sampled_from(
    [
        {"type": "string"},
        {"type": "number"},
        {"type": "integer"},
        {"type": "boolean"},
        {"type": "array"},
        {"type": "array", "items": {"type": "number"}},
        {"type": ["boolean", "null"]},
        {},
    ]
)


@given(
    schema=_FIELD_SCHEMAS,
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.sampled_from(["1", "true", "x"]),
        lambda inner: st.lists(inner, max_size=3),
        max_leaves=5,
    ),
    strict=st.booleans(),
)
def test_a_field_is_accepted_exactly_when_its_kind_matches(schema: dict[str, Any], value: Any, strict: bool) -> None:
    """The check's inline test of a plain kind (a boolean is not a number, though ``bool`` is an
    ``int``) and :func:`mismatch` agree: a field passes exactly when its (coerced) value has no
    mismatch with the kind :func:`field_types` reads from its schema."""
    contract = {"type": "object", "properties": {"f": schema}, "required": ["f"]}
    kind = field_types(contract)["f"]
    try:
        result = check_result({"f": value}, contract, strict=strict)
    except ResultError:
        assert mismatch(value, kind) is not None  # coercion only mends a value of the wrong kind
    else:
        assert mismatch(result["f"], kind) is None
        if strict or mismatch(value, kind) is None:
            assert result["f"] == value
