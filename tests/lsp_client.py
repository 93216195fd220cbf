"""A small Language Server Protocol client over stdio, as an editor drives ``asrender lsp``.

It starts the server as a process, writes requests and notifications as ``Content-Length``-framed
JSON-RPC messages, and reads what the server sends in a thread of its own: responses by id,
notifications (``textDocument/publishDiagnostics``) in a queue. Every wait is bounded.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

WAIT = 60.0
"""Seconds any answer is waited for (a slow machine shared by many runs; never asserted on)."""


class LspClient:
    def __init__(self, command: list[str] | None = None, cwd: Path | None = None) -> None:
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "promptwire", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
        )
        self._next_id = 0
        self._responses: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        self.notifications: queue.Queue[dict[str, Any]] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # Sending -----------------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def send_request(self, method: str, params: Any = None) -> int:
        with self._lock:
            self._next_id += 1
            number = self._next_id
            self._responses[number] = queue.Queue()
        self._send({"id": number, "method": method, "params": params})
        return number

    def response(self, number: int, timeout: float = WAIT) -> dict[str, Any]:
        return self._responses[number].get(timeout=timeout)

    def request(self, method: str, params: Any = None, timeout: float = WAIT) -> Any:
        answer = self.response(self.send_request(method, params), timeout)
        assert "error" not in answer, answer
        return answer.get("result")

    def notify(self, method: str, params: Any = None) -> None:
        self._send({"method": method, "params": params})

    # Receiving ---------------------------------------------------------------------------------

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            assert length is not None
            message = json.loads(stream.read(length))
            if "id" in message and "method" not in message:
                self._responses[message["id"]].put(message)
            elif "method" in message and "id" in message:  # a request of the server's: answer it
                self._send({"id": message["id"], "result": None})
            else:
                self.notifications.put(message)

    def diagnostics(self, uri: str, timeout: float = WAIT, version: int | None = None) -> list[dict[str, Any]]:
        """The next diagnostics published for ``uri`` (of ``version`` when given)."""
        while True:
            message = self.notifications.get(timeout=timeout)
            if message["method"] != "textDocument/publishDiagnostics":
                continue
            params = message["params"]
            if params["uri"] == uri and (version is None or params.get("version") == version):
                return list(params["diagnostics"])

    # The session -------------------------------------------------------------------------------

    def initialize(self, root: Path, options: dict[str, Any] | None = None, encodings: list[str] | None = None) -> Any:
        capabilities: dict[str, Any] = {"textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}}
        if encodings is not None:
            capabilities["general"] = {"positionEncodings": encodings}
        result = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": capabilities,
                "initializationOptions": options or {},
            },
        )
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str | None = None, version: int = 1) -> str:
        uri = path.as_uri()
        text = path.read_text(encoding="utf-8") if text is None else text
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "agentscript", "version": version, "text": text}},
        )
        return uri

    def change(self, uri: str, version: int, changes: list[dict[str, Any]]) -> None:
        self.notify(
            "textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}
        )

    def at(self, uri: str, line: int, character: int) -> dict[str, Any]:
        return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}

    def shutdown(self) -> int:
        """``shutdown`` then ``exit``, as an editor ends a session: the server's exit status."""
        self.request("shutdown")
        self.notify("exit")
        return self.process.wait(timeout=WAIT)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=WAIT)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
