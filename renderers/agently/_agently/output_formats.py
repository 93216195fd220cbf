"""The ``[OUTPUT REQUIREMENT]`` block for each of Agently's output formats.

``json`` shows an annotated structure; ``markdown`` asks for text; the four 4.1 formats
(``flat_markdown``, ``hybrid``, ``xml_field``, ``yaml_literal``) describe a sectioned answer, one
section per top-level field. ``text`` and unknown format names add nothing. The instruction lines
are Agently's, verbatim.
"""

from __future__ import annotations

from typing import Any

from .requirements import requirement_lines
from .sanitize import sanitize
from .slots import replace_slots
from .structure import render_structure, value_example

__all__ = ["is_string_field", "output_requirement_lines"]

_ALL_REQUIRED_SECTIONS = [
    "",
    "All defined fields are required. Every section header listed below MUST appear",
    "in your response exactly as specified.",
]


def is_string_field(spec: Any) -> bool:
    """Agently's ``_is_string_output_field``: ``str``/``"str"``, or a tuple that starts with one."""
    if isinstance(spec, tuple) and spec:
        return spec[0] in (str, "str")
    return spec in (str, "str")


def _description(spec: Any, titles: Any) -> str:
    if isinstance(spec, tuple) and len(spec) >= 2 and spec[1]:
        return f"{replace_slots(spec[1], titles)}"
    return ""


def _json(output: Any, ensure_all_keys: Any, titles: Any, title: str) -> list[str]:
    final = sanitize(output)
    lines = [f"[{title}]:", "Data Format: JSON"]
    if is_string_field(output):
        lines.append("Return one JSON string value with JSON quotation marks, not an object or array.")
    if ensure_all_keys:
        lines.append("Output Guarantee: STRICT structure")
        lines.append("All defined fields are required and extra fields are not allowed.")
    lines.append("Data Structure:")
    lines.append(render_structure(final, titles))
    lines.extend(requirement_lines(final, titles))
    lines.append("")
    return lines


def _flat_markdown(output: dict[str, Any], ensure_all_keys: Any, titles: Any, title: str) -> list[str]:
    lines = [
        f"[{title}]:",
        "Data Format: Structured Markdown",
        "",
        "Respond in clearly separated sections. Each section MUST start with the exact",
        "markdown header shown below (### field_name). Write your content after the header.",
        "Separate sections with a blank line.",
    ]
    if ensure_all_keys:
        lines.extend(_ALL_REQUIRED_SECTIONS)
    lines.extend(requirement_lines(output, titles, "top_level"))
    lines.extend(("", "Required sections:", ""))
    for name, spec in output.items():
        lines.append(f"### {name}")
        description = _description(spec, titles)
        if description:
            lines.append(f"<!-- {description} -->")
        lines.append("(your content here)")
        lines.append("")
    return lines


def _hybrid(output: dict[str, Any], ensure_all_keys: Any, titles: Any, title: str) -> list[str]:
    lines = [
        f"[{title}]:",
        "Data Format: Structured Markdown with JSON blocks",
        "",
        "Respond in clearly separated sections. Each section MUST start with the exact",
        "markdown header shown below (### field_name).",
        "",
        "String text fields expect plain text content directly after the header.",
        "",
        "List, object, boolean, and number fields expect valid JSON inside a ```json code block.",
        "Write the opening ```json on its own line, then your JSON content, then",
        "the closing ``` on its own line.",
        "",
        "Separate sections with a blank line.",
    ]
    if ensure_all_keys:
        lines.extend(_ALL_REQUIRED_SECTIONS)
    lines.extend(requirement_lines(output, titles, "top_level"))
    lines.extend(("", "Required sections:", ""))
    for name, spec in output.items():
        kind = "text" if is_string_field(spec) else "json"
        description = _description(spec, titles)
        lines.append(f"- {name}: {kind}; {description}" if description else f"- {name}: {kind}")
    lines.extend(("", "Response skeleton:", ""))
    for name, spec in output.items():
        lines.append(f"### {name}")
        if is_string_field(spec):
            lines.append("(your content here)")
        else:
            lines.extend(("```json", value_example(spec), "```"))
        lines.append("")
    return lines


