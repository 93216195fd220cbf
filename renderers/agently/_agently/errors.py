"""Errors raised where Agently 4.1.4.10 itself would crash or refuse.

Agently answers some inputs with a raw ``TypeError``/``AttributeError``/``ValidationError`` from
deep inside its generator; the user then has to guess which part of the prompt was wrong.
promptwire renders every input Agently renders, byte for byte, and for the others raises
:class:`AgentlyFieldError` naming the field and the reason. The one refusal Agently makes on
purpose (the empty prompt) keeps its exact message and stays catchable as ``KeyError``.
"""

from __future__ import annotations

from ....core.errors import FieldError, PromptwireError, PromptwireWarning

__all__ = [
    "EMPTY_PROMPT_MESSAGE",
    "AgentlyEmptyPromptError",
    "AgentlyFieldError",
    "AgentlyWarning",
    "Unrenderable",
]

EMPTY_PROMPT_MESSAGE = (
    "Prompt requires at least one of 'input', 'info', 'instruct', 'output', 'attachment' "
    "or customize extra prompt keys to be provided."
)


class AgentlyFieldError(FieldError):
    """A prompt (or settings) value Agently 4.1.4.10 cannot render: ``field`` says which, ``reason`` why."""


class AgentlyEmptyPromptError(PromptwireError, KeyError):
    """Agently's deliberate refusal of a prompt with nothing to say.

    ``args`` holds the message exactly as Agently raises it, so ``except KeyError`` code and
    ``pytest.raises(KeyError, match=...)`` keep working. ``str()`` is the bare message: a plain
    ``KeyError`` would wrap it in quotes.
    """

    def __init__(self, message: str = EMPTY_PROMPT_MESSAGE) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class AgentlyWarning(PromptwireWarning):
    """The warnings Agently emits (skipped content parts, output-format fallbacks), same texts."""


class Unrenderable(Exception):
    """Internal: a value deep inside a section cannot be rendered.

    Raised by helpers that do not know which prompt field they are working on; the section code
    catches it and raises :class:`AgentlyFieldError` with the field's name.
    """

    def __init__(self, reason: str, path: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path

    def field(self, root: str) -> str:
        return f"{root}{self.path}"
