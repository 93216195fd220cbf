"""The ``[OUTPUT REQUIREMENT]`` block, in each of Agently's output formats, with Agently's exact lines.

``json`` shows an annotated structure; ``markdown`` asks for text; the four 4.1 formats
(``flat_markdown``, ``hybrid``, ``xml_field``, ``yaml_literal``) describe a sectioned answer, one
section per top-level field. ``text`` and unknown format names add nothing. Under the structure come
the "Field requirements:" lines (new in Agently 4.1): what the structure cannot show, ensure markers
(``(type, desc, True)`` / ``"not_null"``) and the constraints carried over from a pydantic output
model (length, range, enum, pattern...); the walk, the wording and the order follow Agently's
``output_contract`` module.

The skeletons take sanitized data, where classes are already names (``str`` -> ``"str"``): the
annotated structure ``"key": <type>, // description`` (``render_structure``, also used for tool
``kwargs``/``returns``) and the bare example values of the hybrid and xml_field formats
(``_value_example``). Agently's quirks are part of the bytes and kept: keys are not escaped, a dict or
list that is the first element of a tuple is indented one level too deep, dict entries whose tuple
has an empty description end in a bare `` //``, list items get a comma even when last, then ``...``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from .declarations import contract_of, ensure_policy, is_long_content
from .sanitize import sanitize
from .slots import replace_slots

# --- the structure ------------------------------------------------------------------------------


def render_structure(value: Any, titles: Any, layer: int = 0) -> str:
    """Agently's ``_generate_json_output_prompt(value, layer)``."""
    if type(value) is str:  # a sanitized type name, the usual leaf
        return f"<{value}>"
    if isinstance(value, dict):
        if not value:
            return "{}"
        next_indent = "  " * (layer + 1)
        lines = ["{"]
        last = len(value) - 1
        for index, (key, item) in enumerate(value.items()):
            rendered = render_structure(item, titles, layer + 1)
            comment = ""
            if isinstance(item, tuple) and len(item) > 1:
                comment = " //"
                if item[1]:
                    comment += f" {replace_slots(item[1], titles)}"
            comma = "," if index < last else ""
            lines.append(f'{next_indent}"{key}": {rendered}{comma}{comment}')
        lines.append("  " * layer + "}")
        return "\n".join(lines)
    if isinstance(value, (list, set)):
        if not value:
            return "[]"
        next_indent = "  " * (layer + 1)
        lines = ["["]
        for item in value:
            rendered = render_structure(item, titles, layer + 1)
            comment = ""
            if isinstance(item, tuple) and len(item) > 1 and item[1]:
                comment = f" // {replace_slots(item[1], titles)}"
            lines.append(f"{next_indent}{rendered},{comment}")
        lines.append(f"{next_indent}...")
        lines.append("  " * layer + "]")
        return "\n".join(lines)
    if isinstance(value, tuple) and value:
        if is_long_content(value):
            return "<str>"
        if isinstance(value[0], (dict, list, set)):
            return render_structure(value[0], titles, layer + 1)
        return f"<{value[0]!s}>"
    if isinstance(value, type):
        return f"<{type(value).__name__}>"
    return f"<{value!s}>"


def _value_example(value: Any) -> str:
    """Agently's ``_generate_json_value_example``: a sample JSON value for one field."""
    if isinstance(value, tuple) and value:
        return _value_example(value[0])
    if value in (str, "str"):
        return '"..."'
    if value in (int, "int"):
        return "3"
    if value in (float, "float", "number"):
        return "3.14"
    if value in (bool, "bool", "boolean"):
        return "true"
    if isinstance(value, dict):
        items = [f'"{key}": {_value_example(child)}' for key, child in value.items()]
        return "{\n  " + ",\n  ".join(items) + "\n}" if items else "{}"
    if isinstance(value, list):
        rendered = _value_example(value[0] if value else (str,))
        if "\n" in rendered:
            return "[\n  " + "\n  ".join(rendered.splitlines()) + "\n]"
        return f"[{rendered}]"
    return '"..."'


# --- field requirements -------------------------------------------------------------------------

_InlineDescriptions = Literal["all", "top_level", "none"]


def _compact_json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)


def _span(low: Any, high: Any) -> str:
    if low is not None and high is not None:
        return f"{low}..{high}"
    return f">= {low}" if low is not None else f"<= {high}"


