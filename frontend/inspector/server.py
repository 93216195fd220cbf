"""The inspector's HTTP server: the standard library's, bound to 127.0.0.1, read-only.

Routes (GET and HEAD only; anything else is 405):

* ``/``: the page;
* ``/api/programs``: the programs it can show (the file, or every ``.as`` under the folder);
* ``/api/version?file=NAME``: a fingerprint of the program and its input and replies (the page
  polls it, twice a second, and reloads the state when it changes);
* ``/api/state?file=NAME``: everything the page shows (see :mod:`.state`); computed once per
  fingerprint;
* ``/api/diff?file=NAME&call=I&a=FORMAT&b=FORMAT|stored:FORMAT``: a unified diff of two renders.

``NAME`` must be one of ``/api/programs``: nothing else under the folder, and nothing outside it, is
ever read through a request.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .page import PAGE
from .state import fingerprint, program_list, program_state

__all__ = ["InspectorServer", "make_server", "serve"]


class InspectorServer(ThreadingHTTPServer):
    """One inspector: the file or folder it shows, and the last state computed per program."""

    daemon_threads = True

    def __init__(self, root: Path, port: int) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.root = root
        self._states: dict[str, tuple[str, dict[str, Any]]] = {}
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    def state(self, name: str) -> dict[str, Any]:
        """The program's state, recomputed only when its fingerprint changed."""
        version = fingerprint(self.root, name)
        with self._lock:  # one computation at a time: the page asks often, and renders are cheap to share
            cached = self._states.get(name)
            if cached is None or cached[0] != version:
                cached = (version, program_state(self.root, name))
                self._states[name] = cached
            return cached[1]


class _Handler(BaseHTTPRequestHandler):
    server: InspectorServer

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
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        routes: dict[str, Callable[[dict[str, str]], Any]] = {
            "/api/programs": lambda _: program_list(self.server.root),
            "/api/version": lambda q: {"version": fingerprint(self.server.root, self._program(q))},
            "/api/state": lambda q: self.server.state(self._program(q)),
            "/api/diff": self._diff,
        }
        if url.path == "/":
            self._send(HTTPStatus.OK, PAGE.encode(), "text/html; charset=utf-8", send_body=send_body)
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
        body = json.dumps(data, ensure_ascii=False).encode()
        self._send(HTTPStatus.OK, body, "application/json", {"Cache-Control": "no-store"}, send_body=send_body)

    def _program(self, query: dict[str, str]) -> str:
        name = query.get("file", "")
        if name not in program_list(self.server.root):
            raise LookupError(f"no program {name!r} here")
        return name

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
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header(
            "Content-Security-Policy", "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
        )
        for key, value in (headers or {}).items():
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
        return json.dumps(request, indent=2, ensure_ascii=False) + "\n"
    render = call["renders"].get(name)
    if render is None:
        raise LookupError(f"no format {name!r}")
    return str(render.get("display", render.get("error", "")))


def make_server(root: Path, port: int = 0) -> InspectorServer:
    """An inspector for ``root`` (a ``.as`` file or a folder of them), listening but not yet serving."""
    return InspectorServer(root, port)


def serve(root: Path, port: int, announce: Callable[[str], None]) -> None:
    """Serve until interrupted; ``announce`` gets the URL."""
    with make_server(root, port) as server:
        announce(server.url)
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever(poll_interval=0.2)
