"""YAML someone else wrote, read by ``core.yaml_data.load_yaml``: bounded before anything is built,
and JSON data or one clear error with the line and column.

| payload | defence |
|---|---|
| a 400-byte "billion laughs" file (nine levels of nine aliases) | ``YAML aliases stand for more than 1000000 values``, at once, in little memory |
| a 1 MB file whose aliases repeat one 1 MiB text (10 s and 3 GiB to render before) | ``... more than 16777216 characters``, at the alias that crosses the bound |
| aliases repeating a mapping with a 1 MiB key | the same: keys count |
| an alias inside the node it names | ``the value of &a contains itself`` |
| 100,000 nested ``[`` | ``nested deeper than 1000 levels`` before the composer recurses |
| ``!!set``, ``!!binary``, ``!!timestamp``, ``!!omap``, ``!!pairs`` | refused, saying what to write (they built values the JSON printer failed on) |
| a list or a mapping as a key | ``a mapping key must be text`` |
| ``200: ok``, ``1.10: x``, ``true: y`` | the keys ``"200"``, ``"1.10"``, ``"true"``: the key as written |
| half a character (a lone surrogate) in the text | ``half a character (\\ud800) is not text YAML can hold`` (a UnicodeEncodeError in libyaml before) |
| an integer of 5000 digits | ``quote it to keep it as text`` |
"""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from time_bounds import AT_ONCE  # tests/time_bounds.py (pytest's pythonpath)

from promptwire.core.yaml_data import MAX_ALIAS_CHARS, MAX_ALIAS_VALUES, YamlDataError, load_yaml

MIB = 2**20


def billion_laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        refs = ",".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{refs}]")
    return "\n".join(lines) + "\n"


def text_bomb(aliases: int = 1000) -> str:
    """About 1 MB: one 1 MiB text, then a list repeating it."""
    return "instruction: &s " + "x" * MIB + "\ncontext:\n  - value: [" + ", ".join(["*s"] * aliases) + "]\n"


def key_bomb(aliases: int = 20) -> str:
    return "k: &k\n  ? " + "k" * MIB + "\n  : 1\nlist: [" + ", ".join(["*k"] * aliases) + "]\n"


BOMBS: dict[str, tuple[str, str]] = {
    "billion laughs": (billion_laughs(), f"f.yaml:7:10: YAML aliases stand for more than {MAX_ALIAS_VALUES} values"),
    "a 1 MiB text repeated": (
        text_bomb(),
        f"f.yaml:3:77: YAML aliases stand for more than {MAX_ALIAS_CHARS} characters",
    ),
    "a 1 MiB key repeated": (key_bomb(), f"f.yaml:4:68: YAML aliases stand for more than {MAX_ALIAS_CHARS} characters"),
}


@pytest.mark.parametrize("bomb", BOMBS)
def test_an_alias_bomb_fails_at_once_at_the_alias_that_crosses_the_bound(bomb: str) -> None:
    text, message = BOMBS[bomb]
    assert len(text) < 1.1 * MIB
    started = time.perf_counter()
    with pytest.raises(YamlDataError) as refused:
        load_yaml(text, "f.yaml")
    assert time.perf_counter() - started < AT_ONCE
    assert str(refused.value) == message + " (a prompt file may not be an alias bomb)"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is a Linux limit")
@pytest.mark.parametrize("bomb", ["billion laughs", "a 1 MiB text repeated"])
def test_an_alias_bomb_fails_in_little_memory(bomb: str) -> None:
    program = (
        "import resource, sys;"
        f"resource.setrlimit(resource.RLIMIT_AS, ({300 * MIB}, {300 * MIB}));"
        "from promptwire.core.yaml_data import load_yaml, YamlDataError\n"
        "try:\n    load_yaml(sys.stdin.read(), 'f.yaml')\nexcept YamlDataError as error:\n    print(error)"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], input=BOMBS[bomb][0].encode(), capture_output=True, timeout=60, check=False
    )
    assert done.stdout.decode().startswith(BOMBS[bomb][1]), done.stderr.decode()[-500:]


