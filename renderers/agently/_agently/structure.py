"""The JSON-like skeletons Agently shows the model: ``"key": <type>, // description``.

Two shapes: the annotated structure of the json format and of tool ``kwargs``/``returns``
(``render_structure``), and the bare example values of the hybrid and xml_field formats
(``value_example``). Both take sanitized data, where classes are already names (``str`` -> ``"str"``).
Agently's quirks are part of the bytes and kept: keys are not escaped, a dict or list that is the
first element of a tuple is indented one level too deep, dict entries whose tuple has an empty
description end in a bare `` //``, list items get a comma even when last, then ``...``.
"""

from __future__ import annotations

from typing import Any

from .declarations import is_long_content
from .slots import replace_slots

__all__ = ["render_structure", "value_example"]


def render_structure(value: Any, titles: Any, layer: int = 0) -> str:
    """Agently's ``_generate_json_output_prompt(value, layer)``."""
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


def value_example(value: Any) -> str:
    """Agently's ``_generate_json_value_example``: a sample JSON value for one field."""
    if isinstance(value, tuple) and value:
        return value_example(value[0])
    if value in (str, "str"):
        return '"..."'
    if value in (int, "int"):
        return "3"
    if value in (float, "float", "number"):
        return "3.14"
    if value in (bool, "bool", "boolean"):
        return "true"
    if isinstance(value, dict):
        items = [f'"{key}": {value_example(child)}' for key, child in value.items()]
        return "{\n  " + ",\n  ".join(items) + "\n}" if items else "{}"
    if isinstance(value, list):
        rendered = value_example(value[0] if value else (str,))
        if "\n" in rendered:
            return "[\n  " + "\n  ".join(rendered.splitlines()) + "\n]"
        return f"[{rendered}]"
    return '"..."'
