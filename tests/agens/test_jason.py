"""The Jason-compatible encoder: what Jason 1.4 prints for each kind of value, byte for byte, plus properties."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire.core.errors import FieldError, PromptwireError
from promptwire.renderers.agens import jason
from promptwire.renderers.agens.jason import encode, encode_float, encode_key, encode_string

from hypothesis_profile import examples

# --- floats: :erlang.float_to_binary(f, [:short]) ---------------------------------------------------


@pytest.mark.parametrize(
    ("number", "text"),
    [
        # Jason's own spellings: plain decimals unless the scientific form is shorter
        (1000.0, "1.0e3"),
        (12000.0, "1.2e4"),
        (0.0001, "0.0001"),
        (1.2e-4, "1.2e-4"),
        (1.5, "1.5"),
        (1.0, "1.0"),
        (1e20, "1.0e20"),
        # ties go to the decimal form; one character less goes to the scientific one
        (100.0, "100.0"),
        (1e-5, "1.0e-5"),
        (0.001234, "0.001234"),
        (0.0001234, "1.234e-4"),
        (1234.0, "1234.0"),
        (12340.0, "12340.0"),
        (123400.0, "1.234e5"),
        (1234567890.0, "1234567890.0"),
        (12345678900.0, "12345678900.0"),
        (123456789000.0, "1.23456789e11"),
        # whole numbers from 2**53 up are always scientific
        (9007199254740991.0, "9007199254740991.0"),
        (9007199254740992.0, "9.007199254740992e15"),
        (-9007199254740992.0, "-9.007199254740992e15"),
        # signs, zeros and the extremes
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (-1.5, "-1.5"),
        (0.1, "0.1"),
        (123.456, "123.456"),
        (5e-324, "5.0e-324"),
        (1.7976931348623157e308, "1.7976931348623157e308"),
        (2.2250738585072014e-308, "2.2250738585072014e-308"),
    ],
)
def test_float_spelling(number: float, text: str) -> None:
    assert encode_float(number) == text
    assert encode(number) == text


@pytest.mark.parametrize("number", [math.nan, math.inf, -math.inf])
def test_non_finite_floats_are_refused(number: float) -> None:
    with pytest.raises(FieldError, match=r"^score: .*no JSON form"):
        encode({"score": number})


def _candidates(number: float) -> tuple[str, str]:
    """Both layouts of the shortest digits, built independently of the encoder with ``Decimal``."""
    shortest = Decimal(repr(abs(number)))
    decimal = format(shortest, "f")
    decimal = decimal if "." in decimal else decimal + ".0"
    _, digit_tuple, exponent = shortest.normalize().as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple))
    scientific = f"{digits[0]}.{digits[1:] or '0'}e{exponent + len(digits) - 1}"
    return decimal, scientific


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_follow_the_shorter_form_rule(number: float) -> None:
    """Erlang's rule (the decimal form unless the scientific one is shorter; whole numbers from 2**53 up
    always scientific), checked against the to_chars.h port on any float."""
    text = encode_float(number)
    assert float(text) == number
    if number == 0:
        return
    decimal, scientific = _candidates(number)
    whole_and_huge = abs(number) >= 2**53
    expected = scientific if whole_and_huge or len(decimal) > len(scientific) else decimal
    assert text == ("-" if number < 0 else "") + expected
    assert "+" not in text and "E" not in text


# --- strings --------------------------------------------------------------------------------------


def test_string_escapes() -> None:
    text = 'q" b\\ \b\t\n\f\r \x00\x01\x0b\x1b\x1f \x7f / \u2028\u2029 é 😀'
    expected = '"q\\" b\\\\ \\b\\t\\n\\f\\r \\u0000\\u0001\\u000B\\u001B\\u001F \x7f / \u2028\u2029 é 😀"'
    assert encode_string(text) == expected
    assert encode(text) == expected


def test_lone_surrogate_is_invalid_utf8() -> None:
    with pytest.raises(FieldError, match=r"^tool_calls\[1\]: .*surrogate"):
        encode(["ok", "bad \ud83d"], ["tool_calls"])


@given(st.text(alphabet=st.characters(exclude_categories=())))
def test_strings_round_trip_with_only_jasons_escapes(text: str) -> None:
    if re.search("[\ud800-\udfff]", text):
        with pytest.raises(FieldError):
            encode_string(text)
        return
    encoded = encode_string(text)
    assert json.loads(encoded) == text
    escapes = re.findall(r"\\(u[0-9A-Fa-f]{4}|.)", encoded[1:-1])
    for escape in escapes:
        assert escape in {'"', "\\", "b", "t", "n", "f", "r"} or re.fullmatch("u00[01][0-9A-F]", escape), escape


# --- maps, lists and scalars ------------------------------------------------------------------------


def test_scalars() -> None:
    assert encode(None) == "null"
    assert encode(True) == "true"
    assert encode(False) == "false"
    assert encode(-12) == "-12"
    assert encode(10**30) == "1" + "0" * 30


def test_compact_nesting() -> None:
    value = {"b": [1, {"y": None, "x": "é"}], "a": {}}
    assert encode(value) == '{"a":{},"b":[1,{"x":"é","y":null}]}'
    assert encode([]) == "[]"
    assert encode([[]]) == "[[]]"


def test_key_order_is_the_beam_map_order() -> None:
    # integers numerically, then floats numerically, then atoms, then strings bytewise
    value: dict[Any, str] = {
        "b": "s2",
        "B": "s1",
        "é": "s3",
        10: "i10",
        2: "i2",
        -1: "i-1",
        2.5: "f2.5",
        0.5: "f0.5",
        None: "nil",
        True: "true",
        False: "false",
    }
    assert encode(value) == (
        '{"-1":"i-1","2":"i2","10":"i10","0.5":"f0.5","2.5":"f2.5",'
        '"false":"false","nil":"nil","true":"true","B":"s1","b":"s2","é":"s3"}'
    )


def test_string_keys_sort_bytewise_not_by_locale() -> None:
    assert encode({"a": 1, "Z": 2, "_": 3, "ä": 4, "😀": 5, "\uffff": 6}) == (
        '{"Z":2,"_":3,"a":1,"ä":4,"\uffff":6,"😀":5}'
    )


def test_keys_are_escaped() -> None:
    assert encode({'a"\n': 1}) == '{"a\\"\\n":1}'
    assert encode_key(3) == '"3"'
    assert encode_key(None) == '"nil"'
    assert encode_key(1e3) == '"1.0e3"'


def test_large_maps_are_sorted_too() -> None:
    value = {f"k{index:03d}": index for index in reversed(range(40))}
    assert list(json.loads(encode(value))) == sorted(value)


def test_dates_are_iso8601() -> None:
    utc = dt.UTC
    minus_five = dt.timezone(dt.timedelta(hours=-5, minutes=-30))
    assert encode(
        [
            dt.date(2026, 5, 22),
            dt.time(9, 8, 7),
            dt.time(9, 8, 7, 120),
            dt.datetime(2026, 5, 22, 9, 8, 7),
            dt.datetime(2026, 5, 22, 9, 8, 7, tzinfo=utc),
            dt.datetime(2026, 5, 22, 9, 8, 7, 5, tzinfo=minus_five),
        ]
    ) == (
        '["2026-05-22","09:08:07","09:08:07.000120","2026-05-22T09:08:07",'
        '"2026-05-22T09:08:07Z","2026-05-22T09:08:07.000005-05:30"]'
    )


@pytest.mark.parametrize(
    ("value", "path", "reason"),
    [
        ({"call_1": ("error", "timeout")}, r"tool_results\.call_1", "tuple"),
        ({"a": [1, {"b": {1, 2}}]}, r"tool_results\.a\[1\]\.b", "set"),
        ({"a": b"\xff"}, r"tool_results\.a", "bytes"),
        ({"a": object()}, r"tool_results\.a", "object has no JSON form"),
        ({"a": ValueError("x")}, r"tool_results\.a", "exception"),
        ({(1, 2): "x"}, r"tool_results", "map key"),
        ({"t": dt.time(1, tzinfo=dt.UTC)}, r"tool_results\.t", "offset"),
    ],
)
def test_unencodable_values_name_their_path(value: object, path: str, reason: str) -> None:
    with pytest.raises(FieldError, match=rf"^{path}: .*{reason}"):
        encode(value, ["tool_results"])


def test_self_containing_values_are_refused() -> None:
    loop: list[object] = [1]
    loop.append(loop)
    with pytest.raises(
        FieldError, match=r"^data: the value contains itself \(a circular structure cannot be printed\)$"
    ):
        encode({"x": loop}, ["data"])


def test_shared_but_acyclic_values_are_fine() -> None:
    shared = [1]
    assert encode([shared, shared, {"a": shared}]) == '[[1],[1],{"a":[1]}]'


def test_deep_nesting() -> None:
    # A prompt value may nest 1000 levels, from any call depth; one more is the prompt model's error.
    value: list[object] = []
    for _ in range(999):
        value = [value]
    assert encode(value) == "[" * 1000 + "]" * 1000
    assert encode([value], outer_levels=1) == "[" * 1001 + "]" * 1001
    with pytest.raises(FieldError, match=r"^tool_results: the value is nested deeper than 1000 levels$"):
        encode([value], ["tool_results"])
    for _ in range(100_000):  # far past Python's recursion limit: the same error, not a RecursionError
        value = [value]
    with pytest.raises(FieldError, match=r"^tool_results: the value is nested deeper than 1000 levels$"):
        encode(value, ["tool_results"])


# --- properties on arbitrary data -----------------------------------------------------------------

_json_scalars = st.none() | st.booleans() | st.integers() | st.text(alphabet=st.characters(codec="utf-8"))
_json_values = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(_json_values)
def test_agrees_with_json_dumps_where_their_rules_coincide(value: object) -> None:
    """Without floats, Jason is ``json.dumps`` sorted and compact, up to the case of ``\\u00xx``."""
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    expected = re.sub(r"(?<!\\)((?:\\\\)*)\\u00([0-9a-f]{2})", lambda m: m[1] + "\\u00" + m[2].upper(), expected)
    assert encode(value) == expected


_anything = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text()
    | st.binary(max_size=3)
    | st.dates()
    | st.datetimes(timezones=st.none() | st.just(dt.UTC))
    | st.builds(object),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner)
        | st.frozensets(st.integers(), max_size=2)
        | st.dictionaries(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=3), inner, max_size=3
        )
    ),
    max_leaves=12,
)


@settings(max_examples=examples(3))
@given(_anything)
def test_untrusted_values_encode_or_raise_a_field_error(value: object) -> None:
    try:
        text = encode(value, ["data"])
    except PromptwireError as error:
        assert isinstance(error, FieldError)
        assert str(error).startswith("data")
        return
    json.loads(text)  # whatever is accepted is valid JSON


def test_subclasses_and_other_mappings() -> None:
    import enum
    from types import MappingProxyType

    class Color(enum.StrEnum):
        RED = "red"

    class Level(enum.IntEnum):
        HIGH = 3

    assert encode([Color.RED, Level.HIGH]) == '["red",3]'
    assert encode(MappingProxyType({"b": 1, "a": 2})) == '{"a":2,"b":1}'
    assert encode({Color.RED: 1}) == '{"red":1}'


# --- the one-join path for big containers of plain strings ------------------------------------------

_plain_text = st.text(alphabet="abcXYZ019 _-.:/é中\u2028😀", max_size=6)
_any_text = st.one_of(_plain_text, _plain_text, st.text(max_size=3))  # mostly plain, some anything
_BIG = {"min_size": jason._FLAT_MIN + 1, "max_size": jason._FLAT_MIN + 20}


def _walked(value: object) -> str | FieldError:
    """What the general walk prints for ``value`` (or the error it raises), the one-join path off."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jason, "_FLAT_MIN", 1 << 62)
        try:
            return encode(value, ["data"])
        except FieldError as error:
            return error


