"""The documentation stays true: what a page of docs/ shows is what the code does.

* formats.md: the field-to-format table says what the renderers really express; rendered.md: its
  example is what the ``messages`` format gives.
* embedding.md runs as written: its snippets, in order, as one program, with the OpenAI SDK pointed
  at the local fake provider (the snippet reads the usual environment variables).
* errors.md: its tree is the real hierarchy, each class that makes itself retryable marked (its
  subclasses inherit it), every provider error in it, every AgentScript error code listed.
* plugins.md: its hook reference is the hook specs' docstrings, its snippets run (the renderer and
  the adapter form a plugin, the test snippet passes against the fake provider), and the clash
  message it shows is what ``asrender`` prints.
* tools.md runs as written: its Python snippets execute and do what their comments say.
* telemetry.md: its snippet runs against the fake provider, and it names every attribute the spans
  are given.
* recordings.md: its table names every field of a record, in order, and its header line is the one
  a recording starts with.
* plugins.md: the keyed adapter reads, requires and masks its key, and passes the error code by keyword.
* security.md: the file tools' refusal it shows is the one they give.
* prompt-data.md and prompt.schema.json: what tests/docs/prompt_data_reference.py writes from the model.
* conversations.md: the fidelity table made from the conformance corpus's expected files.
* agentscript.md: its first program prints the prompt shown, and checks to the error shown.

Every snippet of every page also runs in test_snippets.py; every link leads somewhere (test_links.py).
"""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import types
import warnings
from pathlib import Path
from typing import Any

import pytest

import promptwire
from promptwire import PluginHost, Prompt
from promptwire.calls import generate, telemetry
from promptwire.core import errors
from promptwire.core.coercion import ResultError
from promptwire.core.errors import UnsupportedFieldsWarning
from promptwire.core.tools import ToolContext, ToolError, ToolRequest
from promptwire.plugins import hookspecs
from promptwire.plugins.builtins import TOOL_SCHEMES
from promptwire.testing.provider_servers import fake_provider

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
HOST = PluginHost(entry_points=False)


def _text(page: str) -> str:
    return (DOCS / page).read_text(encoding="utf-8")


def _snippets(page: str) -> list[str]:
    """The page's Python blocks, in order."""
    return re.findall(r"```python\n(.*?)```", _text(page), flags=re.DOTALL)


# --- formats.md, rendered.md ----------------------------------------------------------------------


def _table() -> dict[str, set[str]]:
    lines = _text("formats.md").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| field |"))
    formats = [cell.strip() for cell in lines[start].strip("|").split("|")][1:]
    expressed: dict[str, set[str]] = {fmt: set() for fmt in formats}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        field, *cells = (cell.strip() for cell in line.strip("|").split("|"))
        for fmt, cell in zip(formats, cells, strict=True):
            if cell == "✓":
                expressed[fmt].add(field)
    return expressed


def test_every_builtin_format_has_a_column_matching_its_fields() -> None:
    table = _table()
    assert set(table) == set(HOST.names("renderers"))
    for fmt, fields in table.items():
        assert fields == set(HOST.renderer(fmt).fields), fmt


def test_every_prompt_field_has_a_row() -> None:
    text = _text("formats.md")
    for field in Prompt.model_fields:
        if field != "config":
            assert f"\n| {field} |" in text, field


def test_the_rendered_prompt_example_is_what_the_messages_format_gives() -> None:
    import json

    text = _text("rendered.md")
    python_example = text.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(python_example, namespace)  # the doc's own snippet
    prompt = namespace["prompt"]
    json_example = text.split("```json\n", 1)[1].split("```", 1)[0]
    assert json.loads(json_example) == promptwire.render(prompt, "messages", host=HOST).to_dict()


# --- embedding.md ---------------------------------------------------------------------------------


