"""The reader of prompts written directly as data (JSON or YAML in the core model's shape)."""

from __future__ import annotations

from typing import Any

from ..core.prompt import Prompt
from ..core.validation import validate_model

__all__ = ["PromptReader", "reader"]


class PromptReader:
    name = "prompt"
    description = "the core Prompt model as JSON/YAML data"

    def read(self, data: Any) -> Prompt:
        return validate_model(Prompt, data)


reader = PromptReader()
