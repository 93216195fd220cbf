"""The generate runtime reads a model's numbers as JavaScript does, whatever their size.

The reference reads a reply with ``JSON.parse`` and coerces number text with ``Number(text)``: both
give doubles. So an integer past 2**53 keeps a double's precision, a number too large for a double
is Infinity (printed ``null`` by JSON.stringify), NaN and Infinity literals are not JSON, and no
length of digits makes Python's ``int()`` raise its ValueError.
"""

from __future__ import annotations

from typing import Any

import pytest

from promptwire.core.coercion import ResultError, check_result
from promptwire.core.generate import NotJsonError, read_json

NUMBER = {"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (" 3 ", 3),
        ("-12", -12),
        ("0.9", 0.9),
        ("1.0", 1.0),
        ("9007199254740991", 9007199254740991),
        ("9007199254740993", 9007199254740992.0),
        ("12345678901234567890123", 1.2345678901234568e22),
        ("1." + "0" * 400 + "1", 1.0),
    ],
)
def test_number_text_is_coerced_to_the_double_javascript_gives(text: str, value: Any) -> None:
    coerced = check_result({"n": text}, NUMBER, strict=False)["n"]
    assert coerced == value and type(coerced) is type(value)


@pytest.mark.parametrize("text", ["1" + "0" * 400, "9" * 5000, "1e5", "01", "+1", "1.", "0x10"])
def test_number_text_javascript_would_not_take_stays_text_and_fails(text: str) -> None:
    with pytest.raises(ResultError, match=r"^LLM result field must be a number$"):
        check_result({"n": text}, NUMBER, strict=False)


def test_reply_integers_are_read_as_json_parse_reads_them() -> None:
    assert read_json('{"n": 9007199254740991}') == {"n": 9007199254740991}
    assert read_json('{"n": 9007199254740993}') == {"n": 9007199254740992.0}
    assert read_json('{"n": ' + "9" * 5000 + "}") == {"n": float("inf")}
    assert read_json('{"n": 1.5e400}') == {"n": float("inf")}


@pytest.mark.parametrize("text", ['{"n": NaN}', '{"n": Infinity}', '{"n": -Infinity}'])
def test_python_json_extensions_are_not_json(text: str) -> None:
    with pytest.raises(NotJsonError, match=r"^LLM provider did not return JSON: \{\"n\": "):
        read_json(text)