def _encoded(value: object) -> str | FieldError:
    try:
        return encode(value, ["data"])
    except FieldError as error:
        return error


@given(st.lists(_plain_text, **_BIG) | st.dictionaries(_plain_text, _plain_text, **_BIG))
def test_big_plain_string_containers_take_one_join_and_print_as_the_walk(value: list[str] | dict[str, str]) -> None:
    assert (jason._flat_list_text if isinstance(value, list) else jason._flat_map_text)(value) is not None
    assert encode(value) == _walked(value)
    assert encode({"info": value, "n": [1.5]}) == _walked({"info": value, "n": [1.5]})


@given(
    st.lists(_any_text | st.integers(), **_BIG)
    | st.dictionaries(_any_text, _any_text | st.none(), **_BIG)
    | st.dictionaries(_any_text | st.integers(), _any_text, **_BIG)
)
def test_big_containers_print_as_the_walk_whatever_they_hold(value: list[object] | dict[object, object]) -> None:
    walked, encoded = _walked(value), _encoded(value)
    if isinstance(walked, FieldError):
        assert isinstance(encoded, FieldError)
        assert str(encoded) == str(walked)
    else:
        assert encoded == walked


def _rows(keys: st.SearchStrategy[Any], values: st.SearchStrategy[Any]) -> st.SearchStrategy[list[dict[Any, Any]]]:
    """Lists of maps that share one key set (tool descriptions, rows of a table)."""
    return st.lists(keys, min_size=1, max_size=3, unique=True).flatmap(
        lambda names: st.lists(st.fixed_dictionaries({name: values for name in names}), **_BIG)
    )


