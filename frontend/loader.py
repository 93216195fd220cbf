"""``import agent X from "other.as"``: the program a run executes, with imported agents merged in.

Merged before the static checks, so calls to an imported agent are checked like any other. As
AgentScript does: each imported file is parsed, its own agent imports resolved first, then checked
(a file importing itself, directly or not, is an error), its non-agent imports are added (paths of
``import file`` made absolute relative to the file that wrote them), and agent ``X`` joins the
program as a non-main agent.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .diagnostics import AgentScriptError
from .language import ensure_valid, parse
from .source import line_text
from .syntax import Import, Program

__all__ = ["with_imported_agents"]

IMPORT_ERROR = "IMPORT_ERROR"


def with_imported_agents(program: Program, *, label_rule: str = "release") -> Program:
    """``program`` with every ``import agent`` replaced by the agent it names."""
    return _merge(program, label_rule, (Path(program.path).resolve(),) if program.path else ())


def _merge(program: Program, label_rule: str, stack: tuple[Path, ...]) -> Program:
    base = Path(program.path).resolve().parent if program.path else Path.cwd()
    if not any(item.resource == "agent" for item in program.imports):
        return replace(program, imports=tuple(_absolute(item, base) for item in program.imports))
    imports: list[Import] = []
    agents = list(program.agents)
    names = {item.name for item in program.imports if item.resource != "agent"}
    for item in program.imports:
        if item.resource != "agent":
            imports.append(_absolute(item, base))
            continue
        path = (base / item.uri).resolve()
        if path in stack:
            raise _error(program, item, f"Circular agent import '{item.uri}'")
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise _error(program, item, f"Cannot read agent file '{item.uri}': {exc}") from None
        other = ensure_valid(_merge(parse(source, str(path), label_rule=label_rule), label_rule, (*stack, path)))
        found = next((agent for agent in other.agents if agent.name == item.name), None)
        if found is None:
            raise _error(program, item, f"Agent '{item.name}' is not defined in '{item.uri}'")
        for imported in other.imports:
            if imported.name not in names:
                names.add(imported.name)
                imports.append(imported)
        agents.append(replace(found, is_main=False))
    return replace(program, imports=tuple(imports), agents=tuple(agents))


def _absolute(item: Import, base: Path) -> Import:
    """``import file`` paths, and the paths of ``file://`` and ``sqlite://`` memories, made absolute
    from the folder of the file that imports them (a memory beside its program stays there, from
    whatever folder the program is run)."""
    if item.resource == "file":
        return replace(item, uri=str(base / item.uri))
    if item.resource == "memory":
        scheme, separator, rest = item.uri.partition("://")
        if separator and scheme in _MEMORY_FILE_SCHEMES and rest and not rest.startswith("/"):
            return replace(item, uri=f"{scheme}://{base / rest}")
    return item


_MEMORY_FILE_SCHEMES = ("file", "sqlite")


def _error(program: Program, item: Import, message: str) -> AgentScriptError:
    start = item.span.start
    shown = line_text(program.source, start.line) if program.source else None
    return AgentScriptError(
        IMPORT_ERROR, message, file=program.path or "<source>", line=start.line, column=start.column, source_line=shown
    )
