"""One reading of a provider's HTTP status for every adapter: what kind of failure, and whether
trying again later can help."""

from __future__ import annotations

from ..core.errors import ProviderError

__all__ = ["status_error"]

_KINDS: dict[int, tuple[str, bool]] = {
    400: ("bad_request", False),
    401: ("auth", False),
    402: ("quota", False),
    403: ("auth", False),
    404: ("not_found", False),
    408: ("timeout", True),
    409: ("conflict", True),
    413: ("bad_request", False),
    422: ("bad_request", False),
    429: ("rate_limit", True),
}
QUOTA_CODES = frozenset({"insufficient_quota"})
"""Error codes that turn a 429 into a spent quota (OpenAI's), which waiting does not fix."""


def status_error(status: int, detail: str, *, code: object = None) -> ProviderError:
    """The :class:`ProviderError` for an HTTP failure; ``code`` is the provider's error code, if any."""
    kind, retryable = _KINDS.get(status, ("server", True) if status >= 500 else ("bad_request", False))
    if code in QUOTA_CODES:
        kind, retryable = "quota", False
    return ProviderError(
        f"LLM provider request failed ({status}): {detail}", kind=kind, status=status, retryable=retryable
    )