def test_the_snippets_run_in_order(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    snippets = _snippets("embedding.md")
    assert len(snippets) == 11
    namespace: dict[str, Any] = {}
    monkeypatch.chdir(tmp_path)  # where the recording snippet writes its file
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for snippet in snippets:
                exec(snippet, namespace)
    assert [(w.category, str(w.message).rsplit(": ", 1)[1]) for w in caught] == [
        (UnsupportedFieldsWarning, "identity, context.source"),  # as the snippets' comments say
        (UnsupportedFieldsWarning, "sections"),
        (UnsupportedFieldsWarning, "history"),
    ]
    sent, *checks, run, arun, asked, answered = server.requests
    assert sent["messages"] == namespace["messages"]  # what was rendered is what went out
    assert [check.get("stream", False) for check in checks] == [True, True, False, False, False, False]
    assert {**run, "stream": True, "stream_options": {"include_usage": True}} == arun  # arun streamed, for on_text
    assert run["messages"] == namespace["real"].calls[0].request.kwargs["messages"]
    assert namespace["answer"] == {"ok": True}
    recorded = (tmp_path / "check.recording.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(recorded) == 2  # the header and the one real call: the replays sent nothing
    out = capsys.readouterr().out
    assert "prompt drift at a call without a site attempt 1: the request is not one check.recording.jsonl" in out
    assert '    current:  "Is the change safe to deploy?"' in out
    history = namespace["rendered"].sections[2].body
    assert history.startswith("[\n  ") and len(history) < 80  # clipped to its budget
    assert "agentscript" in out
    framework = namespace["framework"]  # "Your framework's model sends": the second attempt repaired
    assert [call.error is None for call in framework.calls] == [False, True]
    assert "Previous generation failed." in framework.calls[1].rendered.user
    # "A tool-calling loop": the provider's turn went back as it came, then the tool's result
    call = {"id": "call_0_0", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "fake"}'}}
    assert answered["messages"] == [
        *asked["messages"],
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "content": "18C and sunny in fake", "tool_call_id": "call_0_0"},
    ]
    assert namespace["reply_text"] == "18C and sunny in fake"


# --- telemetry.md ---------------------------------------------------------------------------------


def test_the_telemetry_snippet_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (snippet,) = _snippets("telemetry.md")
    monkeypatch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)
    namespace: dict[str, Any] = {}
    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        try:
            exec(snippet, namespace)
        finally:
            telemetry.disable()
    assert capsys.readouterr().out == "12 3\n"  # the fake provider's token counts
    assert len(namespace["exporter"].get_finished_spans()) == 2


def test_the_telemetry_table_names_every_attribute_a_span_has() -> None:
    text = _text("telemetry.md")
    named = set(re.findall(r"`((?:gen_ai|error|promptwire)\.[a-z_.]+)`", text))
    made = set(
        re.findall(r'"((?:gen_ai|error|promptwire)\.[a-z_.]+)"', (ROOT / "calls" / "telemetry.py").read_text("utf-8"))
    )
    assert made <= named, sorted(made - named)


# --- errors.md ------------------------------------------------------------------------------------

CLASSES = {**vars(errors), "NotJsonError": generate.NotJsonError, "ResultError": ResultError}


