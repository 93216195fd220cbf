"""A package's names loaded on first use (PEP 562), written once for every package that does it.

A package ``__init__`` that re-exports names from heavy modules (the prompt model, pydantic, the
parser) would make every import of the package, or of any module inside it, pay for them: the
``asrender check`` start-up, the pytest plugin, a front end that needs only the errors. Such a
package lists where each name lives and sets ``__getattr__ = lazy_exports(__name__, homes)``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: name -> its value from the module ``homes[name]``
    (relative to the package), imported on first use and kept, so later lookups are plain."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
