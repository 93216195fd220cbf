"""Record a run's model replies, and replay them offline: a real run made a regression test.

A recording is what a provider answered to each request of a run, keyed by a digest of the request,
so that the same run can be made again with no network, no key and the same bytes (the same replies,
read by the same adapter: the same values, trace and display). A request that no longer matches any
recorded one (the program or its input changed: *prompt drift*) is reported at its call site with
the two digests and the first difference between the bodies, never answered silently.

The format (version 1) is JSON Lines, UTF-8, one JSON object per line, each line ending in ``\\n``:

* line 1, the header: ``{"format": "promptwire-recording", "version": 1, "provider": P, "model": M}``,
  ``P`` the adapter the run was made with (what a replay uses unless told otherwise) and ``M`` the
  model that replaced the program's own (``asrender --model``), or ``null``;
* then one line per call, in the order the replies came::

    {"call": 1, "site": "main.as:12:9", "attempt": 1, "provider": "openai", "path": "chat/completions",
     "model": "gpt-4o", "digest": "sha256:...", "streamed": false, "request": {...}, "reply": {...},
     "usage": {...}}

  ``site`` is where the call was made (``null`` for a Python caller), ``attempt`` its attempt (from
  1), ``path`` the provider's endpoint path (below its base URL, which is not recorded: a replay goes
  nowhere) that the request goes to sent whole (Gemini's ``v1beta/models/MODEL:generateContent``,
  Bedrock's ``model/MODEL_ID/converse``; a streamed call's too, though its stream goes to the
  method's stream form, as ``streamed`` says), ``request`` the request body as built, ``reply`` the
  provider's reply as its SDK read it (the JSON body; a streamed reply as its events added up to,
  the same object a reply sent whole is) and ``usage`` the reply's token counts as the adapter
  reads them.

``digest`` is ``sha256:`` and the SHA-256 of ``provider``, a newline, ``path``, a newline, and the
request body's exact bytes (:func:`promptwire.core.json_text.to_bytes`: what is sent), then, for a
provider whose model is not in the body (it goes in the URL), a newline and the model. The body is
the one built, before a streamed call adds its stream flags: streaming is how a reply travels, not
what was asked, so a run recorded streamed replays unstreamed and the other way round.

Records are written one line per call, appended and flushed as each reply arrives, so a run that
is killed leaves every reply that came before (and at worst a torn last line, which a replay leaves
out with a warning). The file is the user's own choice, but a symbolic link planted at its path is
never followed, and a file with other hard links never written.

A recording made before the Gemini and Bedrock adapters said their path has ``""`` for it, in
the record and in its digest: a request of a provider that has such records is looked up by that
digest too, so the recording replays as it did (its match as exact as ever: the body, and the
model, are in the digest all the same).

On replay each request is answered by an unused record of its digest (the first, for a request made
several times), wherever it comes in the run, so calls made concurrently replay in any order. One
with none is drift: :class:`PromptDrift` by default, naming the call site and comparing the request
with the first unused record; with ``accept_drift`` it is a warning, and that record answers it.

Each is a link of the call's chain (:class:`Record`, :class:`Replay`; see :mod:`.links`), and the
call says where it came from and the request as built; adapters whose replies are SDK objects say
how to write them as data and read them back with two optional methods,
``recorded_reply(raw) -> data`` (by default a pydantic model's JSON dump, or the data as it is) and
``replayed_reply(data) -> raw`` (by default the data as it is). An adapter's ``path`` attribute is
its endpoint path; one whose path names the model says it with the optional method
``request_path(request) -> str`` (:func:`endpoint_path`).
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import json
import os
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from ..core.call import Call, ModelAdapter, ProviderRequest, Site, Whole
from ..core.errors import PromptDrift, RecordingError
from ..core.json_text import dumps, to_bytes
from ..core.printable import one_line
from ..core.text_files import DEFAULT_MAX_BYTES, read_text
from .links import Answering, ASend, AsyncItems, Items, Link, Send

__all__ = [
    "FORMAT",
    "VERSION",
    "CallRecord",
    "PromptDrift",
    "Record",
    "Recorder",
    "Recording",
    "RecordingError",
    "Replay",
    "endpoint_path",
    "is_recording",
    "request_digest",
]

FORMAT: Final = "promptwire-recording"
VERSION: Final = 1
_QUOTED: Final = 100  # characters of a value a drift report quotes


def request_digest(provider: str, path: str, body: bytes, model: str | None = None) -> str:
    """The request's key in a recording: see the module docstring. ``model`` is the model of a
    request whose body does not name it (a provider whose model goes in the URL), so that replaying
    with another model is drift there too; a body that names its model is digested alone."""
    digest = hashlib.sha256(provider.encode("utf-8") + b"\n" + path.encode("utf-8") + b"\n" + body)
    if model is not None:
        digest.update(b"\n" + model.encode("utf-8"))
    return f"sha256:{digest.hexdigest()}"


def _digest(provider: str, path: str, request: ProviderRequest) -> str:
    outside = request.model if request.model is not None and request.model != request.kwargs.get("model") else None
    return request_digest(provider, path, to_bytes(request.kwargs), outside)


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One call of a recording: see the module docstring for each field."""

    call: int
    site: str | None
    attempt: int | None
    provider: str
    path: str
    model: Any
    digest: str
    streamed: bool
    request: Any
    reply: Any
    usage: Any

    def where(self) -> str:
        """``SITE attempt N`` (what a report names the call by)."""
        return _where(self.site, self.attempt)

    def to_data(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _FIELDS}


