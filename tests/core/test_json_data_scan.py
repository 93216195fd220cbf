"""check_json_data's first scan vouches only for what the walk that names the place accepts."""

from __future__ import annotations

import enum
import math

import pytest

from promptwire.core import json_text
from promptwire.core.errors import FieldError


class Colour(enum.StrEnum):
    RED = "red"


@pytest.mark.parametrize(
    "value",
    [
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
        [1, 2.5, True, None, "x", (1, 2)],
        {"colour": Colour.RED},
        {1: "a key that is not text"},
        {"n": math.nan},
        {"n": 10**5000},
        {"s": {1, 2}},
        {"b": b"bytes"},
    ],
)
def test_the_scan_and_the_walk_agree(value: object) -> None:
    def walked() -> str | None:
        try:
            json_text.check_json_data(value, ("x",))
        except FieldError as error:
            return str(error)
        return None

    verdict = walked()
    if json_text._plainly_json(value):
        assert verdict is None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_text, "_plainly_json", lambda value: False)
        assert walked() == verdict


def test_values_checked_together_name_the_first_refused() -> None:
    plain = {"order": 7, "note": "ok"}
    values = [(("a", 0), plain), (("a", 1), {"n": math.inf}), (("a", 2), {"s": {1}}), (("a", 3), plain)]
    with pytest.raises(FieldError, match=r"^a\[1\]\.n: inf has no JSON form"):
        json_text.check_json_values(values)
    json_text.check_json_values([values[0], values[3]])
    json_text.check_json_values([])
