"""Paths walked beneath an open folder, race-free: how promptwire opens a path someone else chose.

Checking a path and then opening it by name is a race: between the two system calls another
process can swap a folder on the way for a symlink, and the open follows it out. Here nothing is
opened by a path string. A :class:`Root` is a folder opened once; a path below it is walked one name
at a time, each folder opened relative to the one before with ``O_NOFOLLOW``, so a name swapped for
a symlink meanwhile fails to open instead of being followed (the walk then looks again). Symlinks are
read with ``readlink`` and their targets walked the same way; ``..`` goes back up the folders the
walk holds open, never through the file system; a step above the root, or a link to an absolute path
elsewhere, is :class:`PathEscapes`. Whatever happens between two system calls, nothing outside the
root is ever opened.

Only regular files are opened for their bytes: a FIFO, socket or device is refused from its
``lstat``, before any open, and every open is non-blocking and checked again with ``fstat``, so a
FIFO swapped in at the last moment cannot hang a read. Nothing under ``/proc``, ``/sys`` or ``/dev``
is ever opened, whatever the root. Files are written through a temporary file with a random name,
created exclusively (``O_CREAT | O_EXCL``, so a planted file or symlink of that name is never
written through) in the target's own folder, then renamed over the target by descriptor.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Final, Literal

from .errors import PromptwireError
from .records import dataclass_record

__all__ = [
    "MAX_DEPTH",
    "NEVER_OPENED",
    "Entry",
    "Location",
    "NotRegularFile",
    "PathEscapes",
    "Root",
    "TooLarge",
    "list_folder",
    "locate",
    "never_opened",
    "open_regular",
    "read_limited",
    "remove_file",
    "replace_file",
    "walk",
]

NEVER_OPENED: Final = ("/proc", "/sys", "/dev")
"""Folders whose files are the machine's, not data: the environment of a process, devices, kernel state."""

MAX_DEPTH: Final = 256
"""The deepest a path or a walk goes below its root: each level holds one open folder."""

_MAX_LINKS: Final = 40  # as Linux's own limit on symlinks in one path
_MAX_CHANGES: Final = 64  # how often a path may change under one call before the call gives up
_DIR: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ: Final = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CHANGED: Final = (errno.ELOOP, errno.ENOTDIR, errno.ENOENT)  # what an open meets when a name was swapped

Kind = Literal["folder", "file", "special", "missing"]


class PathEscapes(PromptwireError):
    """The path leads out of its root: ``..`` above it, or a symlink to somewhere else."""


class NotRegularFile(PromptwireError):
    """A FIFO, socket or device, or a file under /proc, /sys or /dev: never opened."""


def never_opened(real: str) -> bool:
    """Whether a real (symlink-free, absolute) path is one promptwire never opens."""
    return any(real == top or real.startswith(top + "/") for top in NEVER_OPENED)


