"""promptwire as Agently's prompt generator: ``activate()`` and ``deactivate()``.

Agently (4.1.4.10) builds every request from the active ``PromptGenerator`` plugin: each ``Prompt``
it creates binds ``to_text``, ``to_messages``, ``to_prompt_object``, ``to_output_model``,
``to_serializable_prompt_data``, ``to_json_prompt`` and ``to_yaml_prompt`` from an instance of it.
:func:`activate` registers :class:`PromptwirePromptGenerator` with Agently's global plugin manager
and makes it the active one, so prompts, agents, requests and sessions created afterwards render
through :class:`~promptwire.renderers.agently.AgentlyPrompt`; :func:`deactivate` gives the place
back to the generator that was active before.

Each call reads what Agently's generator reads, when it is called: the prompt's data with its
parents' (an execution's prompt inherits its agent's), Agently's merged ``prompt.*`` settings
(global -> agent -> prompt, changed at any time) and Agently's clock (``TimeInfo``). Agently is
imported by :func:`activate` only; this module imports nothing of it.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Final

from ._agently.prompt import AgentlyPrompt, prompt_over_view
from ._agently.storage import AgentlySettings, merge_levels, resolve_settings, resolved_settings

if TYPE_CHECKING:
    from pydantic import BaseModel

PLUGIN_TYPE: Final = "PromptGenerator"
_ABSENT: Any = object()
_ACTIVE_KEY = "plugins.PromptGenerator.activate"


def _agently_clock() -> str:
    """Agently's own clock, looked up at each call (a test may replace ``TimeInfo.get_current_time``)."""
    from agently.utils.TimeInfo import TimeInfo

    return str(TimeInfo.get_current_time())


class PromptwirePromptGenerator:
    """Agently's ``PromptGenerator`` plugin answered by promptwire, byte for byte as 4.1.4.10's own.

    ``prompt`` is Agently's ``Prompt`` (or any ``StateData``, as Agently's Jev requester passes),
    ``settings`` the prompt's ``Settings``. Nothing is cached between calls: a prompt or setting
    changed after the generator was made is seen by the next call, as with Agently's generator.
    """

    name = "PromptwirePromptGenerator"
    # Agently's own generator sets prompt.add_current_time to False when registered; registering
    # this one must not undo a user's setting, so it declares nothing.
    DEFAULT_SETTINGS: ClassVar[dict[str, Any]] = {}

    def __init__(self, prompt: Any, settings: Any) -> None:
        self.prompt = prompt
        self.settings = settings

    @staticmethod
    def _on_register() -> None:
        """Nothing to prepare: the generator holds no state of its own."""

    @staticmethod
    def _on_unregister() -> None:
        """Nothing to release."""

    def _settings(self) -> AgentlySettings:
        """The four settings the generator reads, with the values Agently's generator reads now.

        Agently reads each with ``settings.get("prompt.<name>")``, which merges the whole settings
        tree of every level (global -> agent -> request -> prompt, every plugin's settings in it)
        into a fresh copy first, several times per call. Only the ``prompt`` entries matter, so
        each level's own one is read (``inherit=False``, nothing copied) and they are merged as
        Agently merges levels (``storage.merge_levels``): the same values, without the copies.
        """
        levels: list[Mapping[str, Any]] = []
        level = self.settings
        while level is not None:
            own = level.get("prompt", _ABSENT, inherit=False)
            levels.append({} if own is _ABSENT else {"prompt": own})
            level = getattr(level, "parent", None)
        return resolved_settings(merge_levels(levels))

    def _rendered(self, *, settings_read: str = "always", inherit: bool = True) -> AgentlyPrompt:
        """The prompt as it is now (its parents' data merged in unless ``inherit`` is false).

        ``settings_read`` says when Agently's method reads the settings, so that promptwire reads
        them no more often: ``"always"`` (the text and the messages), ``"with output"``
        (``to_prompt_object`` reads the default output format only when the prompt has an
        output) or ``"never"`` (the exports, which write the view itself and read no ``dict(prompt)``).
        """
        view = self.prompt.get(default={}, inherit=inherit)
        if settings_read == "always" or (settings_read == "with output" and "output" in view):
            settings = self._settings()
        else:
            settings = resolve_settings(None)
        return prompt_over_view(view, settings, _agently_clock, exported=settings_read == "never")

    def to_text(self, *, role_mapping: Mapping[str, str] | None = None) -> str:
        return self._rendered().to_text(role_mapping)

    def to_messages(
        self,
        *,
        role_mapping: Mapping[str, str] | None = None,
        rich_content: bool | None = False,
        strict_role_orders: bool | None = True,
    ) -> list[dict[str, Any]]:
        return self._rendered().to_messages(role_mapping, rich_content, strict_role_orders)

    def to_prompt_object(self) -> Any:
        return self._rendered(settings_read="with output").to_prompt_object()

    def to_output_model(self, *args: Any, strict_output: bool | None = None, **kwargs: Any) -> type[BaseModel]:
        return self._rendered(settings_read="with output").to_output_model(strict_output)

    def to_serializable_prompt_data(self, inherit: bool = False) -> dict[str, Any]:
        return self._rendered(settings_read="never", inherit=inherit).to_serializable_prompt_data()

    def to_json_prompt(self, inherit: bool = False) -> str:
        return self._rendered(settings_read="never", inherit=inherit).to_json_prompt()

    def to_yaml_prompt(self, inherit: bool = False) -> str:
        return self._rendered(settings_read="never", inherit=inherit).to_yaml_prompt()


_lock = threading.Lock()
_replaced: list[Any] = []  # the generator name that was active before activate(), while active


def activate() -> None:
    """Make promptwire Agently's prompt generator (for prompts, agents and requests created from now on).

    Registered with Agently's global plugin manager, as Agently registers its own. A prompt that
    already exists keeps the generator it was made with. Calling it again changes nothing.
    """
    from agently.base import plugin_manager, settings

    with _lock:
        current = settings.get(_ACTIVE_KEY)
        if current == PromptwirePromptGenerator.name:
            return
        plugin_manager.register(PLUGIN_TYPE, PromptwirePromptGenerator)  # type: ignore[arg-type]
        _replaced[:] = [current]


def deactivate() -> None:
    """Give Agently its generator back (the one active before :func:`activate`); a no-op when inactive."""
    from agently.base import plugin_manager, settings

    with _lock:
        if not _replaced:
            return
        previous = _replaced.pop()
        settings.set(_ACTIVE_KEY, previous)
        name = PromptwirePromptGenerator.name
        plugin_manager.unregister(PLUGIN_TYPE, name)
        # Agently 4.1.4.10's unregister deletes the class from a copy of its registry (the
        # inherited view), so the entry is removed here; so is the settings entry register() made.
        plugin_manager.plugins.delete(f"{PLUGIN_TYPE}.{name}")
        settings.delete(f"plugins.{PLUGIN_TYPE}.{name}")


def is_active() -> bool:
    """Whether Agently's global settings name promptwire's generator as the active one."""
    import sys

    base = sys.modules.get("agently.base")
    return base is not None and base.settings.get(_ACTIVE_KEY) == PromptwirePromptGenerator.name
