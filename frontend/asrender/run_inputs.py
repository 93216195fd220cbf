"""What a program run reads besides the program: its input object and the canned model replies.

``asrender`` and the inspector page read them alike, as the reference reads them: JSON (or YAML)
files, numbers as JavaScript's ``JSON.parse`` gives them.
"""

from __future__ import annotations

from typing import Any

from .inputs import PromptFileError, parse_data, read_text

__all__ = ["canned_responses", "js_numbers", "program_input"]


def program_input(inline: str | None, file: str | None, max_bytes: int) -> dict[str, Any]:
    """The program's input: the ``--input`` text, else the file's, else ``{}``; a JSON object."""
    if inline is not None:
        text, label = inline, "--input"
    elif file is not None:
        text, label = read_text(file, file, max_bytes), file
    else:
        return {}
    value = js_numbers(parse_data(text, label, json_by_name=True))
    if not isinstance(value, dict):
        raise PromptFileError(f"{label} must be a JSON object")
    return value


def canned_responses(file: str | None, max_bytes: int) -> list[Any] | None:
    """The replies the offline adapter gives in order, from a JSON array; None without a file."""
    if file is None:
        return None
    responses = parse_data(read_text(file, file, max_bytes), file, json_by_name=True)
    if not isinstance(responses, list):
        raise PromptFileError(f"{file}: canned responses must be a JSON array")
    return list(js_numbers(responses))


def js_numbers(value: Any) -> Any:
    """JSON read as JavaScript's JSON.parse reads it: every number is a double, so an integer past
    2**53 keeps only a double's precision (as the reference sees the same input)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if abs(value) <= 2**53 else float(value)
    if isinstance(value, list):
        return [js_numbers(item) for item in value]
    if isinstance(value, dict):
        return {key: js_numbers(item) for key, item in value.items()}
    return value
