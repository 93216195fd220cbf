"""Prompt data that crashed a render (``asrender: internal error``): each is now refused at
validation with a :class:`FieldError` naming the field, or reported like every other drop.

| payload | defence |
|---|---|
| a set, bytes, a date (YAML's ``!!set``, ``!!binary``, ``!!timestamp``), a key that is not text, NaN, an integer of 5000 digits in a field that is JSON by definition (``tools[].parameters``, ``tool_calls[].arguments``, ``output.schema``) | ``tool_calls[0].arguments.a: a set has no JSON form; use a list`` (the JSON printer of ``--output json`` raised a TypeError) |
"""

from __future__ import annotations

import datetime
import decimal
import re
from typing import Any

import pytest

import promptwire
from promptwire.core.errors import FieldError
from promptwire.core.json_text import dumps

FORMATS = ("agentscript", "messages", "agens", "agently")

NOT_JSON: dict[str, tuple[Any, str]] = {
    "a set": ({"x", "y"}, "a set has no JSON form; use a list"),
    "a frozenset": (frozenset({1}), "a set has no JSON form; use a list"),
    "bytes": (b"hello", "bytes have no JSON form; give text (base64 for binary data)"),
    "a date": (datetime.date(2020, 1, 1), "a date has no JSON form; give it as text"),
    "a datetime": (datetime.datetime(2020, 1, 1, 10), "a date has no JSON form; give it as text"),
    "a decimal": (decimal.Decimal("1.5"), "a Decimal is not JSON data"),
    "NaN": (float("nan"), "nan has no JSON form"),
    "an infinity": (float("inf"), "inf has no JSON form"),
    "5000 digits": (10**5000, "an integer of more than 4300 digits; give it as text"),
}

JSON_FIELDS: dict[str, tuple[dict[str, Any], str]] = {
    "a tool call's arguments": (
        {"tool_calls": [{"name": "t", "arguments": {"a": "VALUE"}}]},
        "tool_calls[0].arguments.a",
    ),
    "a tool's parameters": ({"tools": [{"name": "t", "parameters": {"a": "VALUE"}}]}, "tools[0].parameters.a"),
    "the output schema": ({"output": {"schema": {"enum": ["VALUE"]}}}, "output.schema.enum[0]"),
}


def _with(data: Any, value: Any) -> Any:
    if data == "VALUE":
        return value
    if isinstance(data, dict):
        return {key: _with(item, value) for key, item in data.items()}
    if isinstance(data, list):
        return [_with(item, value) for item in data]
    return data


@pytest.mark.parametrize("field", JSON_FIELDS)
@pytest.mark.parametrize("payload", NOT_JSON)
def test_a_value_that_is_not_json_in_a_json_field_is_refused_naming_it(field: str, payload: str) -> None:
    data, path = JSON_FIELDS[field]
    value, reason = NOT_JSON[payload]
    with pytest.raises(FieldError) as refused:
        promptwire.render(_with(data, value))
    assert str(refused.value) == f"prompt.{path}: {reason}"


@pytest.mark.parametrize("field", JSON_FIELDS)
def test_a_key_that_is_not_text_in_a_json_field_is_refused(field: str) -> None:
    data, path = JSON_FIELDS[field]
    with pytest.raises(
        FieldError, match=rf"^prompt\.{re.escape(path)}: the key \(1, 2\) is not text \(a JSON key is text\)$"
    ):
        promptwire.render(_with(data, {(1, 2): "x"}))


@pytest.mark.filterwarnings("ignore::promptwire.core.errors.UnsupportedFieldsWarning")
@pytest.mark.parametrize("format_name", FORMATS)
@pytest.mark.parametrize("field", JSON_FIELDS)
def test_json_data_in_a_json_field_renders_and_prints_as_json(field: str, format_name: str) -> None:
    data, _ = JSON_FIELDS[field]
    value = {"list": [1, 2.5, True, None, "é"], "nested": {"k": [{"deep": 10**100}]}}
    rendered = promptwire.render(_with(data, value), format_name)
    assert dumps(rendered.to_dict())