_FIELDS: Final = tuple(CallRecord.__dataclass_fields__)
_FIELD_TYPES: Final[Mapping[str, tuple[type, ...]]] = {
    "call": (int,),
    "site": (str, type(None)),
    "attempt": (int, type(None)),
    "provider": (str,),
    "path": (str,),
    "digest": (str,),
    "streamed": (bool,),
}


def _where(site: str | None, attempt: int | None) -> str:
    where = site or "a call without a site"
    return where if attempt is None else f"{where} attempt {attempt}"


# --- writing -------------------------------------------------------------------------------------


class Recorder:
    """Writes a recording to ``path``, truncated (or made) now: one header, then a line per call as
    its reply arrives (:class:`Record` adds them). A symbolic link at ``path`` is refused, not
    followed; so is anything but a regular file with no other hard links. Safe to share between
    threads and concurrent calls. Close it (or use it as a context manager) when the run is done."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        self._calls = 0
        self._begun = False
        self._fd: int | None = _open_for_recording(self.path)
        self._closer = weakref.finalize(self, os.close, self._fd)

    def begin(self, provider: str, model: str | None) -> None:
        """Write the header, naming the run's adapter and model, unless a run wrote it already."""
        with self._lock:
            self._header(provider, model)

    def add(
        self,
        provider: str,
        path: str,
        request: ProviderRequest,
        *,
        site: Site | str | None,
        attempt: int | None,
        streamed: bool,
        reply: Any,
        usage: Any,
    ) -> CallRecord:
        """Write the record of one reply (``request`` as built, before any stream flags), made at
        ``site`` (``None`` for a Python caller that named none) as its attempt ``attempt``."""
        with self._lock:
            self._header(provider, None)  # a Python caller's first call
            self._calls += 1
            record = CallRecord(
                call=self._calls,
                site=None if site is None else str(site),
                attempt=attempt,
                provider=provider,
                path=path,
                model=request.model_asked(),
                digest=_digest(provider, path, request),
                streamed=streamed,
                request=dict(request.kwargs),
                reply=_masked(reply),
                usage=None if usage is None else dict(usage),
            )
            self._write(record.to_data())
            return record

    def close(self) -> None:
        """Close the file (a recording that no call was made for still gets its header)."""
        if self._fd is not None and not self._begun:
            with contextlib.suppress(RecordingError):
                self.begin("offline", None)
        self._closer()
        self._fd = None

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _header(self, provider: str, model: str | None) -> None:
        if not self._begun:
            self._write({"format": FORMAT, "version": VERSION, "provider": provider, "model": model})
            self._begun = True

    def _write(self, data: Mapping[str, Any]) -> None:
        """One line, written whole with ``write(2)`` (no buffer to flush): a crash leaves the lines
        before it intact."""
        if self._fd is None:
            raise RecordingError(f"{self.path}: the recording was closed")
        try:
            line = dumps(data, separators=(",", ":")).encode("utf-8") + b"\n"
        except (TypeError, ValueError, RecursionError) as exc:
            raise RecordingError(f"{self.path}: cannot record the reply: {exc}") from None
        view = memoryview(line)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError as exc:
            raise RecordingError(f"{self.path}: cannot write the recording: {exc.strerror or exc}") from None


