"""``asrender lsp`` driven as an editor drives it: a process on stdio, JSON-RPC messages both ways
(tests/lsp_client.py). Each test starts its own server on a copy of the example programs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lsp_client import LspClient

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUN_TIMEOUT = 120
"""Seconds an evaluation may take in these tests (the server's default is 10): a machine shared by
many runs must not turn a hover into a timeout. The timeout itself has its own test."""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The example programs with their sibling files, in a folder of the test's own."""
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("plugins", "project", "templates", "__prompts__"))
    return copy


@pytest.fixture
def client(folder: Path) -> Iterator[LspClient]:
    started = LspClient(cwd=folder)
    started.initialize(folder, {"timeout": RUN_TIMEOUT})
    yield started
    started.close()


def _check_output(path: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "promptwire", "check", str(path)], capture_output=True, text=True, timeout=120
    )
    return done.stderr


def _asrender(path: Path, *flags: str) -> str:
    siblings = [
        "--input-file",
        str(path.with_suffix(".input.json")),
        "--responses",
        str(path.with_suffix(".responses.json")),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "promptwire", str(path), *siblings, *flags],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=path.parent,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _call_blocks(printed: str, site: str) -> list[str]:
    """The blocks ``asrender`` printed for the calls made at ``site`` (each starts ``=== SITE``)."""
    return [block for block in re.split(r"(?m)^(?==== )", printed) if block.startswith(f"=== {site} ")]


def test_it_lists_what_it_serves_and_ends_on_shutdown_and_exit(folder: Path) -> None:
    started = LspClient(cwd=folder)
    try:
        capabilities = started.initialize(folder)["capabilities"]
        assert capabilities["textDocumentSync"]["change"] == 2  # incremental
        assert capabilities["executeCommandProvider"]["commands"] == ["asrender.showPrompt"]
        for provider in ("hover", "definition", "references", "documentSymbol", "foldingRange", "codeLens"):
            assert capabilities[f"{provider}Provider"], provider
        assert started.shutdown() == 0
    finally:
        started.close()


def test_diagnostics_on_open_are_asrender_checks(client: LspClient, folder: Path) -> None:
    program = folder / "evidence-qa.as"
    program.write_text(program.read_text().replace("attempts: 2", "attempts: 0").replace("max 40", "max -1"))
    uri = client.open(program)
    found = client.diagnostics(uri)
    printed = _check_output(program)
    assert [
        f"{program}:{d['range']['start']['line'] + 1}:{d['range']['start']['character'] + 1}: error[{d['code']}]: {d['message']}"
        for d in found
    ] == [line for line in printed.splitlines() if line.startswith(str(program))]
    assert found[0]["range"]["end"]["character"] > found[0]["range"]["start"]["character"]  # the value's span


def test_diagnostics_follow_each_change(client: LspClient, folder: Path) -> None:
    program = folder / "evidence-qa.as"
    uri = client.open(program)
    assert client.diagnostics(uri) == []
    # An incremental change: 'attempts: 2' becomes 'attempts: 0' (line 12, where the 2 is).
    line = program.read_text().splitlines()[11]
    column = line.index("attempts: 2") + len("attempts: ")
    edit = {
        "range": {"start": {"line": 11, "character": column}, "end": {"line": 11, "character": column + 1}},
        "text": "0",
    }
    client.change(uri, 2, [edit])
    found = client.diagnostics(uri, version=2)
    assert [(d["code"], d["range"]["start"]) for d in found] == [
        ("INVALID_GENERATE_ATTEMPTS", {"line": 11, "character": column})
    ]
    client.change(uri, 3, [{**edit, "text": "2"}])
    assert client.diagnostics(uri, version=3) == []


def test_a_parse_error_is_placed_where_check_puts_its_caret(client: LspClient, folder: Path) -> None:
    program = folder / "broken.as"
    program.write_text("main agent A {\n    main func(input) {\n        x = = 1\n    }\n}\n")
    found = client.diagnostics(client.open(program))
    printed = _check_output(program).splitlines()[0]
    start = found[0]["range"]["start"]
    assert (
        printed
        == f"{program}:{start['line'] + 1}:{start['character'] + 1}: error[{found[0]['code']}]: {found[0]['message']}"
    )


def test_an_error_in_an_imported_file_is_shown_there_and_on_the_import(client: LspClient, folder: Path) -> None:
    critic = folder / "newsroom" / "critic.as"
    critic.write_text(critic.read_text().replace("generate({", "generate({ temperature: true,", 1))
    uri = client.open(folder / "newsroom" / "newsroom.as")
    published: dict[str, list[dict[str, Any]]] = {}
    while uri not in published or critic.as_uri() not in published:
        message = client.notifications.get(timeout=60)
        if message["method"] == "textDocument/publishDiagnostics":
            published[message["params"]["uri"]] = message["params"]["diagnostics"]
    [there] = published[critic.as_uri()]
    assert there["code"] == "INVALID_GENERATE_TEMPERATURE"
    [here] = published[uri]
    assert here["range"]["start"]["line"] == 1  # import agent Critic from "./critic.as"
    assert here["relatedInformation"] == [
        {"location": {"uri": critic.as_uri(), "range": there["range"]}, "message": there["message"]}
    ]


