"""The one error hierarchy of promptwire.

Every error a user can cause derives from :class:`PromptwireError`, so callers need one ``except``.
User-facing errors say *where* (a field path, or file:line:col with the source line and a caret) and
*why*, because the message is all a CLI user ever sees: no traceback reaches them.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

from .printable import escape_unsafe, half_characters
from .secrets import mask

__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "FieldError",
    "MalformedResponseError",
    "ModelNotFoundError",
    "ModelOutputError",
    "ModelRouteError",
    "PermissionDeniedError",
    "PluginWarning",
    "PromptDrift",
    "PromptwireError",
    "PromptwireWarning",
    "ProviderConnectionError",
    "ProviderError",
    "ProviderTimeoutError",
    "QuotaExhaustedError",
    "RateLimitedError",
    "RecordingError",
    "RefusalError",
    "RegistrationError",
    "ReplyTooLargeError",
    "ServerError",
    "SourceError",
    "TokenCountUnavailable",
    "UnknownNameError",
    "UnsupportedFieldsError",
    "UnsupportedFieldsWarning",
    "body_excerpt",
    "field_path",
    "warn",
]


class PromptwireError(Exception):
    """Base class of every error promptwire raises on purpose."""

    calls: tuple[Any, ...] = ()
    """The model calls made before the failure, in order, when a run or a ``generate`` failed: a
    failed ``generate`` hands back each attempt it made (``ModelCall``), a failed program run every
    call of the run (the front end's own records). Empty for any other error."""


class PromptwireWarning(UserWarning):
    """Base class of every warning promptwire emits."""


def field_path(path: Sequence[str | int]) -> str:
    """Spell a path into nested data the way users write it: ``context[2].budget``."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else part
    return text or "<root>"


class FieldError(PromptwireError, ValueError):
    """Bad prompt data: names the field (as a path) and the reason."""

    def __init__(self, field: str | Sequence[str | int], reason: str) -> None:
        # Half a character in a key or a quoted value is written as its escape: the message must be
        # text any encoder takes (pydantic-core, through which a validator's error passes, raised
        # UnicodeEncodeError on it instead of the error).
        self.field = escape_unsafe(field if isinstance(field, str) else field_path(field), half_characters())
        self.reason = escape_unsafe(reason, half_characters())
        super().__init__(f"{self.field}: {self.reason}")


class SourceError(PromptwireError):
    """An error located in a source text, printed like a compiler's.

    ``file:line:col: error: message`` followed by the offending line and a caret under the column.
    Lines and columns are 1-based.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str,
        line: int,
        column: int,
        source_line: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.source_line = source_line
        super().__init__(self.render())

    def render(self) -> str:
        head = f"{self.file}:{self.line}:{self.column}: error: {self.message}"
        if self.source_line is None:
            return head
        line = self.source_line.rstrip("\r\n")
        # Tabs keep their width in the caret line so the caret lands under the right character.
        pad = "".join("\t" if ch == "\t" else " " for ch in line[: max(self.column - 1, 0)])
        return f"{head}\n{line}\n{pad}^"


class ProviderError(PromptwireError):
    """A provider call failed; the subclass says how, so ``except RateLimitedError`` picks one kind
    and ``except ProviderError`` takes them all.

    ``provider`` names the adapter (``generate`` fills it in when the adapter did not), ``status`` is
    the HTTP status when there was one, and ``body`` a short one-line excerpt of what the provider
    answered, with the API key masked (see :func:`body_excerpt`). ``retryable`` says whether the
    same request may succeed later; promptwire never retries these itself (a generate's attempts are
    for output the contract refuses), so the caller decides. ``retry_after`` is how many seconds the
    provider asked to be left alone (its ``Retry-After``), when it said.
    """

    retryable: ClassVar[bool] = False
    retry_after: float | None = None

    def __init__(
        self, message: str, *, provider: str | None = None, status: int | None = None, body: str | None = None
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status
        self.body = body


class AuthenticationError(ProviderError):
    """The API key is missing, wrong or revoked (401)."""


class PermissionDeniedError(ProviderError):
    """The key is valid but may not do this: a model, region or organisation it lacks (403)."""


class ModelNotFoundError(ProviderError):
    """The provider does not know the model, or the URL is not one of its endpoints (404)."""


class QuotaExhaustedError(ProviderError):
    """Credit or a spending limit is used up (402, or a 429 whose code says so): waiting does not help."""


class RateLimitedError(ProviderError):
    """Too many requests for now (429): the same request may succeed later."""

    retryable = True


class ProviderTimeoutError(ProviderError):
    """No complete answer within the timeout (the client's, or the provider's 408)."""

    retryable = True


class ProviderConnectionError(ProviderError):
    """The provider could not be reached, or the connection broke before the answer was complete."""

    retryable = True


class ServerError(ProviderError):
    """The provider failed (5xx, Anthropic's 529 overloaded, a 409 conflict on its side)."""

    retryable = True


class BadRequestError(ProviderError):
    """The provider refused the request itself: a parameter, the schema, the size, the model URI (4xx)."""


class MalformedResponseError(ProviderError):
    """The provider answered 200 with something that is not its protocol: not JSON, or a missing part."""


class ReplyTooLargeError(ProviderError):
    """The provider's reply, whole or streamed, is larger than the bound on a reply
    (:mod:`promptwire.adapters.reply_size`): refused before it fills the memory. Asking again gets
    the same reply, so it is not retryable; the message says how to raise the bound."""


class RefusalError(ProviderError):
    """The model declined to answer (OpenAI's ``refusal``, Anthropic's ``stop_reason`` "refusal"):
    asking again with the same prompt does not help, so it is not a retryable output error."""


class ModelOutputError(PromptwireError):
    """The model answered, but not with what the output contract asks for. Retryable: a generate
    makes its next attempt with the reason in the repair text."""

    retryable: ClassVar[bool] = True


class ModelRouteError(PromptwireError):
    """A model call names no provider the run can send it to: a model without a URI scheme when
    each call is routed by its scheme (``--provider auto``), or a scheme no adapter serves. A
    program's run reports it at the ``generate`` that made the call."""

    retryable: ClassVar[bool] = False


@functools.cache
def _spaces() -> re.Pattern[str]:
    """Runs of white space, each shown as one in an excerpt of a body; compiled when first asked for
    (only a failed call quotes a body)."""
    return re.compile(r"\s+")


BODY_EXCERPT_CHARS = 300


def body_excerpt(text: str, secret: str | None = None, limit: int = BODY_EXCERPT_CHARS) -> str:
    """``text`` on one line (whitespace runs collapsed), every secret masked (the configured keys and
    URL passwords, and ``secret``: see :func:`promptwire.core.secrets.mask`), cut to ``limit``
    characters: an error message quotes what the provider said without flooding a terminal with a
    proxy's HTML page or echoing a key back to whoever reads the log. Masked before it is cut, so
    no key is left half shown at the cut."""
    text = mask(_spaces().sub(" ", text).strip(), secret)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class TokenCountUnavailable(PromptwireError):
    """A token count asked of a provider that has no count endpoint (Ollama, OpenAI's Chat
    Completions): promptwire asks the provider or says it cannot, and never guesses a count."""

    def __init__(self, provider: str, hint: str = "") -> None:
        self.provider = provider
        message = (
            f"provider {provider!r} has no token-count endpoint, so its input tokens cannot be counted before sending"
        )
        super().__init__(f"{message} ({hint})" if hint else message)


class RecordingError(PromptwireError):
    """A recording of a run's replies that cannot be written or read
    (:mod:`promptwire.calls.recording`); the message names the file, and the line."""


class PromptDrift(PromptwireError):
    """A replayed request that matches no recorded one; the message is the report, several lines
    long: the call site, both digests, the first difference between the bodies."""


class RegistrationError(PromptwireError):
    """A plugin registered something badly, e.g. a name another plugin already took."""


class PluginWarning(PromptwireWarning):
    """An installed plugin that failed to load and was left out, or a name in ``PROMPTWIRE_PLUGINS``
    that no installed plugin has: the rest works, and the user should know."""


class UnknownNameError(PromptwireError, LookupError):
    """A renderer, adapter or reader was asked for by a name nobody registered."""

    def __init__(self, kind: str, name: str, available: Sequence[str]) -> None:
        self.kind = kind
        self.name = name
        self.available = tuple(available)
        choices = ", ".join(self.available) or "none"
        guess = _close_names(name, self.available)
        meant = f"; did you mean {' or '.join(map(repr, guess))}?" if guess else ""
        super().__init__(f"unknown {kind} {name!r}{meant} (available: {choices})")


def _close_names(name: str, available: Sequence[str]) -> list[str]:
    """The names ``name`` was likely meant as: those it begins as a provider's name begins its
    readers' (``openai`` for ``openai-chat`` and ``openai-responses``), else a near spelling."""
    import difflib

    extended = [known for known in available if known.startswith(f"{name}-")]
    return extended or difflib.get_close_matches(name, available, n=2, cutoff=0.75)


class UnsupportedFieldsWarning(PromptwireWarning):
    """A format cannot express some fields of the prompt; they were left out of the render."""


class UnsupportedFieldsError(PromptwireError):
    """Strict rendering refused a prompt with fields the format cannot express."""

    def __init__(self, format_name: str, fields: Sequence[str]) -> None:
        self.format_name = format_name
        self.fields = tuple(fields)
        super().__init__(unsupported_fields_message(format_name, self.fields))


def unsupported_fields_message(format_name: str, fields: Sequence[str]) -> str:
    return f"format {format_name!r} cannot express these prompt fields, which were left out: {', '.join(fields)}"


def warn(message: str, category: type[PromptwireWarning] = PromptwireWarning, stacklevel: int = 3) -> None:
    """Emit a promptwire warning pointing at the caller's caller (the user's code)."""
    warnings.warn(message, category, stacklevel=stacklevel)
