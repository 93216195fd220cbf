"""``asrender snapshot DIR``: every program's prompts against their stored render, as a diff.

The review step for prompt changes in a user's CI: a change to a program, its input, its canned
replies, a format or promptwire itself shows up as a unified diff of the text a model reads, and
exit status 1. ``--update`` stores the current renders (new and changed ones written, the stored
render of a removed program deleted). Nothing is written without ``--update``.

The stored render of ``DIR/a/b.as`` is ``DIR/__prompts__/a/b.as.<format>.txt``: exactly what
``cd DIR/a && asrender b.as --format <format>`` prints, with its sibling ``b.input.json`` and
``b.responses.json`` when they exist, run in a scratch copy of DIR (so tools and memory start from
what DIR holds and write nowhere that lasts). Rendering one program is the caller's (the CLI's)
job, so the stored text and ``asrender``'s own output cannot drift apart.

The inspector page runs programs the same way: in a scratch copy of their folder
(:func:`scratch_copy`), each with its sibling input and replies (:func:`run_beside`).
"""

from __future__ import annotations

import difflib
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.permissions import Permissions
from ...core.text_files import DEFAULT_MAX_BYTES
from .inputs import canned_responses, program_input
from .run import RunOptions, RunResult, run

if TYPE_CHECKING:
    from ...plugins.manager import PluginHost

__all__ = [
    "STORE",
    "RenderFailed",
    "Review",
    "StoreUnusable",
    "copy_programs",
    "programs",
    "review",
    "run_beside",
    "scratch_copy",
    "siblings",
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
    """Every ``.as`` program under ``directory``, sorted, outside the store and hidden folders."""
    for path in sorted(directory.rglob("*.as")):
        parts = path.relative_to(directory).parts
        if path.is_file() and STORE not in parts and not any(part.startswith(".") for part in parts):
            yield path


def copy_programs(directory: Path, destination: Path) -> None:
    """Copy ``directory`` to ``destination`` for programs to run in: all of it but the store and
    version-control folders, symbolic links as links (a link out of the folder is followed only if
    a program reads through it, as it would be in the folder itself)."""
    top = str(directory)

    def not_copied(folder: str, names: list[str]) -> set[str]:
        skipped = {name for name in names if name in NOT_COPIED}
        return skipped | ({STORE} & set(names) if folder == top else set())

    shutil.copytree(directory, destination, symlinks=True, ignore=not_copied)


@contextmanager
def scratch_copy(folder: Path, prefix: str) -> Iterator[Path]:
    """A throw-away copy of ``folder`` (:func:`copy_programs`) for its programs to run in: their tools
    and memory write into the copy, and every run starts from what the folder holds."""
    with tempfile.TemporaryDirectory(prefix=prefix) as temporary:
        copy = Path(temporary) / folder.resolve().name
        copy_programs(folder, copy)
        yield copy


def siblings(program: Path) -> tuple[Path, Path]:
    """``NAME.input.json`` and ``NAME.responses.json`` beside program ``NAME.as``."""
    return program.with_name(f"{program.stem}.input.json"), program.with_name(f"{program.stem}.responses.json")


def run_beside(program: Path, options: RunOptions, host: PluginHost) -> RunResult:
    """``program`` run as ``asrender NAME.as --input-file NAME.input.json --responses
    NAME.responses.json`` runs it, each sibling used when it exists (and ``options.responses``
    otherwise). Unless ``options.tools`` says otherwise, it may read its folder and write into it
    (the throw-away copy it runs in, so that a program keeping a memory still shows its calls), and
    nothing else: no environment, no network, no file outside, whatever flags ``asrender`` got."""
    if options.tools is None:
        folder = program.resolve().parent
        options = replace(options, tools=Permissions(folder, program_folder=folder, write=(folder,)))
    input_file, responses = siblings(program)
    found = str(input_file) if input_file.is_file() else None
    if responses.is_file():
        options = replace(options, responses=canned_responses(str(responses), DEFAULT_MAX_BYTES))
    input_value = program_input(None, found, DEFAULT_MAX_BYTES)
    return run(program, input_value, options, host=host)


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
        stored = _read(stored_at)
        if stored == text:
            found.unchanged.append(name)
            continue
        (found.new if stored is None else found.changed).append(name)
        if update:
            _store(stored_at, text)
            write(f"{'stored' if stored is None else 'updated'} {stored_at.relative_to(directory).as_posix()}\n")
        elif stored is None:
            write(f"{name}: no stored render (asrender snapshot {directory} --update stores it)\n")
        else:
            write(_diff(stored, text, stored_at.relative_to(directory).as_posix(), name))
    for stale in sorted(store.rglob("*" + suffix)) if store.is_dir() else ():
        if stale not in kept:
            name = stale.relative_to(store).as_posix()[: -len(suffix)]
            found.removed.append(name)
            if update:
                with _store_errors(stale, "cannot delete the stored render"):
                    stale.unlink()
                write(f"deleted {stale.relative_to(directory).as_posix()}\n")
            else:
                write(f"{name}: stored render of a program that no longer exists (--update deletes it)\n")
    write(found.summary(update) + "\n")
    return found


@contextmanager
def _store_errors(path: Path, doing: str) -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        raise StoreUnusable(f"{path}: {doing}: {exc.strerror or exc}") from None


def _read(path: Path) -> str | None:
    with _store_errors(path, "cannot read the stored render"):
        try:
            return path.read_bytes().decode("utf-8", "surrogatepass")
        except FileNotFoundError:
            return None


def _store(path: Path, text: str) -> None:
    with _store_errors(path, "cannot store the render"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8", "surrogatepass"))


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