def _xml_field(output: dict[str, Any], ensure_all_keys: Any, titles: Any, title: str) -> list[str]:
    lines = [
        f"[{title}]:",
        "Data Format: XML-like field envelope",
        "",
        "Return exactly one <agently_output> payload. Each required field MUST be wrapped",
        'in <field name="field_name" type="text|json">...</field>.',
        'Use type="text" only for string prose/code fields. Use type="json" for',
        "lists, objects, booleans, numbers, and other strongly typed values.",
        "Text field content is raw text; it does not need XML entity escaping.",
    ]
    if ensure_all_keys:
        lines.extend(("", "All defined fields are required. Every field block listed below MUST appear."))
    lines.extend(requirement_lines(output, titles, "none"))
    lines.extend(("", "<agently_output>"))
    for name, spec in output.items():
        if is_string_field(spec):
            lines.extend((f'<field name="{name}" type="text">', "write text here", "</field>"))
        else:
            lines.extend((f'<field name="{name}" type="json">', value_example(spec), "</field>"))
    lines.extend(("</agently_output>", ""))
    return lines


def _yaml_literal_field(name: str, spec: Any, indent: int = 0) -> list[str]:
    if isinstance(spec, tuple) and spec:
        return _yaml_literal_field(name, spec[0], indent)
    pad = " " * indent
    if spec in (str, "str"):
        return [f"{pad}{name}: |", f"{pad}  write text here"]
    if spec in (bool, "bool", "boolean"):
        return [f"{pad}{name}: true"]
    if spec in (int, "int"):
        return [f"{pad}{name}: 3"]
    if spec in (float, "float", "number"):
        return [f"{pad}{name}: 3.14"]
    if isinstance(spec, dict):
        lines = [f"{pad}{name}:"]
        for child_name, child_spec in spec.items():
            lines.extend(_yaml_literal_field(str(child_name), child_spec, indent + 2))
        return lines
    if isinstance(spec, list):
        item = spec[0] if spec else (str,)
        lines = [f"{pad}{name}:"]
        if isinstance(item, dict):
            first = True
            for child_name, child_spec in item.items():
                rendered = _yaml_literal_field(str(child_name), child_spec, indent + 4)
                if first:
                    lines.append(" " * (indent + 2) + "- " + rendered[0].strip())
                    lines.extend(rendered[1:])
                    first = False
                else:
                    lines.extend(rendered)
        else:
            sample = "write text here" if item in (str, "str", (str,), ("str",)) else "3"
            lines.append(" " * (indent + 2) + f"- {sample}")
        return lines
    return [f'{pad}{name}: "..."']


def _yaml_literal(output: dict[str, Any], ensure_all_keys: Any, titles: Any, title: str) -> list[str]:
    lines = [
        f"[{title}]:",
        "Data Format: YAML literal document",
        "",
        "Return exactly one YAML document between these boundary lines:",
        "<<<BEGIN AGENTLY_YAML>>>",
        "<<<END AGENTLY_YAML>>>",
        "Use YAML literal block scalars (|) for long text/code fields.",
    ]
    if ensure_all_keys:
        lines.extend(("", "All defined fields are required. Every top-level key listed below MUST appear."))
    lines.extend(requirement_lines(output, titles, "none"))
    lines.extend(("", "<<<BEGIN AGENTLY_YAML>>>"))
    for name, spec in output.items():
        lines.extend(_yaml_literal_field(str(name), spec))
    lines.extend(("<<<END AGENTLY_YAML>>>", ""))
    return lines


_SECTIONED = {
    "flat_markdown": _flat_markdown,
    "hybrid": _hybrid,
    "xml_field": _xml_field,
    "yaml_literal": _yaml_literal,
}


def output_requirement_lines(output: Any, output_format: Any, ensure_all_keys: Any, titles: Any) -> list[str]:
    """The output-requirement lines for a truthy ``output`` (``titles`` already dict-checked)."""
    if output_format == "json":
        return _json(output, ensure_all_keys, titles, titles.get("output_requirement", "OUTPUT REQUIREMENT"))
    sectioned = _SECTIONED.get(output_format) if isinstance(output_format, str) else None
    if sectioned is not None:
        title = titles.get("output_requirement", "OUTPUT REQUIREMENT")
        return sectioned(sanitize(output), ensure_all_keys, titles, title)
    if output_format == "markdown":
        return [f"[{titles.get('output_requirement', 'OUTPUT REQUIREMENT')}]:", "Data Format: markdown text"]
    return []
