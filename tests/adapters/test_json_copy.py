"""A tool without parameters gets a schema of its own in each request: the adapters' JSON copy."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from promptwire.adapters.base import _json_copy

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=30,
)


def _containers(value: Any) -> list[Any]:
    found = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict | list):
            found.append(node)
            stack.extend(node.values() if isinstance(node, dict) else node)
    return found


@given(JSON)
def test_a_copy_is_equal_in_order_and_shares_no_container(value: Any) -> None:
    copied = _json_copy(value)
    assert copied == value
    assert repr(copied) == repr(value)  # keys in the same order
    originals = {id(node) for node in _containers(value)}
    assert not originals & {id(node) for node in _containers(copied)}


def test_an_adapters_empty_schema_is_new_for_each_tool() -> None:
    schema = {"type": "object", "properties": {}}
    first, second = _json_copy(schema), _json_copy(schema)
    first["properties"]["x"] = {"type": "string"}
    assert schema == second == {"type": "object", "properties": {}}


def test_another_mapping_is_copied_as_a_dict() -> None:
    copied = _json_copy(OrderedDict(a=[1, {"b": 2}]))
    assert type(copied) is dict
    assert copied == {"a": [1, {"b": 2}]}
