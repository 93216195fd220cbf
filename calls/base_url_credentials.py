"""Which credential goes where when a base URL carries a user and a password.

``--base-url https://user:pass@gateway/v1`` (or the Python API's ``base_url=``) reaches a gateway
that asks for HTTP Basic authentication. The SDKs' HTTP client (httpx) sends a URL's user and
password as a Basic ``Authorization`` header, which takes the place of the Bearer header that
carries the provider's API key: the key is then not sent at all. Ollama's SDK reads only the host
and port of its URL: the user and password are not sent. Neither is what a user would guess, so a
run says it before it starts (and every message masks the password, base64 included:
:func:`promptwire.core.secrets.url_secrets`).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from ..core.printable import one_line
from ..core.secrets import shown_url

__all__ = ["credential_note"]


def credential_note(url: str, provider: str) -> str | None:
    """What a base URL with user information does with it for ``provider`` (an adapter's name or
    its models' scheme), or None when it carries none."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.username is None and parts.password is None:
        return None
    shown = one_line(shown_url(url))
    if provider == "ollama":
        return f"base URL {shown}: Ollama's SDK sends no user or password from a URL: they are not sent"
    return (
        f"base URL {shown}: its user and password are sent as HTTP Basic authentication (the Authorization "
        f"header), in place of {one_line(provider)}'s API key, which is then not sent"
    )
