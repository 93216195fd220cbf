"""``azure`` and ``azure-responses``: Azure OpenAI through the ``openai`` SDK's Azure client.

Azure serves OpenAI's models under a resource of its own: ``https://RESOURCE.openai.azure.com``
(``AZURE_OPENAI_ENDPOINT``, or ``--base-url``), every request with the resource's API version in
its query (``?api-version=``, from ``OPENAI_API_VERSION`` as the SDK reads it, else
``AZURE_OPENAI_API_VERSION``) and its key in an ``api-key`` header (``AZURE_OPENAI_API_KEY``). A
model URI names a deployment: ``azure://DEPLOYMENT``.

The requests are OpenAI's, built by the OpenAI adapters, with two differences, both Azure's:

* Chat Completions (``azure``) goes to ``/openai/deployments/DEPLOYMENT/chat/completions``: the
  deployment is in the URL, so the body carries no ``model`` (Azure ignores one) and the request
  names it in :attr:`~promptwire.core.call.ProviderRequest.model`, which progress lines, JSON
  output and recordings show. The body is otherwise OpenAI's, byte for byte.
* The Responses API (``azure-responses``) goes to ``/openai/responses``, the deployment as the
  body's ``model``: its body is OpenAI's, byte for byte.

Both declare the ``azure`` scheme; under ``--provider auto`` an ``azure://`` model goes to the
first registered, ``azure`` (Chat Completions, as ``openai://`` goes to ``openai``), and the
Responses API is chosen by name (``--provider azure-responses``). Azure documents no token-count
endpoint, so counting raises :class:`~promptwire.core.errors.TokenCountUnavailable`.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, ClassVar
from urllib.parse import quote

from ..core.call import ProviderRequest
from ..core.contract import OutputContract
from ..core.errors import ProviderError
from ..core.prompt import GenerateConfig
from ..core.rendered import RenderedPrompt
from .base import Endpoint
from .openai import OpenAIAdapter
from .openai_responses import OpenAIResponsesAdapter
from .reply_size import bounded_hooks

__all__ = ["VERSION_VARIABLES", "AzureChatAdapter", "AzureResponsesAdapter", "adapter", "responses_adapter"]

VERSION_VARIABLES = ("OPENAI_API_VERSION", "AZURE_OPENAI_API_VERSION")
"""Where the API version is read, in order: the SDK's own variable first."""
_NO_COUNT = "Azure OpenAI documents no input-token count endpoint"


class AzureChatAdapter(OpenAIAdapter):
    """Azure OpenAI's Chat Completions: OpenAI's request, the deployment in the URL."""

    name = "azure"
    description = (
        "Azure OpenAI Chat Completions through the openai SDK's Azure client (pip install 'promptwire[openai]')"
    )
    protocol = "azure"
    default_url = ""
    url_variable = "AZURE_OPENAI_ENDPOINT"
    key_variable = "AZURE_OPENAI_API_KEY"
    no_count_hint: ClassVar[str] = _NO_COUNT
    deployment_in_url: ClassVar[bool] = True
    """Whether the deployment goes in the URL (Chat Completions) or as the body's ``model`` (Responses)."""

    def build_request(
        self, rendered: RenderedPrompt, config: GenerateConfig, contract: OutputContract | None, model: str | None
    ) -> ProviderRequest:
        request = super().build_request(rendered, config, contract, model)
        if not self.deployment_in_url:
            return request
        kwargs = dict(request.kwargs)
        deployment = kwargs.pop("model")
        return dataclasses.replace(request, kwargs=kwargs, model=deployment)

    def endpoint(self, request: ProviderRequest) -> Endpoint:
        """The resource's ``/openai`` path (with ``/deployments/DEPLOYMENT`` for Chat Completions)
        and the key; an endpoint or API version missing is said before anything is sent."""
        found = super().endpoint(request)
        if not found.url:
            raise ProviderError(
                "AZURE_OPENAI_ENDPOINT (or --base-url) is required for azure:// models: "
                "the resource's endpoint, https://RESOURCE.openai.azure.com",
                provider=self.name,
            )
        api_version()  # refused now, not when the client is built
        url = f"{found.url}/openai"
        if self.deployment_in_url:
            url += f"/deployments/{quote(str(request.model_asked()), safe='')}"
        return Endpoint(url, found.key)

    def client(self, endpoint: Endpoint, seconds: float) -> Any:
        import openai

        http = openai.DefaultHttpxClient(event_hooks=bounded_hooks())
        return openai.AzureOpenAI(
            api_key=endpoint.key,
            base_url=endpoint.url,
            api_version=api_version(),
            max_retries=0,
            timeout=seconds,
            http_client=http,
        )

    def async_client(self, endpoint: Endpoint, seconds: float) -> Any:
        import openai

        http = openai.DefaultAsyncHttpxClient(event_hooks=bounded_hooks(asynchronous=True))
        return openai.AsyncAzureOpenAI(
            api_key=endpoint.key,
            base_url=endpoint.url,
            api_version=api_version(),
            max_retries=0,
            timeout=seconds,
            http_client=http,
        )


class AzureResponsesAdapter(AzureChatAdapter, OpenAIResponsesAdapter):
    """Azure OpenAI's Responses API: OpenAI's request as it is, the deployment as its ``model``."""

    name = "azure-responses"
    description = "Azure OpenAI Responses API through the openai SDK's Azure client (pip install 'promptwire[openai]')"
    deployment_in_url: ClassVar[bool] = False
    count_endpoint: ClassVar[str | None] = None
    no_count_hint: ClassVar[str] = _NO_COUNT


def api_version() -> str:
    """The API version every request carries (``?api-version=``): see :data:`VERSION_VARIABLES`.
    Read when a client is built: one per endpoint is kept."""
    for variable in VERSION_VARIABLES:
        value = os.environ.get(variable)
        if value:
            return value
    raise ProviderError(
        "OPENAI_API_VERSION (or AZURE_OPENAI_API_VERSION) is required for azure:// models: "
        "the API version the resource serves, such as 2024-10-21",
        provider="azure",
    )


adapter = AzureChatAdapter()
responses_adapter = AzureResponsesAdapter()
