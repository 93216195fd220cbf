"""What ``asrender`` prints for every example file in every built-in format, pinned byte for byte."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from promptwire import PluginHost
from promptwire.core.errors import UnsupportedFieldsWarning
from promptwire.frontend.cli import main

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.yaml"))
FORMATS = PluginHost(entry_points=False).renderers.names()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_asrender_example(
    example: Path, fmt: str, capsys: pytest.CaptureFixture[str], snapshot: SnapshotAssertion
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedFieldsWarning)
        code = main(["render", str(example), "--format", fmt])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert out == snapshot
