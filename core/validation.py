"""Turning pydantic's validation errors into promptwire errors that name the field.

Pydantic reports every problem with a location tuple; users want one line that says which field
and why, in the path spelling they write (``context[0].budget``).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .errors import FieldError, field_path

__all__ = ["validate_model"]

M = TypeVar("M", bound=BaseModel)


def validate_model(model: type[M], data: Any, *, root: str | None = None) -> M:
    """Validate ``data`` as ``model``; on failure raise one :class:`FieldError` for the first problem.

    ``root`` prefixes the path (e.g. the name of the argument the data came in).
    """
    if isinstance(data, model):
        return data
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _field_error(exc, root) from None


def _field_error(exc: ValidationError, root: str | None) -> FieldError:
    errors = exc.errors(include_url=False)
    first = errors[0]
    # Union members add their type name to the location ("str", "list[...]"); keep only real fields.
    location = [part for part in first["loc"] if not _is_union_tag(part)]
    path: list[str | int] = [root] if root else []
    path.extend(location)
    reason = first["msg"]
    if first["type"] == "extra_forbidden":
        reason = "unknown field"
    if len(errors) > 1:
        reason += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return FieldError(field_path(path), reason)


def _is_union_tag(part: str | int) -> bool:
    return isinstance(part, str) and (
        part in {"str", "int", "float", "bool", "none"} or "[" in part or part.startswith("function-")
    )
