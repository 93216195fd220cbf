"""docs/providers.md: its table lists every registered provider, each row saying what the adapter
is (its scheme, its extra, the environment variables it reads, its count endpoint or none)."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptwire import PluginHost
from promptwire.plugins.builtins import ADAPTERS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "providers.md"
HOST = PluginHost(entry_points=False)


def _rows() -> dict[str, list[str]]:
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    start = lines.index("| provider | scheme | extra | environment variables | token count |")
    rows: dict[str, list[str]] = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        name, *cells = (cell.strip() for cell in line.strip("|").split("|"))
        rows[name.strip("`")] = cells
    return rows


def test_every_registered_provider_has_a_row_and_every_row_a_provider() -> None:
    assert set(_rows()) == set(ADAPTERS)


@pytest.mark.parametrize("name", [name for name in ADAPTERS if name != "offline"])
def test_each_row_says_what_its_adapter_is(name: str) -> None:
    scheme, extra, variables, count = _rows()[name]
    adapter = HOST.load("adapters", name)
    protocol = adapter.protocol
    assert scheme.startswith(f"`{protocol}://")
    first = next(other for other in ADAPTERS if getattr(HOST.load("adapters", other), "protocol", None) == protocol)
    assert scheme.endswith("(by name)") == (first != name)  # auto routes the scheme to the first registered
    assert extra == f"`{adapter.extra}`"
    for variable in (adapter.key_variable, adapter.url_variable):
        if variable is not None:
            assert f"`{variable}`" in variables
    if adapter.count_endpoint is None:
        assert count.startswith("none: ")
    else:
        assert count == f"`{adapter.count_endpoint}`"


def test_the_offline_row_sends_nothing() -> None:
    assert _rows()["offline"] == ["none: any model, answered offline", "none", "none", "none: nothing is sent"]
