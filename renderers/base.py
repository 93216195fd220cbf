"""The renderer contract every format implements, built-in or third party.

A renderer is a pure function of a :class:`Prompt` and its options. Formats differ in what they
can say; rather than silently dropping the rest, each renderer declares the fields it expresses and
:func:`unexpressed_fields` turns the others into warning records on the result (or an error when
``strict=True``). Renderers emit no Python warnings: :func:`promptwire.render` does, once, at the
caller's line.

Convention for built-in formats: the module ``promptwire.renderers.<name>`` exposes a module-level
``renderer`` object satisfying :class:`Renderer`; ``plugins/builtins.py`` registers a lazy proxy
to it, so the module is imported only when the format is used. Every renderer accepts the option
``strict: bool = False`` and passes it to :func:`unexpressed_fields`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..core.errors import FieldError, UnsupportedFieldsError
from ..core.rendered import RenderWarning

if TYPE_CHECKING:
    from ..core.prompt import Prompt
    from ..core.rendered import RenderedPrompt

__all__ = ["Renderer", "unexpressed_fields"]


@runtime_checkable
class Renderer(Protocol):
    """A named format. ``render`` must not do I/O or keep state between calls."""

    name: str
    description: str
    fields: frozenset[str]
    """The ``Prompt`` fields this format can express; the others are reported, never dropped silently."""

    def render(self, prompt: Prompt, *, strict: bool = False) -> RenderedPrompt:
        """Render ``prompt``; a format may accept further keyword options, each with a default."""
        ...


def unexpressed_fields(
    prompt: Prompt, format_name: str, expressible: Iterable[str], *, strict: bool = False
) -> tuple[RenderWarning, ...]:
    """The populated fields of ``prompt`` that ``format_name`` cannot express, as warning records to
    store on the :class:`RenderedPrompt` (empty when all is said). With ``strict`` the render is
    refused instead.
    """
    if not isinstance(strict, bool):  # "no" would count as true
        raise FieldError("strict", f"must be true or false, got {type(strict).__name__} {strict!r}")
    missing = prompt.populated_fields(excluding=frozenset(expressible))
    if not missing:
        return ()
    if strict:
        raise UnsupportedFieldsError(format_name, missing)
    return tuple(RenderWarning(format_name, name) for name in missing)
