"""The ``prompt_snapshot`` fixture: regressions found in review of the first version (see
tests/test_prompt_snapshot_fixture.py for the main behaviour)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

USER_TEST = """
class TestPrompts:
    def test_two(self, prompt_snapshot):
        prompt_snapshot.assert_match("first\\n")
        prompt_snapshot.assert_match({second!r})
"""


def test_one_raw_file_per_assertion_in_a_class(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_prompts=USER_TEST.format(second="second\r\n"))
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=1)
    stored = pytester.path / "__snapshots__" / "test_prompts"
    assert {path.name: path.read_bytes() for path in stored.iterdir()} == {
        "TestPrompts.test_two.txt": b"first\n",
        "TestPrompts.test_two.1.txt": b"second\r\n",
    }
    pytester.makepyfile(test_prompts=USER_TEST.format(second="second\n"))
    result = pytester.runpytest("--snapshot-no-colors")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*- second␍␤", "*+ second␤"])  # a line-ending change is visible


def test_the_snapshots_extra_asks_for_a_syrupy_the_plugin_runs_on() -> None:
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]["snapshots"]
    (syrupy,) = (requirement for requirement in extras if requirement.startswith("syrupy"))
    found = re.fullmatch(r"syrupy>=(\d+)(\.\d+)*", syrupy.replace(" ", ""))
    assert found is not None and int(found.group(1)) >= 6


def test_syrupy_switched_off_is_said_in_one_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_prompts=USER_TEST.format(second="x"))
    result = pytester.runpytest("-p", "no:syrupy")
    result.assert_outcomes(errors=1)
    assert "FixtureLookupError" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*no:syrupy*"])