def test_hover_on_a_generate_is_what_asrender_prints_for_its_calls(client: LspClient, folder: Path) -> None:
    program = folder / "evidence-qa.as"
    uri = client.open(program)
    hover = client.request("textDocument/hover", client.at(uri, 11, 20))
    text = hover["contents"]["value"]
    blocks = _call_blocks(_asrender(program), f"{program}:12:18")
    assert len(blocks) == 2  # the generate's two attempts, the first rejected
    for block in blocks:
        assert f"```text\n{block.rstrip()}\n```" in text
    assert "input from evidence-qa.input.json; replies from evidence-qa.responses.json" in text


def test_hover_with_a_provider_adds_the_dry_runs_request(folder: Path) -> None:
    program = folder / "evidence-qa.as"
    started = LspClient(cwd=folder)
    try:
        started.initialize(folder, {"provider": "openai", "timeout": RUN_TIMEOUT})
        uri = started.open(program)
        text = started.request("textDocument/hover", started.at(uri, 11, 20))["contents"]["value"]
    finally:
        started.close()
    blocks = _call_blocks(_asrender(program, "--dry-run", "--provider", "openai"), f"{program}:12:18")
    assert len(blocks) == 2
    for block in blocks:
        assert f"```text\n{block.rstrip()}\n```" in text
    assert "--- request: openai gpt-4.1-mini ---" in text


def test_hover_says_when_mock_values_answer(client: LspClient, folder: Path) -> None:
    (folder / "evidence-qa.responses.json").unlink()
    (folder / "evidence-qa.input.json").unlink()
    uri = client.open(folder / "evidence-qa.as")
    text = client.request("textDocument/hover", client.at(uri, 11, 20))["contents"]["value"]
    assert "no input file: input is {}; no replies file: mock values" in text


def test_hover_on_a_label_shows_its_section_budget_and_clip(client: LspClient, folder: Path) -> None:
    uri = client.open(folder / "evidence-qa.as")
    line = (folder / "evidence-qa.as").read_text().splitlines()[10]  # use input.notes max 40 as analyst notes
    text = client.request("textDocument/hover", client.at(uri, 10, line.index("analyst")))["contents"]["value"]
    assert text.startswith("**[analyst notes]** source: `input.notes`; budget 40; clipped: 40 of 70 kept")
    assert "The changelog is the most reliable sourc\n" in text


def test_hover_on_an_imported_agent_gives_its_signature_and_file(client: LspClient, folder: Path) -> None:
    uri = client.open(folder / "newsroom" / "newsroom.as")
    client.diagnostics(uri)
    text = client.request("textDocument/hover", client.at(uri, 14, 18))["contents"]["value"]  # review = Critic(...)
    assert "```agentscript\nagent Critic\n    main func(input)\n```" in text
    assert f"({folder / 'newsroom' / 'critic.as'})" in text


def test_definition_and_references_across_an_agent_import(client: LspClient, folder: Path) -> None:
    newsroom, critic = folder / "newsroom" / "newsroom.as", folder / "newsroom" / "critic.as"
    uri = client.open(newsroom)
    [found] = client.request("textDocument/definition", client.at(uri, 14, 18))
    assert found["uri"] == critic.as_uri()
    line = critic.read_text().splitlines()[found["range"]["start"]["line"]]
    assert line[found["range"]["start"]["character"] : found["range"]["end"]["character"]] == "Critic"
    places = client.request(
        "textDocument/references", {**client.at(uri, 14, 18), "context": {"includeDeclaration": True}}
    )
    assert sorted((p["uri"], p["range"]["start"]["line"]) for p in places) == sorted(
        [(uri, 1), (uri, 14), (critic.as_uri(), found["range"]["start"]["line"])]
    )


def test_symbols_and_folding(client: LspClient, folder: Path) -> None:
    uri = client.open(folder / "evidence-qa.as")
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [s["name"] for s in symbols] == ["Model", "Researcher"]
    [main] = symbols[1]["children"]
    assert (main["name"], main["detail"]) == ("main func", "main func(input)")
    [generate] = main["children"]
    assert generate["name"] == "generate"
    assert [label["name"] for label in generate["children"]] == ["question", "evidence", "analyst notes"]
    folds = client.request("textDocument/foldingRange", {"textDocument": {"uri": uri}})
    assert {"startLine": 2, "endLine": 18} in [{k: f[k] for k in ("startLine", "endLine")} for f in folds]


