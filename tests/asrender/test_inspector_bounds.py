"""The inspector's server holds a bounded number of connections, each for a bounded time.

Before, every connection got a thread, kept for as long as the client stayed silent: 500 idle
sockets held 500 threads, forever. Now at most ``MAX_CONNECTIONS`` are served at once (one more is
answered 503 and closed), a silent connection is closed after ``IDLE_TIMEOUT``, and a client
trickling its headers a byte at a time is cut off at ``REQUEST_DEADLINE``.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from promptwire.frontend.asrender.inspector import server as server_module
from promptwire.frontend.asrender.inspector.server import InspectorServer, make_server

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def inspector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InspectorServer]:
    monkeypatch.setattr(server_module, "MAX_CONNECTIONS", 8, raising=False)
    monkeypatch.setattr(server_module, "IDLE_TIMEOUT", 0.5, raising=False)
    monkeypatch.setattr(server_module, "REQUEST_DEADLINE", 1.5, raising=False)
    shutil.copy2(EXAMPLES / "strict-invoice.as", tmp_path / "strict-invoice.as")
    with make_server(tmp_path) as running:
        thread = threading.Thread(target=running.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        yield running
        running.shutdown()
        thread.join(timeout=5)


def _connect(server: InspectorServer) -> socket.socket:
    return socket.create_connection(server.server_address[:2], timeout=5)


def _closed_within(sock: socket.socket, seconds: float) -> bytes | None:
    """What the server sent before closing ``sock`` within ``seconds``, or None if it kept it open."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return received


def test_many_idle_sockets_hold_few_threads_and_are_dropped(inspector: InspectorServer) -> None:
    before = threading.active_count()
    idle = [_connect(inspector) for _ in range(200)]
    try:
        time.sleep(0.2)
        assert threading.active_count() - before <= 8 * 2  # a handler and its deadline timer each
        answers = [_closed_within(sock, 3.0) for sock in idle]
        assert all(answer is not None for answer in answers), "every idle connection is closed"
        busy = [answer for answer in answers if answer and answer.startswith(b"HTTP/1.0 503")]
        assert len(busy) >= 150  # refused at once; the others served (and timed out) as slots freed
    finally:
        for sock in idle:
            sock.close()
    with urllib.request.urlopen(inspector.url + "api/programs", timeout=10) as answer:
        assert answer.status == 200  # served again once the idle ones are gone


def test_a_client_trickling_its_headers_is_cut_off_at_the_deadline(inspector: InspectorServer) -> None:
    sock = _connect(inspector)
    trickle = b"GET /api/programs HTTP/1.1\r\nX-Slow: " + b"a" * 100  # 13 s at a byte each 0.1 s
    sent = 0
    with contextlib.suppress(OSError):
        for byte in trickle:
            sock.sendall(bytes([byte]))
            sent += 1
            time.sleep(0.1)
    sock.close()
    assert sent < len(trickle), "the server read the whole trickle: no deadline cut it off"
