"""The check every send makes of its API key (``check_key``) reads the key with ``str`` methods in C,
not a Python loop over its characters (a hundred-character key was two hundred generator steps per
call): it refuses exactly the keys the character-by-character rule refuses, with the same reason."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from promptwire.adapters.base import _key_problem


def _by_each_character(key: str) -> str | None:
    """The rule as it reads character by character: the reference."""
    if any(char in "\r\n" for char in key):
        return "a line break"
    if not key.isascii():
        return "a character outside ASCII"
    if any(not " " <= char <= "~" for char in key):
        return "a control character"
    if key != key.strip():
        return "spaces at its start or end"
    return None


@given(st.text(st.characters(codec=None, exclude_categories=()), max_size=40))
@example("sk-ant-" + "a" * 100)
@example("k\x7f")
@example("k\x00")
@example(" k")
@example("k\t")
@example("é\n")
def test_the_same_keys_are_refused_for_the_same_reason(key: str) -> None:
    assert _key_problem(key) == _by_each_character(key)