class Root:
    """A folder opened once, that paths are walked beneath. The folder's own path is trusted (the
    user named it); everything below it is not. Close it, or use it as a context manager."""

    def __init__(self, path: str | Path) -> None:
        self.given = os.path.abspath(path)
        self.real = os.path.realpath(path)
        if never_opened(self.real):
            raise NotRegularFile(f"{self.given} is under {', '.join(NEVER_OPENED)}: never opened")
        self.fd = os.open(self.real, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Root:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def names(self, path: str) -> list[str]:
        """``path`` as names below the root: a relative path as written, an absolute one only when it
        starts with the root (as named, or its real path)."""
        if "\x00" in path:
            raise PathEscapes(path)
        if not path.startswith("/"):
            return path.split("/")
        for top in (self.real, self.given):
            if path == top or path.startswith(top.rstrip("/") + "/"):
                return path[len(top) :].split("/")
        raise PathEscapes(path)

    def real_path(self, parts: tuple[str, ...]) -> str:
        return os.path.join(self.real, *parts)


@dataclass_record()
class _Step:
    """One name of a walk: a folder held open, a file, or a name that does not exist (yet)."""

    name: str
    kind: Kind
    fd: int | None = None
    info: os.stat_result | None = None

    def __init__(self, name: str, kind: Kind, fd: int | None = None, info: os.stat_result | None = None) -> None:
        self.name = name
        self.kind = kind
        self.fd = fd
        self.info = info


@dataclass_record()
class Location:
    """Where a path ends beneath a root. Close it (or use it as a context manager): it holds the
    folders on the way open."""

    root: Root
    steps: list[_Step]

    def __init__(self, root: Root, steps: list[_Step]) -> None:
        self.root = root
        self.steps = steps

    @property
    def kind(self) -> Kind:
        return self.steps[-1].kind if self.steps else "folder"

    @property
    def parts(self) -> tuple[str, ...]:
        """The names below the root, each symlink replaced by where it leads (missing names as written)."""
        return tuple(step.name for step in self.steps)

    @property
    def shown(self) -> str:
        """The location as tools show it: relative to the root, ``.`` for the root itself."""
        return "/".join(self.parts) or "."

    @property
    def real(self) -> str:
        return self.root.real_path(self.parts)

    @property
    def name(self) -> str:
        """The last name (``.`` for the root itself, which is then its own parent)."""
        return self.steps[-1].name if self.steps else "."

    @property
    def parent(self) -> int | None:
        """The open folder holding the last name; ``None`` when it does not exist (yet)."""
        if len(self.steps) < 2:
            return self.root.fd
        return self.steps[-2].fd

    @property
    def fd(self) -> int | None:
        """The open folder itself, when the location is one."""
        if not self.steps:
            return self.root.fd
        return self.steps[-1].fd

    @property
    def info(self) -> os.stat_result | None:
        """The last name's ``lstat`` (``None`` when it does not exist)."""
        return self.steps[-1].info if self.steps else os.fstat(self.root.fd)

    def close(self) -> None:
        for step in self.steps:
            if step.fd is not None:
                os.close(step.fd)
                step.fd = None

    def __enter__(self) -> Location:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def locate(root: Root, names: list[str], *, create_folders: bool = False) -> Location:
    """Walk ``names`` below ``root``: symlinks followed while they stay beneath it, ``..`` back up
    the folders already open, missing folders kept as names (made, with ``create_folders``, for a
    write). Raises :class:`PathEscapes`, :class:`NotRegularFile` (under /proc...),
    ``NotADirectoryError`` (a file where a folder is needed) or another ``OSError``."""
    for _ in range(_MAX_CHANGES):
        found = _walk(root, names)
        if not create_folders or _make_folders(found):
            return found
        found.close()  # a name changed while the folders were made: walk again
    raise OSError(errno.EAGAIN, "the path kept changing while it was opened")


def _walk(root: Root, names: list[str]) -> Location:
    found = Location(root, [])
    steps = found.steps
    pending = list(reversed(names))
    links = changes = 0
    try:
        while pending:
            name = pending.pop()
            if name in ("", "."):
                continue
            if steps and steps[-1].kind in ("file", "special"):
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), found.shown)
            if name == "..":
                if not steps:
                    raise PathEscapes("/".join(names))
                step = steps.pop()
                if step.fd is not None:
                    os.close(step.fd)
                continue
            if len(steps) >= MAX_DEPTH:
                raise OSError(errno.ENAMETOOLONG, f"more than {MAX_DEPTH} folders deep", found.shown)
            if steps and steps[-1].kind == "missing":  # below a folder that does not exist: names only
                steps.append(_Step(name, "missing"))
                continue
            here = found.fd
            assert here is not None
            try:
                info = os.stat(name, dir_fd=here, follow_symlinks=False)
            except FileNotFoundError:
                steps.append(_Step(name, "missing"))
                continue
            if stat.S_ISLNK(info.st_mode):
                links += 1
                if links > _MAX_LINKS:
                    raise PathEscapes("/".join(names))  # a symlink loop
                target = os.readlink(name, dir_fd=here)
                if target.startswith("/"):
                    target_names = root.names(target)
                    found.close()
                    steps.clear()
                    pending.extend(reversed(target_names))
                else:
                    pending.extend(reversed(target.split("/")))
                continue
            if not stat.S_ISDIR(info.st_mode):
                steps.append(_Step(name, "file" if stat.S_ISREG(info.st_mode) else "special", None, info))
                continue
            try:
                fd = os.open(name, _DIR, dir_fd=here)
            except OSError as exc:
                if exc.errno not in _CHANGED or changes >= _MAX_CHANGES:
                    raise
                changes += 1
                pending.append(name)  # swapped between the lstat and the open: look again
                continue
            steps.append(_Step(name, "folder", fd, info))
        if never_opened(found.real):
            raise NotRegularFile(f"{found.real} is under {', '.join(NEVER_OPENED)}: never opened")
    except BaseException:
        found.close()
        raise
    return found