def test_aliases_within_the_bounds_load_and_share() -> None:
    data = load_yaml(text_bomb(15), "f.yaml")  # 15 repeats of 1 MiB: within 16 MiB
    assert len(data["context"][0]["value"]) == 15
    laughs = load_yaml(billion_laughs(6), "f.yaml")  # 9**6 = 531,441 values
    assert laughs["a5"][0][0][0][0][0] == laughs["a0"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: &a [*a]\n", "f.yaml:1:8: the value of &a contains itself"),
        ("v: " + "[" * 100_000 + "]" * 100_000, "f.yaml:1:1003: nested deeper than 1000 levels"),
        ("a: !!set {x, y}\n", "f.yaml:1:4: !!set has no JSON form: write a list"),
        ("a: !!binary aGk=\n", "f.yaml:1:4: !!binary has no JSON form: write the base64 text without the tag"),
        (
            "a: !!timestamp 2020-01-01\n",
            "f.yaml:1:4: !!timestamp has no JSON form: write the date as text without the tag",
        ),
        ("a: !!omap [b: 1]\n", "f.yaml:1:4: !!omap has no JSON form: write a mapping (its order is kept)"),
        ("a: !!pairs [b: 1]\n", "f.yaml:1:4: !!pairs has no JSON form: write a list of mappings"),
        ("a: !!python/tuple [1]\n", "f.yaml:1:4: invalid YAML: could not determine a constructor for the tag"),
        ("? [1, 2]\n: x\n", "f.yaml:1:3: a mapping key must be text, not a list or a mapping"),
        ("a: {? {b: 1} : x}\n", "f.yaml:1:7: a mapping key must be text, not a list or a mapping"),
        ("a: 1\nb: 2\na: 3\n", "f.yaml:3:1: invalid YAML: duplicate key 'a'"),
        ("a: x\ud800y\n", "f.yaml:1:5: half a character (\\ud800) is not text YAML can hold"),
        ("\udc80", "f.yaml:1:1: half a character (\\udc80) is not text YAML can hold"),
        ("a: " + "1" * 5000 + "\n", "f.yaml:1:4: an integer has more than 4300 digits"),
    ],
)
def test_what_is_not_json_data_is_refused_where_it_is(text: str, message: str) -> None:
    with pytest.raises(YamlDataError) as refused:
        load_yaml(text, "f.yaml")
    assert str(refused.value).startswith(message)


def test_keys_are_the_text_written_and_merges_are_no_duplicates() -> None:
    text = "200: ok\n1.10: x\ntrue: y\nnull: z\nbase: &b {role: a, goal: b}\nagent:\n  <<: *b\n  role: c\n"
    assert load_yaml(text, "f.yaml") == {
        "200": "ok",
        "1.10": "x",
        "true": "y",
        "null": "z",
        "base": {"role": "a", "goal": "b"},
        "agent": {"role": "c", "goal": "b"},
    }


def test_the_yaml_12_core_schema_and_its_warning() -> None:
    warnings: list[str] = []
    assert load_yaml("a: NO\nb: 010\nc: 1.10\nd: 2020-01-01\n", "f.yaml", warnings) == {
        "a": "NO",
        "b": 10,
        "c": 1.1,
        "d": "2020-01-01",
    }
    assert warnings == ["f.yaml:3:4: 1.10 is read as the number 1.1; quote it to keep the text"]


def _json_data(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(key, str) and _json_data(item) for key, item in value.items())
    if isinstance(value, list):
        return all(_json_data(item) for item in value)
    return value is None or isinstance(value, str | int | float | bool)


YAML_PIECES = st.sampled_from(
    [
        "a", ": ", "- ", "\n", "  ", "&x ", "*x", "!!set ", "!!binary ", "!!timestamp ", "!!omap ", "!!str ",
        "? ", "[", "]", "{", "}", ", ", "1.10", "0x1F", ".inf", "~", "true", '"\\ud800"', "'q'", "<<: ", "|\n  t",
        "2020-01-01", "\ud800", "#c", "---\n", "%YAML 1.2\n",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(YAML_PIECES, max_size=24).map("".join))
def test_any_yaml_is_json_data_or_one_yaml_data_error(text: str) -> None:
    try:
        value = load_yaml(text, "f.yaml")
    except YamlDataError as error:
        assert str(error).startswith("f.yaml")
        assert "\n" not in str(error)
    else:
        assert _json_data(value)