def test_completion(client: LspClient, folder: Path) -> None:
    program = folder / "evidence-qa.as"
    text = program.read_text()
    uri = client.open(program)
    client.diagnostics(uri)

    def labels(line: int, character: int) -> set[str]:
        return {
            item["label"]
            for item in client.request("textDocument/completion", client.at(uri, line, character))["items"]
        }

    assert {"attempts", "max_output", "temperature"} <= labels(11, text.splitlines()[11].index("input:"))
    assert {"question", "evidence", "notes"} <= labels(8, text.splitlines()[8].index("question"))  # input.
    assert labels(12, text.splitlines()[12].index("string")) >= {"string", "number", "boolean", "json", "list"}
    assert {"generate", "agent", "Researcher", "Model"} <= labels(17, 8)


def test_show_prompt_lens_runs_its_command(client: LspClient, folder: Path) -> None:
    program = folder / "evidence-qa.as"
    uri = client.open(program)
    [lens] = client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
    assert lens["command"]["title"] == "Show prompt"
    shown = client.request(
        "workspace/executeCommand", {"command": lens["command"]["command"], "arguments": lens["command"]["arguments"]}
    )
    printed = _asrender(program)
    assert printed.startswith(shown)
    assert shown.count(f"=== {program}:12:18 agent Researcher attempt ") == 2


def test_a_cancelled_request_is_answered_as_cancelled(client: LspClient, folder: Path) -> None:
    program = folder / "slow.as"
    program.write_text(
        'import llm M from "openai://m"\n'
        'main agent A {\n    model M\n    role "R"\n    description "D"\n    main func(input) {\n'
        '        repeat * 100000 {\n            x = generate({ input: "go" })\n        }\n    }\n}\n'
    )
    uri = client.open(program)
    number = client.send_request("textDocument/hover", client.at(uri, 7, 18))  # the generate
    deadline = time.monotonic() + 60
    while not _evaluations_in(folder):  # the hover is running its evaluation
        assert time.monotonic() < deadline, "no evaluation started"
        time.sleep(0.05)
    client.notify("$/cancelRequest", {"id": number})
    answer = client.response(number)
    assert answer["error"]["code"] == -32800  # RequestCancelled
    assert _evaluations_in(folder)  # a cancelled request leaves the evaluation to the next hover
    assert client.shutdown() == 0
    deadline = time.monotonic() + 20  # the run alone takes longer than its 30 s processor limit
    while _evaluations_in(folder):  # the evaluation the hover started ended with the server
        assert time.monotonic() < deadline, "an evaluation outlived the server"
        time.sleep(0.05)


def test_an_evaluation_past_its_timeout_is_stopped(folder: Path) -> None:
    program = folder / "slow.as"
    program.write_text(
        'import llm M from "openai://m"\n'
        'main agent A {\n    model M\n    role "R"\n    description "D"\n    main func(input) {\n'
        '        repeat * 1000000 {\n            x = generate({ input: "go" })\n        }\n    }\n}\n'
    )
    started = LspClient(cwd=folder)
    try:
        started.initialize(folder, {"timeout": 1})
        uri = started.open(program)
        text = started.request("textDocument/hover", started.at(uri, 7, 18))["contents"]["value"]
    finally:
        started.close()
    assert text == "Cannot show the prompt: the run took longer than 1 s and was stopped"


def test_without_the_extra_the_command_says_what_to_install(tmp_path: Path) -> None:
    # A pygls that cannot be imported stands for the extra not installed.
    (tmp_path / "pygls").mkdir()
    (tmp_path / "pygls" / "__init__.py").write_text("raise ImportError('no', name='pygls')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "promptwire", "lsp"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert (done.returncode, done.stderr) == (
        1,
        "asrender: asrender lsp needs pygls and lsprotocol: pip install 'promptwire[lsp]' (in a checkout: pip install -e '.[lsp]')\n",
    )


def test_a_hover_sends_nothing_and_says_what_a_tool_would_need(client: LspClient, folder: Path) -> None:
    program = folder / "fetch.as"
    program.write_text(
        'import tool Web from "https://example.com"\nimport llm M from "openai://gpt-4.1-mini"\n'
        'main agent A {\n    model M\n    role "R"\n    description "D"\n'
        "    main func(input) {\n"
        '        page = Web.get({ path: "/" })\n        use page as page\n'
        '        x = generate({ input: "Summarise." })\n    }\n}\n'
    )
    uri = client.open(program)
    text = client.request("textDocument/hover", client.at(uri, 9, 13))["contents"]["value"]
    assert "Connecting to https://example.com needs --allow-net" in text
    assert "This generate made no call in the run." in text


