"""``--output text``: the text a model reads, for every built-in format, of a prompt file and of
each call of a program (see frontend/asrender/text_form.py for what "the text" of messages is)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptwire import PluginHost
from promptwire.frontend.asrender.cli import main

from corpus import layout_formats

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "support-ticket.yaml"
FORMATS = layout_formats(PluginHost(entry_points=False))


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def _transcript(messages: list[dict[str, object]]) -> str:
    """Each message's role on a line, its text, a newline; a blank line between messages."""
    return "\n".join(f"{message['role']}:\n{message['content']}\n" for message in messages)


def test_every_layout_format_is_a_builtin_one() -> None:
    assert set(FORMATS) == {"agentscript", "agently", "agens", "messages", "conversation"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_text_is_the_single_string_form_or_the_transcript_of_the_messages(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, rendered = _run(capsys, "render", str(EXAMPLE), "-f", fmt, "-O", "json")
    assert code == 0
    render = json.loads(rendered)
    code, text = _run(capsys, "render", str(EXAMPLE), "-f", fmt, "-O", "text")
    assert code == 0
    if render["text"] is not None:  # agently's to_text(), byte for byte
        assert text == render["text"]
    else:
        assert all(isinstance(message["content"], str) for message in render["messages"])
        assert text == _transcript(render["messages"])


def test_the_agentscript_text_is_its_system_then_its_user_message(capsys: pytest.CaptureFixture[str]) -> None:
    code, text = _run(capsys, "render", str(EXAMPLE), "-O", "text")
    assert code == 0
    assert text.startswith(
        "system:\nYou are Support Triage Agent.\nClassify incoming tickets and draft a first reply.\n\n"
        "user:\nContext:\n[ticket]\nsource: input.ticket\n"
    )
    assert text.count("\nuser:\n") == 1


def test_a_template_without_a_system_part_is_its_user_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    template = tmp_path / "t.j2"
    template.write_text("{% block user %}Ticket: {{ prompt.instruction }}{% endblock %}", encoding="utf-8")
    code, text = _run(capsys, "render", str(EXAMPLE), "-f", "template", "-o", f"template={template}", "-O", "text")
    assert code == 0
    assert text.startswith("Ticket: ") and "user:" not in text


def test_a_template_with_a_system_part_is_the_transcript(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    template = tmp_path / "t.j2"
    template.write_text("{% block system %}Be brief.{% endblock %}{% block user %}Hi.{% endblock %}", encoding="utf-8")
    code, text = _run(capsys, "render", str(EXAMPLE), "-f", "template", "-o", f"template={template}", "-O", "text")
    assert (code, text) == (0, "system:\nBe brief.\n\nuser:\nHi.\n")


@pytest.mark.parametrize("fmt", ["agentscript", "messages", "agens"])
def test_a_programs_text_is_each_calls_text_in_order_under_its_heading(
    fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    qa = EXAMPLE.with_name("evidence-qa")
    argv = [f"{qa}.as", "--input-file", f"{qa}.input.json", "--responses", f"{qa}.responses.json", "-f", fmt]
    code, rendered = _run(capsys, *argv, "-O", "json")
    assert code == 0
    calls = json.loads(rendered)
    code, text = _run(capsys, *argv, "-O", "text")
    assert code == 0
    headings = [f"=== {call['site']} agent {call['agent']} attempt {call['attempt']} ===\n" for call in calls]
    assert len(calls) == 2  # a retry: where the first call ends must show
    assert text == "".join(
        heading + _transcript(call["messages"]) for heading, call in zip(headings, calls, strict=True)
    )
    assert "--- reply ---" not in text  # what the model reads, each call under its heading, nothing else
