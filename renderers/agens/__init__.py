"""Agens 0.2.0 (Elixir, hex ``agens``): both directions of the dialect, one module per job.

* :mod:`.message`: the input model, :class:`AgensMessage` (the ``Agens.Message`` fields that feed the prompt);
* :mod:`.reader`: the reader, an Agens message -> a core :class:`~promptwire.core.prompt.Prompt`
  (:func:`to_prompt`; ``reader`` is the registered ``--from agens`` reader);
* :mod:`.renderer`: the renderer, any ``Prompt`` -> Agens' ``{system, user}`` strings (``renderer``);
* :mod:`.front_door`: Agens' own entry points, :func:`build` and :func:`render`, a message straight to
  pairs or strings (the reader, then the renderer);
* :mod:`.jason`: JSON exactly as Elixir's Jason prints it; :mod:`.chars`: Elixir's ``String.Chars``;
* :mod:`.prefixes`, :mod:`.options`, :mod:`.native`: the headings, the options, ``Prompt.native["agens"]``.
"""

from .front_door import build, render
from .message import AgensMessage, AgensResource
from .native import AgensNative
from .prefixes import DEFAULT_PREFIXES, GENERIC_RETRY, SYSTEM_FIELDS, USER_FIELDS, Order, Pair, Prefix
from .reader import AgensReader, reader, to_prompt
from .renderer import AgensRenderer, prompt_pairs, renderer

__all__ = [
    "DEFAULT_PREFIXES",
    "GENERIC_RETRY",
    "SYSTEM_FIELDS",
    "USER_FIELDS",
    "AgensMessage",
    "AgensNative",
    "AgensReader",
    "AgensRenderer",
    "AgensResource",
    "Order",
    "Pair",
    "Prefix",
    "build",
    "prompt_pairs",
    "reader",
    "render",
    "renderer",
    "to_prompt",
]
