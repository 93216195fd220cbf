"""Network tools under attack, over real HTTP on 127.0.0.1: no origin unless allowed, no redirect to
another origin, one deadline for the whole call however slowly a server trickles, and a body built
to break the JSON parser giving ``json: null``.

| payload | defence |
|---|---|
| a request to an origin the run did not allow | refused before connecting: ``needs --allow-net`` |
| a ``url`` naming another origin than the import | refused before any request |
| a redirect to another origin | refused, never reached (headers stay home) |
| a server trickling one byte every 0.2 s | cut off at the call's deadline, not per read |
| a server that accepts and never answers | cut off at the deadline |
| a body of 100,000 nested ``[`` | ``json: null``, the body as text |
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from promptwire.core.permissions import ANY_ORIGIN, NotAllowed, Permissions
from promptwire.core.tools import ToolError, ToolRequest
from promptwire.tools.http import http_tool


class Server:
    """A raw TCP server on 127.0.0.1 that answers every connection with ``reply(connection)``."""

    def __init__(self, reply: Callable[[socket.socket], None]) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.requests: list[bytes] = []
        self.reply = reply
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(connection,), daemon=True).start()

    def _answer(self, connection: socket.socket) -> None:
        with connection:
            self.requests.append(connection.recv(65536))
            with contextlib.suppress(OSError):  # the client hung up: what a deadline does
                self.reply(connection)

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def serve() -> Iterator[Callable[[Callable[[socket.socket], None]], Server]]:
    servers: list[Server] = []

    def start(reply: Callable[[socket.socket], None]) -> Server:
        servers.append(Server(reply))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def call(base: str, args: dict[str, Any], *, net: frozenset[str] = frozenset({ANY_ORIGIN}), timeout: float = 5) -> Any:
    context = Permissions(Path.cwd(), net=net, timeout=timeout)
    return http_tool(ToolRequest("Api", f"{base}/v1", "get", [args]), context).result


def answer(body: bytes, status: str = "200 OK", headers: str = "") -> Callable[[socket.socket], None]:
    def reply(connection: socket.socket) -> None:
        connection.sendall(
            f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n{headers}Connection: close\r\n\r\n".encode() + body
        )

    return reply


def trickle(head: bytes, body: bytes, every: float = 0.2) -> Callable[[socket.socket], None]:
    def reply(connection: socket.socket) -> None:
        connection.sendall(head)
        for byte in body:
            time.sleep(every)
            connection.sendall(bytes([byte]))

    return reply


@pytest.mark.parametrize(
    ("allowed", "reached"),
    [
        (frozenset(), False),
        (frozenset({"http://127.0.0.1:1"}), False),
        (frozenset({"https://127.0.0.1"}), False),
        (frozenset({"example.com"}), False),
        (frozenset({"127.0.0.1"}), False),  # a host alone is its usual ports, not this one
        (frozenset({"127.0.0.1:{port}"}), True),
        (frozenset({"http://127.0.0.1:{port}"}), True),
        (frozenset({ANY_ORIGIN}), True),
    ],
)
def test_only_allowed_origins_are_reached(
    serve: Callable[[Callable[[socket.socket], None]], Server], allowed: frozenset[str], reached: bool
) -> None:
    server = serve(answer(b"ok"))
    port = server.url.rsplit(":", 1)[1]
    net = frozenset(origin.replace("{port}", port) for origin in allowed)
    if reached:
        assert call(server.url, {"url": "/x"}, net=net)["body"] == "ok"
        return
    with pytest.raises(NotAllowed) as refused:
        call(server.url, {"url": "/x"}, net=net)
    assert str(refused.value) == f"Connecting to {server.url} needs --allow-net (asrender ... --allow-net {server.url})"
    assert server.requests == []


def test_a_redirect_to_another_allowed_origin_is_still_refused(
    serve: Callable[[Callable[[socket.socket], None]], Server],
) -> None:
    away = serve(answer(b"stolen"))
    home = serve(answer(b"", "302 Found", f"Location: {away.url}/steal\r\n"))
    with pytest.raises(ToolError, match="does not match import origin"):
        call(home.url, {"url": "/x", "headers": {"Authorization": "Bearer secret"}})
    assert away.requests == []


@pytest.mark.parametrize(
    ("name", "reply"),
    [
        ("a body trickled a byte every 0.2 s", trickle(b"HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n", b"x" * 40)),
        ("headers trickled a byte every 0.2 s", trickle(b"", b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")),
        (
            "a chunked body that never ends",
            trickle(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", b"1\r\nx\r\n" * 40),
        ),
        ("no answer at all", lambda connection: time.sleep(10)),
    ],
)
def test_a_slow_server_is_cut_off_at_the_deadline_of_the_whole_call(
    serve: Callable[[Callable[[socket.socket], None]], Server], name: str, reply: Callable[[socket.socket], None]
) -> None:
    server = serve(reply)
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"^HTTP GET http://127\.0\.0\.1:[0-9]+/x timed out after 1 s$"):
        call(server.url, {"url": "/x"}, timeout=1)
    assert time.monotonic() - started < 6, name  # a per-read timeout waited 8 s and more here


def test_the_deadline_of_a_call_is_its_own_timeout_argument(
    serve: Callable[[Callable[[socket.socket], None]], Server],
) -> None:
    server = serve(trickle(b"HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n", b"x" * 40, every=0.25))
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"timed out after 0\.5 s$"):
        call(server.url, {"url": "/x", "timeout": 500}, timeout=30)
    assert time.monotonic() - started < 6  # the whole body takes 10 s


def test_a_body_nested_too_deeply_to_parse_is_json_null(
    serve: Callable[[Callable[[socket.socket], None]], Server],
) -> None:
    body = b"[" * 100_000 + b"]" * 100_000
    server = serve(answer(body))
    result = call(server.url, {"url": "/x"})
    assert (result["status"], result["json"], len(result["body"])) == (200, None, len(body))