def _make_folders(found: Location) -> bool:
    """Make the missing folders on the way to the last name, holding each open; False when a name
    changed meanwhile (the caller walks again)."""
    here = found.root.fd
    for step in found.steps[:-1]:
        if step.kind == "missing":
            with contextlib.suppress(FileExistsError):
                os.mkdir(step.name, 0o777, dir_fd=here)
            try:
                step.fd = os.open(step.name, _DIR, dir_fd=here)
            except OSError as exc:
                if exc.errno in _CHANGED:
                    return False
                raise
            step.kind = "folder"
        assert step.fd is not None
        here = step.fd
    return True


def _not_found(shown: str) -> FileNotFoundError:
    return FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), shown)


def open_regular(root: Root, names: list[str], check: Callable[[Location], None] | None = None) -> tuple[int, Location]:
    """A regular file below ``root`` opened for reading (blocking again once checked), and where it is.

    ``check`` sees the location before anything is opened (a permission, say). The caller closes
    both the descriptor and the location. A folder is ``IsADirectoryError``, a missing file
    ``FileNotFoundError``; a FIFO, socket or device :class:`NotRegularFile`, never opened."""
    for _ in range(_MAX_CHANGES):
        found = locate(root, names)
        try:
            if check is not None:
                check(found)
            if found.kind == "missing":
                raise _not_found(found.shown)
            if found.kind == "folder":
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), found.shown)
            if found.kind == "special":
                raise NotRegularFile(
                    f"{found.shown} is not a regular file (FIFOs, sockets and devices are never opened)"
                )
            assert found.parent is not None
            try:
                fd = os.open(found.name, _READ, dir_fd=found.parent)
            except OSError as exc:
                if exc.errno in _CHANGED:
                    found.close()
                    continue  # swapped since the walk: walk again
                raise
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                os.close(fd)
                raise NotRegularFile(
                    f"{found.shown} is not a regular file (FIFOs, sockets and devices are never opened)"
                )
            os.set_blocking(fd, True)
            return fd, found
        except BaseException:
            found.close()
            raise
    raise OSError(errno.EAGAIN, "the path kept changing while it was opened")


class TooLarge(PromptwireError):
    """A file larger than the caller reads."""


def read_limited(fd: int, limit: int, shown: str) -> bytes:
    """All of an open file, or :class:`TooLarge` when it holds more than ``limit`` bytes (checked
    before reading, and while reading: a file may grow meanwhile)."""
    if os.fstat(fd).st_size > limit:
        raise TooLarge(f"{shown} is larger than {limit} bytes")
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = os.read(fd, min(1 << 20, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise TooLarge(f"{shown} is larger than {limit} bytes")


def list_folder(root: Root, names: list[str]) -> list[str]:
    """The names in a folder below ``root``, in byte order."""
    with locate(root, names) as found:
        if found.kind == "missing":
            raise _not_found(found.shown)
        if found.kind != "folder":
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), found.shown)
        assert found.fd is not None
        return sorted(os.listdir(found.fd), key=os.fsencode)


