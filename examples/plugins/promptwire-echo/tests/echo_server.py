"""The echo server the ``echo`` adapter talks to, on 127.0.0.1: what the plugin's tests (and
promptwire's own) run it against, so every test goes through real HTTP.

It answers ``POST /echo``. With a ``schema`` it answers the simplest JSON value that conforms (the
first enum value, ``"echo"`` for a string, ``0``, ``false``, each property of an object, the
fewest items an array allows); without one, the text of the last message. A model named ``eNNN``
gets HTTP status NNN, ``garbage`` a body that is not JSON, ``slow`` its answer after a second.
Run it as a script to serve until interrupted: ``python tests/echo_server.py [PORT]``.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def example_of(schema: Any) -> Any:
    """The simplest value conforming to ``schema`` (the subset promptwire's output contracts use)."""
    if not isinstance(schema, dict):
        return None
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return example_of(schema[key][0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((each for each in kind if each != "null"), "null")
    if kind == "object":
        return {name: example_of(sub) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        return [example_of(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
    return {"string": "echo", "number": 0, "integer": 0, "boolean": False}.get(kind)


def answer(body: dict[str, Any]) -> str:
    if "schema" in body:
        return json.dumps(example_of(body["schema"]))
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else json.dumps(content)


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        self.server.requests.append(raw)  # type: ignore[attr-defined]
        if self.path != "/echo":
            return self._send(404, b'{"error": "no such route"}')
        try:
            body = json.loads(raw)
            model = str(body["model"])
            text = answer(body)
        except (ValueError, KeyError, IndexError, TypeError):
            return self._send(400, b'{"error": "expected {model, messages}"}')
        if model.startswith("e") and model[1:].isdigit():
            return self._send(int(model[1:]), b'{"error": "as asked"}')
        if model == "garbage":
            return self._send(200, b"<html>not json</html>")
        if model == "slow":
            time.sleep(1)
        usage = {"input_chars": len(raw), "output_chars": len(text)}
        self._send(200, json.dumps({"text": text, "usage": usage}).encode())

    def _send(self, status: int, data: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up first (the timeout test)
            self.close_connection = True


@contextmanager
def echo_server(port: int = 0) -> Iterator[Any]:
    """Serve on 127.0.0.1 (an ephemeral port by default); yields the server, ``.url`` and ``.requests``."""
    server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
    server.daemon_threads = True
    server.requests = []  # type: ignore[attr-defined]
    server.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    with echo_server(int(sys.argv[1]) if len(sys.argv) > 1 else 8765) as running:
        print(running.url, flush=True)
        with suppress(KeyboardInterrupt):
            threading.Event().wait()
