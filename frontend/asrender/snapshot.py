"""``asrender snapshot DIR``: every program's prompts against their stored render, as a diff.

The review step for prompt changes in a user's CI: a change to a program, its input, its canned
replies, a format or promptwire itself shows up as a unified diff of the text a model reads, and
exit status 1. ``--update`` stores the current renders (new and changed ones written, the stored
render of a removed program deleted). Nothing is written without ``--update``.

The stored render of ``DIR/a/b.as`` is ``DIR/__prompts__/a/b.as.<format>.txt``: exactly what
``cd DIR/a && asrender b.as --format <format>`` prints, with its sibling ``b.input.json`` and
``b.responses.json`` (or ``b.recording.jsonl``, a real run recorded with ``--record``) when they exist, run in a scratch copy of DIR (so tools and memory start from
what DIR holds and write nowhere that lasts). Rendering one program is the caller's (the CLI's)
job, so the stored text and ``asrender``'s own output cannot drift apart.

The inspector page runs programs the same way: in a scratch copy of their folder
(:func:`scratch_copy`), each with its sibling input and replies (:func:`run_beside`).
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ...calls.recording import Recording
from ...core.confined import (
    MAX_DEPTH,
    NotRegularFile,
    PathEscapes,
    Root,
    locate,
    open_regular,
    read_limited,
    remove_file,
    replace_file,
    walk,
)
from ...core.errors import PromptwireError
from ...core.permissions import Permissions
from ...core.text_files import DEFAULT_MAX_BYTES, UnreadableFileError
from ...runs.inputs import canned_responses, program_input
from ...runs.options import RunOptions
from ...runs.run import RunResult, run
from .beside import RECORDING_SUFFIX, read_beside, siblings

if TYPE_CHECKING:
    from ...plugins.manager import PluginHost

__all__ = [
    "MAX_COPIED_BYTES",
    "MAX_COPIED_ENTRIES",
    "MAX_COPIED_FILE",
    "RECORDING_SUFFIX",
    "STORE",
    "FolderTooLarge",
    "RenderFailed",
    "Review",
    "StoreUnusable",
    "copy_programs",
    "programs",
    "review",
    "run_beside",
    "scratch_copy",
    "siblings",
    "stored_render",
]

STORE = "__prompts__"

NOT_COPIED = frozenset(
    {".git", ".hg", ".svn", ".venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "__pycache__"}
)
"""Folders of version control, environments and tool caches, at any depth: large, and no program
reads them. Everything else (hidden files included) is copied, so that a program renders in the copy
as it renders in its own folder."""


class RenderFailed(Exception):
    """A program could not be rendered; the message is already worded for the terminal."""


class StoreUnusable(Exception):
    """The store cannot be read or written (a file where a folder should be, no permission...); the
    message names the path."""


@dataclass
class Review:
    """What a review found, program paths relative to the directory."""

    unchanged: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def summary(self, updated: bool) -> str:
        verb = "stored" if updated else "differ"
        parts = [f"{len(self.unchanged)} unchanged"]
        parts += [f"{len(self.changed)} changed", f"{len(self.new)} new", f"{len(self.removed)} removed"]
        if self.failed:
            parts.append(f"{len(self.failed)} failed")
        moved = len(self.changed) + len(self.new) + len(self.removed)
        tail = f"; {moved} {verb}" if moved else ""
        return f"{len(self.unchanged) + len(self.changed) + len(self.new) + len(self.failed)} programs: " + (
            ", ".join(parts) + tail
        )

    def status(self, updated: bool) -> int:
        """2 when a program failed; else 1 when a render differs from the stored one and was not
        stored; else 0."""
        if self.failed:
            return 2
        return 1 if not updated and (self.changed or self.new or self.removed) else 0


def programs(directory: Path) -> Iterator[Path]:
    """Every ``.as`` program under ``directory``, sorted, outside the store and hidden folders: each
    a regular file (a symbolic link is no program of its own, and is never followed to find one).
    Folders deeper than :data:`~promptwire.core.confined.MAX_DEPTH` are not searched."""
    found: list[tuple[str, ...]] = []
    with Root(directory) as root:
        _find_programs(os.dup(root.fd), (), found)
    for parts in sorted(found):
        yield directory.joinpath(*parts)


def _find_programs(folder: int, parts: tuple[str, ...], found: list[tuple[str, ...]]) -> None:
    try:
        for name in os.listdir(folder):
            if name.startswith(".") or name == STORE:
                continue
            try:
                info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except OSError:
                continue  # gone meanwhile
            if stat.S_ISREG(info.st_mode) and name.endswith(".as"):
                found.append((*parts, name))
            elif stat.S_ISDIR(info.st_mode) and len(parts) < MAX_DEPTH:
                try:
                    child = os.open(name, _FOLDER, dir_fd=folder)
                except OSError:
                    continue  # swapped for a link, or gone, meanwhile: not followed
                _find_programs(child, (*parts, name), found)
    finally:
        os.close(folder)


_FOLDER: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


MAX_COPIED_FILE: Final = DEFAULT_MAX_BYTES
"""A file larger than this is not copied: no run reads it whole (the limit of ``File.read``)."""
MAX_COPIED_BYTES: Final = 1 << 30
"""The most a scratch copy holds in all: a folder holding more is not copied (and not run)."""
MAX_COPIED_ENTRIES: Final = 100_000
"""The most files, folders and links a scratch copy holds."""


class FolderTooLarge(PromptwireError):
    """A folder too large to copy for its programs to run in."""


def copy_programs(directory: Path, destination: Path) -> list[str]:
    """Copy ``directory`` to ``destination`` for programs to run in, and say what was left out.

    All of it is copied but the store and version-control folders, each name walked without
    following a link (:mod:`promptwire.core.confined`). A symbolic link that leads to a place inside
    the folder is copied as a link to that place in the copy; one that leads out (or nowhere, or in
    a loop) is left out, and so are FIFOs, sockets and devices, and files larger than
    :data:`MAX_COPIED_FILE`: a program run in the copy cannot read or write through them, and a
    folder someone else wrote cannot make a run read ``~/.ssh/id_rsa`` or write ``~/.bashrc``. The
    list names each thing left out (relative to ``directory``) and why. Raises
    :class:`FolderTooLarge` past :data:`MAX_COPIED_BYTES` or :data:`MAX_COPIED_ENTRIES`.
    """
    left_out: list[str] = []
    copied = [0, 0]  # bytes, entries
    destination.mkdir()
    with Root(directory) as root:
        _copy_folder(root, os.dup(root.fd), (), destination, left_out, copied)
    return left_out


def _copy_folder(
    root: Root, folder: int, parts: tuple[str, ...], destination: Path, left_out: list[str], copied: list[int]
) -> None:
    try:
        names = sorted(os.listdir(folder), key=os.fsencode)
        for name in names:
            if name in NOT_COPIED or (not parts and name == STORE):
                continue
            copied[1] += 1
            if copied[1] > MAX_COPIED_ENTRIES:
                raise FolderTooLarge(f"{root.given} holds more than {MAX_COPIED_ENTRIES} files and folders to copy")
            here = (*parts, name)
            shown = "/".join(here)
            try:
                info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except OSError:
                continue  # gone meanwhile
            target = destination / name
            if stat.S_ISDIR(info.st_mode):
                if len(here) > MAX_DEPTH:
                    left_out.append(f"{shown}: more than {MAX_DEPTH} folders deep, not copied")
                    continue
                try:
                    child = os.open(name, _FOLDER, dir_fd=folder)
                except OSError:
                    continue  # swapped for a link, or gone, meanwhile: not followed
                target.mkdir()
                _copy_folder(root, child, here, target, left_out, copied)
            elif stat.S_ISLNK(info.st_mode):
                _copy_link(root, here, target, left_out)
            elif not stat.S_ISREG(info.st_mode):
                left_out.append(f"{shown}: not a regular file (a FIFO, socket or device), not copied")
            elif info.st_size > MAX_COPIED_FILE:
                left_out.append(f"{shown}: larger than {MAX_COPIED_FILE} bytes, not copied")
            else:
                copied[0] += _copy_file(folder, name, target, shown)
                if copied[0] > MAX_COPIED_BYTES:
                    raise FolderTooLarge(f"{root.given} holds more than {MAX_COPIED_BYTES} bytes to copy")
    finally:
        os.close(folder)


def _copy_link(root: Root, parts: tuple[str, ...], target: Path, left_out: list[str]) -> None:
    """The link ``parts`` as a link to where it leads in the copy, if that is inside the folder."""
    shown = "/".join(parts)
    try:
        with locate(root, list(parts)) as found:
            leads_to = found.parts
            kind = found.kind
    except (PathEscapes, NotRegularFile, OSError):
        left_out.append(f"{shown}: a symbolic link leading out of the folder, not copied")
        return
    if kind == "missing":
        left_out.append(f"{shown}: a symbolic link leading nowhere, not copied")
        return
    target.symlink_to(os.path.relpath("/".join(leads_to) or ".", "/".join(parts[:-1]) or "."))


def _copy_file(folder: int, name: str, target: Path, shown: str) -> int:
    """Copy a regular file (opened without following a link, and checked to be one once open);
    the bytes copied. A file that grows past :data:`MAX_COPIED_FILE` meanwhile is cut off there."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=folder)
    except OSError:
        return 0  # swapped for a link, or gone, meanwhile: not followed
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return 0
        os.set_blocking(fd, True)
        with open(target, "xb") as out:
            total = 0
            while total <= MAX_COPIED_FILE:
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    break
                out.write(chunk)
                total += len(chunk)
        os.chmod(target, stat.S_IMODE(info.st_mode) | stat.S_IRUSR | stat.S_IWUSR)
        return total
    finally:
        os.close(fd)


