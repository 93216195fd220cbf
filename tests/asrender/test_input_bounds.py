"""What a prompt file or an argument can make ``asrender`` hold: bounded, and refused in one line.

| payload | before | now |
|---|---|---|
| ``--max-input-size 99999999999G`` | ``internal error: OverflowError`` | exit 2: at most 64G |
| ``--max-input-size 64G`` on a small file | one read asked for 64 GiB at once | read a megabyte at a time |
"""

from __future__ import annotations

from pathlib import Path

import pytest

from promptwire.core.text_files import MAX_INPUT_SIZE, read_text
from promptwire.frontend.asrender.cli import main


def _asrender(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        code = main(list(argv))
    except SystemExit as done:
        code = int(str(done.code))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("size", ["99999999999G", "99999999999999999999999", "65G", f"{MAX_INPUT_SIZE + 1}"])
def test_a_size_past_the_maximum_is_a_usage_error(
    size: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("instruction: hi\n", encoding="utf-8")
    for command in (["render", str(path)], ["check", str(tmp_path / "p.as")]):
        code, err = _asrender(capsys, *command, "--max-input-size", size)
        assert code == 2
        assert err == f"asrender: error: argument --max-input-size: at most 64G, got {size!r}\n"


def test_the_maximum_is_taken_and_reads_a_small_file_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("instruction: hi\n", encoding="utf-8")
    assert read_text(str(path), "p.yaml", MAX_INPUT_SIZE) == "instruction: hi\n"
    assert _asrender(capsys, "render", str(path), "--max-input-size", "64G") == (0, "")
