"""Azure OpenAI's wire protocol, as the fake provider serves it: the paths under ``/openai/``, the
``api-version`` query every request must carry, the ``api-key`` header, and Azure's error shape.

Chat Completions goes to ``/openai/deployments/DEPLOYMENT/chat/completions?api-version=V``, the
deployment in the URL (the body names no model: the fake answers as the deployment's name says,
as it answers a body's model elsewhere); the Responses API to ``/openai/responses?api-version=V``
with the deployment as the body's ``model``. Behind the paths the replies and streams are
OpenAI's, which Azure's are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = ["AzureCall", "azure_call", "azure_error"]

_DEPLOYMENT = re.compile(r"/openai/deployments/([^/]+)/chat/completions")


@dataclass(frozen=True)
class AzureCall:
    """An Azure request read: the OpenAI route it stands for and the deployment its URL names
    (``None`` for the Responses API, whose body names it); or, when Azure would refuse it, the
    ``refusal`` (status and error body)."""

    route: str = ""
    deployment: str | None = None
    refusal: tuple[int, dict[str, Any]] | None = None


def azure_call(path: str, headers: Any) -> AzureCall:
    """What Azure makes of a POST to ``path`` (under ``/openai/``) with ``headers``."""
    parts = urlsplit(path)
    versions = parse_qs(parts.query).get("api-version")
    if not versions or not versions[0]:  # Azure answers a request without one as a path it does not know
        return AzureCall(refusal=(404, azure_error(404, "Resource not found", code="404")))
    if not headers.get("api-key"):
        message = (
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid "
            "key for an active subscription and use a correct regional API endpoint for your resource."
        )
        return AzureCall(refusal=(401, azure_error(401, message, code="401")))
    found = _DEPLOYMENT.fullmatch(parts.path)
    if found is not None:
        return AzureCall("/v1/chat/completions", found.group(1))
    if parts.path == "/openai/responses":
        return AzureCall("/v1/responses")
    return AzureCall(refusal=(404, azure_error(404, "Resource not found", code="404")))


def azure_error(status: int, message: str, *, code: str | None = None) -> dict[str, Any]:
    """Azure OpenAI's error body: an ``error`` object with Azure's own ``code`` (the status as
    text, ``DeploymentNotFound``...) and ``message``, and nothing else (OpenAI's ``type`` and
    ``param`` are not there)."""
    named = {404: "DeploymentNotFound", 400: "BadRequest"}
    return {"error": {"code": code or named.get(status, str(status)), "message": message}}