@pytest.mark.parametrize("temperature", [10**400, -(10**400), float("nan"), "hot", True])
def test_an_agently_temperature_no_float_can_hold_is_left_unset(temperature: Any) -> None:
    """``options.temperature`` of 400 digits made the Agently reader's finiteness check raise
    OverflowError (found by the dialect fuzz); a value that is no finite float is dropped, as NaN was."""
    from promptwire.renderers.agently.reader import reader

    assert reader.read({"input": "x", "options": {"temperature": temperature}}).config.temperature is None


@pytest.mark.filterwarnings("ignore::promptwire.core.errors.UnsupportedFieldsWarning")
@pytest.mark.parametrize("format_name", ["messages", "template"])
@pytest.mark.parametrize(
    ("tool", "shown"),
    [
        ({"returns": 10**5000}, {"returns": "<an integer of more than 4300 digits>"}),
        ({"native": {"x"}}, {"native": "{'x'}"}),
        ({"returns": {"r": (int, "n")}}, {"returns": {"r": ["<class 'int'>", "n"]}}),
        ({"native": {(1, 2): float("nan")}}, {"native": {"(1, 2)": "nan"}}),
    ],
)
def test_a_tool_value_json_cannot_hold_is_printed_as_its_text(
    tool: dict[str, Any], shown: dict[str, Any], format_name: str
) -> None:
    """A tool's ``returns`` and ``native`` are free values (an Agently declaration holds Python
    types); the formats that hand tools on (messages, template) made ``display()`` and
    ``to_dict()`` fail in the JSON writer (ValueError, TypeError; found by the dialect fuzz)."""
    options = {"source": "{% block user %}x{% endblock %}"} if format_name == "template" else {}
    rendered = promptwire.render({"tools": [{"name": "t", **tool}]}, format_name, **options)
    assert dumps(rendered.to_dict()["tools"]) == dumps([{"name": "t", "description": "", "parameters": {}, **shown}])
    assert "-- part" not in rendered.display()


@pytest.mark.filterwarnings("ignore::promptwire.core.errors.UnsupportedFieldsWarning")
@pytest.mark.parametrize("format_name", [name for name in FORMATS if name != "agently"])
def test_an_output_declaration_json_cannot_hold_is_printed_as_its_text(format_name: str) -> None:
    """An Agently ``output`` of a 5000-digit integer is kept as the contract's ``native``, and
    ``to_dict()`` (``asrender -O json``) failed in the JSON writer (found by the dialect fuzz);
    the agently format itself refuses it by name, as Agently cannot print it."""
    from promptwire.renderers.agently.reader import reader

    rendered = promptwire.render(reader.read({"input": "x", "output": 10**5000}), format_name)
    assert dumps(rendered.to_dict()["output"]["native"]) == '"<an integer of more than 4300 digits>"'


def test_half_a_character_in_a_field_path_is_an_escape_in_the_field_error() -> None:
    """A refusal under a key holding a lone surrogate raised UnicodeEncodeError out of pydantic-core
    (the FieldError's message, raised in a validator, must be UTF-8 there; found by the reply fuzz)."""
    schema = {"type": "object", "properties": {"\ud800": {"enum": [float("inf")]}}}
    with pytest.raises(FieldError) as refused:
        promptwire.render({"output": {"schema": schema}})
    assert str(refused.value) == "prompt.output.schema.properties.\\ud800.enum[0]: inf has no JSON form"


def test_an_agently_part_holding_half_a_character_is_a_field_error() -> None:
    """Pydantic's dump of the validated part raised UnicodeEncodeError (found by the dialect fuzz)."""
    from promptwire.renderers.agently.reader import reader

    with pytest.raises(FieldError, match=r"^attachment\[0\]: the part holds a lone surrogate"):
        reader.read({"input": "x", "attachment": [{"type": "\ud800"}]})
