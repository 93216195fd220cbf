"""What the inspector page shows, computed without a browser: calls, renders, requests, clipping,
errors, and the server's routes (read-only, nothing outside the folder)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.asrender.inspector.server import InspectorServer, make_server
from promptwire.frontend.asrender.inspector.state import program_list, program_state

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_every_call_in_every_format_with_the_exact_requests(folder: Path) -> None:
    state = program_state(folder, "evidence-qa.as")
    assert state["error"] is None
    assert [call["title"] for call in state["calls"]] == [
        "=== evidence-qa.as:12:18 agent Researcher attempt 1 ===",
        "=== evidence-qa.as:12:18 agent Researcher attempt 2 ===",
    ]
    first = state["calls"][0]
    agentscript = first["renders"]["agentscript"]
    assert agentscript["display"].startswith("--- system ---\nYou are Careful Researcher.\n")
    assert (agentscript["chars"], agentscript["utf16"]) == (len(agentscript["display"]), len(agentscript["display"]))
    assert first["renders"]["agently"]["warnings"] == ["identity", "context.source"]
    assert "error" in first["renders"]["template"]  # it needs -o template=PATH
    openai = first["requests"]["openai"]
    assert (openai["model"], openai["body"]["model"]) == ("gpt-4.1-mini", "gpt-4.1-mini")
    assert first["requests"]["anthropic"]["notes"]  # what the adapter changed on the way
    assert first["requests"]["ollama"]["body"]["stream"] is False


def test_context_items_show_budgets_and_clipping(folder: Path) -> None:
    context = program_state(folder, "evidence-qa.as")["calls"][0]["context"]
    assert [(i["label"], i["budget"], i["clipped"]) for i in context] == [
        ("question", None, False),
        ("evidence", 300, True),
        ("analyst notes", 40, True),
    ]
    assert context[1]["shown"] < context[1]["original"]


def test_a_parse_error_is_located(folder: Path) -> None:
    (folder / "strict-invoice.as").write_text("main agent A {\n    main func(input) {\n        return (\n    }\n}\n")
    state = program_state(folder, "strict-invoice.as")
    assert state["calls"] == []
    error = state["error"]
    assert (error["line"], error["column"], error["message"]) == (3, 16, "Expected expression")
    assert error["text"].splitlines()[-1].index("^") - error["text"].splitlines()[-2].index("return") == 7


def test_the_folder_is_never_written(folder: Path) -> None:
    before = sorted((p.relative_to(folder), p.read_bytes()) for p in folder.rglob("*") if p.is_file())
    for name in program_list(folder):
        assert program_state(folder, name)["error"] is None, name
    after = sorted((p.relative_to(folder), p.read_bytes()) for p in folder.rglob("*") if p.is_file())
    assert after == before


def test_a_stored_snapshot_is_offered(folder: Path) -> None:
    from promptwire.frontend.asrender.cli import main

    assert main(["snapshot", str(folder), "--update"]) == 0
    call = program_state(folder, "strict-invoice.as")["calls"][0]
    assert call["stored"]["agentscript"] == call["renders"]["agentscript"]["display"]


def _get(url: str, method: str = "GET") -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=10) as answer:
            body = answer.read()
            return answer.status, json.loads(body) if answer.headers["content-type"] == "application/json" else body
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_the_server_is_local_and_read_only(server: InspectorServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    status, page = _get(server.url)
    assert status == 200 and b"promptwire inspector" in page
    assert _get(server.url + "api/programs")[1] == program_list(server.root)
    for method in ("POST", "PUT", "DELETE"):
        assert _get(server.url + "api/state?file=lessons.as", method)[0] == 405
    for name in ("../../etc/passwd", "project/notes.md", "/etc/passwd", "lessons.input.json"):
        status, body = _get(server.url + "api/state?" + urllib.parse.urlencode({"file": name}))
        assert status == 404 and b"no program" in body


def test_diffs_between_formats_and_requests(server: InspectorServer) -> None:
    query = "api/diff?file=strict-invoice.as&call=0&a=agentscript&b=agens"
    status, data = _get(server.url + query)
    assert status == 200 and data["diff"].startswith("--- agentscript\n+++ agens\n@@ ")
    status, data = _get(server.url + "api/diff?file=strict-invoice.as&call=0&a=request:openai&b=request:ollama")
    assert status == 200 and '-    "model": "gpt-4o-mini",\n' not in data["diff"]  # the same model both ways
    assert '+    "stream": false,\n' in data["diff"]
    status, body = _get(server.url + "api/diff?file=strict-invoice.as&call=0&a=stored:agentscript&b=agentscript")
    assert status == 404 and b"asrender snapshot" in body


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["serve", "nowhere"], 1, "asrender: nowhere: no such file or folder\n"),
        (
            ["serve", "examples/support-ticket.yaml"],
            1,
            "asrender: examples/support-ticket.yaml: not a .as program or a folder\n",
        ),
        (["serve", "examples", "--port", "70000"], 2, "asrender: error: --port takes 0 to 65535, got 70000\n"),
    ],
)
def test_serve_refuses_bad_arguments_in_one_line(args: list[str], status: int, message: str) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "promptwire", *args], capture_output=True, text=True, timeout=30, cwd=EXAMPLES.parent
    )
    assert (done.returncode, done.stderr, done.stdout) == (status, message, "")


def test_serve_says_when_the_port_is_taken(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from promptwire.frontend.asrender.cli import main

    with make_server(folder) as taken:
        port = taken.server_address[1]
        assert main(["serve", str(folder), "--port", str(port)]) == 1
    assert capsys.readouterr().err == f"asrender: cannot listen on 127.0.0.1:{port}: Address already in use\n"


def test_a_failed_check_is_located_with_every_finding(folder: Path) -> None:
    (folder / "strict-invoice.as").write_text(
        "main agent A {\n    main func(input) {\n        x = nope\n        return gone\n    }\n}\n"
    )
    error = program_state(folder, "strict-invoice.as")["error"]
    assert (error["line"], error["column"]) == (3, 13)
    assert [(d["code"], d["line"], d["column"]) for d in error["diagnostics"]] == [
        ("UNKNOWN_IDENTIFIER", 3, 13),
        ("UNKNOWN_IDENTIFIER", 4, 16),
    ]
    assert error["text"].startswith("strict-invoice.as:3:13: error[UNKNOWN_IDENTIFIER]: Unknown identifier 'nope'\n")
    assert "asrender-serve-" not in error["text"]  # the page names the user's file, not its scratch copy


def test_one_program_served_alone_reads_the_files_beside_it(folder: Path) -> None:
    state = program_state(folder / "summarise-file.as", "summarise-file.as")
    assert state["error"] is None
    assert "project/NOTES.md" in state["calls"][0]["renders"]["agentscript"]["display"]


def test_a_runtime_error_names_the_users_files(folder: Path) -> None:
    (folder / "summarise-file.input.json").write_text('{"path": "missing.md"}')
    error = program_state(folder / "summarise-file.as", "summarise-file.as")["error"]
    assert error is not None and "missing.md" in error["text"]
    assert "asrender-serve-" not in error["text"] and "/program/" not in error["text"]


def test_serve_takes_renderer_options_for_the_formats_that_name_them(folder: Path) -> None:
    """``asrender serve -o template=PATH``: the template tab renders (it had no way to)."""
    from promptwire import PluginHost
    from promptwire.frontend.asrender.inspector.state import options_by_format

    host = PluginHost(entry_points=False)
    template = str(EXAMPLES / "templates" / "plain.j2")
    options = options_by_format(host, {"template": template})
    assert options == {"template": {"template": template}}
    with pytest.raises(ValueError, match=r"^no format takes the option 'nope'$"):
        options_by_format(host, {"nope": 1})
    renders = program_state(folder, "evidence-qa.as", host, format_options=options)["calls"][0]["renders"]
    assert renders["template"]["display"].startswith("--- system ---\nYou are Careful Researcher.")
    plain = program_state(folder, "evidence-qa.as", host)["calls"][0]["renders"]
    assert "needs a template" in plain["template"]["error"]
