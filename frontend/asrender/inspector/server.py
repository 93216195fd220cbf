"""The inspector's HTTP server: the standard library's, bound to 127.0.0.1, read-only.

Routes (GET and HEAD only; anything else is 405):

* ``/``: the page;
* ``/api/programs``: the programs it can show (the file, or every ``.as`` under the folder);
* ``/api/version?file=NAME``: a fingerprint of the program and its input and replies, and the
  program list (the page polls it, twice a second, reloads the state when the fingerprint changes
  and refreshes its picker when a program is added or removed);
* ``/api/state?file=NAME``: everything the page shows (see :mod:`.state`); computed once per
  fingerprint;
* ``/api/diff?file=NAME&call=I&a=FORMAT&b=FORMAT|stored:FORMAT``: a unified diff of two renders.

``NAME`` must be one of ``/api/programs``: nothing else under the folder, and nothing outside it, is
ever read through a request.

Listening on 127.0.0.1 keeps other machines out, not other web pages: a page the user has open
elsewhere can send requests to 127.0.0.1, or point a DNS name of its own at it (DNS rebinding) and
read the answers. So a request must name this server in its ``Host`` header (``127.0.0.1:PORT`` or
``localhost:PORT``; a request without one is refused too), and one a browser marks as coming from
another site (``Sec-Fetch-Site``) is refused: answers are the user's prompts and data, and a state
request runs a program. Every answer carries :data:`SECURITY_HEADERS`: the page runs only its own
script (by hash), so text a program controls could not run as script even if it reached the markup
(the page only ever sets it as text).
"""

from __future__ import annotations

import base64
import contextlib
import difflib
import hashlib
import importlib.resources
import socket
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ....core.errors import PromptwireError
from ....core.json_text import dumps
from .state import fingerprint, program_list, program_state

__all__ = ["IDLE_TIMEOUT", "MAX_CONNECTIONS", "REQUEST_DEADLINE", "InspectorServer", "make_server", "serve"]

MAX_CONNECTIONS = 32
"""Connections served at once (a thread each); one more is answered 503 and closed at once."""

IDLE_TIMEOUT = 10.0
"""Seconds a connection may stay silent (before its request, or in the middle of it) before it is closed."""

REQUEST_DEADLINE = 30.0
"""Seconds a client has to send its whole request line and headers, however slowly it trickles them."""

PROGRAMS_TTL = 1.0
"""Seconds the program list is reused: the page polls twice a second, and listing a large folder
(``asrender serve .`` at the root of a repository) walks all of it."""

PAGE = importlib.resources.files(__package__).joinpath("page.html").read_bytes()
"""The page (``page.html``, shipped beside this module as package data), read once."""


def _inline_hash(tag: bytes) -> str:
    """The CSP source of the page's one inline ``<tag>`` block: its SHA-256, so that no other script
    or style (one a program's text might smuggle in) would run."""
    start = PAGE.index(b">", PAGE.index(b"<" + tag + b">")) + 1
    body = PAGE[start : PAGE.index(b"</" + tag + b">", start)]
    return "'sha256-" + base64.b64encode(hashlib.sha256(body).digest()).decode() + "'"


SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": (
        f"default-src 'none'; script-src {_inline_hash(b'script')}; style-src {_inline_hash(b'style')}; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
"""Sent with every answer: only the page's own script and style run, it fetches only from this
server, no other page may frame it, no other origin may read an answer (and no CORS header ever
lets one), and a browser never guesses an answer's type."""

SAME_SITE = frozenset({"same-origin", "none"})
"""``Sec-Fetch-Site`` values of the page's own requests and of a URL typed or opened by the user."""


class InspectorServer(ThreadingHTTPServer):
    """One inspector: the file or folder it shows, and the last state computed per program."""

    daemon_threads = True
    request_queue_size = 128  # a burst is accepted (and answered 503 past MAX_CONNECTIONS), not left to the kernel

    def __init__(self, root: Path, port: int, options: dict[str, dict[str, Any]] | None = None) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.root = root
        self.options = options or {}
        """Each format's renderer options (``asrender serve -o template=PATH``)."""
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._states: dict[str, tuple[str, dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self._programs: tuple[float, list[str]] | None = None
        port = self.server_address[1]
        self.hosts = frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})
        """The ``Host`` headers of requests meant for this server (see the module's docstring)."""

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection in a thread of its own, unless :data:`MAX_CONNECTIONS` are being
        served: then answer 503 and close it, so idle or trickling clients cannot pile up threads."""
        if not self._slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(_BUSY)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    def programs(self, *, fresh: bool = False) -> list[str]:
        """The program list, listed again at most every :data:`PROGRAMS_TTL` seconds (``fresh``: now)."""
        now = time.monotonic()
        cached = self._programs
        if fresh or cached is None or now - cached[0] > PROGRAMS_TTL:
            cached = (now, program_list(self.root))
            self._programs = cached
        return cached[1]

    def program(self, name: str) -> str:
        """``name`` if it is one of the programs (listed again before saying no), else LookupError."""
        if name not in self.programs() and name not in self.programs(fresh=True):
            raise LookupError(f"no program {name!r} here")
        return name

    def state(self, name: str) -> dict[str, Any]:
        """The program's state, recomputed only when its fingerprint changed."""
        version = fingerprint(self.root, name)
        with self._lock:  # one computation at a time: the page asks often, and renders are cheap to share
            cached = self._states.get(name)
            if cached is None or cached[0] != version:
                cached = (version, program_state(self.root, name, format_options=self.options))
                self._states[name] = cached
            return cached[1]