@contextmanager
def scratch_copy(folder: Path, prefix: str, left_out: list[str] | None = None) -> Iterator[Path]:
    """A throw-away copy of ``folder`` (:func:`copy_programs`) for its programs to run in: their tools
    and memory write into the copy, and every run starts from what the folder holds. ``left_out``
    receives what was not copied, and why."""
    with tempfile.TemporaryDirectory(prefix=prefix) as temporary:
        copy = Path(temporary) / folder.resolve().name
        notes = copy_programs(folder, copy)
        if left_out is not None:
            left_out.extend(notes)
        yield copy


def run_beside(program: Path, options: RunOptions, host: PluginHost, *, folder: Path | None = None) -> RunResult:
    """``program`` run as ``asrender NAME.as --input-file NAME.input.json --responses
    NAME.responses.json`` runs it, each sibling used when it exists (and ``options.responses``
    otherwise), or with ``--responses NAME.recording.jsonl``, replaying a real run recorded with
    ``--record`` (a program may have canned replies or a recording, not both). Unless ``options.tools`` says otherwise, it may read and write ``folder`` (the
    throw-away copy it runs in, so that a program keeping a memory still shows its calls; by
    default the program's own folder), and nothing else: no environment, no network, no file
    outside, whatever flags ``asrender`` got. The program and its siblings are read through the
    same permissions: none is opened through a link out of the folder, as a FIFO or under /proc."""
    tools = options.tools
    if tools is None:
        own = program.resolve().parent
        top = own if folder is None else folder.resolve()
        tools = Permissions(own, program_folder=own, read=(top,), write=(top,))
        options = replace(options, tools=tools)
    source = read_beside(tools, program)
    if source is None:
        raise UnreadableFileError(str(program), "no such file")
    input_file, responses, recording = siblings(program)
    replies = read_beside(tools, responses)
    recorded = read_beside(tools, recording)
    if replies is not None and recorded is not None:
        raise PromptwireError(f"{program} has both {responses.name} and {recording.name}: keep one")
    if replies is not None:
        options = replace(options, responses=canned_responses(str(responses), DEFAULT_MAX_BYTES, text=replies))
    if recorded is not None:
        options = replace(options, replay=Recording.parse(recorded, str(recording)))
    given = read_beside(tools, input_file)
    input_value = {} if given is None else program_input(None, str(input_file), DEFAULT_MAX_BYTES, text=given)
    return run(source, input_value, options, host=host, path=str(program))


