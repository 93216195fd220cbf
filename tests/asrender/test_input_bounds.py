"""What a prompt file or an argument can make ``asrender`` hold: bounded, and refused in one line.

| payload | before | now |
|---|---|---|
| ``--max-input-size 99999999999G`` | ``internal error: OverflowError`` | exit 2: at most 64G |
| ``--max-input-size 64G`` on a small file | one read asked for 64 GiB at once | read a megabyte at a time |
| a 1.6 MB YAML file whose aliases repeat a 512 KiB scalar 100,000 times | 20 GiB of memory, stopped after 2 min | refused at once: aliases stand for more than 16 Mi characters |
| a lone surrogate (an undecodable byte of ``--input``) in YAML | ``internal error: UnicodeEncodeError`` | one line naming the character |
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from time_bounds import AT_ONCE  # tests/time_bounds.py (pytest's pythonpath)

from promptwire.core.text_files import MAX_INPUT_SIZE, read_text
from promptwire.core.yaml_data import MAX_ALIAS_CHARS as MAX_EXPANDED_CHARACTERS
from promptwire.frontend.asrender.cli import main
from promptwire.runs.inputs import PromptFileError, parse_data


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


def test_aliases_repeating_a_big_scalar_are_refused_by_the_characters_they_stand_for(tmp_path: Path) -> None:
    scalar = "x" * (1 << 19)
    lines = ["instruction: &a " + scalar, "context:", "  - label: l", "    value:"] + ["      - *a"] * 100_000
    text = "\n".join(lines) + "\n"
    assert len(text) < 2_000_000
    started = time.monotonic()
    with pytest.raises(
        PromptFileError, match=rf"^b\.yaml:37:9: YAML aliases stand for more than {MAX_EXPANDED_CHARACTERS} "
    ):
        parse_data(text, "b.yaml")
    assert time.monotonic() - started < AT_ONCE  # expanded, it is 50 GiB of text


def test_aliases_within_the_character_limit_load() -> None:
    scalar = "y" * 1000
    text = f"a: &a {scalar}\nb: [{', '.join(['*a'] * 1000)}]\n"
    assert parse_data(text, "ok.yaml")["b"] == [scalar] * 1000


@pytest.mark.parametrize("text", ["\udc80", "a: \udc80", '{"a": "\udcff"}', "- x\n- \ud800"])
def test_a_lone_surrogate_is_one_clear_error(text: str) -> None:
    with pytest.raises(PromptFileError, match=r"^x: not UTF-8 text at character \d+ \(an undecodable byte\)$"):
        parse_data(text, "x")


def test_an_undecodable_byte_in_an_input_argument_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = Path(__file__).resolve().parents[2] / "examples" / "strict-invoice.as"
    code, err = _asrender(capsys, str(program), "--input", '{"invoice": "\udcff"}')
    assert (code, err) == (1, "asrender: --input: not UTF-8 text at character 13 (an undecodable byte)\n")
