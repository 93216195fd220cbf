"""What a run may touch outside its program: deny by default, decided in one place, as Deno decides it.

Programs and prompt files may come from someone else, and a model's reply may choose a tool's
path, variable name or URL. The person running ``asrender`` decides what these may reach, with
flags in the style of Deno's ``--allow-*``; this record carries the decision to everything that
touches the outside world (every tool and memory scheme, and the front end's ``import file`` and
``import agent``). By default a run may read the files of its workspace (the folder it runs in) and
of its program's own folder, and nothing else: no other file, no write, no environment variable, no
network. Each refusal is one line naming the flag that allows it.

Files are opened through :mod:`.confined`, relative to an open folder without following a symlink
out of it, so a path checked here is the path opened, whatever another process does in between.
Nothing under /proc, /sys or /dev, and no FIFO, socket or device, is ever opened, whatever is allowed.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO, Final, TypeVar
from urllib.parse import urlsplit

from .confined import (
    NEVER_OPENED,
    Location,
    NotRegularFile,
    PathEscapes,
    Root,
    locate,
    never_opened,
    open_regular,
    read_limited,
)
from .errors import PromptwireError
from .records import dataclass_record
from .secrets import shown_url

__all__ = [
    "ANY_ORIGIN",
    "DEFAULT_MAX_READ_BYTES",
    "DEFAULT_TOOL_TIMEOUT",
    "NotAllowed",
    "Permissions",
    "parse_origin",
    "url_origin",
]

DEFAULT_TOOL_TIMEOUT: Final = 30.0
"""Seconds a network tool call may take in all (connection, redirects and body) unless the run says otherwise."""

DEFAULT_MAX_READ_BYTES: Final = 64 * 1024 * 1024
"""The largest file a run reads whole (``asrender --max-input-size`` changes it)."""

ANY_ORIGIN: Final = "*"
"""In :attr:`Permissions.net`: every origin (``asrender --allow-net`` with no value)."""

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
_SIDECARS: Final = ("-wal", "-shm", "-journal")  # the files SQLite keeps beside a database, by name

_Result = TypeVar("_Result")


class NotAllowed(PromptwireError):
    """The run was not allowed to do this; the message names the flag that allows it."""


def parse_origin(text: str) -> tuple[str | None, str, int | None]:
    """An ``--allow-net`` value as ``(scheme, host, port)``: ``https://api.example.com`` is that
    origin exactly (port 443); ``api.example.com`` is that host by HTTP or HTTPS on their usual
    ports; ``api.example.com:8080`` that host and port by either. Raises ``ValueError``."""
    scheme: str | None = None
    rest = text
    if "://" in text:
        scheme, _, rest = text.partition("://")
        scheme = scheme.lower()
        if scheme not in _DEFAULT_PORTS:
            raise ValueError(f"an origin is http:// or https://, not {scheme}://")
    parts = urlsplit(f"//{rest}")
    if not parts.hostname or parts.path.strip("/") or parts.query or parts.fragment or parts.username:
        raise ValueError(f"not an origin: {text!r} (scheme://host[:port] or host[:port])")
    port = parts.port  # ValueError for a port out of range
    if port is None and scheme is not None:
        port = _DEFAULT_PORTS[scheme]
    return scheme, parts.hostname.lower(), port


def url_origin(url: str) -> tuple[str, str, int | None]:
    """A URL's origin: scheme and host in lower case, and the port (the scheme's usual one when
    none is written). Raises ``ValueError`` for a port that is not one."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(scheme)