def replace_file(root: Root, names: list[str], data: bytes, check: Callable[[Location], None]) -> Location:
    """Write ``data`` as the file ``names`` below ``root`` (made, with its folders, if need be): into a
    temporary file of a random name created exclusively beside it, then renamed over it, so a
    reader (or a crash) sees the old file or the new one, and no planted name is written through.

    ``check`` sees the location before any folder or file is made (and again if the path changed
    meanwhile). Returns the location written, closed."""
    with locate(root, names) as planned:
        check(planned)
    for _ in range(_MAX_CHANGES):
        with locate(root, names, create_folders=True) as found:
            check(found)
            if found.kind == "folder":
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), found.shown)
            folder = found.parent
            assert folder is not None
            temporary = f".{found.name[:64]}.{os.urandom(8).hex()}.tmp"
            fd = os.open(
                temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=folder
            )
            try:
                try:
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view) :]
                finally:
                    os.close(fd)
                os.replace(temporary, found.name, src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary, dir_fd=folder)
                raise
            return found
    raise OSError(errno.EAGAIN, "the path kept changing while it was written")


def remove_file(root: Root, names: list[str], check: Callable[[Location], None]) -> bool:
    """Remove the regular file ``names`` below ``root``; False when there is none (a folder, say)."""
    with locate(root, names) as found:
        check(found)
        if found.kind != "file" or found.parent is None:
            return False
        os.unlink(found.name, dir_fd=found.parent)
        return True


@dataclass_record(frozen=True)
class Entry:
    """A name met by :func:`walk`: its names below the root, its ``lstat``, and the open folder
    holding it (valid until the walk moves on) to open it by."""

    parts: tuple[str, ...]
    info: os.stat_result
    folder: int
    name: str

    def __init__(self, parts: tuple[str, ...], info: os.stat_result, folder: int, name: str) -> None:
        object.__setattr__(self, "parts", parts)
        object.__setattr__(self, "info", info)
        object.__setattr__(self, "folder", folder)
        object.__setattr__(self, "name", name)

    @property
    def is_folder(self) -> bool:
        return stat.S_ISDIR(self.info.st_mode)

    @property
    def is_file(self) -> bool:
        return stat.S_ISREG(self.info.st_mode)

    def open(self) -> int:
        """The regular file, opened for reading; :class:`NotRegularFile` if it changed into anything else."""
        fd = os.open(self.name, _READ, dir_fd=self.folder)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise NotRegularFile(f"{'/'.join(self.parts)} is not a regular file")
        os.set_blocking(fd, True)
        return fd


def walk(root: Root, names: list[str]) -> Generator[Entry, None, None]:
    """Every entry from ``names`` down (itself first; nothing if it does not exist), depth first,
    names in byte order, symlinks skipped and never followed. Close the iterator when done early
    (``contextlib.closing``): it holds the folders on the way open."""
    with locate(root, names) as found:
        if found.kind == "missing" or found.info is None:
            return
        parent = found.parent if found.steps else root.fd
        assert parent is not None
        yield Entry(found.parts, found.info, parent, found.name)
        if found.kind != "folder":
            return
        assert found.fd is not None
        yield from _below(root, os.dup(found.fd), found.parts)


def _below(root: Root, top: int, parts: tuple[str, ...]) -> Iterator[Entry]:
    stack: list[tuple[int, tuple[str, ...], Iterator[str]]] = [(top, parts, iter(_sorted_names(top)))]
    try:
        while stack:
            folder, folder_parts, names = stack[-1]
            name = next(names, None)
            if name is None:
                os.close(folder)
                stack.pop()
                continue
            try:
                info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except OSError:
                continue  # gone meanwhile
            entry_parts = (*folder_parts, name)
            if stat.S_ISLNK(info.st_mode) or never_opened(root.real_path(entry_parts)):
                continue
            yield Entry(entry_parts, info, folder, name)
            if not stat.S_ISDIR(info.st_mode):
                continue
            if len(stack) >= MAX_DEPTH:
                raise OSError(errno.ENAMETOOLONG, f"more than {MAX_DEPTH} folders deep", "/".join(entry_parts))
            try:
                child = os.open(name, _DIR, dir_fd=folder)
            except OSError:
                continue  # swapped for a link, or gone, meanwhile: not followed
            try:
                listed = _sorted_names(child)
            except OSError:
                os.close(child)
                continue
            stack.append((child, entry_parts, iter(listed)))
    finally:
        for folder, _, _ in stack:
            os.close(folder)


def _sorted_names(folder: int) -> list[str]:
    return sorted(os.listdir(folder), key=os.fsencode)
