"""What is displayed is what is sent: a run's calls are sent in the ``--format`` the user chose, so
the prompt on screen and the request body never disagree, for every built-in format, in a dry run
and over real HTTP. The reference's trace still holds AgentScript's render, whatever was sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptwire import PluginHost
from promptwire.frontend.asrender.cli import main
from promptwire.runs.options import RunOptions
from promptwire.runs.run import run
from promptwire.testing.provider_servers import fake_provider

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REVIEW = """\
import llm M from "ollama://ok"

main agent Reviewer {
    model M
    role "Careful Reviewer"
    description "Reviews a change for risk."

    main func(input) {
        use input.diff as diff
        use input.notes max 40 as reviewer notes
        return generate({ input: "Is the change safe?" }) -> {
            ok boolean
        }
    }
}
"""
INPUT = json.dumps({"diff": "- retries = 3\n+ retries = 30", "notes": ["rolled back twice"] * 10})
FORMATS = {
    "agentscript": [],
    "agens": [],
    "agently": [],
    "messages": [],
    "conversation": [],
    "template": ["-o", "source={% block system %}S: {{ prompt.identity.role }}{% endblock %}"
                 "{% block user %}U: {{ prompt.instruction }}{% endblock %}"],
}  # fmt: skip


def test_every_builtin_format_is_covered() -> None:
    assert set(FORMATS) == set(PluginHost(entry_points=False).names("renderers"))


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.fixture
def review(tmp_path: Path) -> Path:
    program = tmp_path / "review.as"
    program.write_text(REVIEW, encoding="utf-8")
    return program


@pytest.mark.parametrize("format_name", FORMATS)
def test_a_dry_run_shows_the_prompt_its_request_body_holds(
    format_name: str, review: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = [str(review), "--input", INPUT, "--provider", "openai", "--dry-run", "-f", format_name]
    shown = _main(capsys, *flags, *FORMATS[format_name])
    (request,) = json.loads(_main(capsys, *flags, *FORMATS[format_name], "-O", "json"))
    messages = request["body"]["messages"]
    assert messages  # each message of the body is on screen, under its role, as sent
    for message in messages:
        assert f"--- {message['role']} ---\n{message['content']}\n" in shown
    header, _, _ = shown.partition("--- request: openai")
    assert header.count("\n--- ") == len(messages)  # and the screen shows no other message


@pytest.mark.parametrize("format_name", FORMATS)
def test_a_real_run_sends_what_it_shows(format_name: str, review: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with fake_provider() as server:
        flags = [str(review), "--input", INPUT, "--provider", "ollama", "--base-url", server.root, "-f", format_name]
        out = _main(capsys, *flags, *FORMATS[format_name], "-O", "json")
    shown = [call["messages"] for call in json.loads(out)]
    assert [request["messages"] for request in server.requests] == shown


def test_the_trace_holds_agentscripts_render_whatever_was_sent(review: Path) -> None:
    given = json.loads(INPUT)
    as_sent = run(review, given)
    in_agently = run(review, given, RunOptions(format="agently"))
    assert [event for event in in_agently.trace if event["kind"] != "notes"] == as_sent.trace
    (notes,) = (event for event in in_agently.trace if event["kind"] == "notes")
    assert notes["data"]["notes"] == [  # the request's note of what the format left out
        "format 'agently' cannot express these prompt fields, which were left out: identity, context.source"
    ]
    assert in_agently.calls[0].rendered.format == "agently"
    assert in_agently.calls[0].rendered.messages != as_sent.calls[0].rendered.messages


def test_a_field_left_out_of_every_call_is_named_once(review: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = (
        review.read_text(encoding="utf-8")
        .replace("return generate", "first = generate")
        .replace("        }\n    }\n}", '        }\n        return generate({ input: "Again?" })\n    }\n}')
    )
    review.write_text(program, encoding="utf-8")
    assert main([str(review), "--input", INPUT, "-f", "agently"]) == 0
    assert capsys.readouterr().err == (
        "asrender: warning: format 'agently' cannot express these prompt fields, which were left out: "
        "identity, context.source\n"
    )  # two calls, each without its identity: named once (was "identity, context.source, identity")