def _contract_notes(contract: Mapping[str, Any]) -> list[str]:
    notes: list[str] = []
    if contract.get("required", False):
        notes.append("required")
        notes.append("null is allowed" if contract.get("nullable", False) else "must not be null")
    constraints = contract.get("constraints")
    if not isinstance(constraints, Mapping):
        return notes
    get = constraints.get
    exclusive_minimum, minimum = get("exclusiveMinimum"), get("minimum")
    exclusive_maximum, maximum = get("exclusiveMaximum"), get("maximum")
    lower = (
        f"> {exclusive_minimum}"
        if exclusive_minimum is not None
        else (f">= {minimum}" if minimum is not None else None)
    )
    upper = (
        f"< {exclusive_maximum}"
        if exclusive_maximum is not None
        else (f"<= {maximum}" if maximum is not None else None)
    )
    if get("minLength") is not None or get("maxLength") is not None:
        notes.append(f"length: {_span(get('minLength'), get('maxLength'))} characters")
    if get("minItems") is not None or get("maxItems") is not None:
        notes.append(f"item count: {_span(get('minItems'), get('maxItems'))}")
    if get("minProperties") is not None or get("maxProperties") is not None:
        notes.append(f"property count: {_span(get('minProperties'), get('maxProperties'))}")
    if lower or upper:
        notes.append("value: " + " and ".join(bound for bound in (lower, upper) if bound))
    if "multipleOf" in constraints:
        notes.append(f"multiple of {constraints['multipleOf']}")
    if "enum" in constraints:
        notes.append(f"allowed values: {_compact_json(constraints['enum'])}")
    if "const" in constraints:
        notes.append(f"constant value: {_compact_json(constraints['const'])}")
    if "pattern" in constraints:
        notes.append(f"pattern: {constraints['pattern']}")
    if "format" in constraints and contract.get("value_kind") == "string":
        notes.append(f"format: {constraints['format']}")
    return notes


def _parts(spec: tuple[Any, ...], titles: Any, include_description_only: bool) -> list[str]:
    description = ""
    if len(spec) >= 2 and spec[1]:
        description = str(replace_slots(spec[1], titles))
    contract = contract_of(spec)
    if contract is not None:
        notes = _contract_notes(contract)
        return [description, *notes] if description and (notes or include_description_only) else notes
    policy = ensure_policy(spec[2] if len(spec) >= 3 else None)
    if policy == "presence":
        notes = ["required key", "null or empty values are allowed"]
    elif policy == "not_null":
        notes = ["required key", "value must not be null, blank, or empty"]
    else:
        return [description] if description and include_description_only else []
    return [description, *notes] if description else notes


def _requirement_lines(output: Any, titles: Any, inline_descriptions: _InlineDescriptions = "all") -> list[str]:
    """``["", "Field requirements:", "- path: part; part", ...]``, or ``[]`` when nothing is required."""
    found: list[str] = []

    def walk(value: Any, path: str, depth: int) -> None:
        if isinstance(value, tuple):
            parts = _parts(
                value,
                titles,
                inline_descriptions == "none" or (inline_descriptions == "top_level" and depth > 1),
            )
            if path and parts:
                found.append(f"- {path}: {'; '.join(parts)}")
            if value:
                walk(value[0], path, depth)
        elif isinstance(value, Mapping):
            for key, child in value.items():
                walk(child, f"{path}.{key}" if path else str(key), depth + 1)
        elif isinstance(value, (list, set)):
            for child in value:
                walk(child, f"{path}[*]" if path else "[*]", depth + 1)

    walk(output, "", 0)
    if not found:
        return []
    return ["", "Field requirements:", *found]


# --- the formats ----------------------------------------------------------------------------------

_ALL_REQUIRED_SECTIONS = [
    "",
    "All defined fields are required. Every section header listed below MUST appear",
    "in your response exactly as specified.",
]


def _is_string_field(spec: Any) -> bool:
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
    if _is_string_field(output):
        lines.append("Return one JSON string value with JSON quotation marks, not an object or array.")
    if ensure_all_keys:
        lines.append("Output Guarantee: STRICT structure")
        lines.append("All defined fields are required and extra fields are not allowed.")
    lines.append("Data Structure:")
    lines.append(render_structure(final, titles))
    lines.extend(_requirement_lines(final, titles))
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
    lines.extend(_requirement_lines(output, titles, "top_level"))
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
    lines.extend(_requirement_lines(output, titles, "top_level"))
    lines.extend(("", "Required sections:", ""))
    for name, spec in output.items():
        kind = "text" if _is_string_field(spec) else "json"
        description = _description(spec, titles)
        lines.append(f"- {name}: {kind}; {description}" if description else f"- {name}: {kind}")
    lines.extend(("", "Response skeleton:", ""))
    for name, spec in output.items():
        lines.append(f"### {name}")
        if _is_string_field(spec):
            lines.append("(your content here)")
        else:
            lines.extend(("```json", _value_example(spec), "```"))
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
    lines.extend(_requirement_lines(output, titles, "none"))
    lines.extend(("", "<agently_output>"))
    for name, spec in output.items():
        if _is_string_field(spec):
            lines.extend((f'<field name="{name}" type="text">', "write text here", "</field>"))
        else:
            lines.extend((f'<field name="{name}" type="json">', _value_example(spec), "</field>"))
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
    lines.extend(_requirement_lines(output, titles, "none"))
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