def test_a_hover_writes_only_in_its_scratch_copy(client: LspClient, folder: Path) -> None:
    program = folder / "lessons.as"  # its memory appends to lessons.jsonl beside it
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    uri = client.open(program)
    line = next(i for i, text in enumerate(program.read_text().splitlines()) if "generate(" in text)
    text = client.request(
        "textDocument/hover", client.at(uri, line, program.read_text().splitlines()[line].index("generate") + 1)
    )
    assert "agent" in text["contents"]["value"] and "The run stopped" not in text["contents"]["value"]
    assert {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()} == before


def test_a_misspelt_option_has_a_quick_fix(client: LspClient, folder: Path) -> None:
    program = folder / "evidence-qa.as"
    program.write_text(
        program.read_text().replace("attempts: 2", "atempts: 2").replace("confidence number", "confidence numbr")
    )
    uri = client.open(program)
    found = client.diagnostics(uri)
    assert [d["code"] for d in found] == ["UNKNOWN_GENERATE_OPTION", "UNKNOWN_SHAPE_TYPE"]
    fixes = []
    for diagnostic in found:
        [action] = client.request(
            "textDocument/codeAction",
            {"textDocument": {"uri": uri}, "range": diagnostic["range"], "context": {"diagnostics": [diagnostic]}},
        )
        [edit] = action["edit"]["changes"][uri]
        fixes.append(
            (action["title"], action["kind"], edit["newText"], edit["range"]["start"] == diagnostic["range"]["start"])
        )
    assert fixes == [
        ("Change to 'attempts'", "quickfix", "attempts", True),
        ("Change to 'number'", "quickfix", "number", True),
    ]


def test_no_quick_fix_without_one_obvious_word(client: LspClient, folder: Path) -> None:
    program = folder / "evidence-qa.as"
    program.write_text(program.read_text().replace("attempts: 2", "colour: 2"))
    uri = client.open(program)
    [diagnostic] = client.diagnostics(uri)
    assert diagnostic["code"] == "UNKNOWN_GENERATE_OPTION"
    context = {"diagnostics": [diagnostic]}
    assert (
        client.request(
            "textDocument/codeAction", {"textDocument": {"uri": uri}, "range": diagnostic["range"], "context": context}
        )
        == []
    )


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_positions_are_counted_in_the_encoding_agreed(folder: Path, encoding: str) -> None:
    # 'é' (2 UTF-8 bytes, 1 UTF-16 unit) and '😀' (4 bytes, 2 units, 1 code point) before the error.
    program = folder / "evidence-qa.as"
    program.write_text(
        program.read_text()
        .replace('"Answer the question', '"é😀 Answer the question')
        .replace("attempts: 2", "attempts: 0")
    )
    line = program.read_text().splitlines()[11]
    before = line[: line.index("0 }")]
    expected = {"utf-8": len(before.encode()), "utf-16": len(before.encode("utf-16-le")) // 2, "utf-32": len(before)}
    started = LspClient(cwd=folder)
    try:
        answer = started.initialize(folder, encodings=[encoding])
        assert answer["capabilities"]["positionEncoding"] == encoding
        [diagnostic] = started.diagnostics(started.open(program))
    finally:
        started.close()
    assert len(set(expected.values())) == 3  # the three encodings count three different columns here
    assert diagnostic["range"]["start"] == {"line": 11, "character": expected[encoding]}


def _evaluations_in(folder: Path) -> list[int]:
    """The evaluations running in ``folder`` (their working folder), whoever their parent now is."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdigit()
                and b"lsp.scratch_run" in (entry / "cmdline").read_bytes()
                and Path(os.readlink(entry / "cwd")) == folder.resolve()
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _evaluations_running(server_pid: int) -> list[int]:
    """The server's child processes that are evaluations (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = re.search(r"^PPid:\s+(\d+)", status, flags=re.MULTILINE)
        if parent and int(parent.group(1)) == server_pid and b"lsp.scratch_run" in command:
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads child processes from /proc")
def test_new_text_stops_the_evaluation_of_the_old(client: LspClient, folder: Path) -> None:
    program = folder / "slow.as"
    program.write_text(
        'import llm M from "openai://m"\n'
        'main agent A {\n    model M\n    role "R"\n    description "D"\n    main func(input) {\n'
        '        repeat * 1000000 {\n            x = generate({ input: "go" })\n        }\n    }\n}\n'
    )
    uri = client.open(program)
    number = client.send_request("textDocument/hover", client.at(uri, 7, 18))  # the generate
    deadline = time.monotonic() + 60
    while not _evaluations_running(client.process.pid):
        assert time.monotonic() < deadline, "no evaluation started"
        time.sleep(0.05)
    client.change(
        uri, 2, [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "\n"}]
    )
    assert client.response(number)["error"]["code"] == -32800  # the hover's work was stopped
    while _evaluations_running(client.process.pid):
        assert time.monotonic() < deadline, "the evaluation still runs"
        time.sleep(0.05)
