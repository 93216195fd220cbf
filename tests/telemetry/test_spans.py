"""OpenTelemetry spans: a run > agent call > model call tree by the GenAI semantic conventions,
made through the real adapters over real HTTP (the local fake provider) and read back from the
SDK's in-memory exporter; contents only on opt-in; nothing imported unless asked."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

import promptwire
from promptwire import Identity, Prompt
from promptwire.calls import telemetry
from promptwire.frontend.asrender.cli import main
from promptwire.renderers.agentscript import shape_contract
from promptwire.runs.options import RunOptions
from promptwire.runs.run import arun
from promptwire.testing.provider_servers import REPLIES, FakeProvider, fake_provider

PROGRAM = """\
import llm M from "openai://gpt-4o-mini"

main agent Checker {
    model M
    role "Careful Checker"
    description "Checks one thing."

    main func(input) {
        generate({ input: "Is it ok?", temperature: 0.2, max_output: 200, attempts: 2 }) -> {
            ok boolean
        }
    }
}
"""
PROMPT = Prompt(
    identity=Identity(role="Reviewer", description="Reviews changes."),
    instruction="Is the change safe?",
    output=shape_contract({"ok": "boolean"}),
)
SECRET_WORD = "Is the change safe?"  # what the prompt says: no span holds it unless asked


@pytest.fixture(scope="module")
def exporter() -> InMemorySpanExporter:
    """The process's tracer provider (``asrender --otel`` uses the process's), set once, read
    through an in-memory exporter."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    return memory


