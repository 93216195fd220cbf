"""Opening a file ``asrender`` writes by name (``--record``, ``--out``, ``--batch-file``), safely.

The name is the user's, but what sits at it may not be: a symbolic link someone planted there
(pointing at a shell profile), a FIFO (which would block the open forever), a file with other hard
links (which writing would change too), or a path under /proc, /sys or /dev. So the file is opened
without following a link (``O_NOFOLLOW``: a link planted at the name fails to open instead), without
blocking (``O_NONBLOCK``, then made blocking once it is known to be a regular file), and checked
before the open and again on the open file. And an output may not be one of the run's inputs,
through a link or not (:func:`refuse_same_file`): writing it would empty the program, its rows or
the answers a provider was paid for before they were read.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable, Iterable

from .confined import never_opened

__all__ = ["open_written", "refuse_same_file"]


def open_written(
    path: str,
    what: str,
    error: Callable[[str], Exception],
    *,
    truncate: bool,
    readable: bool = False,
) -> int:
    """``path`` opened to append to (emptied first when ``truncate``; readable too when
    ``readable``), made if need be: never through a symbolic link, never a FIFO, socket or device,
    never a file with other hard links, never under /proc, /sys or /dev. ``what`` names the file in
    a refusal (``a recording``); ``error`` makes the exception raised."""
    if never_opened(os.path.join(os.path.realpath(os.path.dirname(path) or "."), os.path.basename(path))):
        raise error(f"{path}: under /proc, /sys or /dev: {what} is never written there")
    with contextlib.suppress(OSError):
        _refuse(path, os.lstat(path), what, error)
    access = os.O_RDWR if readable else os.O_WRONLY
    flags = access | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno == errno.ELOOP and os.path.islink(path):
            _refuse(path, os.lstat(path), what, error)  # planted since the check
        raise error(f"{path}: cannot write the file: {exc.strerror or exc}") from None
    try:
        _refuse(path, os.fstat(fd), what, error)
    except BaseException:
        os.close(fd)
        raise
    os.set_blocking(fd, True)
    if truncate:
        os.ftruncate(fd, 0)
    return fd


def _refuse(path: str, info: os.stat_result, what: str, error: Callable[[str], Exception]) -> None:
    """Raise unless ``info`` is a regular file's with no other hard links."""
    if stat.S_ISLNK(info.st_mode):
        problem = f"a symbolic link; {what} is never written through one (remove it or write elsewhere)"
    elif not stat.S_ISREG(info.st_mode):
        problem = "not a regular file (FIFOs, sockets and devices are never written)"
    elif info.st_nlink > 1:
        problem = "a file with other hard links, which writing it would change too"
    else:
        return
    raise error(f"{path}: {problem}")


def refuse_same_file(
    outputs: Iterable[tuple[str, str | None]],
    inputs: Iterable[tuple[str, str | None]],
    error: Callable[[str], Exception],
) -> None:
    """Raise when an output is the same file as an input or as another output, by name or through
    a link (the same device and inode). Each is ``(flag, path)``; a ``None`` path is not given, and
    ``-`` (standard input) is no file."""
    seen: dict[tuple[int, int] | str, str] = {}
    for flag, path in [*inputs]:
        for key in _keys(path):
            seen.setdefault(key, flag)
    for flag, path in outputs:
        for key in _keys(path):
            if key in seen:
                raise error(
                    f"{flag} {path} is the same file as {seen[key]}: writing it would destroy what the run reads; "
                    "give another file"
                )
        for key in _keys(path):
            seen[key] = flag


def _keys(path: str | None) -> list[tuple[int, int] | str]:
    """What tells a file apart: its real path, and its device and inode when it exists."""
    if path is None or path == "-":
        return []
    keys: list[tuple[int, int] | str] = [os.path.realpath(path)]
    with contextlib.suppress(OSError, ValueError):
        info = os.stat(path)
        keys.append((info.st_dev, info.st_ino))
    return keys
