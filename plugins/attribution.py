"""Calling a ``register_*`` hook through pluggy while knowing which plugin made each registration.

pluggy calls every implementation of a hook in one go (``pm.hook.register_renderers(register=...)``)
so that wrappers (``wrapper=True``, ``hookwrapper=True``) run around the other plugins'
implementations, as pluggy defines. It hands all of them the same ``register`` callback and gives
the host no word between two of them, yet a name clash must name both plugins and ``asrender
plugins`` must say who provides what. So ``register`` looks up the call stack for the innermost
frame that runs one of the hook's implementations: a wrapper's generator frame while it runs before
or after its ``yield``, a plain function's frame otherwise. Frames are matched by code object; when
one code object serves several plugins (two instances of one plugin class, closures made by one
plugin factory), by what the running frame is bound to: its ``self`` and its closure's values.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from types import CellType, CodeType, FrameType
from typing import Any

import pluggy

from ..core.errors import RegistrationError

__all__ = ["OnRegister", "call_register_hook"]

OnRegister = Callable[[Any, str, object], None]
"""Receives ``(obj, plugin_name, aliases)`` for every ``register`` call, in call order."""

_UNBOUND = object()


def call_register_hook(pm: pluggy.PluginManager, hook_name: str, on_register: OnRegister) -> None:
    """Call ``hook_name`` on every plugin of ``pm``; pass each registration on with its plugin's name."""
    hook: pluggy.HookCaller = getattr(pm.hook, hook_name)
    finder = _ImplementationFinder(hook.get_hookimpls())
    running = True

    def register(obj: Any, aliases: object = ()) -> None:
        if not running:
            raise RegistrationError(
                f"{hook_name}: register() was called after the hook returned; call it from the hook function"
            )
        on_register(obj, finder.calling_plugin(hook_name), aliases)

    try:
        hook(register=register)
    finally:
        running = False


class _ImplementationFinder:
    """Finds which of a hook's implementations is running, from the call stack."""

    def __init__(self, impls: Iterable[pluggy.HookImpl]) -> None:
        self._by_code: dict[CodeType, list[pluggy.HookImpl]] = {}
        for impl in impls:
            code = _code_of(impl.function)
            if code is not None:
                self._by_code.setdefault(code, []).append(impl)

    def calling_plugin(self, hook_name: str) -> str:
        frame = inspect.currentframe()
        try:
            while frame is not None:
                candidates = self._by_code.get(frame.f_code)
                if candidates:
                    return _pick(candidates, frame, hook_name).plugin_name
                frame = frame.f_back
        finally:
            del frame  # a frame kept in a local would keep the whole stack alive
        raise RegistrationError(
            f"{hook_name}: register() was called from outside the plugins' hook functions "
            "(another thread?); call it from the hook function"
        )


def _code_of(function: Callable[..., object]) -> CodeType | None:
    """The code that runs when pluggy calls ``function``, seen through bound methods and decorators."""
    target = inspect.unwrap(getattr(function, "__func__", function))
    code = getattr(target, "__code__", None)
    return code if isinstance(code, CodeType) else None


def _pick(candidates: list[pluggy.HookImpl], frame: FrameType, hook_name: str) -> pluggy.HookImpl:
    if len(candidates) == 1:
        return candidates[0]
    matches = [impl for impl in candidates if _same(_bindings(impl.function), _bindings_in(frame, impl.function))]
    if len(matches) == 1:
        return matches[0]
    names = ", ".join(repr(impl.plugin_name) for impl in candidates)
    raise RegistrationError(
        f"{hook_name}: plugins {names} share one hook function, so their registrations cannot be told apart; "
        "give each plugin its own function (or its own instance of a plugin class)"
    )


def _bindings(function: Callable[..., object]) -> tuple[object, ...]:
    """What ``function`` is bound to: the instance (or class) of a method, then its closure's values."""
    target = inspect.unwrap(getattr(function, "__func__", function))
    cells = getattr(target, "__closure__", None) or ()
    return (getattr(function, "__self__", _UNBOUND), *(_cell_value(cell) for cell in cells))


def _bindings_in(frame: FrameType, function: Callable[..., object]) -> tuple[object, ...]:
    """The same values, as the frame running ``function``'s code sees them."""
    code, values = frame.f_code, frame.f_locals
    bound = _UNBOUND
    if hasattr(function, "__self__") and code.co_argcount:
        bound = values.get(code.co_varnames[0], _UNBOUND)
    return (bound, *(values.get(name, _UNBOUND) for name in code.co_freevars))


def _cell_value(cell: CellType) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # a cell not yet filled
        return _UNBOUND


def _same(left: tuple[object, ...], right: tuple[object, ...]) -> bool:
    return len(left) == len(right) and all(a is b for a, b in zip(left, right, strict=True))
