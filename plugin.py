"""Everything a plugin author needs, from one module: ``from promptwire.plugin import ...``.

The hooks and what the host does with what they register are documented in
``promptwire.plugins.hookspecs`` (and ``docs/plugins.md``); ``examples/plugins/promptwire-echo`` is a
complete plugin to copy. What a plugin finds here:

* the marker and the callback every hook takes: :data:`hookimpl`, :class:`RegisterCallback`;
* the prompt a format renders and what it returns: :class:`Prompt`, :class:`RenderedPrompt`,
  :class:`Message`, :class:`RenderWarning`, :func:`unexpressed_fields` (the warnings for fields a
  format cannot express), the :class:`Renderer` protocol, and :func:`builtin_renderer` to build a
  format on one of promptwire's;
* for an adapter: :class:`ProviderAdapter`, the skeleton the built-in ones are written on (see
  ``promptwire.adapters.base``), with :class:`Endpoint`, and :class:`StreamingAdapter` for a
  provider that streams (a :class:`StreamReader` reads its events; :class:`Whole` ends a stream;
  :func:`api_stream` opens an OpenAI or Anthropic SDK stream); what it is given and returns
  (:class:`GenerateConfig`, :class:`OutputContract`, :class:`ProviderRequest`, :class:`Reply`,
  :class:`ToolCall`, :class:`ToolDefinition`); the :class:`ProviderError` classes, each saying what
  failed and whether it is worth retrying; and the helpers that make them (:func:`status_error`
  reads an HTTP status and a provider's error code, :func:`stream_failure` an error event inside a
  stream, :func:`cut_short` is a stream that ended too soon) and the request helpers of the
  skeleton; and what keeps keys out of messages: :func:`mask` (every text from outside, on its way into a
  message), :func:`shown_url`, and :func:`declare_secret_variables` /
  :func:`declare_url_variables` for an adapter not written on the skeleton (the skeleton declares
  ``key_variable`` and ``url_variable`` itself); for a conversation's parts, what every adapter says
  the same way (``promptwire.adapters.turns``): :func:`foreign_reasoning` (the note for reasoning
  another provider produced, left out), :class:`ToolIds` (tool-call ids the provider refuses,
  mapped) and :func:`turn_error` (the refusal naming a turn);
* for a reader: :class:`FieldError`, which names the bad field;
* for a tool scheme: :class:`ToolScheme`, :class:`ToolRequest`, :class:`ToolContext`,
  :class:`ToolOutcome`, :class:`MemoryOutcome`, :class:`ToolError`.

Nothing here imports a provider's SDK or a format's module: a plugin that imports this module adds
nothing to ``asrender``'s start-up that promptwire does not load anyway.
"""

from __future__ import annotations

from .adapters.base import (
    Endpoint,
    ProviderAdapter,
    StreamingAdapter,
    StreamReader,
    api_stream,
    part_left_out,
    returns_left_out,
    split_data_url,
    tool_arguments,
    usage_of,
)
from .adapters.status import (
    connection_failed,
    malformed_json,
    missing_part,
    read_reply,
    refused,
    status_error,
    stream_failure,
)
from .adapters.turns import ToolIds, foreign_reasoning, turn_error
from .core.call import ProviderRequest, Reply, Whole, cut_short
from .core.contract import OutputContract
from .core.errors import (
    AuthenticationError,
    BadRequestError,
    FieldError,
    MalformedResponseError,
    ModelNotFoundError,
    PermissionDeniedError,
    ProviderConnectionError,
    ProviderError,
    ProviderTimeoutError,
    QuotaExhaustedError,
    RateLimitedError,
    RefusalError,
    RegistrationError,
    ServerError,
)
from .core.prompt import GenerateConfig, Prompt, ToolCall, ToolDefinition
from .core.rendered import Message, RenderedPrompt, RenderWarning
from .core.secrets import declare_secret_variables, declare_url_variables, mask, shown_url
from .core.tools import MemoryOutcome, ToolContext, ToolError, ToolOutcome, ToolRequest, ToolScheme
from .plugins.builtins import builtin_renderer
from .plugins.hookspecs import RegisterCallback, hookimpl
from .renderers.base import Renderer, unexpressed_fields

__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "Endpoint",
    "FieldError",
    "GenerateConfig",
    "MalformedResponseError",
    "MemoryOutcome",
    "Message",
    "ModelNotFoundError",
    "OutputContract",
    "PermissionDeniedError",
    "Prompt",
    "ProviderAdapter",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderRequest",
    "ProviderTimeoutError",
    "QuotaExhaustedError",
    "RateLimitedError",
    "RefusalError",
    "RegisterCallback",
    "RegistrationError",
    "RenderWarning",
    "RenderedPrompt",
    "Renderer",
    "Reply",
    "ServerError",
    "StreamReader",
    "StreamingAdapter",
    "ToolCall",
    "ToolContext",
    "ToolDefinition",
    "ToolError",
    "ToolIds",
    "ToolOutcome",
    "ToolRequest",
    "ToolScheme",
    "Whole",
    "api_stream",
    "builtin_renderer",
    "connection_failed",
    "cut_short",
    "declare_secret_variables",
    "declare_url_variables",
    "foreign_reasoning",
    "hookimpl",
    "malformed_json",
    "mask",
    "missing_part",
    "part_left_out",
    "read_reply",
    "refused",
    "returns_left_out",
    "shown_url",
    "split_data_url",
    "status_error",
    "stream_failure",
    "tool_arguments",
    "turn_error",
    "unexpressed_fields",
    "usage_of",
]