def _tree() -> list[tuple[int, str, bool]]:
    """(depth, class name, marked retryable) for each line of the tree block."""
    text = _text("errors.md")
    block = re.search(r"```text\n(PromptwireError\n.*?)```", text, flags=re.DOTALL)
    assert block is not None
    rows = []
    for line in block.group(1).splitlines():
        found = re.search(r"[A-Z]\w+", line)
        assert found is not None, line
        rows.append((found.start() // 4, found.group(), line.rstrip().endswith("retryable")))
    return rows


def test_the_tree_is_the_hierarchy() -> None:
    parents: list[type] = []
    documented = set()
    for depth, name, retryable in _tree():
        cls = CLASSES[name]
        documented.add(cls)
        del parents[depth:]
        if parents:
            assert cls.__bases__[0] is parents[-1], f"{name} is documented under {parents[-1].__name__}"
            sets_it = bool(vars(cls).get("retryable"))  # marked where it is set; subclasses inherit it
            assert sets_it == retryable, f"{name}: the doc's retryable mark is wrong"
            assert getattr(cls, "retryable", False) == retryable or getattr(parents[-1], "retryable", False)
        parents.append(cls)
    provider_errors = {
        cls for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.ProviderError)
    }
    assert provider_errors <= documented


def test_every_agentscript_code_is_listed() -> None:
    from promptwire.frontend.agentscript.analyzer import CODES
    from promptwire.frontend.agentscript.diagnostics import PARSE_ERROR
    from promptwire.frontend.agentscript.interpreter import RUNTIME_ERROR
    from promptwire.frontend.agentscript.loader import IMPORT_ERROR

    section = _text("errors.md").split("## AgentScript programs", 1)[1]
    for code in (*CODES, PARSE_ERROR, RUNTIME_ERROR, IMPORT_ERROR):
        assert f"`{code}`" in section, code


# --- plugins.md -----------------------------------------------------------------------------------


def hooks_block() -> str:
    """The generated part of the guide: the rules shared by every hook, then each hook's docstring."""
    parts = ["<!-- hooks: generated from plugins/hookspecs.py by tests/docs/test_docs.py; do not edit -->"]
    parts.append("### The rules of every hook\n\n" + (inspect.getdoc(hookspecs) or "").split("\n\n", 2)[2])
    for name in hookspecs.HOOK_NAMES:
        parts.append(f"### `{name}(register)`\n\n" + (inspect.getdoc(getattr(hookspecs, name)) or ""))
    parts.append("<!-- /hooks -->")
    return "\n\n".join(parts)


def test_the_hook_reference_is_the_hook_specs() -> None:
    found = re.search(r"<!-- hooks:.*?<!-- /hooks -->", _text("plugins.md"), flags=re.DOTALL)
    assert found is not None
    assert found.group() == hooks_block(), "docs/plugins.md is stale: paste hooks_block() in its place"
    assert len(hookspecs.HOOK_NAMES) == 4


@pytest.fixture
def my_plugin(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """The guide's renderer and adapter as one plugin module, importable as ``my_plugin``."""
    module = types.ModuleType("my_plugin")
    renderer, adapter, keyed, streaming, *_ = _snippets("plugins.md")
    exec("\n".join((renderer, adapter, keyed, streaming)), module.__dict__)
    monkeypatch.setitem(sys.modules, "my_plugin", module)
    return module


def test_the_snippets_make_a_plugin(my_plugin: types.ModuleType) -> None:
    host = promptwire.PluginHost(entry_points=False, plugins=[my_plugin])
    info = host.plugins()[-1]
    assert (info.name, info.registers["renderers"], info.registers["adapters"]) == (
        "my_plugin",
        ["memo"],
        ["compat", "compat-keyed"],
    )
    with pytest.warns(promptwire.core.errors.UnsupportedFieldsWarning, match="left out: context"):
        rendered = promptwire.render({"instruction": "Hi.", "context": [{"value": 1}]}, format="note", host=host)
    assert rendered.text == "MEMO from nobody\n\nHi."
    assert [warning.field for warning in rendered.warnings] == ["context"]


def test_the_streaming_snippet_streams_and_fails_as_the_built_in_adapters_do(
    my_plugin: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from promptwire.calls.generate import agenerate
    from promptwire.calls.generate import generate as run_generate
    from promptwire.renderers.agentscript import renderer, shape_contract

    prompt = promptwire.Prompt(instruction="Say ok.", output=shape_contract({"ok": "boolean"}))
    adapter = my_plugin.StreamingCompat()
    shown: list[str] = []
    with fake_provider() as server:
        monkeypatch.setenv("COMPAT_BASE_URL", server.base_url)
        result = run_generate(prompt, render=renderer.render, adapter=adapter, model="ok", on_text=shown.append)
        awaited = asyncio.run(agenerate(prompt, render=renderer.render, adapter=adapter, model="ok"))
        with pytest.raises(promptwire.ProviderError) as caught:
            run_generate(prompt, render=renderer.render, adapter=adapter, model="short", on_text=shown.append)
        with pytest.raises(promptwire.ProviderError) as failed:
            run_generate(prompt, render=renderer.render, adapter=adapter, model="streamrate", on_text=shown.append)
    assert shown[:2] == ['{"ok": ', "true}"] and result.value == awaited.value == {"ok": True}
    usage = result.calls[0].reply and result.calls[0].reply.usage
    assert usage is not None and (usage.input, usage.output, usage.as_data()["total_tokens"]) == (12, 3, 15)
    assert server.requests[0]["stream_options"] == {"include_usage": True} and "stream" not in server.requests[1]
    assert "stream ended before the reply was complete" in str(caught.value)
    assert type(failed.value).__name__ == "RateLimitedError"


def test_the_test_snippet_passes(my_plugin: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    namespace: dict[str, Any] = {}
    exec(_snippets("plugins.md")[4], namespace)
    namespace["test_compat_over_http"](monkeypatch)
    namespace["test_compat_failures"](monkeypatch)


def test_the_keyed_snippet_reads_requires_and_masks_its_key(
    my_plugin: types.ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = promptwire.PluginHost(entry_points=False, plugins=[my_plugin])
    prompt = {"instruction": "Say ok."}
    with fake_provider() as server:
        monkeypatch.setenv("COMPAT_BASE_URL", server.base_url)
        monkeypatch.delenv("COMPAT_API_KEY", raising=False)
        with pytest.raises(errors.AuthenticationError, match=r"^COMPAT_API_KEY is required for compat:// models"):
            promptwire.generate(prompt, provider="compat-keyed", model="ok", host=host)
        assert server.requests == []  # refused before anything was sent
        monkeypatch.setenv("COMPAT_API_KEY", "sk-keyed-0123456789")
        assert promptwire.generate(prompt, provider="compat-keyed", model="ok", host=host).value == '{"ok": true}'
        with pytest.raises(errors.AuthenticationError) as echoed:
            promptwire.generate(prompt, provider="compat-keyed", model="e401echo", host=host)
        with pytest.raises(errors.QuotaExhaustedError):  # the provider's code, passed by keyword
            promptwire.generate(prompt, provider="compat-keyed", model="e429q", host=host)
    assert "sk-keyed" not in str(echoed.value) and "sk-keyed" not in str(echoed.value.body)
    with pytest.raises(TypeError):  # what the guide warns of: the code by position
        my_plugin.status_error(429, "{}", "insufficient_quota")


def test_the_clash_message_is_what_asrender_prints(tmp_path: Path) -> None:
    # A second distribution claiming the echo plugin's format name, installed the way pip lays it out.
    (tmp_path / "my_plugin.py").write_text(
        "from promptwire import hookimpl\nfrom promptwire_echo.renderer import FlatRenderer\n\n"
        "@hookimpl\ndef register_renderers(register):\n    register(FlatRenderer())\n"
    )
    dist_info = tmp_path / "my_plugin-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-plugin\nVersion: 1.0\n")
    (dist_info / "entry_points.txt").write_text("[promptwire]\nmy_plugin = my_plugin\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("PROMPTWIRE_PLUGINS", None)
    done = subprocess.run(
        [sys.executable, "-m", "promptwire", "plugins"], capture_output=True, text=True, env=env, timeout=60
    )
    shown = re.search(r"```text\n(asrender: .*?)\n```", _text("plugins.md"))
    assert shown is not None
    assert (done.returncode, done.stdout, done.stderr) == (1, "", shown.group(1) + "\n")


# --- tools.md -------------------------------------------------------------------------------------


def test_the_tool_call_snippet_resolves_and_writes_back() -> None:
    namespace: dict[str, Any] = {}
    exec(_snippets("tools.md")[0], namespace)
    assert namespace["ready"].arguments == {"text": "a long text", "_outputPath": "†state.summary"}
    assert namespace["context"]["state"] == {"summary": "a summary"}


def test_the_third_party_scheme_snippet_defines_a_working_scheme() -> None:
    namespace: dict[str, Any] = {}
    exec(_snippets("tools.md")[1], namespace)
    buckets = namespace["Buckets"]()
    assert (buckets.name, buckets.kinds) == ("s3", frozenset({"tool"}))
    registered: list[Any] = []
    namespace["register_tool_schemes"](registered.append)
    assert type(registered[0]).__name__ == "Buckets"
    with pytest.raises(ToolError, match=r"^not a memory$"):
        buckets.call_memory(ToolRequest("B", "s3://b", "add", [{}]), ToolContext(Path.cwd()))


def test_every_builtin_scheme_is_documented() -> None:
    text = _text("tools.md")
    for name in TOOL_SCHEMES:
        assert f"{name}://" in text, name


# --- recordings.md --------------------------------------------------------------------------------


def test_the_recording_format_is_documented_field_by_field(tmp_path: Path) -> None:
    from promptwire.calls.recording import CallRecord, Recorder, is_recording

    text = _text("recordings.md")
    rows = re.findall(r"^\| `(\w+)` \|", text, flags=re.MULTILINE)
    assert rows == list(CallRecord.__dataclass_fields__)  # every field, in the order written
    header = re.search(r"```json\n(\{\"format\".*?)\n```", text)
    assert header is not None and is_recording(header.group(1))
    with Recorder(tmp_path / "run.jsonl") as recorder:
        recorder.begin("openai", None)
    assert (tmp_path / "run.jsonl").read_text(encoding="utf-8") == header.group(1) + "\n"


# --- security.md ----------------------------------------------------------------------------------


def test_the_file_tool_refusal_shown_is_the_one_given() -> None:
    from promptwire.tools.sandbox import ONLY_THE_WORKSPACE

    shown = re.search(r"failed: (Path escapes workspace: .*)", _text("security.md"))
    assert shown is not None and shown.group(1) == "Path escapes workspace: ../outside.txt" + ONLY_THE_WORKSPACE


# --- prompt-data.md -------------------------------------------------------------------------------


def _reference() -> types.ModuleType:
    """tests/docs/prompt_data_reference.py, the script that writes the page (run it to refresh)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "prompt_data_reference", Path(__file__).with_name("prompt_data_reference.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_prompt_data_reference_is_the_models_schema() -> None:
    reference = _reference()
    full = reference.schema()
    stale = "stale: run python tests/docs/prompt_data_reference.py"
    assert _text("prompt-data.md") == reference.page(full), f"docs/prompt-data.md is {stale}"
    assert json.loads(_text("prompt.schema.json")) == full, f"docs/prompt.schema.json is {stale}"
    assert _text("prompt.schema.json") == reference.schema_text(full), f"docs/prompt.schema.json is {stale}"


def test_every_key_of_the_prompt_data_has_a_note_and_every_note_a_key() -> None:
    reference = _reference()
    keys = reference.documented_keys(reference.schema())
    assert sorted(keys - set(reference.NOTES)) == [], "say what these keys are for in NOTES"
    assert sorted(set(reference.NOTES) - keys) == [], "these NOTES name no key of the model"
    assert {key.split(".")[0] for key in keys} >= {"Prompt", "ContextItem", "GenerateConfig", "ImagePart"}


# --- conversations.md ----------------------------------------------------------------------------


def test_the_fidelity_table_is_the_expected_files() -> None:
    from promptwire.testing.conformance import BUILTIN_ADAPTERS, EXPECTED, conversations, read_expected
    from promptwire.testing.conformance.__main__ import INTRO, SOURCE
    from promptwire.testing.conformance.fidelity import page

    corpus = conversations()
    records = {a: {c.name: read_expected(EXPECTED / a, c.name) for c in corpus} for a in BUILTIN_ADAPTERS}
    made = page(corpus, records, intro=INTRO, source=SOURCE)
    assert _text("conversations.md") == made, (
        "docs/conversations.md is stale: run python -m promptwire.testing.conformance --write"
    )


def test_the_conversation_snippet_checks_the_guides_adapter(my_plugin: types.ModuleType, tmp_path: Path) -> None:
    # The guide's adapter sends the rendered messages as they are: the check finds the reasoning it
    # would send to a provider that did not produce it, once its expected files are written.
    from promptwire.testing.conformance import write_expected

    namespace = {**my_plugin.__dict__, "__file__": str(tmp_path / "test_compat.py")}
    exec(_snippets("plugins.md")[5], namespace)
    write_expected(my_plugin.Compat(), tmp_path / "conformance")
    with pytest.raises(AssertionError) as caught:
        namespace["test_compat_meets_the_conversation_corpus"]()
    assert (
        "reasoning-foreign: rule broken: history[1].content[0]: reasoning from mistral is in the body as text"
        in str(caught.value).splitlines()
    )


# --- agentscript.md -------------------------------------------------------------------------------


def test_the_guide_shows_what_its_first_program_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import shlex

    from promptwire.frontend.asrender.cli import main

    text = _text("agentscript.md")
    program = text.split("```agentscript\n", 1)[1].split("```", 1)[0]
    prompt_start, error = re.findall(r"```text\n(.*?)```", text, flags=re.DOTALL)
    command = shlex.split(program.split("\n", 1)[0].removeprefix("// "))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qa.as").write_text(program, encoding="utf-8")
    assert main(command[1:]) == 0
    assert "--- user ---\n" + prompt_start in capsys.readouterr().out
    (tmp_path / "qa.as").write_text(program.replace("attempts: 2", "attempts: 0"), encoding="utf-8")
    assert main(["check", "qa.as"]) == 1
    assert capsys.readouterr().err == error
