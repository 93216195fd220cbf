"""``import agent X from "other.as"``: the program a run executes, with imported agents merged in.

Merged before the static checks, so calls to an imported agent are checked like any other, and
``asrender check`` loads a program exactly as a run does (:func:`load_program`). As AgentScript
0.1.5 loads one, an imported file is a source of agents, not a program: it is parsed, never checked
on its own (it may hold several agents and no ``main agent``), and only the agent named is taken
from it, as a non-main agent. Its own imports are followed where its ``import agent`` line stands:
its agent imports in turn (paths relative to it), its other imports into the program's one list
(paths of ``import file`` and of ``file://`` / ``sqlite://`` memories made absolute relative to the
file that wrote them). The loaded program has one namespace: every agent and every import of every
file is seen by every function. The same import (kind, name, URI) met again merges silently; the
same name with another URI stays, and the checks report it (``DUPLICATE_IMPORT`` at the later one).

An agent already imported (the same file and name), or being imported, is skipped, so two files may
import each other's agents. The entry file is not one of them: an imported file that imports an
agent of the entry file loads it a second time, and the checks report ``DUPLICATE_AGENT``. A file
imported again, for another agent, while it is still loading is a cycle: ``Circular agent import
detected at <uri>``. Loading errors are the reference's texts, wrapped once per level of loading
(``Failed to load agent import 'X' from <absolute path>: ...``); promptwire locates them at the
entry file's import that started the chain, where the reference gives no place.

A program's own source is read by :func:`read_source`; each file it imports as an agent is read
through the run's :class:`~promptwire.core.permissions.Permissions`, as ``import file`` is: a
program someone else wrote may import files of its own folder, and nothing else unless the person
running it allowed it (``--allow-read``). ``import agent X from "/etc/passwd"`` would otherwise
print a line of that file in its parse error. No /proc, FIFO or device is opened and no symlink
is followed out; a refusal is one located error naming the flag to add.

Every agent and import merged in remembers its file (:class:`~.positions.SourceFile`), so its errors
and call sites name that file. An imported file is named as the user would type its path from where
they stand: the folder of the importing file's name joined with the import's path, normalised
(``asrender examples/newsroom/newsroom.as`` importing ``"./critic.as"`` names
``examples/newsroom/critic.as``; an absolute main path gives absolute names).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from ...core.confined import NotRegularFile, TooLarge
from ...core.permissions import NotAllowed, Permissions
from ...core.text_files import DEFAULT_MAX_BYTES, UnreadableFileError, decode, read_text
from . import parse
from .diagnostics import AgentScriptError
from .positions import SourceFile, line_text
from .syntax import Agent, Import, Program

__all__ = ["default_permissions", "load_program", "program_folder", "read_source", "with_imported_agents"]

IMPORT_ERROR = "IMPORT_ERROR"


def read_source(file: str, label: str | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """A program's source, read as every run reads one (``asrender``, a Python caller, the
    inspector, an ``import agent``): UTF-8 from the file's bytes (``-``: standard input), a leading
    byte-order mark dropped and line ends as written, so a ``\\r\\n`` inside a string literal is
    the same two characters wherever the program is run from. ``label`` names the file in errors
    (:class:`~promptwire.core.text_files.UnreadableFileError`); at most ``max_bytes`` are read."""
    return read_text(file, file if label is None else label, max_bytes)


def load_program(
    source: str, path: str | None = None, *, label_rule: str = "release", permissions: Permissions | None = None
) -> Program:
    """``source`` parsed, with its imported agents merged in: what a run executes and what
    ``check`` checks. ``path`` names the file (as the user typed it) and locates its imports;
    ``permissions`` are the run's (by default: reading the program's folder, nothing else)."""
    return with_imported_agents(
        parse(source, path, label_rule=label_rule), label_rule=label_rule, permissions=permissions
    )


def default_permissions(path: str | None) -> Permissions:
    """What a run of the program named ``path`` may touch unless told otherwise: reading its
    folder, nothing else."""
    folder = program_folder(path)
    return Permissions(folder, program_folder=folder)


def program_folder(path: str | None) -> Path:
    """The folder of the program named ``path`` (the current folder for a program with no file):
    where its imports and its tools' paths start."""
    return Path(path).resolve().parent if path else Path.cwd()


def with_imported_agents(
    program: Program, *, label_rule: str = "release", permissions: Permissions | None = None
) -> Program:
    """``program`` with every ``import agent`` replaced by the agent it names, each file read
    through ``permissions`` (by default: :func:`default_permissions`)."""
    loader = _Loader(program, label_rule, permissions or default_permissions(program.path))
    loader.merge(program, _folder(program.path))
    return replace(program, imports=tuple(loader.imports), agents=(*program.agents, *loader.agents))


def _folder(path: str | None) -> Path:
    """The absolute folder of the file named ``path`` ('..' taken by name, as the reference's
    ``path.resolve``): where that file's relative imports start."""
    return Path(os.path.abspath(path)).parent if path else Path.cwd()


