"""The ``agens`` renderer: any core :class:`Prompt` as Agens 0.2.0's ``{system, user}`` strings.

Two steps, as upstream: ``Prompt.build/3`` makes ``((heading, detail), value)`` pairs
(:func:`prompt_pairs`), then ``build_prompt/3`` prints each pair with ``prompt_field/1`` (a string as
it is, a list or map as Jason's compact JSON) and joins a message's sections with ``"\\n"``.
The field-to-section mapping is in ``docs/agens.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...core.errors import FieldError, UnsupportedFieldsError
from ...core.fitting import TextForm, fit
from ...core.nesting import nesting_room
from ...core.prompt import ContextItem, Prompt, Resource, Retry, Section, ToolCall, ToolDefinition
from ...core.rendered import Message, RenderedPrompt, RenderedSection, RenderWarning
from ..base import unexpressed_fields
from . import jason
from .native import AgensNative, native_of
from .options import check_strict, prefix_table, section_order
from .prefixes import GENERIC_RETRY, Pair, PairValue
from .reader import DESCRIPTION_SECTION, OBJECTIVE_SECTION

__all__ = ["AgensRenderer", "prompt_pairs", "render_text", "renderer"]

EXPRESSED_FIELDS = frozenset(
    {
        "identity", "system", "developer", "context", "instruction", "sections", "tools", "tool_calls",
        "tool_results", "resources", "previous_result", "retry", "output", "native.agens",
    }
)  # fmt: skip

NamedPair = tuple[str, Pair]
"""A pair with the Agens field it came from (custom prefixes may rename the heading)."""


def prompt_pairs(
    prompt: Prompt, prefixes: Mapping[str, Sequence[str]] | None = None, order: str = "declared"
) -> tuple[list[Pair], list[Pair]]:
    """``Prompt.build/3`` for any prompt: the ``((heading, detail), value)`` pairs of each message."""
    with nesting_room():
        system, user = _named_pairs(prompt, prefixes, order, [])
    return [pair for _, pair in system], [pair for _, pair in user]


def render_text(
    prompt: Prompt, prefixes: Mapping[str, Sequence[str]] | None = None, order: str = "declared"
) -> tuple[str, str, list[RenderedSection], list[RenderWarning]]:
    """``build_prompt/3``: the system and user strings, their sections, and what the layout left unsaid."""
    notes: list[RenderWarning] = []
    texts: list[str] = []
    sections: list[RenderedSection] = []
    with nesting_room():
        for role, named in zip(("system", "user"), _named_pairs(prompt, prefixes, order, notes), strict=True):
            chunks = []
            for field, ((heading, detail), value) in named:
                body = _section_body(field, value)
                chunks.append(f"## {heading}\n{detail}:\n\n{body}\n")
                sections.append(RenderedSection(role=role, key=field, title=heading, detail=detail, body=body))
            texts.append("\n".join(chunks))
    return texts[0], texts[1], sections, notes


def _named_pairs(
    prompt: Prompt, prefixes: Mapping[str, Sequence[str]] | None, order: str, notes: list[RenderWarning]
) -> tuple[list[NamedPair], list[NamedPair]]:
    keys = section_order(order)
    table = prefix_table(prefixes)
    values = {
        name: value for name, value in _section_values(prompt, notes).items() if value is not None and value != ""
    }
    system, user = ([(name, (table[name], values[name])) for name in names if name in values] for names in keys)
    return system, user


def _section_values(prompt: Prompt, notes: list[RenderWarning]) -> dict[str, PairValue | None]:
    native = native_of(prompt)
    description, objective, others = _split_sections(prompt.sections)
    return {
        "description": _pair_value(description, "sections"),
        "objective": _pair_value(objective, "sections"),
        "context": _context_text(prompt, others),
        "tool_defs": _tool_defs_value(prompt.tools, native, notes),
        "resources": _resources_text(prompt.resources, notes),
        "input": _pair_value(prompt.instruction, "instruction"),
        "previous_result": _pair_value(prompt.previous_result, "previous_result"),
        "tool_calls": _tool_calls_value(prompt.tool_calls, native),
        "tool_results": _tool_results_value(prompt, native),
        "retry": _retry_text(prompt.retry),
    }


def _split_sections(sections: Sequence[Section]) -> tuple[object, object, list[tuple[int, Section]]]:
    """Take the first job description and node objective; the other sections (with their index in
    ``prompt.sections``, for error paths) go to Context."""
    found: dict[tuple[str, str | None], object] = {}
    others: list[tuple[int, Section]] = []
    for index, section in enumerate(sections):
        slot = (section.kind, section.key)
        if slot in (DESCRIPTION_SECTION, OBJECTIVE_SECTION) and slot not in found:
            found[slot] = section.value
        else:
            others.append((index, section))
    return found.get(DESCRIPTION_SECTION), found.get(OBJECTIVE_SECTION), others


def _pair_value(value: object, field: str) -> PairValue | None:
    """What ``prompt_field/1`` can print: strings, lists and maps; other JSON values as their text."""
    if value is None or isinstance(value, str | list | dict):
        return value
    if isinstance(value, Mapping):
        return dict(value)
    return jason.encode(value, (field,))


def _context_text(prompt: Prompt, sections: list[tuple[int, Section]]) -> str | None:
    """Agens has one system-side text slot, Context: identity, system and developer text, context
    items and any other sections go there, in that order, separated by blank lines."""
    parts: list[str] = []
    if prompt.identity is not None:
        identity = f"You are {prompt.identity.role}."
        parts.append(identity + (f"\n{prompt.identity.description}" if prompt.identity.description else ""))
    parts.extend(text for text in (prompt.system, prompt.developer) if text)
    parts.extend(_context_item_text(item, index) for index, item in enumerate(prompt.context))
    parts.extend(
        _titled(section.key or section.kind, _body(section.value, ("sections", index, "value")))
        for index, section in sections
    )
    return "\n\n".join(parts) or None


def _context_item_text(item: ContextItem, index: int) -> str:
    """The item's text as Agens prints a value (a string as it is, else Jason's JSON), fitted to its
    budget in code points of that text: the budget bounds what the model reads in this format."""
    path = ("context", index, "value")
    limit = None if item.budget is None else item.budget.context_limit
    body = fit(item.value, limit, TextForm(text=lambda value: _body(value, path))).text
    return body if item.label is None else _titled(item.label, body)


def _titled(title: str, body: str) -> str:
    # The same sub-heading Agens gives a resource ("### uri").
    return f"### {title}\n\n{body}"


def _body(value: object, path: Sequence[str | int]) -> str:
    return str.__str__(value) if isinstance(value, str) else jason.encode(value, path)


_WRAPPED_FIELDS = frozenset({"tool_defs", "tool_calls", "tool_results"})
"""Sections whose value is a list or map the format builds around the prompt's own values."""