@given(_rows(_plain_text, _plain_text))
def test_big_lists_of_same_keyed_text_maps_take_one_format_per_row_and_print_as_the_walk(
    rows: list[dict[str, str]],
) -> None:
    assert encode(rows) == _walked(rows)
    assert encode({"tool_defs": rows}) == _walked({"tool_defs": rows})


@given(_rows(_any_text, _any_text | st.none() | st.integers()))
def test_big_lists_of_maps_print_as_the_walk_whatever_they_hold(rows: list[dict[str, object]]) -> None:
    walked, encoded = _walked(rows), _encoded(rows)
    if isinstance(walked, FieldError):
        assert isinstance(encoded, FieldError)
        assert str(encoded) == str(walked)
    else:
        assert encoded == walked


def test_tool_descriptions_take_one_format_per_row() -> None:
    tools = [{"name": f"tool_{i}", "description": f"Looks up record {i}."} for i in range(jason._FLAT_MIN + 1)]
    assert jason._flat_rows_text(tools) is not None
    assert encode(tools) == _walked(tools)


def test_rows_with_percent_signs_and_rows_at_the_depth_limit_print_as_the_walk() -> None:
    rows = [{"%s": f"{i}%d", "b%": "%%"} for i in range(jason._FLAT_MIN + 1)]
    assert encode(rows) == _walked(rows)
    deep: object = rows
    for _ in range(jason.MAX_DEPTH - 2):
        deep = [deep]
    assert str(_encoded(deep)) == str(_walked(deep))
