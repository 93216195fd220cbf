"""A program's model URI naming a server: a network reach the user allows, as a tool's URL is.

``ollama://HOST:PORT/MODEL`` sends every prompt of the calls that name it to ``HOST:PORT``. When a
program (someone else's, perhaps) names a host other than the one the user configured
(``--base-url ollama=URL``, ``OLLAMA_BASE_URL``, ``OLLAMA_HOST``, else the default), the run sends
there only if the user allowed that origin (``--allow-net HOST:PORT``); otherwise the call is
refused with the flag that allows it. A model the user names (``--model``) is the user's choice and
is not checked. Whichever host is reached, the API key goes only to the configured one (the
adapter's ``endpoint``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.permissions import NotAllowed
from ..core.printable import one_line
from ..core.secrets import shown_url

if TYPE_CHECKING:
    from ..core.permissions import Permissions

__all__ = ["model_reach"]


def model_reach(sender: Any, permissions: Permissions | None) -> Callable[[str | None], None] | None:
    """What checks a program's model URI before a call to ``sender`` is built: a function raising
    :class:`NotAllowed` for a URI naming a host ``sender`` was not configured with and
    ``permissions`` (None: nothing) do not allow; None when ``sender``'s URIs name no host."""
    named_host = getattr(sender, "named_host", None)
    if named_host is None:
        return None

    def check(uri: str | None) -> None:
        host = named_host(uri)
        if host is None:
            return
        try:
            if permissions is None:
                raise NotAllowed(host)
            permissions.check_origin(host)
        except NotAllowed:
            shown = one_line(shown_url(host))
            origin = shown.partition("://")[2]
            raise NotAllowed(
                f"model {one_line(shown_url(uri or ''))} names the server {shown}, which is not the one configured: "
                f"sending the program's prompts there needs --allow-net {origin} "
                f"(or make it the configured one: --base-url {getattr(sender, 'protocol', '')}={shown})"
            ) from None

    return check