def _section_body(field: str, value: PairValue) -> str:
    """``prompt_field/1``'s body; the list or map Agens wraps around tools and results adds a level
    of nesting that is the format's, not the prompt's (a result may nest the full 1000 levels)."""
    if isinstance(value, str):
        return str.__str__(value)  # a str subclass (a str-valued Enum member) prints its text
    return jason.encode(value, (field,), outer_levels=1 if field in _WRAPPED_FIELDS else 0)


def _tool_defs_value(
    tools: Sequence[ToolDefinition], native: AgensNative, notes: list[RenderWarning]
) -> list[object] | None:
    """Each tool's Agens form: ``nil`` where the Agens list had one, the tool's ``native`` form when
    it has one (a description it hides is reported), else an MCP tool description."""
    nulls = set(native.null_tool_defs)
    values: list[object] = []
    for index, tool in enumerate(tools):
        if index in nulls:
            values.append(None)
            continue
        if tool.native is not None and tool.description:
            notes.append(
                RenderWarning(
                    "agens",
                    f"tools[{index}].description",
                    "Agens prints the tool's native form, which leaves this description out",
                )
            )
        values.append(_tool_def_value(tool))
    return values or None


def _tool_def_value(tool: ToolDefinition) -> object:
    if tool.native is not None:
        return tool.native
    described: dict[str, Any] = {"name": tool.name}
    if tool.description:
        described["description"] = tool.description
    if tool.parameters:
        described["inputSchema"] = tool.parameters
    return described