def review(
    directory: Path,
    render: Callable[[Path], str],
    *,
    format_name: str,
    update: bool,
    write: Callable[[str], None],
    report_failure: Callable[[str], None],
) -> Review:
    """Render every program with ``render`` and compare (or, with ``update``, store) the texts.

    ``render`` raises :class:`RenderFailed` for a program that cannot be rendered; its message goes
    to ``report_failure`` and the review goes on with the others.
    """
    store = directory / STORE
    found = Review()
    suffix = f".{format_name}.txt"
    kept: set[Path] = set()
    for program in programs(directory):
        name = program.relative_to(directory).as_posix()
        stored_at = store / (name + suffix)
        kept.add(stored_at)
        try:
            text = render(program)
        except RenderFailed as exc:
            found.failed.append(name)
            report_failure(str(exc))
            continue
        stored = _read(directory, stored_at)
        if stored == text:
            found.unchanged.append(name)
            continue
        (found.new if stored is None else found.changed).append(name)
        if update:
            _store(directory, stored_at, text)
            write(f"{'stored' if stored is None else 'updated'} {stored_at.relative_to(directory).as_posix()}\n")
        elif stored is None:
            write(f"{name}: no stored render (asrender snapshot {directory} --update stores it)\n")
        else:
            write(_diff(stored, text, stored_at.relative_to(directory).as_posix(), name))
    for stale in _stored_files(directory, suffix):
        if stale not in kept:
            name = stale.relative_to(store).as_posix()[: -len(suffix)]
            found.removed.append(name)
            if update:
                with _store_errors(stale, "cannot delete the stored render"), Root(directory) as root:
                    remove_file(root, _names(directory, stale), lambda _: None)
                write(f"deleted {stale.relative_to(directory).as_posix()}\n")
            else:
                write(f"{name}: stored render of a program that no longer exists (--update deletes it)\n")
    write(found.summary(update) + "\n")
    return found


