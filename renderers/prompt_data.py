"""The reader of prompts written directly as data (JSON or YAML in the core model's shape)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.errors import FieldError
from ..core.prompt import Prompt
from ..core.validation import validate_model

__all__ = ["PromptReader", "reader"]


class PromptReader:
    name = "prompt"
    description = "the core Prompt model as JSON/YAML data"

    def read(self, data: Any) -> Prompt:
        """``data`` as a :class:`Prompt`; anything but a mapping is refused in the words a user
        knows (an empty YAML file is ``None``, which pydantic would call "<root>: Input should be a
        valid dictionary or instance of Prompt")."""
        fields = "a mapping of Prompt fields (instruction, context, ...)"
        if data is None:
            raise FieldError("prompt", f"the document is empty; prompt data is {fields}")
        if not isinstance(data, Mapping | Prompt):
            raise FieldError("prompt", f"must be {fields}, not {type(data).__name__}")
        return validate_model(Prompt, data)


reader = PromptReader()
