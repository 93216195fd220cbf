"""A program's values as JSON data (AgentScript's sanitize): every place a part is met is written
out, as the reference does, cycles as ``"[Circular]"``, for any graph of lists and objects; what
the copies of parts met again add is bounded (the data as written is not), so a part shared at
forty levels is refused at once instead of copied 2**40 times."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from time_bounds import AT_ONCE  # tests/time_bounds.py (pytest's pythonpath)

from promptwire.core.nesting import MAX_REPEATED_VALUES, REPEATED_VALUES_REFUSED
from promptwire.frontend.agentscript.interpreter import _json_value, _Unprintable
from tests.hypothesis_profile import examples


def copied(value: Any, open_ids: frozenset[int] = frozenset()) -> Any:
    """Every place converted anew; a container met again inside itself is ``"[Circular]"``."""
    if not isinstance(value, list | dict):
        return value
    if id(value) in open_ids:
        return "[Circular]"
    inside = open_ids | {id(value)}
    if isinstance(value, list):
        return [copied(item, inside) for item in value]
    return {key: copied(item, inside) for key, item in value.items()}


CHILD = st.one_of(st.integers(0, 5), st.sampled_from(["a", 1, None, True]).map(lambda scalar: ("scalar", scalar)))


@st.composite
def graphs(draw: st.DrawFn) -> Any:
    """Up to six lists and objects whose items point at any of them (themselves and their
    ancestors included) or are scalars; the first is the value."""
    count = draw(st.integers(1, 6))
    nodes: list[Any] = [[] if draw(st.booleans()) else {} for _ in range(count)]
    for node in nodes:
        for index, child in enumerate(draw(st.lists(CHILD, max_size=3))):
            item = child[1] if isinstance(child, tuple) else nodes[child % count]
            if isinstance(node, list):
                node.append(item)
            else:
                node[f"k{index}"] = item
    return nodes[0]


@given(graphs())
@settings(max_examples=examples(3))
def test_shared_parts_convert_as_if_each_place_were_converted_anew(value: Any) -> None:
    assert json.dumps(_json_value(value)) == json.dumps(copied(value))


def shared(levels: int) -> Any:
    value: Any = ["x"]
    for _ in range(levels):
        value = [value, value]
    return value


def test_a_part_shared_at_forty_levels_is_refused_at_once() -> None:
    started = time.perf_counter()
    with pytest.raises(_Unprintable, match=re.escape(REPEATED_VALUES_REFUSED)):
        _json_value(shared(40))
    assert time.perf_counter() - started < AT_ONCE  # the defect ran for minutes at 5 GB


def test_only_the_copies_count_not_the_data_as_written() -> None:
    written_once = [[index] for index in range(MAX_REPEATED_VALUES)]
    assert _json_value(written_once) == written_once
    within = shared(16)  # 2**17 - 1 lists and 2**16 leaves
    assert _json_value(within) == json.loads(json.dumps(within))


def test_a_part_is_written_out_by_what_is_open_where_it_is_met() -> None:
    """The same ``x`` reads differently under ``a`` and under ``b``: what is circular depends on
    the path to it, so a part is written out anew at each place, never reused."""
    a: dict[str, Any] = {}
    x = {"back": a}
    a["x"] = x
    b = {"x": x}
    assert _json_value([a, b]) == [
        {"x": {"back": "[Circular]"}},
        {"x": {"back": {"x": "[Circular]"}}},
    ]