def stored_render(directory: Path, program: str, format_name: str) -> str | None:
    """The render ``asrender snapshot`` stored for ``program`` (relative to ``directory``) in
    ``format_name``, or ``None``; read as every stored render is (see :func:`review`)."""
    return _read(directory, directory / STORE / f"{program}.{format_name}.txt")


@contextmanager
def _store_errors(path: Path, doing: str) -> Iterator[None]:
    try:
        yield
    except PathEscapes:
        raise StoreUnusable(f"{path}: {doing}: a symbolic link leads out of the folder (it escapes)") from None
    except (OSError, PromptwireError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StoreUnusable(f"{path}: {doing}: {reason}") from None


def _names(directory: Path, path: Path) -> list[str]:
    return list(path.relative_to(directory).parts)


# The store is in a folder someone else may have written: each of its names is walked beneath
# ``directory`` without following a link out (core.confined), so a stored render that is a link to
# ~/.ssh/id_rsa is never diffed onto the terminal, and --update never writes through a link to
# ~/.bashrc (a write goes to a new file renamed over the name) nor deletes outside the folder.


def _read(directory: Path, path: Path) -> str | None:
    with _store_errors(path, "cannot read the stored render"), Root(directory) as root:
        try:
            fd, found = open_regular(root, _names(directory, path))
        except FileNotFoundError:
            return None
        found.close()
        try:
            data = read_limited(fd, DEFAULT_MAX_BYTES, path.relative_to(directory).as_posix())
        finally:
            os.close(fd)
        try:
            return data.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError as exc:
            raise StoreUnusable(f"{path}: cannot read the stored render: not UTF-8 text at byte {exc.start}") from None


def _store(directory: Path, path: Path, text: str) -> None:
    with _store_errors(path, "cannot store the render"), Root(directory) as root:
        replace_file(root, _names(directory, path), text.encode("utf-8", "surrogatepass"), lambda _: None)


def _stored_files(directory: Path, suffix: str) -> list[Path]:
    """The stored renders in one format, sorted (links are not followed, nor listed)."""
    store = directory / STORE
    with (
        _store_errors(store, "cannot list the stored renders"),
        Root(directory) as root,
        contextlib.closing(walk(root, [STORE])) as entries,
    ):
        return sorted(
            directory.joinpath(*entry.parts)
            for entry in entries
            if entry.is_file and entry.parts[-1].endswith(suffix) and len(entry.parts) > 1
        )


def _lines(text: str) -> list[str]:
    """``text`` split after each ``\\n`` only: a stored render is bytes, and a lone ``\\r`` or U+2028
    inside a line is part of that line (``str.splitlines`` would end the line there)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def _diff(stored: str, now: str, stored_name: str, program: str) -> str:
    lines = difflib.unified_diff(
        _lines(stored),
        _lines(now),
        fromfile=f"{stored_name} (stored)",
        tofile=f"{program} (rendered now)",
    )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