def _masked(data: Any) -> Any:
    """A reply's data with every secret taken out of its text (:func:`promptwire.core.secrets.mask`):
    a provider may echo the key in a reply's ``id``, ``model`` or ``system_fingerprint``, and a
    recording holds no key."""
    from ..core.secrets import mask

    if isinstance(data, str):
        return mask(data)
    if isinstance(data, dict):
        return {key: _masked(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_masked(value) for value in data]
    return data


def _open_for_recording(path: str) -> int:
    """``path`` opened to be written from its start, as every file ``asrender`` writes by name is
    (:func:`promptwire.core.written_files.open_written`): never through a symbolic link, never a
    FIFO, device or a file with other hard links, never under /proc, /sys or /dev."""
    from ..core.written_files import open_written

    return open_written(path, "a recording", RecordingError, truncate=True)


class Record(Link):
    """Every reply a call receives written to ``recorder``, as it comes (whole or streamed,
    synchronous or on an event loop), by the request the call was built with."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def send(self, call: Call, call_next: Send) -> Items:
        items = call_next(call)
        try:
            for item in items:
                yield self._add(call, item) if isinstance(item, Whole) else item
        finally:
            items.close()

    async def asend(self, call: Call, call_next: ASend) -> AsyncItems:
        items = call_next(call)
        try:
            async for item in items:
                yield self._add(call, item) if isinstance(item, Whole) else item
        finally:
            await items.aclose()

    def _add(self, call: Call, whole: Whole) -> Whole:
        """Record ``whole``; it goes on read, when the adapter could read it (its usage is recorded)."""
        adapter = call.adapter
        reply = whole.reply
        if reply is None:
            try:
                reply = adapter.parse_reply(whole.raw)
            except Exception:  # a reply the adapter refuses is still what the provider said; the run reports it
                reply = None
        usage = None if reply is None or reply.usage is None else reply.usage.as_data()
        self.recorder.add(
            call.provider,
            endpoint_path(adapter, call.request),
            call.request,
            site=call.site,
            attempt=call.attempt,
            streamed=call.stream and call.sent is not call.request,
            reply=_recorded_reply(adapter, whole.raw, self.recorder.path),
            usage=usage,
        )
        return whole if reply is None else Whole(whole.raw, reply)


def endpoint_path(adapter: ModelAdapter, request: ProviderRequest) -> str:
    """The path below the provider's base URL that ``request`` goes to sent whole: the adapter's
    ``request_path(request)`` where the path names the model (Gemini's, Bedrock's), else its
    ``path`` (``""`` for an adapter that has none)."""
    own: Callable[[ProviderRequest], str] | None = getattr(adapter, "request_path", None)
    return str(own(request)) if own is not None else str(getattr(adapter, "path", ""))


def _recorded_reply(adapter: ModelAdapter, raw: Any, label: str) -> Any:
    own: Callable[[Any], Any] | None = getattr(adapter, "recorded_reply", None)
    if own is not None:
        return own(raw)
    dump = getattr(raw, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    try:
        to_bytes(raw)
    except (TypeError, ValueError) as exc:
        raise RecordingError(f"{label}: cannot record the reply of {adapter.name}: {exc}") from None
    return raw


# --- reading and replaying -----------------------------------------------------------------------


def is_recording(text: str) -> bool:
    """Whether ``text`` is a recording (its first line is a recording's header), not canned replies."""
    first = text.lstrip("\ufeff \t\r\n").split("\n", 1)[0]
    if not first.startswith("{"):
        return False
    try:
        header = json.loads(first)
    except (ValueError, RecursionError):
        return False
    return isinstance(header, dict) and header.get("format") == FORMAT


class Recording:
    """A recording read back (:meth:`read`, :meth:`parse`), answering a replayed run's requests
    (:meth:`answer`). ``warnings`` says what was left out (a torn last line). Each record answers
    once; :meth:`unused` are those no request asked for. With ``accept_drift`` a request that
    matches no record is answered by the first unused one, and the report goes to ``drifted``
    instead of being raised."""

    def __init__(
        self,
        records: list[CallRecord],
        *,
        provider: str | None = None,
        model: str | None = None,
        label: str = "<recording>",
        warnings: tuple[str, ...] = (),
        accept_drift: bool = False,
    ) -> None:
        self.records = records
        self.provider = provider
        self.model = model
        self.label = label
        self.warnings = warnings
        self.accept_drift = accept_drift
        self.drifted: list[str] = []
        self._used = [False] * len(records)
        self._by_digest: dict[str, collections.deque[int]] = {}
        for index, record in enumerate(records):
            self._by_digest.setdefault(record.digest, collections.deque()).append(index)
        self._first_unused = 0
        self._pathless = frozenset(record.provider for record in records if not record.path)
        """The providers with records made before their adapter said its path (see the module docstring)."""
        self._lock = threading.Lock()

    @classmethod
    def read(
        cls, path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES, accept_drift: bool = False
    ) -> Recording:
        """The recording in the file ``path``."""
        label = os.fspath(path)
        return cls.parse(read_text(label, label, max_bytes), label, accept_drift=accept_drift)

    @classmethod
    def parse(cls, text: str, label: str, *, accept_drift: bool = False) -> Recording:
        """The recording in ``text`` (read from ``label``); :class:`RecordingError` naming the line
        of anything that is not one. A last line that is cut off and does not parse (the recording
        run was killed while writing it) is left out, with a warning."""
        lines = text.removeprefix("\ufeff").split("\n")
        torn = lines.pop() if lines else ""  # after the last "\n": empty unless the last line is cut off
        warnings: list[str] = []
        if torn.strip():
            try:
                json.loads(torn)
                lines.append(torn)  # complete but for its newline
            except (ValueError, RecursionError):
                warnings.append(
                    f"{label}:{len(lines) + 1}: a torn last line (the recording run was cut short), left out"
                )
        if not lines or not lines[0].strip():
            raise RecordingError(f"{label}:1: not a recording: no header line")
        header = _json_line(lines[0], label, 1)
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise RecordingError(f'{label}:1: not a recording: the header must say "format": "{FORMAT}"')
        version = header.get("version")
        if version != VERSION:
            raise RecordingError(
                f"{label}:1: a recording of version {json.dumps(version)}; this promptwire reads version {VERSION}"
            )
        provider, model = header.get("provider"), header.get("model")
        for name, value in (("provider", provider), ("model", model)):
            if value is not None and not isinstance(value, str):
                raise RecordingError(f"{label}:1: the header's {name!r} must be text or null")
        records = [
            _record(_json_line(line, label, number), label, number)
            for number, line in enumerate(lines[1:], start=2)
            if line.strip()
        ]
        return cls(
            records, provider=provider, model=model, label=label, warnings=tuple(warnings), accept_drift=accept_drift
        )

    def answer(
        self,
        provider: str,
        path: str,
        request: ProviderRequest,
        site: Site | str | None = None,
        attempt: int | None = None,
    ) -> CallRecord:
        """The record that answers ``request`` (as built) sent to ``provider``'s ``path``, made at
        ``site`` as its attempt ``attempt``: the first unused one of its digest; else drift (see
        the class docstring)."""
        digest = _digest(provider, path, request)
        with self._lock:
            waiting = self._by_digest.get(digest)
            if not waiting and path and provider in self._pathless:
                waiting = self._by_digest.get(_digest(provider, "", request))
            if waiting:
                return self._use(waiting.popleft())
            while self._first_unused < len(self.records) and self._used[self._first_unused]:
                self._first_unused += 1
            expected = self._first_unused if self._first_unused < len(self.records) else None
            where = _where(None if site is None else str(site), attempt)
            report = self._drift(where, provider, path, request, digest, expected)
            if expected is None or not self.accept_drift:
                raise PromptDrift(report)
            self._by_digest[self.records[expected].digest].remove(expected)
            self.drifted.append(report)
            return self._use(expected)

    def _use(self, index: int) -> CallRecord:
        self._used[index] = True
        return self.records[index]

    def unused(self) -> list[CallRecord]:
        """The records no request asked for (the run made fewer calls than were recorded)."""
        with self._lock:
            return [record for record, used in zip(self.records, self._used, strict=True) if not used]

    def _drift(
        self, where: str, provider: str, path: str, request: ProviderRequest, digest: str, expected: int | None
    ) -> str:
        head = f"prompt drift at {where}: the request is not one {self.label} recorded"
        if expected is None:
            return (
                f"{head} (its {len(self.records)} recorded calls are all used: this run makes more calls)\n"
                f"  current  {digest} ({provider} {path})"
            )
        record = self.records[expected]
        # What the recording says is shown on one line each, escaped: a crafted file could
        # otherwise write lines of its own (an "asrender: ..." line) into the report.
        lines = [
            f"{head}; the next recorded call is call {record.call}, at {one_line(record.where())}",
            f"  recorded {one_line(record.digest)} ({one_line(record.provider)} {one_line(record.path)})",
            f"  current  {digest} ({provider} {path})",
        ]
        difference = first_difference(record.request, dict(request.kwargs))
        if difference is not None:
            at, was, now = (one_line(part) for part in difference)
            lines += [f"  first difference, at {at}:", f"    recorded: {was}", f"    current:  {now}"]
        return "\n".join(lines)


def _json_line(line: str, label: str, number: int) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        raise RecordingError(f"{label}:{number}: not a JSON line: {reason}") from None


def _record(data: Any, label: str, number: int) -> CallRecord:
    if not isinstance(data, dict):
        raise RecordingError(f"{label}:{number}: a record must be a JSON object")
    missing = [name for name in _FIELDS if name not in data]
    if missing:
        raise RecordingError(f"{label}:{number}: the record has no {', '.join(repr(name) for name in missing)}")
    for name, types in _FIELD_TYPES.items():
        value = data[name]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise RecordingError(f"{label}:{number}: the record's {name!r} is not {_kind(types)}")
    if not isinstance(data["request"], dict):
        raise RecordingError(f"{label}:{number}: the record's 'request' is not a JSON object")
    return CallRecord(**{name: data[name] for name in _FIELDS})


def _kind(types: tuple[type, ...]) -> str:
    names = {int: "an integer", str: "text", bool: "true or false", type(None): "null"}
    return " or ".join(names[kind] for kind in types)


# --- what drifted ----------------------------------------------------------------------------------


def first_difference(recorded: Any, current: Any) -> tuple[str, str, str] | None:
    """Where two request bodies first differ, in the order they are written, and what each holds
    there (quoted as JSON, cut short): in a text of several lines, its first differing line.
    ``None`` when their bytes are the same."""
    at, was, now = "the body", recorded, current
    if to_bytes(was) == to_bytes(now):
        return None
    while True:  # down the first branch that differs
        if isinstance(was, dict) and isinstance(now, dict):
            keys = [*was, *(key for key in now if key not in was)]
            changed = next(
                (key for key in keys if key not in was or key not in now or _differ(was[key], now[key])), None
            )
            if changed is None:  # the same keys and values, in another order
                return f"{at} (the order of its keys)", _quoted(list(was)), _quoted(list(now))
            at = changed if at == "the body" else f"{at}.{changed}"
            if changed not in was or changed not in now:
                return at, _quoted_item(was, changed), _quoted_item(now, changed)
            was, now = was[changed], now[changed]
        elif isinstance(was, list) and isinstance(now, list):
            index = next(
                i for i in range(max(len(was), len(now))) if i >= min(len(was), len(now)) or _differ(was[i], now[i])
            )
            at = f"{at}[{index}]"
            if index >= min(len(was), len(now)):
                return at, _quoted_item(was, index), _quoted_item(now, index)
            was, now = was[index], now[index]
        elif isinstance(was, str) and isinstance(now, str) and ("\n" in was or "\n" in now):
            old_lines, new_lines = was.split("\n"), now.split("\n")
            number = next(
                n for n in range(max(len(old_lines), len(new_lines))) if _item(old_lines, n) != _item(new_lines, n)
            )
            return f"{at}, line {number + 1}", _quoted_item(old_lines, number), _quoted_item(new_lines, number)
        else:
            return at, _quoted(was), _quoted(now)


def _differ(was: Any, now: Any) -> bool:
    return to_bytes(was) != to_bytes(now)


def _item(values: Any, key: Any) -> Any:
    try:
        return values[key]
    except (KeyError, IndexError):
        return _ABSENT


_ABSENT: Final = object()


def _quoted(value: Any) -> str:
    text = dumps(value)
    return text if len(text) <= _QUOTED else text[: _QUOTED - 3] + "..."


def _quoted_item(values: Any, key: Any) -> str:
    value = _item(values, key)
    return "(absent)" if value is _ABSENT else _quoted(value)


class Replay(Answering):
    """Each call answered from ``recording`` instead of its provider: the request is built as the
    call's adapter builds it and answered by its recorded reply, which the adapter reads as it read
    it when it came (nothing is sent; no key is needed)."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording

    def answer(self, call: Call) -> Whole:
        adapter = call.adapter
        record = self.recording.answer(
            call.provider, endpoint_path(adapter, call.request), call.request, call.site, call.attempt
        )
        own: Callable[[Any], Any] | None = getattr(adapter, "replayed_reply", None)
        if own is None:
            return Whole(record.reply)
        try:
            return Whole(own(record.reply))
        except Exception as exc:  # the recording is data someone may have edited
            raise RecordingError(
                f"{self.recording.label}: call {record.call}: {call.provider} cannot read the recorded reply: {exc}"
            ) from None