@dataclass_record(frozen=True)
class Permissions:
    """What one run may touch. The default is what ``asrender serve`` and ``asrender snapshot``
    allow: reading the workspace and the program's folder, nothing else.

    ``workspace`` is the folder the run works in (the current folder for ``asrender``): file tools
    are confined to it and may read it. ``program_folder`` (the program's own folder) may be read
    too. ``read`` adds files or folders that may be read, ``write`` those that may be written
    (nothing, not even the workspace, by default), ``env`` the environment variables that may be
    read, ``net`` the origins a network tool may reach (see :func:`parse_origin`; :data:`ANY_ORIGIN`
    for all). ``timeout`` bounds each network tool call in all, in seconds; ``max_read_bytes`` the
    size of a file read whole.
    """

    workspace: Path
    program_folder: Path | None = None
    read: tuple[Path, ...] = ()
    write: tuple[Path, ...] = ()
    env: frozenset[str] = frozenset()
    net: frozenset[str] = frozenset()
    timeout: float = DEFAULT_TOOL_TIMEOUT
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES

    def __init__(
        self,
        workspace: Path,
        program_folder: Path | None = None,
        read: tuple[Path, ...] = (),
        write: tuple[Path, ...] = (),
        env: frozenset[str] = frozenset(),
        net: frozenset[str] = frozenset(),
        timeout: float = DEFAULT_TOOL_TIMEOUT,
        max_read_bytes: int = DEFAULT_MAX_READ_BYTES,
    ) -> None:
        object.__setattr__(self, "workspace", workspace)
        object.__setattr__(self, "program_folder", program_folder)
        object.__setattr__(self, "read", read)
        object.__setattr__(self, "write", write)
        object.__setattr__(self, "env", env)
        object.__setattr__(self, "net", net)
        object.__setattr__(self, "timeout", timeout)
        object.__setattr__(self, "max_read_bytes", max_read_bytes)

    # --- environment and network ------------------------------------------------------------------

    def check_env(self, name: str) -> None:
        """Refuse reading the environment variable ``name`` unless it was allowed by name."""
        if name not in self.env:
            raise NotAllowed(
                f"Reading the environment variable {name} needs --allow-env (asrender ... --allow-env {name})"
            )

    def check_origin(self, url: str) -> None:
        """Refuse connecting to ``url``'s origin unless it was allowed."""
        try:
            scheme, host, port = url_origin(url)
        except ValueError:
            raise NotAllowed(f"Invalid URL: {shown_url(url)}") from None
        if ANY_ORIGIN in self.net or any(_grants_origin(grant, scheme, host, port) for grant in self.net):
            return
        origin = f"{scheme}://{urlsplit(url).netloc.rpartition('@')[2].lower()}"
        raise NotAllowed(f"Connecting to {origin} needs --allow-net (asrender ... --allow-net {origin})")

    # --- files -------------------------------------------------------------------------------------

    def check_write(self, real: str, shown: str) -> None:
        """Refuse writing the file whose real (symlink-free, absolute) path is ``real`` unless it is
        in a folder, or is a file, that may be written; ``shown`` is the path as the program wrote it."""
        if not self.may_write(real):
            raise NotAllowed(f"Writing {shown} needs --allow-write (asrender ... --allow-write {_as_typed(real)})")

    def may_write(self, real: str) -> bool:
        """Whether the file whose real path is ``real`` is in a folder, or is a file, that may be written."""
        return any(_inside(real, os.path.realpath(grant)) for grant in self.write)

    def readable(self) -> tuple[Path, ...]:
        """What may be read: the workspace, the program's folder, and ``read``."""
        folder = () if self.program_folder is None else (self.program_folder,)
        return (self.workspace, *folder, *self.read)

    def read_bytes(self, path: str | Path) -> bytes:
        """The bytes of a file the run may read (at most ``max_read_bytes``), opened race-free.

        For the front end's ``import file`` and ``import agent``: a relative path is from the
        workspace. Raises :class:`NotAllowed`, ``FileNotFoundError``, ``IsADirectoryError``,
        :class:`~promptwire.core.confined.NotRegularFile`, :class:`~promptwire.core.confined.TooLarge`
        or another ``OSError``."""
        with self.open_reading(path) as handle:
            return read_limited(handle.fileno(), self.max_read_bytes, self.shown(path))

    def read_text(self, path: str | Path, errors: str = "strict") -> str:
        """:meth:`read_bytes` decoded as UTF-8."""
        return self.read_bytes(path).decode("utf-8", errors=errors)

    def open_reading(self, path: str | Path) -> BinaryIO:
        """A file the run may read, opened for reading (race-free: what was checked is what is open)."""

        def attempt(root: Root, names: list[str], grant: str) -> BinaryIO:
            fd, found = open_regular(root, names, check=lambda found: _within(found, grant))
            found.close()
            return open(fd, "rb")

        return self._beneath(path, self.readable(), "read", attempt)

    def open_appending(self, path: str | Path) -> BinaryIO:
        """A file the run may write, opened for reading and appending (made, with its folders, if
        need be). A file with other hard links is refused: appending would change them too."""

        def attempt(root: Root, names: list[str], grant: str) -> BinaryIO:
            with locate(root, names) as planned:
                _within(planned, grant)
            for _ in range(8):
                with locate(root, names, create_folders=True) as found:
                    _within(found, grant)
                    if found.kind not in ("file", "missing"):
                        raise _not_a_file(found, self.shown(path))
                    assert found.parent is not None
                    flags = os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
                    try:
                        fd = os.open(found.name, flags, 0o666, dir_fd=found.parent)
                    except OSError as exc:
                        if exc.errno == errno.ELOOP:
                            continue  # a symlink planted since the walk: walk again
                        raise
                    _check_single_file(fd, self.shown(path))
                    os.set_blocking(fd, True)
                    return open(fd, "r+b")
            raise OSError(errno.EAGAIN, "the path kept changing while it was opened", self.shown(path))

        return self._beneath(path, self.write, "write", attempt)

    def database(self, path: str | Path, *, create: bool) -> str | None:
        """The real path to hand SQLite for a database the run may read (or, with ``create``, write:
        then made with its folders), after checking that it and the files SQLite keeps beside it
        are regular files, not links. ``None`` when it does not exist and ``create`` is false.

        SQLite opens files by name, so a swap after this check and before SQLite's own open is the
        one window left: the folder was walked race-free, and SQLite refuses to write over a file
        that is not a database."""

        def attempt(root: Root, names: list[str], grant: str) -> str | None:
            with locate(root, names, create_folders=create) as found:
                _within(found, grant)
                if found.kind == "missing" and not create:
                    return None
                if found.kind not in ("file", "missing"):
                    raise _not_a_file(found, self.shown(path))
                assert found.parent is not None
                for name in (found.name, *(found.name + suffix for suffix in _SIDECARS)):
                    try:
                        info = os.stat(name, dir_fd=found.parent, follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    if not stat.S_ISREG(info.st_mode) or (create and info.st_nlink > 1):
                        raise NotRegularFile(
                            f"{name} beside {self.shown(path)} is not a plain file: a database is never opened through it"
                        )
                return found.real

        return self._beneath(path, self.write if create else self.readable(), "write" if create else "read", attempt)

    def shown(self, path: str | Path) -> str:
        """A path as a refusal shows it: relative to the workspace when inside it, else absolute."""
        full = os.path.normpath(os.path.join(self.workspace, path))
        workspace = os.path.normpath(os.path.abspath(self.workspace))
        return os.path.relpath(full, workspace) if _inside(full, workspace) else full

    def _beneath(
        self,
        path: str | Path,
        grants: Iterable[Path],
        verb: str,
        attempt: Callable[[Root, list[str], str], _Result],
    ) -> _Result:
        """``attempt`` on the first grant that ``path`` is below and stays below (walked race-free
        from the grant's folder); :class:`NotAllowed` naming the flag when there is none."""
        text = os.path.join(os.path.abspath(self.workspace), path)
        if "\x00" in text:
            raise NotAllowed(f"Path escapes the files this run may {verb}: {str(path)!r}")
        escaped = False
        for grant in grants:
            real_grant = folder = os.path.realpath(grant)
            given = os.path.abspath(grant)
            while not os.path.isdir(folder):  # a file, or a path not made yet: walk from its nearest folder
                folder, given = os.path.dirname(folder), os.path.dirname(given)
            names = next((_names_below(text, top) for top in (folder, given) if _inside(text, top)), None)
            if names is None:
                continue
            try:
                with Root(folder) as root:
                    return attempt(root, names, real_grant)
            except (PathEscapes, _Outside):
                escaped = True
        shown = self.shown(path)
        full = os.path.normpath(os.path.join(os.path.abspath(self.workspace), path))
        if never_opened(full):  # no flag allows it: say so rather than name one
            raise NotRegularFile(f"{full} is under {', '.join(NEVER_OPENED)}: never opened")
        if escaped:
            raise NotAllowed(f"Path escapes the files this run may {verb}: {shown} (a symlink or '..' leads out)")
        doing = {"read": "Reading", "write": "Writing"}[verb]
        raise NotAllowed(f"{doing} {shown} needs --allow-{verb} (asrender ... --allow-{verb} {_as_typed(full)})")


def _as_typed(path: str) -> str:
    """An absolute path as the flag that allows it is typed: from the folder ``asrender`` runs in
    (where ``--allow-*`` paths start) when it is below it, else absolute."""
    here = os.getcwd()
    return os.path.relpath(path, here) if _inside(path, here) else path


class _Outside(PromptwireError):
    """Walked to a place outside the grant being tried (the next grant may hold it)."""


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _names_below(path: str, folder: str) -> list[str]:
    return path[len(folder.rstrip("/")) :].split("/")


def _within(found: Location, grant: str) -> None:
    if not _inside(found.real, grant):
        raise _Outside(found.real)


def _not_a_file(found: Location, shown: str) -> OSError | NotRegularFile:
    if found.kind == "folder":
        return IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), shown)
    return NotRegularFile(f"{shown} is not a regular file (FIFOs, sockets and devices are never opened)")


def _check_single_file(fd: int, shown: str) -> None:
    info = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(info.st_mode):
        problem = "is not a regular file (FIFOs, sockets and devices are never opened)"
    elif info.st_nlink > 1:
        problem = "has other hard links, which a write would change too"
    if problem:
        os.close(fd)
        raise NotRegularFile(f"{shown} {problem}")


def _grants_origin(grant: str, scheme: str, host: str, port: int | None) -> bool:
    try:
        granted_scheme, granted_host, granted_port = parse_origin(grant)
    except ValueError:
        return False
    return (
        granted_host == host
        and granted_scheme in (None, scheme)
        and (granted_port == port if granted_port is not None else port == _DEFAULT_PORTS.get(scheme))
    )
