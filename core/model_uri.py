"""Model URIs, ``PROTOCOL://NAME``, read in one place.

A program names its model as ``openai://gpt-4.1`` (AgentScript's ``import llm M from "..."``); the
scheme says which provider serves it (a run routes each call by it), the rest is the model's name
as that provider reads it (``ollama://HOST:PORT/MODEL`` names a host too, which Ollama's adapter
reads). A bare name (``gpt-4.1``) has no scheme: only a run that is told its provider can send it.
"""

from __future__ import annotations

from urllib.parse import unquote

from .errors import BadRequestError

__all__ = ["model_name", "model_scheme"]


def model_scheme(uri: str | None) -> str | None:
    """``PROTOCOL://...`` -> ``PROTOCOL``; ``None`` for a bare name (or no model at all)."""
    if not uri or "://" not in uri:
        return None
    return uri.partition("://")[0]


def model_name(uri: str | None, protocol: str) -> str:
    """``PROTOCOL://NAME`` -> ``NAME``, percent-decoded, its query and fragment ignored (as
    AgentScript reads a model URI: ``decodeURIComponent(hostname + pathname)``); a bare name is taken
    as it is. A URI of another protocol, or without a name, is refused in the reference's words."""
    if not uri:
        raise BadRequestError(f"{protocol} URI must include a model name")
    given = model_scheme(uri)
    if given is None:
        return uri
    rest = uri.partition("://")[2]
    name = unquote(rest.split("?", 1)[0].split("#", 1)[0])
    if given != protocol or not name:
        raise BadRequestError(f"{given} URI must include a model name")
    return name
