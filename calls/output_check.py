"""A model's reply checked against a prompt's output contract, for a reply your own framework got.

``generate`` checks each attempt's reply before it accepts it: the JSON read from the text (the
whole text, else a fenced block, else the first balanced object), coerced where AgentScript coerces
(``"3"`` for a number, unless the prompt is strict) and validated against the contract's schema; a
reply that fails is a :class:`~promptwire.core.errors.ModelOutputError` whose message is the repair
text of the next attempt. :func:`check_output` is that step alone, for a framework (LangChain,
pydantic-ai...) whose model sent the prompt promptwire rendered: the same value, or the same error.
"""

from __future__ import annotations

from typing import Any

from ..core.coercion import check_result
from ..core.contract import OutputContract
from ..core.prompt import Prompt
from .generate import read_json

__all__ = ["check_output"]


def check_output(reply: Any, contract: Prompt | OutputContract | None, *, strict: bool | None = None) -> Any:
    """The value ``reply`` gives under ``contract`` (a :class:`Prompt`'s ``output``, or an
    :class:`OutputContract`), as ``generate`` accepts an attempt's reply.

    ``reply`` is the model's text (a ``str``: its JSON is read as ``generate`` reads it) or a value
    already parsed (a framework's structured output). ``strict`` (by default the prompt's
    ``config.strict``, else ``False``) refuses fields the contract does not name and values of the
    wrong type instead of coercing them. Without a contract the reply is returned as it is.
    Raises :class:`~promptwire.core.errors.ModelOutputError` (``NotJsonError``, ``ResultError``)
    with the message ``generate`` would send back to the model in its repair text.
    """
    if isinstance(contract, Prompt):
        strict = contract.config.strict if strict is None else strict
        contract = contract.output
    if contract is None:
        return reply
    value = read_json(reply) if isinstance(reply, str) else reply
    return check_result(value, contract.json_schema, strict=bool(strict))
