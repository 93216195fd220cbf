"""``http://`` and ``https://``: requests to the import's own origin, and nowhere else.

``Api.get({url, headers?, body?, timeout?})`` (and ``post``, ``put``, ``patch``, ``delete``,
``head``, ``options``) returns ``{"ok", "status", "body", "json"}`` as AgentScript does: ``ok`` is a
2xx status, ``body`` the text, ``json`` the body parsed or null. An HTTP error status is a result,
not a failure; no answer (refused, timed out, not HTTP) is a failure.

The import's origin must be one the run allows (``asrender --allow-net ORIGIN``; nothing by
default). ``url`` is resolved against the import URI and must keep its origin (scheme, host and
port). A redirect is followed only while it stays on that origin: AgentScript lets ``fetch`` follow
any redirect, so a same-origin URL could still carry a request, headers included, elsewhere. A
``body`` that is not text is sent as ``JSON.stringify`` writes it: compact, JavaScript's number text
(``1e21`` as ``1e+21``, ``-0`` as ``0``), an infinity as ``null``; a text body as it is.

``timeout`` is in milliseconds as in AgentScript, at most :data:`MAX_TIMEOUT_MS`; without it the
run's ``--timeout`` applies. It bounds the whole call (connection, redirects, headers and body), not
each read: a server that trickles its answer a byte at a time is cut off at the deadline (a watchdog
shuts the connection down), where a per-read timeout would wait for ever. A body nested too deeply
to parse gives ``json: null``, as any other body that is not JSON.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from typing import Any, Final
from urllib.parse import urljoin, urlsplit

from ..core.permissions import url_origin
from ..core.secrets import extra_secrets, mask, shown_url, url_secrets
from ..core.tools import ToolContext, ToolError, ToolOutcome, ToolRequest
from .arguments import expect_object, js_json, positive_integer, required_string

__all__ = ["METHODS", "http_tool"]

METHODS: Final = ("get", "post", "put", "patch", "delete", "head", "options")
MAX_BODY_BYTES: Final = 10 * 1024 * 1024
MAX_TIMEOUT_MS: Final = 2**31 - 1
"""The longest ``timeout`` (about 24.8 days): JavaScript's timers hold no more (a longer one fires at
once), and a socket cannot wait for the 1e300 ms a program may write."""


def http_tool(request: ToolRequest, context: ToolContext) -> ToolOutcome:
    if request.method not in METHODS:
        raise ToolError(f"Unsupported HTTP method '{request.method}'. Supported: {', '.join(METHODS)}")
    args = expect_object(request.args, f"Http.{request.method}")
    context.check_origin(request.uri)
    url = _same_origin(request.uri, urljoin(request.uri, required_string(args.get("url"), "Http.url")))
    timeout_ms = positive_integer(args.get("timeout"), 0)
    if timeout_ms > MAX_TIMEOUT_MS:
        raise ToolError(f"Http.timeout must be at most {MAX_TIMEOUT_MS} ms, got {timeout_ms}")
    timeout = timeout_ms / 1000 if timeout_ms else context.timeout
    headers = args.get("headers")
    if headers is not None and not isinstance(headers, dict):
        raise ToolError("Http.headers must be an object")
    sent = {str(k): str(v) for k, v in (headers or {}).items()}
    for name, value in sent.items():
        _check_header(name, value)
    body = args.get("body")
    data = None
    if "body" in args:
        data = (body if isinstance(body, str) else js_json(body)).encode()  # as JSON.stringify(body)
    with extra_secrets(*url_secrets(request.uri), *url_secrets(url)):
        status, text = _send(request.uri, url, request.method.upper(), sent, data, timeout)
    return ToolOutcome({"ok": 200 <= status < 300, "status": status, "body": text, "json": _json_or_none(text)})


_TOKEN = frozenset("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
"""The characters of a header name (RFC 9110's ``token``)."""


def _check_header(name: str, value: str) -> None:
    """Refuse a header HTTP cannot carry before anything is sent, naming it and never quoting its
    value: a value is often a key (``Authorization``), and Python's HTTP client quotes the value it
    refuses in its error. A line break in a value would otherwise forge a header of its own."""
    if not name or not set(name) <= _TOKEN:
        raise ToolError(f"Http.headers: {_shown_name(name)!r} is not a header name")
    if "\r" in value or "\n" in value:
        problem = "a line break"
    elif any((char < " " and char != "\t") or char == "\x7f" for char in value):
        problem = "a control character"
    elif any(char > "\xff" for char in value):
        problem = "a character outside Latin-1"
    else:
        return
    raise ToolError(f"Http.headers: the value of {name!r} holds {problem}, which an HTTP header cannot carry")


def _shown_name(name: str) -> str:
    """A header name as an error shows it: cut to 40 characters."""
    return name if len(name) <= 40 else name[:37] + "..."


def _origin(url: str) -> tuple[str, str, int | None]:
    try:
        return url_origin(url)
    except ValueError:
        raise ToolError(f"Invalid URL: {shown_url(url)}") from None


def _same_origin(import_uri: str, url: str) -> str:
    if _origin(url) != _origin(import_uri):
        raise ToolError(
            f"HTTP tool URL origin '{_shown_origin(url)}' does not match import origin '{_shown_origin(import_uri)}'"
        )
    return url


def _shown_origin(url: str) -> str:
    parts = urlsplit(url)
    return shown_url(f"{parts.scheme}://{parts.netloc}")


class _Deadline:
    """One call's time limit in all: each connection is watched, and shut down when time is up, so
    a read blocked on a trickling server ends at the deadline."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._end = time.monotonic() + seconds
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._timer.cancel()
        with self._lock:
            self._sockets.clear()

    def remaining(self) -> float:
        left = self._end - time.monotonic()
        if left <= 0 or self.expired:
            raise TimeoutError
        return left

    def watch(self, connection: socket.socket) -> None:
        with self._lock:
            self._sockets.append(connection)
            if self.expired:
                _shut(connection)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for connection in self._sockets:
                _shut(connection)


def _shut(connection: socket.socket) -> None:
    # The plain socket's shutdown, even for TLS: SSLSocket.shutdown would also drop its TLS state
    # under the thread that is reading.
    with contextlib.suppress(OSError):  # already closed
        socket.socket.shutdown(connection, socket.SHUT_RDWR)


def _send(
    import_uri: str, url: str, method: str, headers: dict[str, str], data: bytes | None, timeout: float
) -> tuple[int, str]:
    import http.client
    import urllib.error
    import urllib.request

    deadline = _Deadline(timeout)

    def watched(base: type[http.client.HTTPConnection]) -> type[http.client.HTTPConnection]:
        class Watched(base):  # type: ignore[valid-type,misc]
            def connect(self) -> None:
                self.timeout = deadline.remaining()
                self._create_connection = self._watched_connection
                super().connect()
                deadline.watch(self.sock)  # the TLS socket, once wrapped

            def _watched_connection(self, *args: Any, **kwargs: Any) -> socket.socket:
                connection = socket.create_connection(*args, **kwargs)
                deadline.watch(connection)  # the plain socket, for the TLS handshake
                return connection

        return Watched

    class Plain(urllib.request.HTTPHandler):
        def http_open(self, req: Any) -> Any:
            return self.do_open(watched(http.client.HTTPConnection), req)

    class Secure(urllib.request.HTTPSHandler):
        def https_open(self, req: Any) -> Any:
            return self.do_open(watched(http.client.HTTPSConnection), req)  # the default TLS context

    class SameOriginRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, hdrs: Any, newurl: str) -> Any:
            _same_origin(import_uri, newurl)
            return super().redirect_request(req, fp, code, msg, hdrs, newurl)

    opener = urllib.request.build_opener(SameOriginRedirects(), Plain(), Secure())
    outgoing = urllib.request.Request(url, data=data, headers=headers, method=method)
    shown = shown_url(url)
    timed_out = ToolError(f"HTTP {method} {shown} timed out after {timeout:g} s")
    with deadline:
        try:
            with opener.open(outgoing, timeout=timeout) as response:
                answer = response.status, _read(response)
        except urllib.error.HTTPError as error:
            with error:
                answer = error.code, _read(error)
        except TimeoutError:
            raise timed_out from None
        except urllib.error.URLError as error:
            reason = error.reason
            if deadline.expired or isinstance(reason, TimeoutError | socket.timeout):
                raise timed_out from None
            raise ToolError(
                f"HTTP {method} {shown} failed: {mask(str(getattr(reason, 'strerror', None) or reason))}"
            ) from None
        except (OSError, ValueError, http.client.HTTPException) as error:  # a reset connection, a reply not HTTP
            if deadline.expired:
                raise timed_out from None
            raise ToolError(f"HTTP {method} {shown} failed: {mask(str(error))}") from None
        if deadline.expired:  # the body was cut short by the deadline
            raise timed_out
    return answer


def _read(response: Any) -> str:
    raw = response.read(MAX_BODY_BYTES + 1)
    if len(raw) > MAX_BODY_BYTES:
        raise ToolError(f"HTTP response body is larger than {MAX_BODY_BYTES} bytes")
    return bytes(raw).decode("utf-8", errors="replace")


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None
