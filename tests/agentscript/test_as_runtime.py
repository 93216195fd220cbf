"""A program reads a model's numbers as JavaScript does, whatever their size; the core reads them as
JSON writes them.

The reference reads a reply with ``JSON.parse`` and coerces number text with ``Number(text)``: both
give doubles. So an integer past 2**53 keeps a double's precision, a number too large for a double
is Infinity (printed ``null`` by JSON.stringify), NaN and Infinity literals are not JSON, and no
length of digits makes Python's ``int()`` raise its ValueError. That rule is AgentScript's, written
once (``jsjson.js_number``) and applied to what a program receives; the core's generate loop, which
every dialect and the Python API share, keeps an integer exact.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import promptwire
from promptwire import PluginHost
from promptwire.calls.generate import NotJsonError, read_json
from promptwire.core.coercion import ResultError, check_result
from promptwire.renderers.agentscript.jsjson import js_number, js_numbers
from promptwire.runs.options import RunOptions
from promptwire.runs.run import run

HOST = PluginHost(entry_points=False)
NUMBER = {"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}
PROGRAM = """import llm M from "openai://gpt-4o"
main agent A {
    model M
    role "R"
    description "D"
    main func(input) {
        r = generate({ input: "n" }) -> {
            n number
        }
        r.n
    }
}
"""


def _program_reads(reply: Any) -> Any:
    """What the program gets for ``n`` when the model's reply is ``reply`` (text or a JSON value)."""
    return run(PROGRAM, {}, RunOptions(responses=[reply]), host=HOST).value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (" 3 ", 3),
        ("-12", -12),
        ("0.9", 0.9),
        ("1.0", 1.0),
        ("9007199254740991", 9007199254740991),
        ("9007199254740992", 9007199254740992),
        ("9007199254740993", 9007199254740992.0),
        ("12345678901234567890123", 1.2345678901234568e22),
        ("1." + "0" * 400 + "1", 1.0),
    ],
)
def test_number_text_is_coerced_to_the_double_javascript_gives(text: str, value: Any) -> None:
    got = _program_reads({"n": text})
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("text", ["1" + "0" * 400, "9" * 5000, "1e5", "01", "+1", "1.", "0x10"])
def test_number_text_javascript_would_not_take_stays_text_and_fails(text: str) -> None:
    with pytest.raises(ResultError, match=r"^LLM result field must be a number$"):
        check_result({"n": text}, NUMBER, strict=False)


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("9007199254740991", 9007199254740991),
        ("9007199254740992", 9007199254740992),
        ("9007199254740993", 9007199254740992.0),
        ("-9007199254740993", -9007199254740992.0),
        ("9" * 5000, math.inf),
        ("1.5e400", math.inf),
    ],
)
def test_reply_integers_reach_a_program_as_json_parse_reads_them(written: str, value: Any) -> None:
    got = _program_reads('{"n": ' + written + "}")
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("n", [9007199254740991, 9007199254740992, 9007199254740993, -(2**53), 2**70])
def test_a_reply_as_text_and_as_a_value_give_a_program_the_same_number(n: int) -> None:
    text, value = _program_reads(json.dumps({"n": n})), _program_reads({"n": n})
    assert text == value and type(text) is type(value)


@pytest.mark.parametrize("n", [9007199254740992, 9007199254740993, 2**70])
def test_the_python_api_gives_the_same_number_for_a_reply_as_text_and_as_a_value(n: int) -> None:
    prompt = {"instruction": "n", "output": {"json_schema": NUMBER}}
    text = promptwire.generate(prompt, responses=[json.dumps({"n": n})], host=HOST).value
    value = promptwire.generate(prompt, responses=[{"n": n}], host=HOST).value
    assert text == value == {"n": n} and type(text["n"]) is int


def test_the_core_reads_json_integers_exactly_and_any_length_of_digits() -> None:
    assert read_json('{"n": 9007199254740993}') == {"n": 9007199254740993}
    assert read_json('{"n": ' + "9" * 5000 + "}") == {"n": math.inf}
    assert read_json('{"n": 1.5e400}') == {"n": math.inf}
    assert check_result({"n": "9007199254740993"}, NUMBER, strict=False) == {"n": 9007199254740993}


@pytest.mark.parametrize("text", ['{"n": NaN}', '{"n": Infinity}', '{"n": -Infinity}'])
def test_python_json_extensions_are_not_json(text: str) -> None:
    with pytest.raises(NotJsonError, match=r"^LLM provider did not return JSON: \{\"n\": "):
        read_json(text)


@pytest.mark.parametrize(
    ("number", "held"),
    [
        (2**53, 2**53),
        (-(2**53), -(2**53)),
        (2**53 + 1, 9007199254740992.0),
        (10**400, math.inf),
        (-(10**400), -math.inf),
        (0.5, 0.5),
        ("9007199254740992", 9007199254740992),
        ("9007199254740993", 9007199254740992.0),
        ("9" * 5000, math.inf),
        ("0" * 5000 + "7", 7),
    ],
)
def test_js_number_is_the_double_javascript_holds(number: int | float | str, held: Any) -> None:
    got = js_number(number)
    assert got == held and type(got) is type(held)


def test_js_numbers_converts_every_number_of_json_data_and_nothing_else() -> None:
    data = {"a": [2**53 + 1, True, None, "9007199254740993", {"b": 2**53}], "c": 1.5}
    assert js_numbers(data) == {"a": [9007199254740992.0, True, None, "9007199254740993", {"b": 2**53}], "c": 1.5}
