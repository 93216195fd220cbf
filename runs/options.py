"""How a run is made: the one record the library and the command line build a run from.

Whoever starts a run builds it once (the command line from its flags, ``asrender snapshot`` and the
inspector from the defaults, Python callers) and varies it with :func:`dataclasses.replace`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from ..core.records import FACTORY, dataclass_record

if TYPE_CHECKING:
    from ..calls.counting import Count
    from ..calls.recording import Recorder, Recording
    from ..calls.watch import Watcher
    from ..core.tools import ToolContext
    from ..frontend.agentscript.trace import TextSink

__all__ = ["RunOptions"]


@dataclass_record(frozen=True)
class RunOptions:
    """How a run is made: where its model calls go, what answers them offline, the format they are
    shown in, and for a program its entry point and what its tools may touch."""

    adapter: str = "offline"
    """The provider's adapter (``offline``: canned replies, then mock values), or ``auto``: each
    call to the adapter serving its model URI's scheme (see :mod:`promptwire.calls.routing`)."""
    model: str | None = None
    """Replaces the model a program names (a prompt file names none)."""
    dry_run: bool = False
    """Build every request for ``adapter`` and answer it offline: nothing is sent."""
    timeout: float | None = None
    """Seconds per request (None: the adapter's default)."""
    responses: Sequence[Any] = ()
    """Canned model replies, used in order (offline and dry runs)."""
    format: str = "agentscript"
    """The format calls are sent in, and shown in: what a provider is sent is what is shown."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The format's renderer options."""
    agent: str | None = None
    """A program's entry agent (its main agent by default)."""
    function: str | None = None
    """The entry agent's function (its main func by default)."""
    tools: ToolContext | None = None
    """What a program may touch (by default: reading its folder, nothing else)."""
    label_rule: str = "release"
    """How a program's ``use ... as`` labels end (see :func:`..agentscript.parse`)."""
    debug: TextSink | None = None
    """Where the debug text of a ``generate`` with ``debug: true`` goes."""
    on_text: Callable[[str], None] | None = None
    """Receives each model call's reply text as it arrives: with it, every call is streamed (its
    request carries the provider's stream flags, a dry run's too, and shows them)."""
    stream: bool = False
    """Stream every call, as ``on_text`` does, its text going to the ``watchers`` alone."""
    record: Recorder | None = None
    """Writes every reply the provider sends (see :mod:`promptwire.calls.recording`)."""
    replay: Recording | None = None
    """Answers every call from a recording instead of the provider (whose requests are still
    built, and compared with the recorded ones); the recording's adapter and model unless
    ``adapter`` and ``model`` name others."""
    watchers: Sequence[Watcher] = ()
    """Told of the run, each generate and each model call (progress lines, a live display, the
    call log; see :class:`promptwire.calls.watch.Watcher`), after the process's own watcher."""
    count: Count | None = None
    """Counts each call's request with its provider's count endpoint before it goes on (with
    ``dry_run``: counted, then answered offline; see :mod:`promptwire.calls.counting`)."""
    base_urls: Mapping[str, str] = field(default_factory=dict)
    """Where the providers' requests go instead of their base URLs: by the scheme of the models
    they serve (``{"ollama": "http://gpu:11434"}``), or under ``""`` for every provider."""

    def __init__(
        self,
        adapter: str = "offline",
        model: str | None = None,
        dry_run: bool = False,
        timeout: float | None = None,
        responses: Sequence[Any] = (),
        format: str = "agentscript",
        options: Mapping[str, Any] = FACTORY,
        agent: str | None = None,
        function: str | None = None,
        tools: ToolContext | None = None,
        label_rule: str = "release",
        debug: TextSink | None = None,
        on_text: Callable[[str], None] | None = None,
        stream: bool = False,
        record: Recorder | None = None,
        replay: Recording | None = None,
        watchers: Sequence[Watcher] = (),
        count: Count | None = None,
        base_urls: Mapping[str, str] = FACTORY,
    ) -> None:
        object.__setattr__(self, "adapter", adapter)
        object.__setattr__(self, "model", model)
        object.__setattr__(self, "dry_run", dry_run)
        object.__setattr__(self, "timeout", timeout)
        object.__setattr__(self, "responses", responses)
        object.__setattr__(self, "format", format)
        object.__setattr__(self, "options", dict() if options is FACTORY else options)
        object.__setattr__(self, "agent", agent)
        object.__setattr__(self, "function", function)
        object.__setattr__(self, "tools", tools)
        object.__setattr__(self, "label_rule", label_rule)
        object.__setattr__(self, "debug", debug)
        object.__setattr__(self, "on_text", on_text)
        object.__setattr__(self, "stream", stream)
        object.__setattr__(self, "record", record)
        object.__setattr__(self, "replay", replay)
        object.__setattr__(self, "watchers", watchers)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "base_urls", dict() if base_urls is FACTORY else base_urls)