class _Loader:
    """One load: the program's single import list and the agents taken from other files, in the
    order the reference merges them (depth-first, each file's imports in source order)."""

    def __init__(self, entry: Program, label_rule: str, permissions: Permissions) -> None:
        self.entry = entry
        self.label_rule = label_rule
        self.permissions = permissions
        self.imports: list[Import] = []
        self.merged: set[tuple[str, str, str]] = set()  # (kind, name, URI) of each import in the list
        self.agents: list[Agent] = []
        self.taken: set[tuple[str, str]] = set()  # (file, agent) imported or being imported
        self.loading: set[str] = set()  # the imported files being loaded (never the entry file)

    def merge(self, program: Program, folder: Path) -> None:
        """``program``'s imports, from the file in ``folder``: an ``import agent`` brings in that
        file's imports at its place; any other import joins the list, unless the same one (kind,
        name and URI) is there already. The same name with another URI stays, for the checks to
        report (``DUPLICATE_IMPORT`` at the later one, in its own file)."""
        for item in program.imports:
            if item.resource == "agent":
                self.load_agent(program, item, folder)
                continue
            added = _absolute(item, folder)
            if program is not self.entry:
                added = replace(added, file=program.file_of(item))
            key = (added.resource, added.name, added.uri)
            if key not in self.merged:
                self.merged.add(key)
                self.imports.append(added)

    def load_agent(self, program: Program, item: Import, folder: Path) -> None:
        """Agent ``item.name`` of the file ``item.uri`` (from ``folder``), with everything that file
        imports. An agent already taken, or being taken, is skipped: two files may import each
        other's agents. A file imported again, for another agent, while it loads is a cycle."""
        written = os.path.normpath(folder / item.uri)  # '..' taken by name, as the reference's path.resolve
        identity = _identity(written)
        if (identity, item.name) in self.taken:
            return
        if identity in self.loading:
            raise _error(program, item, f"Circular agent import detected at {item.uri}")
        self.taken.add((identity, item.name))
        self.loading.add(identity)
        try:
            found = self.agent_of(program, item, written)
        except _LoadFailed as failed:
            raise failed.wrapped(program, item, written) from None
        finally:
            self.loading.discard(identity)
        self.agents.append(found)

    def agent_of(self, program: Program, item: Import, written: str) -> Agent:
        """The agent ``item`` names, read from ``written`` after that file's imports were merged.
        Its other agents are not taken, and the file is not checked alone: the one program is."""
        name = os.path.normpath(os.path.join(os.path.dirname(program.path or ""), item.uri))
        try:
            source = decode(self.permissions.read_bytes(written), name)
        except (NotAllowed, NotRegularFile, TooLarge, UnreadableFileError, OSError) as exc:
            raise _LoadFailed(_reason(exc, written)) from None
        other = parse(source, name, label_rule=self.label_rule)
        try:
            self.merge(other, Path(written).parent)
        except AgentScriptError as exc:
            if exc.code != IMPORT_ERROR:
                raise  # a parse error in a file it imports: located in that file
            raise _LoadFailed(exc.message) from None
        found = next((agent for agent in other.agents if agent.name == item.name), None)
        if found is None:
            raise _LoadFailed(f"Imported agent '{item.name}' was not found in {item.uri}")
        return replace(found, is_main=False, file=other.file_of(found))


class _LoadFailed(Exception):
    """Why loading one imported file failed, before the import that asked for it words it."""

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def wrapped(self, program: Program, item: Import, written: str) -> AgentScriptError:
        return _error(program, item, f"Failed to load agent import '{item.name}' from {written}: {self.reason}")


def _identity(written: str) -> str:
    """A file's identity: its real path, so a symlink cannot make one file two (or a folder that
    links to itself an endless chain of files); a path with a NUL byte names no file and is kept."""
    return written if "\x00" in written else os.path.realpath(written)


def _reason(exc: Exception, path: str) -> str:
    """Why an agent file could not be read: Node's words where the reference reads it (a missing
    file, a folder), the refusal (which names the flag to add) or the reason otherwise."""
    if isinstance(exc, UnreadableFileError):
        return exc.reason
    if isinstance(exc, FileNotFoundError):
        return f"ENOENT: no such file or directory, open '{path}'"
    if isinstance(exc, IsADirectoryError):
        return "EISDIR: illegal operation on a directory, read"
    if isinstance(exc, OSError):
        return f"cannot read ({exc.strerror or exc})"
    return str(exc)


def _absolute(item: Import, base: Path) -> Import:
    """``import file`` paths, and the paths of ``file://`` and ``sqlite://`` memories, made absolute
    from the folder of the file that imports them (a memory beside its program stays there, from
    whatever folder the program is run)."""
    if item.resource == "file":
        return replace(item, uri=os.path.normpath(base / item.uri))
    if item.resource == "memory":
        scheme, separator, rest = item.uri.partition("://")
        if separator and scheme in _MEMORY_FILE_SCHEMES and rest and not rest.startswith("/"):
            return replace(item, uri=f"{scheme}://{base / rest}")
    return item


_MEMORY_FILE_SCHEMES = ("file", "sqlite")


def _error(program: Program, item: Import, message: str) -> AgentScriptError:
    start = item.span.start
    file: SourceFile = program.file_of(item)
    return AgentScriptError(
        IMPORT_ERROR,
        message,
        file=file.name,
        line=start.line,
        column=start.column,
        source_line=line_text(file.text, start.line) if file.text else None,
    )
