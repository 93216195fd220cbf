"""How every adapter tells a failed call: which :class:`ProviderError` it is, quoting the provider.

By status: 400, 413, 422 and other 4xx are a bad request; 401 authentication; 402 a spent quota;
403 permission; 404 an unknown model; 408 a timeout; 409 and 5xx (Anthropic's 529 among them) the
server; 429 rate limiting, unless the provider's error code says a quota or spending limit is used
up (OpenAI's ``insufficient_quota``, Anthropic's spend and ramp limits), which waiting does not fix.
An error event in a stream that began with 200 is read the same way, by the status its kind stands
for (``stream_failure``).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from ..core.errors import (
    AuthenticationError,
    BadRequestError,
    MalformedResponseError,
    ModelNotFoundError,
    PermissionDeniedError,
    PromptwireError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    QuotaExhaustedError,
    RateLimitedError,
    RefusalError,
    ServerError,
    body_excerpt,
)
from ..core.json_text import dumps

__all__ = [
    "QUOTA_CODES",
    "connection_failed",
    "malformed_json",
    "missing_part",
    "read_reply",
    "refused",
    "retry_after",
    "sdk_status_error",
    "status_error",
    "status_of_kind",
    "stream_failure",
    "tried_at",
    "unreadable_reply",
]

_CLASSES: dict[int, type[ProviderError]] = {
    401: AuthenticationError,
    402: QuotaExhaustedError,
    403: PermissionDeniedError,
    404: ModelNotFoundError,
    408: ProviderTimeoutError,
    409: ServerError,
    429: RateLimitedError,
}
QUOTA_CODES = frozenset(
    {
        "insufficient_quota",  # OpenAI, on a 429
        "contract_spend_limit_reached",  # Anthropic, on a 429
        "enforced_spend_limit_reached",
        "ramp_limit_exceeded",
        "storage_quota_exceeded",  # Anthropic, on a 400
    }
)
"""Provider error codes that mean a spent quota whatever the status says."""


def status_error(
    status: int, body: str, *, code: object = None, provider: str | None = None, secret: str | None = None
) -> ProviderError:
    """The error for an HTTP failure: ``body`` is what the provider answered (excerpted, ``secret``
    masked), ``code`` the provider's error code when it gave one."""
    excerpt = body_excerpt(body, secret)
    return _class_of(status, code)(
        f"LLM provider request failed ({status}): {excerpt}", provider=provider, status=status, body=excerpt
    )


def _class_of(status: int, code: object) -> type[ProviderError]:
    if isinstance(code, str) and code in QUOTA_CODES:
        return QuotaExhaustedError
    return _CLASSES.get(status) or (ServerError if status >= 500 else BadRequestError)


_STREAM_KINDS = {
    "invalid_request_error": 400,  # Anthropic's error types
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "timeout_error": 408,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
    "rate_limit_exceeded": 429,  # OpenAI's codes and types
    "insufficient_quota": 429,
    "server_error": 500,
}
"""The HTTP status each kind of error event stands for."""


def status_of_kind(kind: object) -> int:
    """The HTTP status a provider's kind of error (Anthropic's ``type``, OpenAI's ``code``)
    stands for: 500, the provider's own failure, when it is not one this module knows."""
    return _STREAM_KINDS.get(kind, 500) if isinstance(kind, str) else 500


def stream_failure(error: object, *, secret: str | None = None) -> ProviderError:
    """The error for an error event in a stream that began with 200: the provider's error object
    (OpenAI's ``{"message", "type", "code"}``, the Responses ``error`` event, Anthropic's
    ``{"type": "error", "error": {"type", "message"}}``, or just a message, Ollama's). Its kind (the
    code, else the type) picks the class as the status it stands for would (``overloaded_error``
    a server error, ``rate_limit_exceeded`` a rate limit, ``insufficient_quota`` a spent quota); an
    unknown kind is the provider's own failure, a :class:`ServerError`. Its status is the stream's,
    200."""
    if isinstance(error, dict) and isinstance(error.get("error"), dict):
        error = error["error"]
    if isinstance(error, dict):
        kinds = [error.get("code"), error.get("type")]
        kind = next((k for k in kinds if isinstance(k, str) and k in _STREAM_KINDS), None)
        label = kind or next((k for k in kinds if isinstance(k, str) and k), None)
        told = f"{label}: {error.get('message')}" if label else str(error.get("message"))
    else:
        kind, told = None, str(error)
    excerpt = body_excerpt(told, secret)
    cls = _class_of(_STREAM_KINDS.get(kind or "", 500), kind)
    return cls(f"LLM provider stream failed: {excerpt}", status=200, body=excerpt)


def sdk_status_error(exc: Any, *, code: object = None, secret: str | None = None) -> ProviderError:
    """The error for an OpenAI or Anthropic SDK ``APIStatusError``: both keep the decoded JSON body,
    or the raw text when it was not JSON (a proxy's HTML page), in ``body``."""
    body = exc.body
    text = body if isinstance(body, str) else str(exc) if body is None else json.dumps(body, ensure_ascii=False)
    error = status_error(exc.status_code, text, code=code, secret=secret)
    error.retry_after = retry_after(getattr(exc, "response", None))
    return error


