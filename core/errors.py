"""The one error hierarchy of promptwire.

Every error a user can cause derives from :class:`PromptwireError`, so callers need one ``except``.
User-facing errors say *where* (a field path, or file:line:col with the source line and a caret) and
*why*, because the message is all a CLI user ever sees: no traceback reaches them.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

__all__ = [
    "FieldError",
    "PromptwireError",
    "PromptwireWarning",
    "RegistrationError",
    "SourceError",
    "UnknownNameError",
    "UnsupportedFieldsError",
    "UnsupportedFieldsWarning",
    "field_path",
    "warn",
]


class PromptwireError(Exception):
    """Base class of every error promptwire raises on purpose."""


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
        self.field = field if isinstance(field, str) else field_path(field)
        self.reason = reason
        super().__init__(f"{self.field}: {reason}")


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
    """A provider call failed. ``kind`` says how (``auth``, ``quota``, ``rate_limit``, ``bad_request``,
    ``not_found``, ``server``, ``timeout``, ``connection``, ``bad_response``), ``status`` is the HTTP
    status when there was one, and ``retryable`` whether trying again later can help."""

    def __init__(self, message: str, *, kind: str, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.retryable = retryable


class RegistrationError(PromptwireError):
    """A plugin registered something badly, e.g. a name another plugin already took."""


class UnknownNameError(PromptwireError, LookupError):
    """A renderer, adapter or reader was asked for by a name nobody registered."""

    def __init__(self, kind: str, name: str, available: Sequence[str]) -> None:
        self.kind = kind
        self.name = name
        self.available = tuple(available)
        choices = ", ".join(self.available) or "none"
        super().__init__(f"unknown {kind} {name!r} (available: {choices})")


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
