"""``promptwire.renderers.agentscript.jsjson`` prints what ``JSON.stringify`` prints, and measures like JavaScript.

Three kinds of oracle: known vectors (from the ECMAScript spec and the reference's checklist), an
independent exact-arithmetic implementation of ``Number::toString`` written here from the spec text,
and Python's own ``json`` module on the values where JS and Python agree. When ``node`` is installed
a batch of random values is also compared with the real ``JSON.stringify`` (skipped otherwise).
"""

from __future__ import annotations

import json
import math
import random
import shutil
import struct
import subprocess
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptwire.renderers.agentscript.jsjson import (
    is_array_index,
    number_to_string,
    object_entries,
    pretty,
    pretty_length,
    pretty_reused,
    quote,
    stringify,
    utf16_len,
    utf16_slice,
)

from hypothesis_profile import examples

# --------------------------------------------------------------------------------------------
# Strategies

INDEX_LIKE_KEYS = ["0", "1", "2", "7", "10", "42", "4294967294", "4294967295", "01", "-1", "1.5", "1e3", " 1", "²", ""]
keys = st.one_of(st.sampled_from(INDEX_LIKE_KEYS), st.text(max_size=6))
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
any_double = st.integers(0, 2**64 - 1).map(lambda bits: struct.unpack("<d", struct.pack("<Q", bits))[0])
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    finite_floats,
    st.text(max_size=12),
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.tuples(children, children),
        st.dictionaries(keys, children, max_size=5),
    ),
    max_leaves=20,
)


