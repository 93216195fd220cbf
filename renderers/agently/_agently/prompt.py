"""``AgentlyPrompt``: Agently 4.1.4.10's prompt generator as a pure object over a plain mapping.

It takes the values Agently's ``Prompt`` holds (``prompt.update(d)``) and Agently's dotted settings,
and answers the generator's seven methods with the same bytes. Nothing is read from the outside
world except through ``clock`` (for ``prompt.add_current_time``), and nothing is shared between
calls, so one instance may be used from several threads.

The rendering methods read the prompt object and lay it out (``layout``). The export
(``to_serializable_prompt_data``, ``to_json_prompt``, ``to_yaml_prompt``) is written here: it is
the raw prompt data (no validation, no empty check) with the output declaration's tuples spelled as
``{"$type", "$desc", "$ensure"}`` dicts, then sanitized. Sanitizing keeps tuples and sets, so JSON
turns tuples into arrays and cannot take a set, and YAML cannot take an Enum member; those two
refusals become :class:`AgentlyFieldError` naming the field.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from . import layout
from .declarations import is_long_content, is_model_class, normalize_ensure_marker, normalize_output
from .errors import AgentlyFieldError, notices_issued, printable, validation_field_error
from .native import output_template_schema
from .output_model import output_model
from .prompt_object import PromptObject, check_not_empty, prepare_data, read_prompt
from .sanitize import sanitize
from .storage import AgentlySettings, resolve_settings, store_prompt


def agently_clock() -> str:
    """The current local time as Agently writes it: ``2024-01-01 00:00:00 Monday``."""
    return datetime.now().strftime("%Y-%m-%d %H:%M:%S %A")


# --- the export -----------------------------------------------------------------------------------


def _spelled(declared: Any, part: tuple[Any, ...]) -> dict[str, Any]:
    """A field tuple as ``{"$type", "$desc", "$ensure"}`` (the last two only when set)."""
    result = {"$type": declared}
    if len(part) >= 2 and part[1]:
        result["$desc"] = part[1]
    if len(part) >= 3:
        ensure = normalize_ensure_marker(part[2])
        if ensure is not None:
            result["$ensure"] = ensure
    return result


def _serializable_output(part: Any) -> Any:
    part = normalize_output(part)
    if is_long_content(part):
        return _spelled("long_content", part)
    if not isinstance(part, (Mapping, Sequence)) or isinstance(part, str):
        return part
    if isinstance(part, Mapping):
        return {key: _serializable_output(value) for key, value in part.items()}
    if not isinstance(part, tuple):
        return [_serializable_output(item) for item in part]
    if not part:
        return []
    return _spelled(part[0], part)


def _serializable_data(data: Mapping[str, Any]) -> dict[str, Any]:
    """Agently's ``to_serializable_prompt_data()`` for the prompt's own keys."""
    prepared = dict(data)
    if "output" in prepared:
        try:
            prepared["output"] = _serializable_output(prepared["output"])
        except ValueError as error:
            raise AgentlyFieldError("output", str(error)) from None
    result: dict[str, Any] = sanitize(prepared)
    return result


def _first_path(value: Any, bad: Any, path: str) -> str | None:
    """The path (``output.tags``) of the first value ``bad`` accepts, in dump order."""
    if bad(value):
        return path
    if isinstance(value, dict):
        for key, item in value.items():
            found = _first_path(item, bad, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _first_path(item, bad, f"{path}[{index}]")
            if found is not None:
                return found
    return None


def _to_json(data: dict[str, Any]) -> str:
    try:
        return json.dumps(data, indent=2, ensure_ascii=False)
    except TypeError as error:
        path = _first_path(data, lambda value: isinstance(value, (set, frozenset)), "") or "<root>"
        raise AgentlyFieldError(
            path, f"a set cannot be written as JSON (Agently 4.1.4.10 fails with: TypeError: {error})"
        ) from None


def _not_yaml_safe(value: Any) -> bool:
    kind = type(value)
    if kind in (str, int, float, bool, type(None), dict, list, tuple, set):
        return False
    return isinstance(value, (str, int, float))


def _to_yaml(data: dict[str, Any]) -> str:
    try:
        return yaml.safe_dump(data, indent=2, allow_unicode=True, sort_keys=False)
    except yaml.representer.RepresenterError as error:
        path = _first_path(data, _not_yaml_safe, "") or "<root>"
        raise AgentlyFieldError(
            path,
            f"YAML cannot represent {error.args[1]!r} (an Enum member is not plain text) "
            f"(Agently 4.1.4.10 fails with: RepresenterError{error.args!r})",
        ) from None


def _item_view(view: dict[Any, Any]) -> dict[Any, Any]:
    """``dict(prompt)`` of an Agently prompt whose view is ``view``: a dotted key reads its path.

    ``dict()`` asks ``prompt[key]`` for each key, and Agently's ``StateData`` reads a dotted key
    as a path (``"info.user"`` -> ``view["info"]["user"]``, ``None`` when missing). Only a
    ``prompt_dict`` given to ``Prompt(...)`` can hold such a key: ``set`` and ``update`` walk it.
    """
    if not any(isinstance(key, str) and "." in key for key in view):
        return view
    items: dict[Any, Any] = {}
    for key, value in view.items():
        if isinstance(key, str) and "." in key:
            value = view
            for part in key.split("."):
                value = value[part] if isinstance(value, dict) and part in value else None
                if value is None:
                    break
        items[key] = value
    return items


def prompt_over_view(
    view: dict[Any, Any], settings: AgentlySettings, clock: Callable[[], str], *, exported: bool = False
) -> AgentlyPrompt:
    """An :class:`AgentlyPrompt` over data Agently already holds (the plugin's path).

    ``view`` is what Agently's ``StateData.get()`` returns (its own copy, parents merged in), so it
    is used as it is: not copied again, and its keys not read as paths the way ``AgentlyPrompt``'s
    constructor reads a user's keys. ``exported`` says the view feeds an export method, which
    Agently writes from the view itself; the rendering methods read ``dict(prompt)``
    (:func:`_item_view`). ``settings`` are the values Agently's settings hold now.
    """
    prompt = AgentlyPrompt.__new__(AgentlyPrompt)
    prompt._data = view if exported else _item_view(view)
    prompt._settings = settings
    prompt._clock = clock
    prompt._fixed = False  # made for one call: nothing to keep
    prompt._read = None
    prompt._main = None
    return prompt


# --- the generator -------------------------------------------------------------------------------


class AgentlyPrompt:
    """One Agently prompt, rendered exactly as agently 4.1.4.10's ``AgentlyPromptGenerator`` does.

    ``prompt`` holds what Agently accepts (``{"input": ..., "output": {"reply": (str, "...")}}``);
    ``settings`` uses Agently's dotted keys (``prompt.role_mapping``, ``prompt.prompt_title_mapping``,
    ``prompt.add_current_time``, ``prompt.default_output_format``) over Agently's defaults; ``clock``
    returns the time text for ``add_current_time`` (default: the local clock).

    The mapping's containers are copied when the object is built (as Agently copies what it
    stores); other objects inside (pydantic models, custom values) are shared, not copied.

    A request asks for the text and then the messages, and both start from the same prompt object
    and main prompt. When nothing in the prompt can print differently later (only text, numbers,
    classes, Enum members, dates... no shared object of another kind) and reading it warned of
    nothing, the object keeps the two after the first call, so the second costs only its framing.
    """

    __slots__ = ("_clock", "_data", "_fixed", "_main", "_read", "_settings")

    def __init__(
        self,
        prompt: Mapping[str, Any],
        settings: Mapping[str, Any] | None = None,
        *,
        clock: Callable[[], str] | None = None,
    ) -> None:
        changing: list[Any] = []
        with printable(prompt if isinstance(prompt, Mapping) else {}):
            self._data = store_prompt(prompt, changing=changing)
        if settings:
            with printable({"settings": settings}):
                self._settings: AgentlySettings = resolve_settings(settings, changing)
        else:
            self._settings = resolve_settings(settings)  # the defaults, nothing to walk
        self._clock: Callable[[], str] = clock or agently_clock
        self._fixed = not changing
        self._read: PromptObject | None = None
        self._main: str | None = None

    def __repr__(self) -> str:
        return f"AgentlyPrompt({self._data!r})"

    def _prompt(self) -> PromptObject:
        """The prompt object (``to_prompt_object()``), kept when reading it again would give the same."""
        prompt = self._read
        if prompt is None:
            issued = notices_issued()
            prompt = read_prompt(self._data, self._settings)
            if self._fixed and notices_issued() == issued:
                self._read = prompt
        return prompt

    def _main_prompt(self, prompt: PromptObject) -> str:
        """The main prompt (every section after the chat history), kept like the prompt object."""
        main = self._main
        if main is None:
            issued = notices_issued()
            main = layout.main_prompt(prompt, self._settings)
            if self._fixed and notices_issued() == issued:
                self._main = main
        return main

    def to_text(self, role_mapping: Mapping[str, str] | None = None) -> str:
        """The whole prompt as one string: ``user:``, the sections, ``assistant:``."""
        with printable(self._data):
            prompt = self._prompt()
            check_not_empty(prompt)
            return layout.to_text(prompt, self._settings, role_mapping, self._clock, lambda: self._main_prompt(prompt))

    def to_messages(
        self,
        role_mapping: Mapping[str, str] | None = None,
        rich_content: bool | None = False,
        strict_role_orders: bool | None = True,
    ) -> list[dict[str, Any]]:
        """Chat messages: system, developer, chat history, then the user turn(s)."""
        with printable(self._data):
            prompt = self._prompt()
            check_not_empty(prompt)
            return layout.to_messages(
                prompt,
                self._settings,
                role_mapping,
                rich_content,
                strict_role_orders,
                self._clock,
                lambda: self._main_prompt(prompt),
                layout.agently_message,
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
        try:
            judgment = output_template_schema(declared)
        except ValueError as error:
            raise AgentlyFieldError("output", str(error)) from None
        if judgment is not None:
            from pydantic import RootModel

            root: Any = RootModel  # parametrised with a value, as Agently does
            model: type[BaseModel] = root[judgment[0]]
            return model
        if is_model_class(declared):
            return declared
        with printable(self._data):
            prompt = self._prompt()
            return output_model(prompt.output, prompt.ensure_all_keys, strict_output)

    def to_serializable_prompt_data(self, inherit: bool = False) -> dict[str, Any]:
        """The prompt as plain data, output tuples spelled ``{"$type", "$desc", "$ensure"}``.

        ``inherit`` is accepted for Agently's signature; a mapping has no parent prompt.
        """
        with printable(self._data):
            return _serializable_data(self._data)

    def to_json_prompt(self, inherit: bool = False) -> str:
        with printable(self._data):
            return _to_json(_serializable_data(self._data))

    def to_yaml_prompt(self, inherit: bool = False) -> str:
        with printable(self._data):
            return _to_yaml(_serializable_data(self._data))