def _tool_calls_value(calls: Sequence[ToolCall], native: AgensNative) -> list[object] | None:
    nulls = set(native.null_tool_calls)
    return [None if index in nulls else _tool_call_value(call) for index, call in enumerate(calls)] or None


def _tool_call_value(call: ToolCall) -> object:
    """The Agens form kept by the reader, else ``Agens.Schema.tools/0``'s call shape."""
    if call.native is not None:
        return call.native
    described: dict[str, Any] = {
        "name": call.name,
        "arguments": [{"key": key, "value": value} for key, value in call.arguments.items()],
        "type": "tool_call",
    }
    if call.id is not None:
        described["id"] = call.id
    return described


def _tool_results_value(prompt: Prompt, native: AgensNative) -> dict[Any, Any] | None:
    """Agens' ``%{tool_id => result}``: keyed by the Agens keys when the reader kept them, else by
    call id, tool name or position. An empty map is printed when ``native.agens`` says Agens had one."""
    results: dict[Any, Any] = {}
    keys = native.tool_result_keys
    for index, result in enumerate(prompt.tool_results):
        if keys is not None:
            key: Any = keys[index]
        else:
            key = result.call_id if result.call_id is not None else (result.name or str(index))
        if key in results:
            raise FieldError(
                ("tool_results", index, "call_id"),
                f"two results for call {jason.key_text(key)[:40]!r}: Agens keys results by call id",
            )
        results[key] = result.content
    if results:
        return results
    return {} if native.tool_results == {} else None


UNLOADED_RESOURCE = "a resource without content is not loaded, and Agens leaves it out"


def _resources_text(resources: Iterable[Resource], notes: list[RenderWarning]) -> str | None:
    """Loaded resources as fenced blocks; ``name`` and ``description`` are not shown, as upstream.
    One without content is left out, as upstream, and reported like every other field left out."""
    blocks = []
    for index, resource in enumerate(resources):
        if resource.content is None:
            notes.append(RenderWarning("agens", f"resources[{index}]", UNLOADED_RESOURCE))
        else:
            blocks.append(f"### {resource.uri}\n\n```\n{resource.content}\n```")
    return "\n\n".join(blocks) or None


def _retry_text(retry: Retry | None) -> str | None:
    if retry is None:
        return None
    return GENERIC_RETRY if retry.reason is None or retry.reason == "" else retry.reason


class AgensRenderer:
    """The ``agens`` format: any :class:`Prompt` as Agens' system and user strings.

    Options: ``prefixes`` (field name -> ``(heading, detail)``), ``order`` (``"declared"`` or
    ``"alphabetical"``) and ``strict`` (refuse prompts with fields Agens cannot show).
    """

    name = "agens"
    description = "Agens 0.2.0 system/user prefix pairs: '## heading\\ndetail:\\n\\nbody' sections"
    fields: frozenset[str] = EXPRESSED_FIELDS

    def render(
        self,
        prompt: Prompt,
        *,
        prefixes: Mapping[str, Sequence[str]] | None = None,
        order: str = "declared",
        strict: bool = False,
    ) -> RenderedPrompt:
        """Render ``prompt``; fields Agens has no place for, and resources it leaves out, are
        reported on the result (refused with ``strict``)."""
        warnings = unexpressed_fields(prompt, self.name, self.fields, strict=check_strict(strict))
        system, user, sections, notes = render_text(prompt, prefixes, order)
        unloaded = [note.field for note in notes if note.reason == UNLOADED_RESOURCE]
        if strict and unloaded:
            raise UnsupportedFieldsError(self.name, unloaded)
        return RenderedPrompt(
            format=self.name,
            # Agens hands the host both strings, the system one even when it is "".
            messages=(Message("system", system), Message("user", user)),
            sections=tuple(sections),
            warnings=warnings + tuple(notes),
            output=prompt.output,
        )


renderer = AgensRenderer()
