"""Any core ``Prompt`` as an Agently prompt dict: what the ``agently`` renderer hands ``AgentlyPrompt``.

The reverse direction, Agently data read into a ``Prompt``, is the reader (``reader.py``). Values
are handed over as the model should read them (``shown.py``: JSON or YAML, never a Python repr),
context items are fitted to their budgets in that text, and whatever Agently has no place for comes
back as a :class:`RenderWarning` instead of disappearing. The field table is in ``docs/agently.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import FieldError
from ...core.fitting import TextForm, fit
from ...core.prompt import ContextItem, Prompt, Section, ToolDefinition, ToolResult
from ...core.rendered import RenderWarning
from ..parts import openai_content, openai_part
from ._agently.declarations import KNOWN_FORMATS, SchemaNotes, schema_to_declaration
from ._agently.prompt_object import DECLARED_FIELDS
from ._agently.yaml_blocks import dump_yaml, section_body
from .shown import inline_text, scalar_text

__all__ = ["Mapped", "from_prompt", "map_prompt"]

FORMAT = "agently"


@dataclass
class Mapped:
    """The Agently prompt dict for a Prompt, and what the mapping had to change or leave out."""

    data: dict[str, Any] = field(default_factory=dict)
    warnings: list[RenderWarning] = field(default_factory=list)

    def warn(self, field_path: str, reason: str) -> None:
        self.warnings.append(RenderWarning(FORMAT, field_path, reason))


# --- sections ----------------------------------------------------------------------------------


def _by_kind(sections: Sequence[Section], kind: str) -> list[tuple[int, Section]]:
    return [(index, section) for index, section in enumerate(sections) if section.kind == kind]


def _merged(sections: list[tuple[int, Section]], *, keyed: bool, shown: Any) -> Any:
    """One Agently value for the sections of one kind: the value itself, a key->value map, or a list.

    ``info`` keeps a lone section's key (Agently lists info as ``- key: value``); ``instruct`` and
    ``examples`` show a lone section's value as it is. ``shown`` turns each value into what Agently
    is to print.
    """
    values = [shown(section.value, f"sections[{index}].value") for index, section in sections]
    keys = [section.key for _, section in sections]
    if len(sections) == 1 and (keys[0] is None or not keyed):
        return values[0]
    if all(key is not None for key in keys) and len(set(keys)) == len(keys):
        return dict(zip(keys, values, strict=True))
    if len(sections) == 1:
        return values[0]
    return list(values)


def _info_value(value: Any, path: str) -> Any:
    """Agently prints info inline (``- key: value``, ``- item`` or the lone text): give it text."""
    if isinstance(value, dict):
        return {key: inline_text(item, f"{path}.{key}") for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [inline_text(item, f"{path}[{index}]") for index, item in enumerate(value)]
    return inline_text(value, path)


# --- context -----------------------------------------------------------------------------------


def _labels(items: Sequence[ContextItem], mapped: Mapped) -> list[str]:
    """One distinct key per item: its label (or source); a repeated one gets the first free ``_N``."""
    wanted = [item.label or item.source or f"context_{index}" for index, item in enumerate(items)]
    taken = set(wanted)
    seen: set[str] = set()
    labels: list[str] = []
    for index, label in enumerate(wanted):
        if label in seen:
            number = 2
            while f"{label}_{number}" in taken:
                number += 1
            renamed = f"{label}_{number}"
            taken.add(renamed)
            mapped.warn(
                f"context[{index}].label",
                f"the label {label!r} is already used by another context item; shown as {renamed!r}",
            )
            label = renamed
        seen.add(label)
        labels.append(label)
    return labels


def _inline_form(path: str) -> TextForm:
    return TextForm(text=lambda value: inline_text(value, path))


def _block_form(path: str) -> TextForm:
    return TextForm(text=lambda value: section_body(scalar_text(value, path), {}))


def _context(prompt: Prompt, mapped: Mapped, *, inline: bool) -> dict[str, Any]:
    """The context items by label, each fitted to its budget in the text Agently shows for it."""
    entries: dict[str, Any] = {}
    labels = _labels(prompt.context, mapped)
    for index, (label, item) in enumerate(zip(labels, prompt.context, strict=True)):
        path = f"context[{index}].value"
        limit = item.budget.context_limit if item.budget is not None else None
        if inline:
            entries[label] = fit(item.value, limit, _inline_form(path)).text
        elif limit is None:
            entries[label] = scalar_text(item.value, path)
        else:
            entries[label] = scalar_text(fit(item.value, limit, _block_form(path)).value, path)
    return entries


# --- tools and results ---------------------------------------------------------------------------


def _report_schema(mapped: Mapped, notes: SchemaNotes, where: str) -> None:
    for path, keywords in notes.left_out:
        listed = ", ".join(keywords)
        mapped.warn(path, f"{where} has no place for the schema keyword(s) {listed}; left out")


def _tool(tool: ToolDefinition, index: int, mapped: Mapped) -> Any:
    native = tool.native
    if isinstance(native, dict) and {"name", "desc", "kwargs"} <= set(native):
        return native
    notes = SchemaNotes()
    path = f"tools[{index}].parameters"
    kwargs: Any = {}
    if tool.parameters:
        kwargs = schema_to_declaration(tool.parameters, path, notes, output=False)
        if not isinstance(kwargs, dict):
            mapped.warn(path, "Agently's tool kwargs are named arguments; a schema that is not an object is left out")
            kwargs = {}
    data: dict[str, Any] = {"name": tool.name, "desc": tool.description, "kwargs": kwargs}
    if tool.returns is not None:
        returns = tool.returns
        if isinstance(returns, dict) and ("type" in returns or "properties" in returns):
            returns = schema_to_declaration(returns, f"tools[{index}].returns", notes, output=False)
        data["returns"] = returns
    _report_schema(mapped, notes, "Agently's tool description")
    return data


def _action_results(results: list[ToolResult]) -> Any:
    """Agently's ``action_results``: a map keyed by tool name, or by call id when names repeat.

    A failed call keeps its failure visible as ``{"error": content}`` (Agently has no error flag).
    """
    values = [{"error": result.content} if result.is_error else result.content for result in results]
    for keys in ([result.name for result in results], [result.call_id for result in results]):
        if all(key is not None for key in keys) and len(set(keys)) == len(keys):
            return dict(zip(keys, values, strict=True))
    if len(results) == 1:
        # A lone result is the section's body, which Agently prints with str(): give it JSON text.
        return scalar_text(values[0], "tool_results[0].content")
    return values


# --- output --------------------------------------------------------------------------------------


def _output(prompt: Prompt, mapped: Mapped) -> None:
    contract = prompt.output
    if contract is None:
        return
    data = mapped.data
    if contract.dialect == "agently" and contract.native is not None:
        data["output"] = contract.native
        if contract.format is not None:
            if contract.format in KNOWN_FORMATS:
                data["output_format"] = contract.format
            else:
                # Agently shows no output requirement at all for a format it does not know.
                mapped.warn(
                    "output.format",
                    f"Agently 4.1.4.10 has no output format {contract.format!r} (it would show no output "
                    "requirement); shown in the default format instead",
                )
    else:
        notes = SchemaNotes()
        data["output"] = schema_to_declaration(contract.json_schema, "output", notes, output=True)
        _report_schema(mapped, notes, "Agently's output structure")
    if prompt.config.strict:
        data["ensure_all_keys"] = True


def _instruction(value: Any) -> Any:
    """The ``input`` value: Agently hides a falsy one, so a given ``0``/``False``/``[]`` goes as text."""
    if isinstance(value, list | dict | tuple) and not value:
        return dump_yaml(value)
    return scalar_text(value, "instruction")


# --- the mapping -----------------------------------------------------------------------------------


def map_prompt(prompt: Prompt) -> Mapped:
    """The Agently prompt dict for ``prompt``, with warnings for what was changed or left out.

    Context items join ``info`` (label -> value, fitted to their budgets); fields Agently has no
    place for (identity, tool calls, resources, previous result, retry) are left out here, and the
    renderer reports them.
    """
    mapped = Mapped()
    data = mapped.data
    if prompt.system is not None:
        data["system"] = prompt.system
    if prompt.developer is not None:
        data["developer"] = prompt.developer
    if prompt.history:
        data["chat_history"] = [{"role": turn.role, "content": openai_content(turn.content)} for turn in prompt.history]
    if prompt.tools:
        data["tools"] = [_tool(tool, index, mapped) for index, tool in enumerate(prompt.tools)]
    if prompt.tool_results:
        data["action_results"] = _action_results(prompt.tool_results)
    info_sections = _by_kind(prompt.sections, "info")
    info = _merged(info_sections, keyed=True, shown=lambda value, path: value) if info_sections else None
    info_path = f"sections[{info_sections[0][0]}].value" if len(info_sections) == 1 else "sections"
    custom: dict[str, Any] = {}
    if prompt.context:
        labels = set(_labels(prompt.context, Mapped()))
        joins_info = not info_sections or (isinstance(info, dict) and not info.keys() & labels)
        context = _context(prompt, mapped, inline=joins_info)
        if joins_info:
            info = {**(info or {}), **context}
        else:
            custom["context"] = context
    if info_sections or prompt.context:
        data["info"] = _info_value(info, info_path)
    for index, section in _by_kind(prompt.sections, "custom"):
        key = section.key or "custom"
        if key in DECLARED_FIELDS or key in custom:
            raise FieldError("sections", f"the custom section {key!r} would clash with another Agently prompt key")
        custom[key] = scalar_text(section.value, f"sections[{index}].value")
    data.update(custom)
    for kind in ("instruct", "examples"):
        chosen = _by_kind(prompt.sections, kind)
        if chosen:
            data[kind] = _merged(chosen, keyed=False, shown=scalar_text)
    if prompt.instruction is not None and prompt.instruction != "":
        data["input"] = _instruction(prompt.instruction)
    if prompt.attachments:
        data["attachment"] = [openai_part(part) for part in prompt.attachments]
    _output(prompt, mapped)
    if prompt.config.temperature is not None:
        data["options"] = {"temperature": prompt.config.temperature}
    return mapped


def from_prompt(prompt: Prompt) -> dict[str, Any]:
    """The Agently prompt dict for ``prompt`` (see :func:`map_prompt`; its warnings are dropped)."""
    return map_prompt(prompt).data
