"""``import agent X from "other.as"``: the program a run executes, with imported agents merged in.

Merged before the static checks, so calls to an imported agent are checked like any other, and
``asrender check`` loads a program exactly as a run does (:func:`load_program`). As AgentScript
does: each imported file is parsed, its own agent imports resolved first, then checked (a file
importing itself, directly or not, is an error), its non-agent imports are added (paths of
``import file`` and of ``file://`` / ``sqlite://`` memories made absolute relative to the file that
wrote them), and agent ``X`` joins the program as a non-main agent.

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
from . import ensure_valid, parse
from .diagnostics import AgentScriptError
from .positions import SourceFile, line_text
from .syntax import Import, Program

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
    allowed = permissions or default_permissions(program.path)
    return _merge(program, label_rule, allowed, (Path(program.path).resolve(),) if program.path else ())


def _merge(program: Program, label_rule: str, permissions: Permissions, stack: tuple[Path, ...]) -> Program:
    """``stack`` holds the real paths of the files being merged, ``program``'s last (if it has one)."""
    base = stack[-1].parent if stack else Path.cwd()
    if not any(item.resource == "agent" for item in program.imports):
        return replace(program, imports=tuple(_absolute(item, base) for item in program.imports))
    imports: list[Import] = []
    agents = list(program.agents)
    names = {item.name for item in program.imports if item.resource != "agent"}
    for item in program.imports:
        if item.resource != "agent":
            imports.append(_absolute(item, base))
            continue
        written = os.path.normpath(base / item.uri)  # '..' taken by name, as the reference's path.resolve
        name = os.path.normpath(os.path.join(os.path.dirname(program.path or ""), item.uri))
        try:
            source = decode(permissions.read_bytes(written), name)
        except (NotAllowed, NotRegularFile, TooLarge, UnreadableFileError, OSError) as exc:
            raise _error(program, item, f"Cannot read agent file '{item.uri}': {_reason(exc)}") from None
        path = Path(os.path.realpath(written))  # the file's identity (it was read: no NUL byte in it)
        if path in stack:
            raise _error(program, item, f"Circular agent import '{item.uri}'")
        other = _merge(parse(source, name, label_rule=label_rule), label_rule, permissions, (*stack, path))
        other = ensure_valid(other)
        found = next((agent for agent in other.agents if agent.name == item.name), None)
        if found is None:
            raise _error(program, item, f"Agent '{item.name}' is not defined in '{item.uri}'")
        for imported in other.imports:
            if imported.name not in names:
                names.add(imported.name)
                imports.append(replace(imported, file=other.file_of(imported)))
        agents.append(replace(found, is_main=False, file=other.file_of(found)))
    return replace(program, imports=tuple(imports), agents=tuple(agents))


def _reason(exc: Exception) -> str:
    """Why an agent file could not be read, as a reason after its name (a refusal names the flag)."""
    if isinstance(exc, UnreadableFileError):
        return exc.reason
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "is a directory, not a file"
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
