"""``http://`` and ``https://``: requests to the import's own origin, and nowhere else.

``Api.get({url, headers?, body?, timeout?})`` (and ``post``, ``put``, ``patch``, ``delete``,
``head``, ``options``) returns ``{"ok", "status", "body", "json"}`` as AgentScript does: ``ok`` is a
2xx status, ``body`` the text, ``json`` the body parsed or null. An HTTP error status is a result,
not a failure; no answer (refused, timed out, not HTTP) is a failure.

The import's origin must be one the run allows (``asrender --allow-net ORIGIN``; nothing by
default). ``url`` is resolved against the import URI and must keep its origin (scheme, host and
port). A redirect is followed only while it stays on that origin: AgentScript lets ``fetch`` follow
any redirect, so a same-origin URL could still carry a request, headers included, elsewhere.
``timeout`` is in milliseconds as in AgentScript; without it the run's ``--timeout`` applies.
"""

from __future__ import annotations

import json
import socket
from typing import Any, Final
from urllib.parse import urljoin, urlsplit

from ..core.tools import ToolContext, ToolError, ToolOutcome, ToolRequest
from .arguments import expect_object, positive_integer, required_string

__all__ = ["METHODS", "http_tool"]

METHODS: Final = ("get", "post", "put", "patch", "delete", "head", "options")
MAX_BODY_BYTES: Final = 10 * 1024 * 1024
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


def http_tool(request: ToolRequest, context: ToolContext) -> ToolOutcome:
    if request.method not in METHODS:
        raise ToolError(f"Unsupported HTTP method '{request.method}'. Supported: {', '.join(METHODS)}")
    args = expect_object(request.args, f"Http.{request.method}")
    context.check_origin(request.uri)
    url = _same_origin(request.uri, urljoin(request.uri, required_string(args.get("url"), "Http.url")))
    timeout_ms = positive_integer(args.get("timeout"), 0)
    timeout = timeout_ms / 1000 if timeout_ms else context.timeout
    headers = args.get("headers")
    if headers is not None and not isinstance(headers, dict):
        raise ToolError("Http.headers must be an object")
    body = args.get("body")
    data = None
    if "body" in args:
        data = (body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)).encode()
    status, text = _send(
        request.uri, url, request.method.upper(), {str(k): str(v) for k, v in (headers or {}).items()}, data, timeout
    )
    return ToolOutcome({"ok": 200 <= status < 300, "status": status, "body": text, "json": _json_or_none(text)})


def _origin(url: str) -> str:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        raise ToolError(f"Invalid URL: {url}") from None
    return f"{scheme}://{(parts.hostname or '').lower()}:{port}"


def _same_origin(import_uri: str, url: str) -> str:
    if _origin(url) != _origin(import_uri):
        raise ToolError(
            f"HTTP tool URL origin '{_shown_origin(url)}' does not match import origin '{_shown_origin(import_uri)}'"
        )
    return url


def _shown_origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _send(
    import_uri: str, url: str, method: str, headers: dict[str, str], data: bytes | None, timeout: float
) -> tuple[int, str]:
    import http.client
    import urllib.error
    import urllib.request

    class SameOriginRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, hdrs: Any, newurl: str) -> Any:
            _same_origin(import_uri, newurl)
            return super().redirect_request(req, fp, code, msg, hdrs, newurl)

    opener = urllib.request.build_opener(SameOriginRedirects())
    outgoing = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with opener.open(outgoing, timeout=timeout) as response:
            return response.status, _read(response)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, _read(error)
    except TimeoutError:
        raise ToolError(f"HTTP {method} {url} timed out after {timeout:g} s") from None
    except urllib.error.URLError as error:
        reason = error.reason
        if isinstance(reason, TimeoutError | socket.timeout):
            raise ToolError(f"HTTP {method} {url} timed out after {timeout:g} s") from None
        raise ToolError(f"HTTP {method} {url} failed: {getattr(reason, 'strerror', None) or reason}") from None
    except (OSError, ValueError, http.client.HTTPException) as error:  # a reset connection, a reply not HTTP
        raise ToolError(f"HTTP {method} {url} failed: {error}") from None


def _read(response: Any) -> str:
    raw = response.read(MAX_BODY_BYTES + 1)
    if len(raw) > MAX_BODY_BYTES:
        raise ToolError(f"HTTP response body is larger than {MAX_BODY_BYTES} bytes")
    return bytes(raw).decode("utf-8", errors="replace")


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
