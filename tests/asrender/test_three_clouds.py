"""The README's example program with its agents on Google's Gemini, Amazon Bedrock and Azure OpenAI
(issue 40's done-when): ``asrender --provider auto`` routes each agent's calls by its model URI's
scheme to that provider's real SDK over real HTTP (the three fake servers), records every reply,
and the recording replays the run byte for byte with no server, no key and no credentials."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from pathless_recordings import pathless

from promptwire.frontend.asrender.cli import main
from promptwire.testing.bedrock_server import fake_bedrock
from promptwire.testing.gemini_server import gemini_server
from promptwire.testing.provider_servers import answering, fake_provider

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

# examples/evidence-qa.as's researcher, its answer checked by an agent on each of the other clouds.
PROGRAM = """\
import llm Azure from "azure://qa-deployment"
import llm Gemini from "gemini://ok"
import llm Claude from "bedrock://anthropic.claude-3-5-sonnet-20240620-v1:0"

agent Checker {
    model Gemini
    role "Checker"
    description "Checks an answer against its evidence."
    func check(answer) {
        return generate({ input: answer }) -> {
            ok boolean
        }
    }
}

agent Editor {
    model Claude
    role "Editor"
    description "Says an answer plainly."
    func edit(answer) {
        return generate({ input: answer })
    }
}

main agent Researcher {
    model Azure
    role "Careful Researcher"
    description "Answer only from the evidence given; say when it is not enough."

    main func(input) {
        use input.question as question
        use input.evidence max 300 as evidence
        use input.notes max 40 as analyst notes
        answer = generate({ input: "Answer the question from the evidence.", attempts: 2 }) -> {
            answer string
            confidence number
            sources list[string]
        }
        checked = Checker.check(answer)
        Editor.edit(answer)
    }
}
"""
ANSWER = {"answer": "0.3.0", "confidence": 0.9, "sources": ["changelog"]}
CREDENTIALS = {
    "GEMINI_API_KEY": "gemini-test-key",
    "AZURE_OPENAI_API_KEY": "azure-test-key",
    "OPENAI_API_VERSION": "2025-04-01-preview",
    "AWS_ACCESS_KEY_ID": "AKIDTESTKEY",
    "AWS_SECRET_ACCESS_KEY": "aws-test-secret",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_CONFIG_FILE": "/nonexistent",
    "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
    "AWS_EC2_METADATA_DISABLED": "true",
}
ENDPOINTS = ("GOOGLE_GEMINI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME")


@pytest.fixture
def three_clouds(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, list[object]]]:
    """The three fake servers, the environment pointing each SDK at its own; yields what each
    server received."""
    for name in (*CREDENTIALS, *ENDPOINTS, "GOOGLE_API_KEY", "AZURE_OPENAI_API_VERSION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    with ExitStack() as stack:
        # The program's schemas are in its prompt text (AgentScript's format), not in the request
        # bodies the fakes shape their answers from: the researcher and the checker are answered.
        azure = stack.enter_context(fake_provider(text=answering([ANSWER])))
        google = stack.enter_context(gemini_server(text=answering([{"ok": True}])))
        bedrock = stack.enter_context(fake_bedrock())
        for name, value in CREDENTIALS.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", azure.root)
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", google.root)
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", bedrock.root)
        yield {"azure": azure.requests, "gemini": google.requests, "bedrock": bedrock.requests}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_example_runs_on_three_clouds_and_replays_byte_for_byte(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    three_clouds: dict[str, list[object]],
) -> None:
    program = tmp_path / "evidence-qa-clouds.as"
    program.write_text(PROGRAM, encoding="utf-8")
    recording = tmp_path / "clouds.jsonl"
    inputs = str(EXAMPLES / "evidence-qa.input.json")
    code, real, err = _run(
        capsys, str(program), "--input-file", inputs, "--provider", "auto", "--record", str(recording), "-O", "trace"
    )
    assert (code, err) == (0, "")
    assert {name: len(received) for name, received in three_clouds.items()} == {"azure": 1, "gemini": 1, "bedrock": 1}

    header, *records = (json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines())
    assert header["provider"] == "auto"
    assert [(record["provider"], record["path"]) for record in records] == [
        ("azure", "chat/completions"),
        ("gemini", "v1beta/models/ok:generateContent"),
        ("bedrock", "model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse"),
    ]

    for name in (*CREDENTIALS, *ENDPOINTS):
        monkeypatch.delenv(name, raising=False)
    replayed = _run(capsys, str(program), "--input-file", inputs, "--responses", str(recording), "-O", "trace")
    assert replayed == (0, real, "")
    old = tmp_path / "clouds-before-paths.jsonl"  # as recorded before Gemini and Bedrock said their path
    old.write_text(pathless(recording.read_text(encoding="utf-8")), encoding="utf-8")
    replayed = _run(capsys, str(program), "--input-file", inputs, "--responses", str(old), "-O", "trace")
    assert replayed == (0, real, "")


def test_the_json_output_names_each_calls_provider_and_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], three_clouds: dict[str, list[object]]
) -> None:
    program = tmp_path / "evidence-qa-clouds.as"
    program.write_text(PROGRAM, encoding="utf-8")
    inputs = str(EXAMPLES / "evidence-qa.input.json")
    code, out, err = _run(capsys, str(program), "--input-file", inputs, "--provider", "auto", "-O", "json")
    assert (code, err) == (0, "")
    calls = json.loads(out)  # one entry a call
    assert [(call["provider"], call["model"]) for call in calls] == [
        ("azure", "qa-deployment"),
        ("gemini", "ok"),
        ("bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0"),
    ]