def retry_after(response: Any) -> float | None:
    """The seconds a response asks the client to wait before asking again: OpenAI's
    ``retry-after-ms``, else ``Retry-After`` in seconds or as an HTTP date; ``None`` when it says
    nothing readable."""
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        given = headers.get(name)
        if given is None:
            continue
        seconds: float | None
        try:
            seconds = float(given) / scale
        except ValueError:
            seconds = _seconds_until(given) if scale == 1.0 else None
        if seconds is not None and math.isfinite(seconds):
            return max(seconds, 0.0)
    return None


def _seconds_until(http_date: str) -> float | None:
    import time
    from email.utils import parsedate_to_datetime

    try:
        return parsedate_to_datetime(http_date).timestamp() - time.time()
    except (TypeError, ValueError, IndexError):
        return None


def connection_failed(exc: BaseException) -> ProviderConnectionError:
    """The provider could not be reached or hung up; the SDKs say only "Connection error." and keep
    the reason (refused, reset, a body cut short) in the exception's cause, so both are told."""
    cause = exc.__cause__ or exc.__context__
    reason = f"{exc} ({cause})" if cause is not None and str(cause) and str(cause) not in str(exc) else str(exc)
    return ProviderConnectionError(f"LLM provider request failed: {body_excerpt(reason)}")


def tried_at(error: ProviderConnectionError, url: str) -> ProviderConnectionError:
    """``error`` naming the URL the request tried (already masked), as a timeout names it: a
    mistyped ``--base-url``, or one forgotten under ``--provider auto``, is the usual cause of a
    refused connection, and "All connection attempts failed" does not say where."""
    if url in str(error):
        return error
    return ProviderConnectionError(
        f"{error}; tried {url}", provider=error.provider, status=error.status, body=error.body
    )


def malformed_json(exc: json.JSONDecodeError, secret: str | None = None) -> MalformedResponseError:
    """A 200 whose body is not JSON (a captive portal, a proxy): the SDK's own ``JSONDecodeError``,
    which must never pass for the model's output not being JSON (that one is retryable)."""
    excerpt = body_excerpt(exc.doc, secret)
    return MalformedResponseError(f"LLM provider returned invalid JSON response: {excerpt}", status=200, body=excerpt)


_DIGIT_LIMIT = "for integer string conversion"
"""Words of the ``ValueError`` Python's JSON parser raises for an integer longer than
``sys.get_int_max_str_digits()`` (4300 digits by default): the SDKs parse replies with it."""


def unreadable_reply(exc: BaseException) -> MalformedResponseError | None:
    """The error for a body Python's JSON parser cannot even read, which the SDKs raise as a bare
    ``ValueError`` (not a ``JSONDecodeError``): bytes that are not UTF-8, an integer longer than
    Python converts. ``None`` for any other exception."""
    if isinstance(exc, UnicodeDecodeError):
        raw = exc.object if isinstance(exc.object, bytes) else bytes(exc.object)
        excerpt = body_excerpt(raw.decode("utf-8", "replace"))
        return MalformedResponseError(f"LLM provider response is not UTF-8 text: {excerpt}", status=200, body=excerpt)
    if isinstance(exc, UnicodeError):  # the charset its content type names cannot read it ("utf-16", no BOM)
        return MalformedResponseError(f"LLM provider response cannot be read as the text it says it is: {exc}")
    if isinstance(exc, ValueError) and _DIGIT_LIMIT in str(exc):
        return MalformedResponseError(
            f"LLM provider response holds an integer of more than {sys.get_int_max_str_digits()} digits, "
            "more than Python reads",
            status=200,
        )
    return None


def missing_part(message: str, raw: object) -> MalformedResponseError:
    """A 200 without the part a reply needs: ``{}``, or a captive portal's page, which the SDKs hand
    back as a string when the content type is not JSON. The body quotes what came, as it came."""
    if isinstance(raw, str):
        text = raw
    elif hasattr(raw, "model_dump"):  # an SDK model: only the fields the provider sent
        # As data, then our JSON writer: pydantic's own fails on half a character ("\\ud800"),
        # which a provider may send, and the error describing the reply must not fail itself.
        try:
            text = dumps(raw.model_dump(exclude_unset=True, warnings=False), separators=(",", ":"), default=repr)
        except UnicodeEncodeError:  # half a character in a key: pydantic's dump refuses even to Python data
            text = repr(raw)
    else:
        text = repr(raw)
    excerpt = body_excerpt(text)
    return MalformedResponseError(message, status=200, body=excerpt)


_Reply = TypeVar("_Reply")


def read_reply(read: Callable[[Any], _Reply], raw: Any) -> _Reply:
    """``read(raw)``, with a reply of the wrong shape (a part missing, a list where text belongs, a
    number where an object belongs) told as a :class:`MalformedResponseError` quoting it: the SDKs
    build their reply objects without checking them, so whatever the server sent is what ``read``
    finds."""
    try:
        return read(raw)
    except PromptwireError:  # already says what is wrong (a refusal, a missing part)
        raise
    except (AttributeError, TypeError, KeyError, IndexError, ValueError) as exc:
        raise missing_part(f"LLM provider response has an unexpected shape: {exc}", raw) from None


def refused(text: str) -> RefusalError:
    """The model declined; ``text`` is what it said instead (may be empty)."""
    excerpt = body_excerpt(text)
    return RefusalError(
        f"LLM provider refused: {excerpt}" if excerpt else "LLM provider refused", status=200, body=excerpt
    )
