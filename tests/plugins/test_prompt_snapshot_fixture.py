"""The ``prompt_snapshot`` fixture in a user's project: pytest's ``pytester`` runs a real pytest in
a fresh folder, with the plugin loaded by its ``pytest11`` entry point as a user's run loads it.
Also: one raw file per assertion in a class, the syrupy the ``snapshots`` extra asks for, and
syrupy switched off said in one line."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from promptwire.testing.prompt_snapshot import prompt_text

pytest_plugins = ["pytester"]

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"

USER_TEST = """
import promptwire

PROMPT = {{"identity": {{"role": "Greeter", "description": "Greets."}}, "instruction": {instruction!r}}}


def test_greeting(prompt_snapshot):
    prompt_snapshot.assert_match(promptwire.render(PROMPT, "agentscript"))


def test_request(prompt_snapshot):
    prompt_snapshot.assert_match(promptwire.build_request(PROMPT, "openai", "gpt-4o-mini"), name="openai")
"""
STORED = Path("__snapshots__/test_prompts/test_greeting.txt")


def _project(pytester: pytest.Pytester, instruction: str) -> None:
    pytester.makepyfile(test_prompts=USER_TEST.format(instruction=instruction))


def test_first_update_stores_the_raw_text_then_the_run_passes(pytester: pytest.Pytester) -> None:
    _project(pytester, "Greet Ada.\r\nKindly.")
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=2)
    stored = (pytester.path / STORED).read_bytes()
    assert stored == b"--- system ---\nYou are Greeter.\nGreets.\n--- user ---\nInstruction:\nGreet Ada.\r\nKindly.\n"
    request = (pytester.path / "__snapshots__/test_prompts/test_request[openai].txt").read_text()
    assert request.startswith('{\n  "body": {\n    "model": "gpt-4o-mini",\n    "messages": [')
    pytester.runpytest().assert_outcomes(passed=2)


def test_a_changed_prompt_fails_with_a_line_diff(pytester: pytest.Pytester) -> None:
    _project(pytester, "Greet Ada.")
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=2)
    _project(pytester, "Greet Grace.")
    result = pytester.runpytest("--snapshot-no-colors")
    result.assert_outcomes(passed=0, failed=2)
    result.stdout.fnmatch_lines(["*- Greet Ada.*", "*+ Greet Grace.*"])
    assert "b'" not in result.stdout.str()  # text, not a bytes repr
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=2)
    assert (pytester.path / STORED).read_text().endswith("Instruction:\nGreet Grace.\n")


def test_a_missing_snapshot_fails_and_says_so(pytester: pytest.Pytester) -> None:
    _project(pytester, "Greet Ada.")
    result = pytester.runpytest()
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*Snapshot*does not exist*"])
    assert not (pytester.path / "__snapshots__").exists()


def test_the_plugin_is_opt_out_by_name(pytester: pytest.Pytester) -> None:
    _project(pytester, "Greet Ada.")
    result = pytester.runpytest("-p", "no:promptwire")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(["*fixture 'prompt_snapshot' not found*"])


def test_only_a_test_that_asks_pays() -> None:
    # pytest imports the plugin in every run of a project with promptwire installed.
    code = (
        "import sys; import promptwire.testing.prompt_snapshot; "
        "print(sorted(m for m in ('syrupy', 'pydantic', 'promptwire.core') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


def test_what_is_stored() -> None:
    assert prompt_text("as it is\r\n") == "as it is\r\n"
    with pytest.raises(TypeError, match="render a Prompt first"):
        prompt_text({"instruction": "x"})


CLASS_TEST = """
class TestPrompts:
    def test_two(self, prompt_snapshot):
        prompt_snapshot.assert_match("first\\n")
        prompt_snapshot.assert_match({second!r})
"""


def test_one_raw_file_per_assertion_in_a_class(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_prompts=CLASS_TEST.format(second="second\r\n"))
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=1)
    stored = pytester.path / "__snapshots__" / "test_prompts"
    assert {path.name: path.read_bytes() for path in stored.iterdir()} == {
        "TestPrompts.test_two.txt": b"first\n",
        "TestPrompts.test_two.1.txt": b"second\r\n",
    }
    pytester.makepyfile(test_prompts=CLASS_TEST.format(second="second\n"))
    result = pytester.runpytest("--snapshot-no-colors")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*- second␍␤", "*+ second␤"])  # a line-ending change is visible


def test_the_snapshots_extra_asks_for_a_syrupy_the_plugin_runs_on() -> None:
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]["snapshots"]
    (syrupy,) = (requirement for requirement in extras if requirement.startswith("syrupy"))
    found = re.fullmatch(r"syrupy>=(\d+)(\.\d+)*", syrupy.replace(" ", ""))
    assert found is not None and int(found.group(1)) >= 6


def test_syrupy_switched_off_is_said_in_one_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_prompts=CLASS_TEST.format(second="x"))
    result = pytester.runpytest("-p", "no:syrupy")
    result.assert_outcomes(errors=1)
    assert "FixtureLookupError" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*no:syrupy*"])


REPLAYED_TEST = """
import promptwire

PROMPT = {{"instruction": {instruction!r}, "output": {{"schema": {{"type": "object"}}}}}}


def test_triage_replayed(prompt_snapshot):
    recording = promptwire.Recording.read("triage.recording.jsonl")
    result = promptwire.generate(PROMPT, replay=recording)
    prompt_snapshot.assert_match(result.calls[0].rendered)
    assert result.value == {{"ok": True}}
"""


def test_a_recorded_real_call_replays_under_the_fixture_and_a_changed_prompt_is_drift(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real call recorded once (docs/prompt-snapshots.md): the test replays it offline and pins its
    prompt; a changed prompt fails the test as prompt drift, before any snapshot is compared."""
    import promptwire
    from promptwire.testing.provider_servers import fake_provider

    prompt = {"instruction": "Triage the ticket.", "output": {"schema": {"type": "object"}}}
    with fake_provider() as server, promptwire.Recorder(pytester.path / "triage.recording.jsonl") as recorder:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        promptwire.generate(prompt, "openai", "gpt-4o-mini", record=recorder)
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.delenv("OPENAI_API_KEY")
    pytester.makepyfile(test_triage=REPLAYED_TEST.format(instruction="Triage the ticket."))
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=1)
    pytester.runpytest().assert_outcomes(passed=1)
    pytester.makepyfile(test_triage=REPLAYED_TEST.format(instruction="Triage the ticket, briefly."))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*PromptDrift: prompt drift at a call without a site attempt 1*"])
