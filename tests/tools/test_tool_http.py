"""``http(s)://`` over real HTTP on 127.0.0.1: AgentScript's result, the import's origin only
(redirects included), a timeout, and failures that say what happened."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from promptwire.core.permissions import ANY_ORIGIN
from promptwire.core.tools import ToolContext, ToolError, ToolRequest
from promptwire.tools.http import http_tool


class Handler(BaseHTTPRequestHandler):
    hits: list[str]
    other: str = ""

    def log_message(self, *args: Any) -> None:
        pass

    def _answer(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            with contextlib.suppress(BrokenPipeError):  # the client gave up first (the timeout tests)
                self.wfile.write(body)

    def _route(self) -> None:
        self.hits.append(f"{self.command} {self.path}")
        length = int(self.headers.get("Content-Length") or 0)
        sent = self.rfile.read(length).decode() if length else ""
        if self.path == "/items":
            self._answer(200, b'{"items": [1, 2]}', {"Content-Type": "application/json"})
        elif self.path == "/echo":
            echo = {"method": self.command, "body": sent, "x-token": self.headers.get("X-Token")}
            self._answer(201, json.dumps(echo).encode())
        elif self.path == "/text":
            self._answer(200, "plain ünïcode".encode())
        elif self.path == "/missing":
            self._answer(404, b'{"error": "no such item"}')
        elif self.path == "/hop":
            self._answer(302, b"", {"Location": "/items"})
        elif self.path == "/away":
            self._answer(302, b"", {"Location": f"{self.other}/steal"})
        elif self.path == "/slow":
            time.sleep(1.5)
            self._answer(200, b"late")
        else:
            self._answer(200, b"ok")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _route


def _serve(hits: list[str], other: str = "") -> tuple[ThreadingHTTPServer, str]:
    handler = type("H", (Handler,), {"hits": hits, "other": other})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def servers() -> Iterator[tuple[str, list[str], list[str]]]:
    away_hits: list[str] = []
    away, away_url = _serve(away_hits)
    hits: list[str] = []
    home, home_url = _serve(hits, other=away_url)
    yield home_url, hits, away_hits
    for server in (home, away):
        server.shutdown()
        server.server_close()


def call(base: str, method: str, args: Any, timeout: float = 5.0) -> Any:
    """A call by a run that may reach any origin (``asrender --allow-net``)."""
    context = ToolContext(Path.cwd(), net=frozenset({ANY_ORIGIN}), timeout=timeout)
    return http_tool(ToolRequest("Api", f"{base}/v1", method, [args]), context).result


def test_get_returns_status_body_and_parsed_json(servers: tuple[str, list[str], list[str]]) -> None:
    base, hits, _ = servers
    assert call(base, "get", {"url": "/items"}) == {
        "ok": True,
        "status": 200,
        "body": '{"items": [1, 2]}',
        "json": {"items": [1, 2]},
    }
    assert call(base, "get", {"url": f"{base}/text"}) == {
        "ok": True,
        "status": 200,
        "body": "plain ünïcode",
        "json": None,
    }
    assert hits == ["GET /items", "GET /text"]


def test_an_error_status_is_a_result(servers: tuple[str, list[str], list[str]]) -> None:
    base, _, _ = servers
    assert call(base, "get", {"url": "/missing"}) == {
        "ok": False,
        "status": 404,
        "body": '{"error": "no such item"}',
        "json": {"error": "no such item"},
    }


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_methods_send_the_body_and_headers(servers: tuple[str, list[str], list[str]], method: str) -> None:
    base, _, _ = servers
    reply = call(base, method, {"url": "/echo", "body": {"a": 1}, "headers": {"X-Token": "t"}})
    assert reply["status"] == 201
    assert reply["json"] == {"method": method.upper(), "body": '{"a":1}', "x-token": "t"}  # compact
    assert call(base, method, {"url": "/echo", "body": "raw"})["json"]["body"] == "raw"


def test_a_same_origin_redirect_is_followed(servers: tuple[str, list[str], list[str]]) -> None:
    base, hits, _ = servers
    assert call(base, "get", {"url": "/hop"})["json"] == {"items": [1, 2]}
    assert hits == ["GET /hop", "GET /items"]


def test_a_redirect_to_another_origin_is_refused_and_never_reached(servers: tuple[str, list[str], list[str]]) -> None:
    base, _, away_hits = servers
    with pytest.raises(
        ToolError, match=r"^HTTP tool URL origin 'http://127.0.0.1:[0-9]+' does not match import origin"
    ):
        call(base, "get", {"url": "/away", "headers": {"X-Token": "secret"}})
    assert away_hits == []


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/items",
        "https://127.0.0.1/items",
        "//evil.test/x",
        "ftp://127.0.0.1/x",
        "http://127.0.0.1:1/items",
    ],
)
def test_urls_of_another_origin_are_refused_before_any_request(
    servers: tuple[str, list[str], list[str]], url: str
) -> None:
    base, hits, _ = servers
    with pytest.raises(ToolError, match="does not match import origin"):
        call(base, "get", {"url": url})
    assert hits == []


def test_a_slow_server_times_out(servers: tuple[str, list[str], list[str]]) -> None:
    base, _, _ = servers
    # Without the timeouts each call would be answered after the server's 1.5 s: no error at all.
    with pytest.raises(ToolError, match=r"^HTTP GET http://127\.0\.0\.1:[0-9]+/slow timed out after 0\.3 s$"):
        call(base, "get", {"url": "/slow"}, timeout=0.3)
    with pytest.raises(ToolError, match=r"timed out after 0\.2 s"):
        call(base, "get", {"url": "/slow", "timeout": 200})


def test_a_refused_connection_is_a_failure() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ToolError, match=r"^HTTP GET http://127\.0\.0\.1:[0-9]+/x failed: Connection refused$"):
        call(f"http://127.0.0.1:{port}", "get", {"url": "/x"})


def test_a_reply_that_is_not_http_is_a_failure() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def garbage() -> None:
        connection, _ = listener.accept()
        connection.recv(1024)
        connection.sendall(b"this is not http\r\n\r\n")
        connection.close()

    threading.Thread(target=garbage, daemon=True).start()
    try:
        with pytest.raises(ToolError, match="failed: "):
            call(f"http://127.0.0.1:{listener.getsockname()[1]}", "get", {"url": "/x"})
    finally:
        listener.close()


@pytest.mark.parametrize(
    ("method", "args", "message"),
    [
        ("get", {}, "Http.url is required"),
        ("get", {"url": "/x", "headers": "h"}, "Http.headers must be an object"),
        ("get", {"url": "/x", "timeout": -1}, "Expected a positive integer, got -1"),
        (
            "fetch",
            {"url": "/x"},
            "Unsupported HTTP method 'fetch'. Supported: get, post, put, patch, delete, head, options",
        ),
    ],
)
def test_bad_calls(method: str, args: Any, message: str) -> None:
    with pytest.raises(ToolError) as caught:
        call("http://127.0.0.1:9", method, args)
    assert str(caught.value) == message


HTTP_BODY_PROGRAM = Path(__file__).parents[1] / "data" / "as" / "http_body.as"


def test_a_programs_body_is_sent_as_json_stringify_writes_it(
    servers: tuple[str, list[str], list[str]], tmp_path: Path
) -> None:
    """Issue 36, fact 5: a non-string body is sent compact, with JavaScript's number text and key
    order; a string body as it is."""
    from promptwire import PluginHost
    from promptwire.runs.options import RunOptions
    from promptwire.runs.run import run

    base, _, _ = servers
    program = tmp_path / "http_body.as"
    program.write_text(HTTP_BODY_PROGRAM.read_text(encoding="utf-8").replace("{base}", base), encoding="utf-8")
    tools = ToolContext(tmp_path, net=frozenset({ANY_ORIGIN}), timeout=5.0)
    given = {"zero": -0.0, "whole": 2.0, "keys": {"b": 1, "2": 0}, "big": 12345678901234567890}
    result = run(program, given, RunOptions(tools=tools), host=PluginHost(entry_points=False))
    assert result.value == [
        '{"n":1e+21,"zero":0,"whole":2,"small":1e-7,"tiny":0.000001,"big":12345678901234567000,'
        '"keys":{"2":0,"b":1},"items":[1,"two",true,null,1.5]}',
        "as it is, {not: json}",
    ]
