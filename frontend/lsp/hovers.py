"""The text of a hover, in Markdown: a ``generate``'s calls, a context section, a declaration."""

from __future__ import annotations

import os

from ..agentscript.syntax import ANONYMOUS_MAIN_AGENT, ANONYMOUS_MAIN_FUNC, Agent, Function, Import
from .evaluation import Call, Evaluation

__all__ = ["calls_text", "declaration_text", "section_text"]


def calls_text(evaluation: Evaluation, calls: list[Call], heading: str) -> str:
    """Every call of one ``generate`` as ``asrender`` prints it, and where the input came from."""
    parts = [f"**{heading}** ({evaluation.sources()})"]
    parts += [_fenced(call.block) for call in calls]
    if not calls:
        parts.append("This generate made no call in the run.")
    if evaluation.error:
        parts.append("The run stopped:\n" + _fenced(evaluation.error))
    parts += [f"Left out of the scratch copy: {note}" for note in evaluation.left_out]
    return "\n\n".join(parts)


def section_text(evaluation: Evaluation, calls: list[Call], label: str) -> str | None:
    """The context section ``label`` as the first call that has it rendered it: its text, budget
    and how much of the value clipping kept (UTF-16 code units)."""
    for call in calls:
        for item in call.context:
            if item["label"] == label:
                budget = f"budget {item['budget']}" if item["budget"] else "no budget"
                kept = (
                    f"clipped: {item['shown']} of {item['original']} kept"
                    if item["clipped"]
                    else f"whole: {item['shown']}"
                )
                head = f"**[{label}]** source: `{item['source']}`; {budget}; {kept} ({evaluation.sources()})"
                return f"{head}\n\n{_fenced(item['text'])}"
    return None


def declaration_text(file: str, line: int, column: int, signature: str) -> str:
    """A declaration's signature and where it is: ``NAME.as:LINE:COL`` as ``asrender`` names places."""
    return f"{_fenced(signature, 'agentscript')}\n\ndefined at {os.path.basename(file)}:{line}:{column} ({file})"


def signature(node: Agent | Function | Import) -> str:
    """What a declaration looks like in one or a few lines: an import as written, a function's
    parameters, an agent's functions."""
    if isinstance(node, Import):
        return f'import {node.resource} {node.name} from "{node.uri}"'
    if isinstance(node, Function):
        return f"{'main ' if node.is_main else ''}func{_named(node.name)}({', '.join(p.name for p in node.params)})"
    lines = [f"{'main ' if node.is_main else ''}agent{_named(node.name)}"]
    lines += [f"    {signature(function)}" for function in node.functions]
    return "\n".join(lines)


def _named(name: str) -> str:
    """`` name`` as a declaration writes it; nothing for an unnamed ``main`` one (the reference's
    ``__main`` and ``__main_agent``)."""
    return "" if name in (ANONYMOUS_MAIN_FUNC, ANONYMOUS_MAIN_AGENT) else f" {name}"


def _fenced(text: str, language: str = "text") -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{language}\n{text.rstrip(chr(10))}\n{fence}"
