"""What ``asrender`` prints for every example file in every built-in format, pinned byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from promptwire import PluginHost
from promptwire.frontend.cli import main

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.yaml"))
FORMATS = PluginHost(entry_points=False).renderers.names()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_asrender_example(
    example: Path, fmt: str, capsys: pytest.CaptureFixture[str], snapshot: SnapshotAssertion
) -> None:
    code = main(["render", str(example), "--format", fmt])
    out, err = capsys.readouterr()
    assert code == 0
    # What a format leaves out is reported on stderr, one plain line each; stdout is the prompt.
    assert all(line.startswith("asrender: warning: ") for line in err.splitlines())
    assert out == snapshot