_BUSY = b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class _Handler(BaseHTTPRequestHandler):
    server: InspectorServer

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(IDLE_TIMEOUT)  # each read and write; a silent connection is closed
        # A client trickling its headers a byte at a time resets that timeout on every byte: the
        # whole request line and headers get one deadline, after which the socket is shut.
        self._deadline = threading.Timer(REQUEST_DEADLINE, self._expire)
        self._deadline.daemon = True
        self._deadline.start()

    def _expire(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def parse_request(self) -> bool:
        try:
            return super().parse_request()  # reads the headers
        finally:
            self._deadline.cancel()

    def finish(self) -> None:
        self._deadline.cancel()
        super().finish()

    def log_message(self, *args: Any) -> None:  # the terminal shows the URL, not every request
        pass

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def _refuse(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"read-only\n", "text/plain", {"Allow": "GET, HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse

    def _answer(self, *, send_body: bool) -> None:
        url = urlsplit(self.path)
        refusal = self._refusal(url.path)
        if refusal is not None:
            self._send(HTTPStatus.FORBIDDEN, f"{refusal}\n".encode(), "text/plain", send_body=send_body)
            return
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        routes: dict[str, Callable[[dict[str, str]], Any]] = {
            "/api/programs": lambda _: self.server.programs(fresh=True),
            "/api/version": self._version,
            "/api/state": lambda q: self.server.state(self._program(q)),
            "/api/diff": self._diff,
        }
        if url.path == "/":
            self._send(HTTPStatus.OK, PAGE, "text/html; charset=utf-8", send_body=send_body)
            return
        route = routes.get(url.path)
        if route is None:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain", send_body=send_body)
            return
        try:
            data = route(query)
        except LookupError as exc:
            self._send(HTTPStatus.NOT_FOUND, f"{exc.args[0]}\n".encode(), "text/plain", send_body=send_body)
            return
        except (PromptwireError, OSError) as exc:  # the folder cannot be listed or read: say why, once
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, f"{exc}\n".encode(), "text/plain", send_body=send_body)
            return
        body = dumps(data).encode()
        self._send(HTTPStatus.OK, body, "application/json", {"Cache-Control": "no-store"}, send_body=send_body)

    def _refusal(self, path: str) -> str | None:
        """Why a request is not the user's own (another site's page, a rebound DNS name), or None.

        The page itself holds no data, so a link to it from elsewhere opens it; its data comes only
        from ``/api/`` requests, which the page makes from its own origin."""
        host = self.headers.get("Host")
        if host is None or host.lower() not in self.server.hosts:
            return f"this server answers requests for {self.server.url} only, not for host {host!r}"
        site = self.headers.get("Sec-Fetch-Site")
        if path.startswith("/api/") and site is not None and site not in SAME_SITE:
            return "requests from other sites are refused"
        return None

    def _program(self, query: dict[str, str]) -> str:
        return self.server.program(query.get("file", ""))

    def _version(self, query: dict[str, str]) -> dict[str, Any]:
        name = self._program(query)
        return {"version": fingerprint(self.server.root, name), "programs": self.server.programs()}

    def _diff(self, query: dict[str, str]) -> dict[str, Any]:
        state = self.server.state(self._program(query))
        try:
            call = state["calls"][int(query.get("call", "0"))]
        except (ValueError, IndexError):
            raise LookupError("no such call") from None
        texts = {side: _side_text(call, query.get(side, "")) for side in ("a", "b")}
        lines = difflib.unified_diff(
            texts["a"].splitlines(keepends=True),
            texts["b"].splitlines(keepends=True),
            fromfile=query.get("a", ""),
            tofile=query.get("b", ""),
        )
        return {"diff": "".join(line if line.endswith("\n") else line + "\n" for line in lines)}

    def _send(
        self,
        status: HTTPStatus,
        body: bytes,
        content_type: str,
        headers: dict[str, str] | None = None,
        *,
        send_body: bool = True,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in {**SECURITY_HEADERS, **(headers or {})}.items():
            self.send_header(key, value)
        self.end_headers()
        if send_body:
            self.wfile.write(body)


def _side_text(call: dict[str, Any], side: str) -> str:
    """A diff side: a format's render, ``stored:FORMAT`` (the snapshot), or ``request:PROVIDER``."""
    kind, _, name = side.rpartition(":")
    if kind == "stored":
        text = call["stored"].get(name)
        if text is None:
            raise LookupError(f"no stored render in format {name!r} (asrender snapshot DIR --update stores one)")
        return str(text)
    if kind == "request":
        request = call["requests"].get(name)
        if request is None:
            raise LookupError(f"no provider {name!r}")
        return dumps(request, indent=2) + "\n"
    render = call["renders"].get(name)
    if render is None:
        raise LookupError(f"no format {name!r}")
    return str(render.get("display", render.get("error", "")))


def make_server(root: Path, port: int = 0, options: dict[str, dict[str, Any]] | None = None) -> InspectorServer:
    """An inspector for ``root`` (a ``.as`` file or a folder of them), listening but not yet serving;
    ``options`` are each format's renderer options."""
    return InspectorServer(root, port, options)


def serve(
    root: Path,
    port: int,
    announce: Callable[[str], None] | None = None,
    options: dict[str, dict[str, Any]] | None = None,
) -> None:
    """Serve until interrupted; ``announce`` gets the URL (once listening, so a port that is taken
    raises OSError before anything is announced). ``options`` are each format's renderer options."""
    with make_server(root, port, options) as server:
        if announce is not None:
            announce(server.url)
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever(poll_interval=0.2)
