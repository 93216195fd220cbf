"""Tools of a name and a description print by the short path exactly as the general loop prints them."""

from __future__ import annotations

import pytest

from promptwire.renderers.agently._agently import layout

TOOLS = [
    {"name": "lookup", "desc": "Looks up a record.", "kwargs": {}},
    {"name": "cost ${x}", "desc": "a slot reference takes the general loop", "kwargs": {}},
    {"name": "two", "desc": "", "kwargs": {}, "returns": "str"},
    {"desc": "keys in another order", "name": "three", "kwargs": {}},
    {"name": "four", "desc": "with arguments", "kwargs": {"key": ("str", "the key")}},
]


def test_bare_tools_print_as_the_general_loop_prints_them() -> None:
    titles = {"tools": "TOOLS"}
    short = layout._tool_lines(TOOLS, titles)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(layout, "_bare_tool", lambda tool: False)
        general = layout._tool_lines(TOOLS, titles)
    assert short == general
    assert [layout._bare_tool(tool) for tool in TOOLS] == [True, False, False, False, False]
