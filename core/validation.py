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
    # Plain data (a dict) is told by its class first: ``isinstance`` against a model class goes
    # through the ABC machinery of pydantic's metaclass. The validator is called as
    # ``model_validate`` calls it, without its keywords to pass on (5k instructions a prompt).
    if data.__class__ is not dict and isinstance(data, model):
        return data
    try:
        return model.__pydantic_validator__.validate_python(data)  # type: ignore[no-any-return]
    except ValidationError as exc:
        raise _field_error(exc, data, root) from None


def _field_error(exc: ValidationError, data: Any, root: str | None) -> FieldError:
    errors = exc.errors(include_url=False)
    first = errors[0]
    path: list[str | int] = [root] if root else []
    path.extend(_path_in_input(first["loc"], data, missing=first["type"] == "missing"))
    reason = first["msg"]
    if first["type"] == "extra_forbidden":
        reason = "unknown field"
    cause = first.get("ctx", {}).get("error")
    if isinstance(cause, FieldError):  # a model validator that already named the field inside the model
        path.append(cause.field)
        reason = cause.reason
    if len(errors) > 1:
        reason += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return FieldError(field_path(path), reason)


def _path_in_input(location: tuple[str | int, ...], data: Any, *, missing: bool) -> list[str | int]:
    """Keep the parts of pydantic's location that exist in the user's data.

    Pydantic also puts union arms (``str``, ``list[...]``), discriminator tags (``image``) and
    sub-fields of values given in shorthand (``budget: "0k"`` -> ``amount``) into the location;
    the user never wrote those. A missing field is the one part kept although absent.
    """
    path: list[str | int] = []
    current = data
    last = len(location) - 1
    for index, part in enumerate(location):
        found, child = _child(current, part)
        if found:
            current = child
        elif not (missing and index == last and isinstance(current, dict)):
            continue
        path.append(part)
    return path


def _child(container: Any, part: str | int) -> tuple[bool, Any]:
    if isinstance(container, dict) and part in container:
        return True, container[part]
    if isinstance(container, list | tuple) and isinstance(part, int) and 0 <= part < len(container):
        return True, container[part]
    return False, None
