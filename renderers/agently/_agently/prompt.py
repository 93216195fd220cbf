"""``AgentlyPrompt``: Agently 4.1.4.10's prompt generator as a pure object over a plain mapping.

It takes the values Agently's ``Prompt`` holds (``prompt.update(d)``) and Agently's dotted settings,
and answers the generator's seven methods with the same bytes. Nothing is read from the outside
world except through ``clock`` (for ``prompt.add_current_time``), and nothing is shared between
calls, so one instance may be used from several threads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ValidationError

from . import layout
from .declarations import is_model_class
from .errors import printable, validation_field_error
from .output_model import output_model
from .prompt_object import check_not_empty, prepare_data, read_prompt
from .serialization import serializable_data, to_json, to_yaml
from .storage import AgentlySettings, resolve_settings, store_prompt

__all__ = ["AgentlyPrompt", "agently_clock"]


def agently_clock() -> str:
    """The current local time as Agently writes it: ``2024-01-01 00:00:00 Monday``."""
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S %A")


class AgentlyPrompt:
    """One Agently prompt, rendered exactly as agently 4.1.4.10's ``AgentlyPromptGenerator`` does.

    ``prompt`` holds what Agently accepts (``{"input": ..., "output": {"reply": (str, "...")}}``);
    ``settings`` uses Agently's dotted keys (``prompt.role_mapping``, ``prompt.prompt_title_mapping``,
    ``prompt.add_current_time``, ``prompt.default_output_format``) over Agently's defaults; ``clock``
    returns the time text for ``add_current_time`` (default: the local clock).

    The mapping's containers are copied when the object is built (as Agently copies what it
    stores); other objects inside (pydantic models, custom values) are shared, not copied.
    """

    __slots__ = ("_clock", "_data", "_settings")

    def __init__(
        self,
        prompt: Mapping[str, Any],
        settings: Mapping[str, Any] | None = None,
        *,
        clock: Callable[[], str] | None = None,
    ) -> None:
        with printable(prompt if isinstance(prompt, Mapping) else {}):
            self._data = store_prompt(prompt)
        with printable({"settings": settings}):
            self._settings: AgentlySettings = resolve_settings(settings)
        self._clock: Callable[[], str] = clock or agently_clock

    def __repr__(self) -> str:
        return f"AgentlyPrompt({self._data!r})"

    def to_text(self, role_mapping: Mapping[str, str] | None = None) -> str:
        """The whole prompt as one string: ``user:``, the sections, ``assistant:``."""
        with printable(self._data):
            prompt = read_prompt(self._data, self._settings)
            check_not_empty(prompt)
            return layout.to_text(prompt, self._settings, role_mapping, self._clock)

    def to_messages(
        self,
        role_mapping: Mapping[str, str] | None = None,
        rich_content: bool | None = False,
        strict_role_orders: bool | None = True,
    ) -> list[dict[str, Any]]:
        """Chat messages: system, developer, chat history, then the user turn(s)."""
        with printable(self._data):
            prompt = read_prompt(self._data, self._settings)
            check_not_empty(prompt)
            return layout.to_messages(
                prompt, self._settings, role_mapping, rich_content, strict_role_orders, self._clock
            )

    def to_prompt_object(self) -> Any:
        """Agently's validated ``PromptModel`` (a pydantic model with the same fields and dump)."""
        from .model import PromptModel

        # The fast reader validates first: its errors name the field (pydantic's, raised inside
        # plain validators, would not); the model then gives Agently's exact dump.
        read_prompt(self._data, self._settings, warn=False)
        try:
            return PromptModel(**prepare_data(self._data, self._settings))
        except ValidationError as error:  # pragma: no cover - read_prompt rejects these first
            raise validation_field_error([], error) from None

    def to_output_model(self, strict_output: bool | None = None) -> type[BaseModel]:
        """A pydantic model class that validates an answer to this prompt's ``output``."""
        declared = self._data.get("output")
        if is_model_class(declared):
            return declared
        with printable(self._data):
            prompt = read_prompt(self._data, self._settings)
            return output_model(prompt.output, prompt.ensure_all_keys, strict_output)

    def to_serializable_prompt_data(self, inherit: bool = False) -> dict[str, Any]:
        """The prompt as plain data, output tuples spelled ``{"$type", "$desc", "$ensure"}``.

        ``inherit`` is accepted for Agently's signature; a mapping has no parent prompt.
        """
        with printable(self._data):
            return serializable_data(self._data)

    def to_json_prompt(self, inherit: bool = False) -> str:
        with printable(self._data):
            return to_json(serializable_data(self._data))

    def to_yaml_prompt(self, inherit: bool = False) -> str:
        with printable(self._data):
            return to_yaml(serializable_data(self._data))
