"""``python -m promptwire`` in someone else's folder runs no code of that folder: ``python -m``
puts the current folder first on ``sys.path``, so an ``argparse.py`` or ``typing.py`` there was
imported in place of the standard library's, and a ``*.dist-info`` there announced a plugin that
``python -m promptwire plugins`` loaded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PLANTED = "import pathlib\npathlib.Path(__file__).with_name('ran-' + __name__).write_text('planted code ran')\n"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A folder with a module shadowing the standard library's, and a plugin announced by metadata."""
    for name in ("argparse", "typing", "planted_plugin"):
        (tmp_path / f"{name}.py").write_text(PLANTED, encoding="utf-8")
    info = tmp_path / "planted_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: planted-plugin\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[promptwire]\nplanted = planted_plugin\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("argv", [["--help"], ["plugins"]])
def test_python_m_promptwire_runs_nothing_from_the_current_folder(hostile: Path, argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "promptwire", *argv], cwd=hostile, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in hostile.glob("ran-*")) == []
    assert "planted" not in done.stdout + done.stderr