def js_normalised(value: Any) -> Any:
    """What ``JSON.parse(JSON.stringify(value))`` holds, as Python values (numbers as floats)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:
            return None
        return number if math.isfinite(number) else None
    if isinstance(value, list | tuple):
        return [js_normalised(item) for item in value]
    return {key: js_normalised(item) for key, item in value.items()}


def parsed(text: str) -> Any:
    """Parse JSON text with every number as a float, so that 1 and 1.0 compare as JS sees them."""
    return json.loads(text, parse_int=float)


def expected_key_order(mapping: dict[str, Any]) -> list[str]:
    indexed = sorted((key for key in mapping if key.isdigit() and key.isascii() and is_array_index(key)), key=int)
    return indexed + [key for key in mapping if key not in indexed]


# --------------------------------------------------------------------------------------------
# Number::toString — an independent implementation from the ECMAScript spec's own algorithm


def reference_number_to_string(x: float) -> str:
    """Find the smallest k, then s closest to x (ties: even s), by exact rational arithmetic."""
    if math.isnan(x):
        return "NaN"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + reference_number_to_string(-x)
    if math.isinf(x):
        return "Infinity"
    exact = Fraction(x)
    top = len(str(math.floor(exact))) if exact >= 1 else -_leading_zeros(exact)
    for k in range(1, 18):
        best: tuple[Fraction, int, int] | None = None
        for n in (top, top + 1):
            scale = Fraction(10) ** (n - k)
            for s in {math.floor(exact / scale), math.ceil(exact / scale)}:
                if 10 ** (k - 1) <= s < 10**k and _to_double(s * scale) == x:
                    candidate = (abs(s * scale - exact), s % 2, s)
                    if best is None or candidate < best:
                        best = candidate
                        chosen_n = n
        if best is not None:
            return _spec_layout(str(best[2]), k, chosen_n)
    raise AssertionError(f"no representation found for {x!r}")


def _to_double(exact: Fraction) -> float:
    try:
        return float(exact)  # correctly rounded
    except OverflowError:
        return math.inf


def _leading_zeros(exact: Fraction) -> int:
    """For 0 < x < 1: the number of zeros right after the decimal point."""
    zeros = 0
    while exact * 10 ** (zeros + 1) < 1:
        zeros += 1
    return zeros


def _spec_layout(s: str, k: int, n: int) -> str:
    if k <= n <= 21:
        return s + "0" * (n - k)
    if 0 < n <= 21:
        return s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + s
    e = n - 1
    mantissa = s if k == 1 else s[0] + "." + s[1:]
    return mantissa + "e" + ("+" if e > 0 else "-") + str(abs(e))


class TestNumbers:
    @pytest.mark.parametrize(
        ("number", "text"),
        [
            (1.0, "1"),
            (2.5, "2.5"),
            (-0.0, "0"),
            (0.1, "0.1"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e16, "10000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (float(2**60), "1152921504606847000"),
            (float(2**53), "9007199254740992"),
            (5e-7, "5e-7"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (0.00001, "0.00001"),
            (1.2345e-5, "0.000012345"),
            (-1e-7, "-1e-7"),
            (1e300, "1e+300"),
            (1.5e300, "1.5e+300"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (123.456, "123.456"),
            (math.nan, "NaN"),
            (math.inf, "Infinity"),
            (-math.inf, "-Infinity"),
        ],
    )
    def test_known_vectors(self, number: float, text: str) -> None:
        assert number_to_string(number) == text
        assert reference_number_to_string(number) == text

    @settings(max_examples=examples(2))
    @given(st.one_of(any_double, finite_floats))
    def test_agrees_with_the_spec_algorithm(self, number: float) -> None:
        assert number_to_string(number) == reference_number_to_string(number)

    @pytest.mark.parametrize(
        ("value", "text"),
        [
            (math.nan, "null"),
            (math.inf, "null"),
            (-math.inf, "null"),
            (2**53, "9007199254740992"),
            (2**53 + 1, "9007199254740992"),  # the double nearest to it, as JSON.parse reads it
            (-(2**53) - 1, "-9007199254740992"),
            (2**60, "1152921504606847000"),
            (10**21, "1e+21"),
            (10**400, "null"),  # Infinity in JS
            (True, "true"),
            (False, "false"),
            (None, "null"),
            (0, "0"),
        ],
    )
    def test_json_numbers_and_literals(self, value: Any, text: str) -> None:
        assert stringify(value) == text
        assert stringify([value]) == f"[{text}]"
        assert stringify({"k": value}) == f'{{"k":{text}}}'

    @given(st.integers(-(2**80), 2**80))
    def test_ints_print_as_the_nearest_double(self, number: int) -> None:
        assert stringify(number) == number_to_string(float(number))


# --------------------------------------------------------------------------------------------
# Strings


class TestStrings:
    def test_escapes_exactly_what_js_escapes(self) -> None:
        short = {8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r"}
        for code in range(0x20):
            assert quote(chr(code)) == '"' + short.get(code, f"\\u{code:04x}") + '"'
        assert quote('"\\') == '"\\"\\\\"'
        assert quote("\x7f\u2028\u2029é漢😀") == '"\x7f\u2028\u2029é漢😀"'
        assert quote("/") == '"/"'

    def test_lone_surrogates_are_escaped_lowercase(self) -> None:
        assert quote("a\ud83d") == '"a\\ud83d"'
        assert quote("\ude00b") == '"\\ude00b"'
        assert quote("\udbff\ud800") == '"\\udbff\\ud800"'  # high then high: both lone

    def test_a_pair_of_surrogate_code_points_is_one_character(self) -> None:
        assert quote("\ud83d\ude00") == '"😀"'

    @given(st.text())
    def test_round_trips_through_json_loads(self, text: str) -> None:
        assert json.loads(quote(text)) == text
        assert quote(text) == json.dumps(text, ensure_ascii=False)


class TestUtf16:
    @pytest.mark.parametrize(
        ("text", "length"), [("", 0), ("abc", 3), ("é漢", 2), ("😀", 2), ("a😀b", 4), ("\ud83d", 1)]
    )
    def test_length(self, text: str, length: int) -> None:
        assert utf16_len(text) == length

    def test_slice_can_split_a_pair(self) -> None:
        assert utf16_slice("ab😀cd", 3) == "ab\ud83d"
        assert utf16_slice("ab😀cd", 4) == "ab😀"
        assert utf16_slice("ab😀cd", 0) == ""
        assert utf16_slice("ab😀cd", 99) == "ab😀cd"

    @given(st.text(), st.integers(0, 40))
    def test_slice_is_a_prefix_of_the_code_units(self, text: str, units: int) -> None:
        encoded = text.encode("utf-16-le", "surrogatepass")
        cut = utf16_slice(text, units)
        assert cut.encode("utf-16-le", "surrogatepass") == encoded[: 2 * units]
        assert utf16_len(cut) == min(units, utf16_len(text))


# --------------------------------------------------------------------------------------------
# Objects, arrays, layout


class TestKeyOrder:
    def test_index_keys_first_then_insertion_order(self) -> None:
        value = {"b": 1, "2": 2, "a": 3, "10": 4, "01": 5, "-1": 6, "4294967295": 7, "4294967294": 8, "1": 9}
        assert stringify(value) == ('{"1":9,"2":2,"10":4,"4294967294":8,"b":1,"a":3,"01":5,"-1":6,"4294967295":7}')

    @pytest.mark.parametrize(
        ("key", "index"),
        [
            ("0", True),
            ("7", True),
            ("4294967294", True),
            ("4294967295", False),
            ("00", False),
            ("01", False),
            ("-0", False),
            ("1.0", False),
            ("", False),
            ("²", False),
            ("٣", False),
            (" 1", False),
            ("99999999999", False),
        ],
    )
    def test_array_index(self, key: str, index: bool) -> None:
        assert is_array_index(key) is index

    @given(st.dictionaries(keys, st.integers(0, 9), max_size=12))
    def test_order_invariant(self, mapping: dict[str, int]) -> None:
        pairs = json.loads(stringify(mapping), object_pairs_hook=lambda items: items)
        assert [key for key, _ in pairs] == expected_key_order(mapping)
        assert dict(pairs) == mapping
        assert [key for key, _ in object_entries(mapping)] == expected_key_order(mapping)

    def test_non_string_keys_are_spelled_like_js_property_keys(self) -> None:
        assert stringify({1: "a", 2.0: "b", 2.5: "c", False: "d", None: "e", 2**60: "f"}) == (
            '{"1":"a","2":"b","2.5":"c","false":"d","null":"e","1152921504606847000":"f"}'
        )
        # A later duplicate key overwrites the value where the first one stood, as in JS.
        assert stringify({"x": 0, "1": "first", 1: "second"}) == '{"1":"second","x":0}'
        with pytest.raises(TypeError, match="object keys must be strings"):
            stringify({(1, 2): "tuple key"})


class TestLayout:
    def test_pretty_like_js(self) -> None:
        value = {"a": [1, {"b": None}], "e": [], "o": {}, "t": (True, False)}
        assert pretty(value) == (
            '{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ],\n  "e": [],\n  "o": {},\n'
            '  "t": [\n    true,\n    false\n  ]\n}'
        )
        assert stringify(value) == '{"a":[1,{"b":null}],"e":[],"o":{},"t":[true,false]}'

    @given(values)
    def test_round_trip_equals_the_js_normalised_value(self, value: Any) -> None:
        expected = js_normalised(value)
        assert parsed(stringify(value)) == json.loads(json.dumps(expected), parse_int=float)
        assert parsed(pretty(value)) == parsed(stringify(value))

    @given(
        st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.text(max_size=8)),
            lambda children: st.one_of(
                st.lists(children, max_size=4), st.dictionaries(st.text("abc_xyz", min_size=1, max_size=4), children)
            ),
            max_leaves=20,
        )
    )
    def test_equals_python_json_where_the_languages_agree(self, value: Any) -> None:
        # No floats, no big ints, no index-like keys: JS and Python print the same bytes.
        assert pretty(value) == json.dumps(value, indent=2, ensure_ascii=False)
        assert stringify(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    @given(
        st.one_of(
            st.lists(st.integers(-(2**60), 2**60), min_size=1),
            st.lists(st.floats(), min_size=1),
            st.lists(st.text(max_size=4), min_size=1),
            st.lists(st.booleans(), min_size=1),
            st.lists(st.one_of(st.booleans(), st.integers(0, 1), st.none()), min_size=1),
        ),
        st.integers(0, 2),
    )
    def test_arrays_of_scalars_print_item_by_item(self, items: list[Any], level: int) -> None:
        # One-type arrays take a joined fast path; it must print what the item-by-item walk prints.
        inner = "\n" + "  " * (level + 1)
        assert (
            pretty(items, level) == "[" + inner + ("," + inner).join(pretty(item) for item in items) + inner[:-2] + "]"
        )
        assert stringify(items) == "[" + ",".join(stringify(item) for item in items) + "]"
        assert stringify([items, items]) == f"[{stringify(items)},{stringify(items)}]"  # shared, not circular

    @given(values, st.integers(0, 3))
    def test_nested_level_only_indents(self, value: Any, level: int) -> None:
        assert pretty(value, level) == pretty(value).replace("\n", "\n" + "  " * level)

    @given(values, st.integers(0, 3), st.integers(0, 200))
    def test_pretty_length_without_building_text(self, value: Any, level: int, cap: int) -> None:
        exact = utf16_len(pretty(value, level))
        assert pretty_length(value, level) == exact
        capped = pretty_length(value, level, cap)
        assert capped == exact if exact <= cap else capped > cap

    def test_unsupported_values_and_cycles_raise(self) -> None:
        with pytest.raises(TypeError, match="set is not JSON serializable"):
            stringify({"s": {1, 2}})
        looped: list[Any] = [1]
        looped.append(looped)
        with pytest.raises(ValueError, match="circular"):
            pretty(looped)
        with pytest.raises(ValueError, match="circular"):
            pretty_length({"x": looped})

    def test_shared_but_acyclic_values_are_fine(self) -> None:
        shared = {"k": 1}
        assert stringify([shared, shared]) == '[{"k":1},{"k":1}]'

    def test_subclasses_print_as_their_base_types(self) -> None:
        from collections import OrderedDict
        from enum import IntEnum, StrEnum
        from types import MappingProxyType

        class Colour(StrEnum):
            RED = "red"

        class Level(IntEnum):
            HIGH = 3

        value = OrderedDict(c=Colour.RED, l=Level.HIGH, m=MappingProxyType({"2": 2, "1": 1}))
        assert stringify(value) == '{"c":"red","l":3,"m":{"1":1,"2":2}}'
        assert pretty_length(value) == len(pretty(value))


# --------------------------------------------------------------------------------------------
# node as an extra oracle (skipped when node is not installed)

NODE = shutil.which("node")
_NODE_SCRIPT = r"""
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean);
const out = lines.map((line) => {
  const [kind, payload] = JSON.parse(line);
  if (kind === "number") return String(Number(payload));
  if (kind === "slice") return JSON.stringify([payload[0].length, payload[0].slice(0, payload[1])]);
  const value = JSON.parse(payload);
  return JSON.stringify([JSON.stringify(value), JSON.stringify(value, null, 2)]);
});
process.stdout.write(JSON.stringify(out));
"""


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(9 if depth < 3 else 6)
    if choice == 0:
        return rng.choice([None, True, False])
    if choice == 1:
        return rng.choice([0, 1, -1, 2**53 + 1, 10**21, 10**22 + 3, rng.randrange(-(2**64), 2**64)])
    if choice == 2:
        return struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
    if choice == 3:
        return rng.choice([1e21, 1e-7, 5e-7, 1e-6, 1e16, 0.1, 2.5, -0.0, 1e300, 123.456])
    if choice in (4, 5):
        alphabet = 'ab"\\\n\t\x00\x1f\x7f\u2028é漢😀\ud83d\ude00'
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(8)))
    if choice == 6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {
        rng.choice(["a", "b", "0", "1", "10", "01", "-1", "4294967295", "4294967294", "z"]): _random_value(
            rng, depth + 1
        )
        for _ in range(rng.randrange(5))
    }


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    return True


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_agrees() -> None:
    assert NODE is not None
    rng = random.Random(20240509)
    samples = [v for v in (_random_value(rng) for _ in range(1500)) if _finite(v)]
    numbers = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(1500)]
    numbers = [n for n in numbers if math.isfinite(n)] + [1e21, 1e-7, 5e-7, 2.0**60, -0.0, 9.5e20, 1.1e-6]
    texts = ["ab😀cd", "😀😀", "é\ud83d", "plain"]
    requests = (
        [["value", json.dumps(v)] for v in samples]  # ensure_ascii: lone surrogates travel as escapes
        + [["number", repr(n)] for n in numbers]
        + [["slice", [t, n]] for t in texts for n in range(6)]
    )
    stdin = "\n".join(json.dumps(request) for request in requests)
    result = subprocess.run([NODE, "-e", _NODE_SCRIPT], input=stdin, capture_output=True, text=True, check=True)
    answers = json.loads(result.stdout)
    for value, answer in zip(samples, answers[: len(samples)], strict=True):
        assert [stringify(value), pretty(value)] == json.loads(answer), value
    for number, answer in zip(numbers, answers[len(samples) : len(samples) + len(numbers)], strict=True):
        assert number_to_string(number) == answer, number
    slices = answers[len(samples) + len(numbers) :]
    for (text, units), answer in zip([(t, n) for t in texts for n in range(6)], slices, strict=True):
        assert [utf16_len(text), utf16_slice(text, units)] == json.loads(answer)


def test_the_key_plan_cache_is_bounded_by_key_text_not_by_entries() -> None:
    from promptwire.renderers.agentscript import jsjson

    jsjson._PLANS.clear()
    jsjson._cached_chars = 0
    for i in range(200):  # big keys are their own shape: never cached
        pretty({f"{i}" + "k" * 100_000: 1})
    assert jsjson._PLANS == {}
    for i in range(5000):  # many small shapes: the cache starts over before it outgrows its bound
        pretty({f"key {i} " + "x" * 900: 1, "b": 2})
        assert sum(len(key) for keys in jsjson._PLANS for key in keys) <= jsjson._PLAN_CACHE_CHARS
    assert pretty({"b": 1, "2": 2}) == '{\n  "2": 2,\n  "b": 1\n}'


# --------------------------------------------------------------------------------------------
# pretty_reused: a kept text is given back only for a value that prints the same

LOOKALIKE_KEYS = st.one_of(st.sampled_from([1, 1.0, True, "1", "1.0", "true", 0, False, "0"]), keys)
lookalikes = st.recursive(
    st.sampled_from([1, 1.0, True, "1", 0, 0.0, False, None, -0.0, 2**53 + 1, float(2**53 + 1)]),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(LOOKALIKE_KEYS, children, max_size=3)),
    max_leaves=8,
)


@given(st.lists(lookalikes, min_size=1, max_size=6))
def test_pretty_reused_prints_what_pretty_prints(series: list[Any]) -> None:
    for value in series:  # values that compare equal or share JSON text, one after the other
        assert pretty_reused(value) == pretty(value)


def test_pretty_reused_sees_a_value_changed_in_place() -> None:
    schema: dict[Any, Any] = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    assert pretty_reused(schema) == pretty(schema)
    schema["properties"]["ok"]["type"] = "string"
    assert '"string"' in pretty_reused(schema)
    schema["properties"] = {1.0: True}
    assert pretty_reused(schema) == pretty(schema)
    schema["properties"] = {"1.0": True}
    assert (
        pretty_reused(schema) == pretty(schema) == '{\n  "type": "object",\n  "properties": {\n    "1.0": true\n  }\n}'
    )


def test_pretty_reused_walks_what_json_cannot_print() -> None:
    from types import MappingProxyType

    value = MappingProxyType({"b": 1, "a": (2, 3)})
    assert pretty_reused(value) == pretty(value) == '{\n  "b": 1,\n  "a": [\n    2,\n    3\n  ]\n}'