@pytest.fixture
def spans(exporter: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    monkeypatch.delenv(telemetry.CAPTURE_CONTENT, raising=False)
    exporter.clear()
    yield exporter
    telemetry.disable()


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    with fake_provider() as running:
        monkeypatch.setenv("OPENAI_BASE_URL", running.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", running.root)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("OLLAMA_BASE_URL", running.root)
        yield running


def _by_operation(spans: InMemorySpanExporter) -> dict[str, list[ReadableSpan]]:
    """Promptwire's spans by ``gen_ai.operation.name``, each kind in the order they ended."""
    found: dict[str, list[ReadableSpan]] = {}
    for span in spans.get_finished_spans():
        operation = (span.attributes or {}).get("gen_ai.operation.name")
        if operation is not None:  # not the application's own
            found.setdefault(str(operation), []).append(span)
    return found


def _parent_of(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def _replies(server: FakeProvider, *texts: str) -> None:
    """The fake provider answers each chat request with the next of ``texts``."""
    remaining = list(texts)

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        completion = REPLIES["/v1/chat/completions"](body)
        completion["choices"][0]["message"]["content"] = remaining.pop(0)
        return completion

    server.reply = reply


def _program(tmp_path: Path, text: str = PROGRAM) -> str:
    path = tmp_path / "checker.as"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_program_run_is_a_workflow_span_over_an_agent_span_over_a_chat_span(
    spans: InMemorySpanExporter, server: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([_program(tmp_path), "--provider", "openai", "--otel", "-O", "trace"]) == 0
    assert capsys.readouterr().err == ""  # the process has a tracer provider: no warning
    found = _by_operation(spans)
    (run,), (agent,), (chat,) = found["invoke_workflow"], found["invoke_agent"], found["chat"]
    assert (run.name, run.attributes) == (
        "invoke_workflow checker.as",
        {"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "checker.as"},
    )
    assert (_parent_of(run), _parent_of(agent), _parent_of(chat)) == (None, run.context.span_id, agent.context.span_id)
    assert (agent.name, agent.kind) == ("invoke_agent Careful Checker", SpanKind.INTERNAL)
    assert dict(agent.attributes or {}) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.temperature": 0.2,
        "gen_ai.request.max_tokens": 200,
        "gen_ai.output.type": "json",
        "gen_ai.agent.name": "Careful Checker",
        "gen_ai.agent.description": "Checks one thing.",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 3,
    }
    assert (chat.name, chat.kind) == ("chat gpt-4o-mini", SpanKind.CLIENT)
    assert dict(chat.attributes or {}) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.temperature": 0.2,
        "gen_ai.request.max_tokens": 200,
        "gen_ai.output.type": "json",
        "promptwire.attempt": 1,
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.response.model": "gpt-4o-mini",
        "gen_ai.response.id": "chatcmpl-1",
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 3,
    }
    assert all(span.status.status_code is StatusCode.UNSET for span in (run, agent, chat))


def test_a_retried_generate_has_a_chat_span_per_attempt_side_by_side(
    spans: InMemorySpanExporter, server: FakeProvider
) -> None:
    _replies(server, "Sure, it is fine.", '{"ok": true}')
    telemetry.enable()
    result = promptwire.generate(PROMPT, provider="openai", model="gpt-4o-mini", attempts=2)
    assert (result.value, result.attempts) == ({"ok": True}, 2)
    found = _by_operation(spans)
    (agent,), chats = found["invoke_agent"], found["chat"]
    assert [(chat.attributes or {})["promptwire.attempt"] for chat in chats] == [1, 2]
    assert [(chat.attributes or {}).get("promptwire.rejected") for chat in chats] == ["NotJsonError", None]
    assert {_parent_of(chat) for chat in chats} == {agent.context.span_id}
    assert chats[0].end_time is not None and chats[1].start_time is not None
    assert chats[0].end_time <= chats[1].start_time
    assert (agent.attributes or {})["gen_ai.usage.input_tokens"] == 24  # both attempts' tokens
    assert (agent.attributes or {})["gen_ai.usage.output_tokens"] == 6
    assert _parent_of(agent) is None  # no run: the generate is the root


def test_a_provider_error_sets_error_status_and_type_on_every_span_it_ends(
    spans: InMemorySpanExporter, server: FakeProvider, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([_program(tmp_path), "--provider", "openai", "--model", "e500", "--otel"]) == 1
    assert capsys.readouterr().err.startswith("asrender: ServerError [openai 500]")
    found = _by_operation(spans)
    for span in (*found["invoke_workflow"], *found["invoke_agent"], *found["chat"]):
        assert span.status.status_code is StatusCode.ERROR, span.name
        assert (span.attributes or {})["error.type"] == "ServerError"
        # Not the provider's body, which may quote the request: its class, provider and status.
        assert span.status.description == "ServerError openai 500"
    assert len(found["chat"]) == 1  # a provider's failure is not retried


def test_rejected_output_is_an_error_whose_message_stays_out_unless_content_is_captured(
    spans: InMemorySpanExporter, server: FakeProvider
) -> None:
    for capture in (False, True):
        _replies(server, "no json here", "still none")
        telemetry.enable(capture_content=capture)
        with pytest.raises(promptwire.ModelOutputError):
            promptwire.generate(PROMPT, provider="openai", model="gpt-4o-mini", attempts=2)
        found = _by_operation(spans)
        (agent,), chats = found["invoke_agent"], found["chat"]
        assert all(chat.status.status_code is StatusCode.UNSET for chat in chats)  # both calls were answered
        assert [(chat.attributes or {})["promptwire.rejected"] for chat in chats] == ["NotJsonError"] * 2
        assert (agent.attributes or {})["error.type"] == "NotJsonError"
        assert agent.status.status_code is StatusCode.ERROR
        description = agent.status.description
        assert (description is not None and "still none" in description) is capture  # it quotes the reply
        spans.clear()


def test_contents_are_recorded_only_when_asked_for(
    spans: InMemorySpanExporter, server: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    telemetry.enable()
    promptwire.generate(PROMPT, provider="openai", model="gpt-4o-mini")
    assert SECRET_WORD not in json.dumps([dict(span.attributes or {}) for span in spans.get_finished_spans()])
    spans.clear()
    monkeypatch.setenv(telemetry.CAPTURE_CONTENT, "true")  # the conventions' switch
    telemetry.enable()
    promptwire.generate(PROMPT, provider="openai", model="gpt-4o-mini")
    (chat,) = _by_operation(spans)["chat"]
    sent = json.loads(str((chat.attributes or {})["gen_ai.input.messages"]))
    assert [message["role"] for message in sent] == ["system", "user"]
    assert sent[0]["parts"] == [{"type": "text", "content": "You are Reviewer.\nReviews changes."}]
    assert SECRET_WORD in sent[1]["parts"][0]["content"]
    assert json.loads(str((chat.attributes or {})["gen_ai.output.messages"])) == [
        {"role": "assistant", "parts": [{"type": "text", "content": '{"ok": true}'}], "finish_reason": "stop"}
    ]
    spans.clear()
    telemetry.enable(capture_content=False)  # the parameter wins over the environment
    promptwire.generate(PROMPT, provider="openai", model="gpt-4o-mini")
    assert "gen_ai.input.messages" not in (_by_operation(spans)["chat"][0].attributes or {})


TEXT = st.lists(st.characters() | st.characters(categories=["Cs"])).map("".join)  # half characters too


@given(instruction=TEXT, reply=TEXT, role=TEXT)
def test_captured_contents_are_the_texts_sent_and_received_as_json_any_exporter_can_encode(
    exporter: InMemorySpanExporter, instruction: str, reply: str, role: str
) -> None:
    exporter.clear()
    telemetry.enable(capture_content=True)
    prompt = Prompt(instruction=instruction, identity=Identity(role=role, description=role))
    try:
        result = promptwire.generate(prompt, format="messages", responses=[reply])
    finally:
        telemetry.disable()
    for span in exporter.get_finished_spans():  # half a character is written as an escape, not raw
        for text in (span.name, *map(str, (span.attributes or {}).values())):
            text.encode("utf-8")
    (chat,) = _by_operation(exporter)["chat"]
    attributes = chat.attributes or {}
    sent, received = str(attributes["gen_ai.input.messages"]), str(attributes["gen_ai.output.messages"])
    *_, user = json.loads(sent)  # after the system message, when the identity makes one
    assert user == {"role": "user", "parts": [{"type": "text", "content": _joined(str(result.calls[0].rendered.user))}]}
    assert _joined(instruction) in user["parts"][0]["content"]
    assert json.loads(received)[0]["parts"] == ([{"type": "text", "content": _joined(reply)}] if reply else [])


def _joined(text: str) -> str:
    """``text`` as UTF-16 reads it, as every JSON text promptwire writes has it: two halves of a
    character side by side are that character."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def test_streamed_calls_make_the_same_spans_marked_as_streams(
    spans: InMemorySpanExporter, server: FakeProvider
) -> None:
    telemetry.enable()
    pieces: list[str] = []
    promptwire.generate(PROMPT, provider="openai", model="gpt-4o-mini", on_text=pieces.append)
    items = list(promptwire.stream(PROMPT, provider="openai", model="gpt-4o-mini"))
    assert pieces and isinstance(items[-1], promptwire.calls.generate.GenerateResult)
    found = _by_operation(spans)
    assert len(found["invoke_agent"]) == len(found["chat"]) == 2
    for chat in found["chat"]:
        attributes = chat.attributes or {}
        assert attributes["gen_ai.request.stream"] is True
        assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (12, 3)
        assert attributes["gen_ai.response.finish_reasons"] == ("stop",)


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize(
    ("adapter", "provider"),
    [("openai", "openai"), ("openai-responses", "openai"), ("anthropic", "anthropic"), ("ollama", "ollama")],
)
def test_every_built_in_adapters_calls_say_the_provider_model_and_tokens(
    spans: InMemorySpanExporter, server: FakeProvider, adapter: str, provider: str, streamed: bool
) -> None:
    telemetry.enable()
    on_text = [].append if streamed else None
    promptwire.generate(PROMPT, provider=adapter, model="gpt-4o-mini", on_text=on_text)
    (chat,) = _by_operation(spans)["chat"]
    attributes = chat.attributes or {}
    assert attributes["gen_ai.provider.name"] == provider  # the conventions' name: Responses is OpenAI's API
    assert (attributes["gen_ai.request.model"], attributes["gen_ai.response.model"]) == ("gpt-4o-mini",) * 2
    assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (12, 3)
    assert len(attributes["gen_ai.response.finish_reasons"]) == 1  # type: ignore[arg-type]


def test_a_stream_closed_early_ends_its_spans(spans: InMemorySpanExporter, server: FakeProvider) -> None:
    telemetry.enable()
    items = promptwire.stream(PROMPT, provider="openai", model="words50")
    assert isinstance(next(items), str)
    items.close()  # type: ignore[attr-defined]  # a generator: the consumer left its for loop
    found = _by_operation(spans)
    (agent,), (chat,) = found["invoke_agent"], found["chat"]
    assert (agent.attributes or {})["error.type"] == (chat.attributes or {})["error.type"] == "GeneratorExit"


def test_a_cancelled_call_ends_its_spans_at_once(spans: InMemorySpanExporter, server: FakeProvider) -> None:
    telemetry.enable()

    async def cancelled() -> tuple[ReadableSpan, ...]:
        task = asyncio.create_task(promptwire.agenerate(PROMPT, provider="openai", model="hang"))
        while not server.requests:  # the call is in flight
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return spans.get_finished_spans()  # before the event loop closes and collects what is left

    ended = asyncio.run(cancelled())
    assert sorted(span.name for span in ended) == ["chat hang", "invoke_agent Reviewer"]
    assert {(span.attributes or {})["error.type"] for span in ended} == {"CancelledError"}


def test_awaited_calls_are_children_of_the_callers_span(spans: InMemorySpanExporter, server: FakeProvider) -> None:
    telemetry.enable()
    tracer = trace.get_tracer("the application")

    async def three() -> None:
        with tracer.start_as_current_span("request"):
            await asyncio.gather(
                *(promptwire.agenerate(PROMPT, provider="openai", model="gpt-4o-mini") for _ in range(3))
            )

    asyncio.run(three())
    (request,) = [span for span in spans.get_finished_spans() if span.name == "request"]
    found = _by_operation(spans)
    agents = found["invoke_agent"]
    assert len(agents) == 3 and {_parent_of(agent) for agent in agents} == {request.context.span_id}
    assert sorted(_parent_of(chat) for chat in found["chat"]) == sorted(agent.context.span_id for agent in agents)


def test_an_awaited_program_run_is_a_child_of_the_callers_span(
    spans: InMemorySpanExporter, server: FakeProvider, tmp_path: Path
) -> None:
    telemetry.enable()
    tracer = trace.get_tracer("the application")

    async def run() -> Any:
        with tracer.start_as_current_span("request"):
            return await arun(Path(_program(tmp_path)), None, RunOptions(adapter="openai"))

    assert asyncio.run(run()).value == {"ok": True}
    (request,) = [span for span in spans.get_finished_spans() if span.name == "request"]
    found = _by_operation(spans)
    (workflow,), (agent,), (chat,) = found["invoke_workflow"], found["invoke_agent"], found["chat"]
    assert _parent_of(workflow) == request.context.span_id  # the program's thread runs in the caller's context
    assert (_parent_of(agent), _parent_of(chat)) == (workflow.context.span_id, agent.context.span_id)


def test_disabled_telemetry_makes_no_spans(spans: InMemorySpanExporter, server: FakeProvider) -> None:
    telemetry.enable()
    telemetry.disable()
    promptwire.generate(PROMPT, provider="openai", model="gpt-4o-mini")
    assert spans.get_finished_spans() == ()


def test_otel_without_opentelemetry_is_one_usage_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # as if it were not installed
    with pytest.raises(SystemExit) as stopped:
        main([_program(tmp_path), "--otel"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        "asrender: error: --otel: OpenTelemetry is not installed: pip install 'promptwire[otel]'\n"
    )


LISTING = """\
import json, sys
import promptwire
from promptwire.frontend.asrender.cli import main
promptwire.generate({"instruction": "hi"}, responses=["hello"])
status = main(sys.argv[1:])
print(json.dumps([status, sorted({name.split(".")[0] for name in sys.modules})]))
"""


def test_nothing_of_opentelemetry_is_imported_unless_asked(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", LISTING, _program(tmp_path)], capture_output=True, text=True, timeout=60, check=True
    )
    status, modules = json.loads(done.stdout.splitlines()[-1])
    assert status == 0 and "promptwire" in modules
    assert "opentelemetry" not in modules


def test_otel_without_a_tracer_provider_says_the_spans_go_nowhere(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "promptwire", _program(tmp_path), "--otel"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0
    assert done.stderr == f"asrender: warning: --otel: {telemetry.UNCONFIGURED}\n"


def test_without_capture_no_provider_error_body_nor_echoed_key_reaches_a_span(
    spans: InMemorySpanExporter,
    server: FakeProvider,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A provider's error that quotes the request would put prompt text in the span's status, and a
    key the provider echoes in a reply's id or model would be an attribute: neither is exported."""
    key = "sk-echoed-in-the-reply-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    server.reply = lambda body: {**REPLIES["/v1/chat/completions"](body), "id": key, "model": f"m-{key}"}
    assert main([_program(tmp_path), "--provider", "openai", "--model", "ok", "--otel"]) == 0
    exported = json.dumps([dict(span.attributes or {}) for span in spans.get_finished_spans()])
    assert key not in exported and "***" in exported
