"""The inspector page and server against a folder someone else wrote and pages elsewhere.

The page shows text a program controls (its file name, prompts, errors, what the scratch copy left
out, diffs). It only ever sets text (``textContent``, never markup), and the server lets only the
page's own script run (``Content-Security-Policy`` with its hash), so every payload below shows as
text and runs nothing. Against other pages: a request must name this server in ``Host`` (DNS
rebinding), data requests another site makes are refused, and no answer carries a CORS header.

| payload | where it reaches the page |
|---|---|
| ``<script>``, ``<img src=x onerror=...>``, ``<svg onload=...>`` | a program's file name (the picker, the status line), its role, description and instruction (every render, every request body), a parse error's source line, a name the scratch copy left out, a diff line |
| ``javascript:`` URL, attribute-breaking ``"'>`` | the same places |
"""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.asrender.inspector.server import InspectorServer

from chromium import WAIT_MS

PAYLOADS = [
    "<script>window.__xss='script'</script>",
    "<img src=x onerror=\"window.__xss='img'\">",
    "\"'><svg onload=\"window.__xss='svg'\">",
    "javascript:window.__xss='url'",
]
PROGRAM = """\
import llm M from "openai://gpt-4o-mini"

main agent A {{
    model M
    role "{payload}"
    description "{payload}"
    main func() {{
        generate({{ input: "{payload}" }})
    }}
}}
"""
NAME = "<img src=x onerror=window.__xss='name'>.as"
LINK = "<svg onload=window.__xss='link'>"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    programs = tmp_path / "programs"
    programs.mkdir()
    payload = " ".join(PAYLOADS).replace('"', "'")
    (programs / NAME).write_text(PROGRAM.format(payload=payload), encoding="utf-8")
    (programs / "broken.as").write_text(f"main agent A {{ {PAYLOADS[1]} }}\n", encoding="utf-8")
    (programs / LINK).symlink_to("/etc/passwd")
    return programs


@pytest.fixture
def page(browser: Any, server: InspectorServer) -> Iterator[Any]:
    context = browser.new_context()
    opened = context.new_page()
    dialogs: list[str] = []
    opened.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    opened.dialogs = dialogs
    try:
        yield opened
    finally:
        context.close()


def _nothing_ran(page: Any) -> None:
    assert page.evaluate("window.__xss") is None
    assert page.dialogs == []
    injected = page.evaluate("document.querySelectorAll('img, svg, iframe, object, embed, a').length")
    assert injected == 0
    assert page.evaluate("document.scripts.length") == 1


def test_program_text_shows_as_text_and_runs_nothing(page: Any, server: InspectorServer) -> None:
    page.goto(server.url)
    page.wait_for_selector('.column[data-format="agentscript"] pre.render', timeout=WAIT_MS)
    page.select_option("#programs", NAME)
    page.wait_for_function(
        "name => document.querySelector('#status').textContent.startsWith(name)", arg=NAME, timeout=WAIT_MS
    )
    render = page.text_content('.column[data-format="agentscript"] pre.render')
    for payload in PAYLOADS:
        assert payload.replace('"', "'") in render
    assert LINK in page.text_content("#left-out")
    page.select_option("#diff-a", "agentscript")
    page.select_option("#diff-b", "request:openai")
    page.click("#diff-run")
    page.wait_for_selector("#diff-output .add", timeout=WAIT_MS)
    assert PAYLOADS[0] in page.text_content("#diff-output")
    _nothing_ran(page)


def test_an_error_quoting_markup_shows_as_text(page: Any, server: InspectorServer) -> None:
    page.goto(server.url)
    page.wait_for_selector("#programs option", state="attached", timeout=WAIT_MS)
    page.select_option("#programs", "broken.as")
    page.wait_for_selector("#error", state="visible", timeout=WAIT_MS)
    assert PAYLOADS[1] in page.text_content("#error-text")
    _nothing_ran(page)


def _request(server: InspectorServer, path: str, method: str = "GET", **headers: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection(*server.server_address[:2], timeout=10)
    connection.request(method, path, headers=headers)
    return connection.getresponse()


@pytest.mark.parametrize("path", ["/", "/api/programs", "/api/state?file=broken.as", "/nowhere"])
def test_every_answer_carries_the_safe_headers_and_no_cors(server: InspectorServer, path: str) -> None:
    answer = _request(server, path, Origin="https://attacker.example")
    policy = answer.getheader("Content-Security-Policy") or ""
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert "script-src 'sha256-" in policy and "unsafe-inline" not in policy
    assert answer.getheader("X-Content-Type-Options") == "nosniff"
    assert answer.getheader("X-Frame-Options") == "DENY"
    assert not [name for name, _ in answer.getheaders() if name.lower().startswith("access-control-")]


def test_a_preflight_or_a_write_is_never_allowed(server: InspectorServer) -> None:
    for method in ("OPTIONS", "POST", "PUT", "DELETE"):
        answer = _request(server, "/api/state?file=broken.as", method, Origin="https://attacker.example")
        assert answer.status >= 400, method
        assert answer.getheader("Access-Control-Allow-Origin") is None


@pytest.mark.parametrize(
    "host",
    [None, "attacker.example", "attacker.example:{port}", "127.0.0.1", "127.0.0.1.nip.io:{port}", "[::1]:{port}"],
)
def test_a_request_not_naming_this_server_is_refused(server: InspectorServer, host: str | None) -> None:
    port = server.server_address[1]
    with socket.create_connection(server.server_address[:2], timeout=10) as sock:
        head = "GET /api/programs HTTP/1.0\r\n" + ("" if host is None else f"Host: {host.format(port=port)}\r\n")
        sock.sendall((head + "\r\n").encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.0 403 "), answer[:200]
