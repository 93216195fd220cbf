"""``env://``: ``Env.get({name})`` returns a variable's value, or null when it is not set.

A program reads only the variables the run names (``asrender --allow-env NAME,...``); any other name
is refused, whether it is set or not, so a program cannot even learn which variables exist. A value
whose name looks secret (it contains KEY, TOKEN, SECRET or PASSWORD, in any case) still reaches the
program, which may need it, but never the trace, which people paste into issues.
"""

from __future__ import annotations

import os
from typing import Final

from ..core.tools import ToolContext, ToolError, ToolOutcome, ToolRequest
from .arguments import expect_object, required_string

__all__ = ["SECRET_MARKERS", "env_tool", "looks_secret"]

SECRET_MARKERS: Final = ("KEY", "TOKEN", "SECRET", "PASSWORD")


def looks_secret(name: str) -> bool:
    upper = name.upper()
    return any(marker in upper for marker in SECRET_MARKERS)


def env_tool(request: ToolRequest, context: ToolContext) -> ToolOutcome:
    if request.method != "get":
        raise ToolError(f"Unsupported env method '{request.method}'. Supported: get")
    name = required_string(expect_object(request.args, "Env.get").get("name"), "Env.get.name")
    context.check_env(name)
    return ToolOutcome(os.environ.get(name), secret=looks_secret(name))
