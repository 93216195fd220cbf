"""What ``asrender check`` finds in a program, as located findings an editor can place.

The program is loaded as a run loads it (:func:`..agentscript.loader.load_program`: its imported
agents read through the run's default permissions, parsed and checked) and checked
(:func:`..agentscript.check`), so the codes, messages and positions are exactly the ones ``asrender
check`` prints. A finding inside an imported file names that file; :func:`import_of` tells which
``import agent`` of the checked file led to it, so the editor can show it on that line too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...core.errors import PromptwireError, SourceError
from ..agentscript.diagnostics import DEFAULT_FILE, CheckError, Diagnostic
from ..agentscript.syntax import Import, Program

__all__ = ["Finding", "check_source", "import_of"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One error: the file it is in (as the loader names it), its 1-based lines and UTF-16 columns
    (the reference's, as ``asrender check`` prints them), and that file's text, which places them."""

    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    message: str
    text: str


def check_source(source: str, path: str | None) -> list[Finding]:
    """Every finding of ``asrender check`` on ``source``, the program named ``path``.

    A parse error, an import that cannot be read and a failed check of an imported file stop the
    load (as they stop ``asrender check``): each is one finding, where the loader located it.
    """
    from ..agentscript import check
    from ..agentscript.loader import load_program

    name = path or DEFAULT_FILE
    try:
        diagnostics = check(load_program(source, path))
    except CheckError as exc:  # an imported file failed its checks
        return [_of_diagnostic(d, exc.file_of(d), exc.source or "") for d in exc.diagnostics]
    except SourceError as exc:  # a parse error, here or in an imported file, or an unreadable import
        text = source if exc.file == name else _imported_text(source, path, exc.file)
        code = getattr(exc, "code", "ERROR")
        return [Finding(exc.file, exc.line, exc.column, exc.line, exc.column + 1, code, exc.message, text)]
    except RecursionError:
        return [Finding(name, 1, 1, 1, 1, "ERROR", "the program is nested too deeply to check", source)]
    return [_of_diagnostic(d, name, source) for d in diagnostics]


def _of_diagnostic(diagnostic: Diagnostic, file: str, text: str) -> Finding:
    if diagnostic.file is not None:
        file, text = diagnostic.file.name, diagnostic.file.text
    start, end = diagnostic.span.start, diagnostic.span.end
    return Finding(file, start.line, start.column, end.line, end.column, diagnostic.code, diagnostic.message, text)


def _imported_text(source: str, path: str | None, file: str) -> str:
    """The text of imported ``file`` as the loader read it, for placing a parse error in it (empty
    when it cannot be read again: the finding is then placed on its line alone)."""
    from ...core.text_files import decode
    from ..agentscript.loader import default_permissions

    try:
        return decode(default_permissions(path).read_bytes(file), file)
    except (PromptwireError, OSError, ValueError):
        return ""


def import_of(program: Program, finding: Finding) -> Import | None:
    """The ``import agent`` of ``program`` whose file (or a file it imports in turn) holds
    ``finding``: the first one whose load fails, or whose loaded agents or imports come from that
    file, as the loader reads them in order. ``None`` when the finding is in the program's own file."""
    from ..agentscript.loader import with_imported_agents

    if finding.file == (program.path or DEFAULT_FILE):
        return None
    for item in program.imports:
        if item.resource != "agent":
            continue
        try:
            loaded = with_imported_agents(replace(program, imports=(item,)))
        except (PromptwireError, RecursionError):
            return item
        files = {loaded.file_of(agent).name for agent in loaded.agents}
        files |= {loaded.file_of(imported).name for imported in loaded.imports}
        if finding.file in files:
            return item
    return None
    for item in program.imports:
        if item.resource != "agent":
            continue
        try:
            with_imported_agents(replace(program, imports=(item,)))
        except (PromptwireError, RecursionError):
            return item
    return None
