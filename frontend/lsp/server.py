"""The language server: pygls over stdio, each request answered from the modules beside this one.

Diagnostics are worked out after the text has rested for :data:`DEBOUNCE` seconds; new text cancels
the pending work for that file (a check already running finishes in its thread and its result is
dropped, an evaluation's child process is killed). Parsing and checking run in a worker thread, so
requests keep being read while a large file is checked. Hovers and the "Show prompt" lens share one
evaluation per file version and settings.

Settings (``initializationOptions``, or ``workspace/didChangeConfiguration`` under ``asrender``):
``format`` (the format calls are shown in, AgentScript's by default), ``provider`` (a provider whose
exact request body a dry run adds under each call; none by default) and ``timeout`` (seconds an
evaluation may take, 10 by default).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import unquote, urlsplit

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

from .documents import Document
from .evaluation import Evaluation, EvaluationFailed, evaluate
from .findings import Finding, check_source, import_of
from .outline import Name, Outline
from .placing import Placement

__all__ = ["DEBOUNCE", "SHOW_PROMPT", "AgentScriptServer"]

DEBOUNCE = 0.15
"""Seconds the text must rest before it is checked: typing a word checks once, not per key."""
SHOW_PROMPT = "asrender.showPrompt"
"""The command of the "Show prompt" lens: arguments ``[uri, line, character]`` of a ``generate``."""


@dataclass(frozen=True)
class Settings:
    format: str = "agentscript"
    provider: str | None = None
    timeout: float = 10.0

    def updated(self, given: Any) -> Settings:
        """These settings with what the client sent (unknown or ill-typed keys ignored)."""
        if not isinstance(given, dict):
            return self
        given = given.get("asrender", given)
        if not isinstance(given, dict):
            return self
        changes: dict[str, Any] = {}
        if isinstance(given.get("format"), str):
            changes["format"] = given["format"]
        if "provider" in given and (given["provider"] is None or isinstance(given["provider"], str)):
            changes["provider"] = given["provider"] or None
        if isinstance(given.get("timeout"), int | float) and 0 < given["timeout"] <= 300:
            changes["timeout"] = float(given["timeout"])
        return replace(self, **changes)


@dataclass(frozen=True)
class Place:
    """A range in a file: its path, text and code-point offsets."""

    path: str
    text: str
    start: int
    end: int


class AgentScriptServer(LanguageServer):
    """The server's state: the open documents, the pending checks and the evaluations."""

    def __init__(self) -> None:
        from ...plugins.manager import own_version

        super().__init__(
            "asrender-lsp", own_version() or "0", text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental
        )
        self.documents: dict[str, Document] = {}
        self.settings = Settings()
        self._checks: dict[str, asyncio.Task[None]] = {}
        self._running: dict[str, asyncio.Future[Any]] = {}
        """Each file's check (or outline) running in a worker thread, which the next one waits for."""
        self._evaluations: dict[tuple[str, int | None, Settings], asyncio.Task[Evaluation]] = {}
        self._published_elsewhere: dict[str, set[str]] = {}
        self._placements: dict[tuple[str, int], Placement] = {}
        self._imported_outlines: dict[tuple[str, str], Outline] = {}
        """The outlines of imported files by name and text (their text is the key: reparsed when it changes)."""
        self.last_outlines: dict[str, Outline] = {}
        """Each file's outline when it last parsed: completion reads it while the text does not."""

    # Documents ---------------------------------------------------------------------------------

    def opened(self, uri: str, text: str, version: int | None) -> None:
        self.documents[uri] = Document(uri, _path_of(uri), text, version)
        self._schedule_check(uri)

    def changed(self, uri: str, version: int | None) -> None:
        """The workspace applied the change (pygls keeps the text); take the new text and re-check."""
        text = self.workspace.get_text_document(uri).source
        self.documents[uri] = Document(uri, _path_of(uri), text, version)
        self._stop_evaluations(uri)
        self._schedule_check(uri)

    def closed(self, uri: str) -> None:
        """Forget the file: its pending work stopped, its diagnostics (and those its check put on
        files it imports, unless they are open) cleared."""
        self.documents.pop(uri, None)
        self.last_outlines.pop(uri, None)
        task = self._checks.pop(uri, None)
        if task is not None:
            task.cancel()
        self._running.pop(uri, None)
        self._stop_evaluations(uri)
        for other in self._published_elsewhere.pop(uri, set()) - set(self.documents):
            self._publish(other, [])
        self._publish(uri, [])

    def _stop_evaluations(self, uri: str) -> None:
        """Cancel the file's evaluations: their child processes are killed."""
        for key in [key for key in self._evaluations if key[0] == uri]:
            self._evaluations.pop(key).cancel()

    def placement(self, text: str) -> Placement:
        """Positions in ``text``, in the encoding agreed with the client (kept for the last texts)."""
        encoding = str(self.workspace.position_encoding or "utf-16")
        key = (encoding, id(text))
        found = self._placements.get(key)
        if found is None or found.text is not text:
            if len(self._placements) > 16:
                self._placements.clear()
            found = self._placements[key] = Placement(text, encoding)
        return found

    def range_of(self, text: str, start: int, end: int) -> lsp.Range:
        placement = self.placement(text)
        return lsp.Range(_position(placement.position(start)), _position(placement.position(end)))

    def offset_at(self, document: Document, position: lsp.Position) -> int:
        return self.placement(document.text).offset(position.line, position.character)

    # Diagnostics -------------------------------------------------------------------------------

    def _schedule_check(self, uri: str) -> None:
        pending = self._checks.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self._checks[uri] = asyncio.get_running_loop().create_task(self._check_later(uri))

    async def _check_later(self, uri: str) -> None:
        """Check the file's text once it has rested, one check of a file at a time: a check already
        running for older text (a thread cannot be stopped) is waited for, not run beside."""
        await asyncio.sleep(DEBOUNCE)
        running = self._running.get(uri)
        if running is not None and not running.done():
            await asyncio.wait([running])
        document = self.documents.get(uri)
        if document is None:
            return
        work = asyncio.ensure_future(asyncio.to_thread(_checked, document))
        self._running[uri] = work
        findings = await asyncio.shield(work)
        if self.documents.get(uri) is not document:
            return  # the text changed while it was checked: the newer check publishes
        self.publish_findings(document, findings)
        outlined = asyncio.ensure_future(asyncio.to_thread(document.outline))  # the diagnostics did not wait for it
        self._running[uri] = outlined
        outline = await asyncio.shield(outlined)
        if outline is not None:
            self.last_outlines[uri] = outline

    def publish_findings(self, document: Document, findings: list[Finding]) -> None:
        """The findings in ``document`` on it; those in an imported file on that file (unless the
        editor has it open: it has its own) and on the ``import agent`` line they came through,
        pointing at them as related information."""
        own: list[lsp.Diagnostic] = []
        elsewhere: dict[str, list[lsp.Diagnostic]] = {}
        program = document.program
        for finding in findings:
            diagnostic = self._diagnostic(finding)
            if finding.file == document.path:
                own.append(diagnostic)
                continue
            uri = from_fs_path(finding.file) or finding.file
            elsewhere.setdefault(uri, []).append(diagnostic)
            item = None if program is None else import_of(program, finding)
            at = (item.span.start_offset, item.span.end_offset) if item is not None else (0, 0)
            own.append(
                lsp.Diagnostic(
                    range=self.range_of(document.text, *at),
                    message=f"{finding.file}:{finding.line}:{finding.column}: {finding.message}",
                    severity=lsp.DiagnosticSeverity.Error,
                    code=finding.code,
                    source="asrender",
                    related_information=[
                        lsp.DiagnosticRelatedInformation(lsp.Location(uri, diagnostic.range), finding.message)
                    ],
                )
            )
        self._publish(document.uri, own, document.version)
        open_uris = set(self.documents)
        before = self._published_elsewhere.get(document.uri, set())
        for uri in before - set(elsewhere):
            if uri not in open_uris:
                self._publish(uri, [])
        for uri, diagnostics in elsewhere.items():
            if uri not in open_uris:
                self._publish(uri, diagnostics)
        self._published_elsewhere[document.uri] = set(elsewhere)

    def _diagnostic(self, finding: Finding) -> lsp.Diagnostic:
        placement = self.placement(finding.text)
        start = placement.offset_of(finding.line, finding.column)
        end = max(start, placement.offset_of(finding.end_line, finding.end_column))
        return lsp.Diagnostic(
            range=self.range_of(finding.text, start, end),
            message=finding.message,
            severity=lsp.DiagnosticSeverity.Error,
            code=finding.code,
            source="asrender",
        )

    def _publish(self, uri: str, diagnostics: list[lsp.Diagnostic], version: int | None = None) -> None:
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    # Evaluations -------------------------------------------------------------------------------

    async def evaluation(self, document: Document) -> Evaluation:
        """The offline run of ``document``'s text, shared by every hover and lens of this version
        and settings. A cancelled request does not stop it; new text does."""
        if document.file is None:
            raise EvaluationFailed("only a program saved in a folder can be run (it reads its folder)")
        key = (document.uri, document.version, self.settings)
        task = self._evaluations.get(key)
        if task is None:
            settings = self.settings
            task = asyncio.get_running_loop().create_task(
                evaluate(
                    document.file,
                    document.text,
                    format_name=settings.format,
                    provider=settings.provider,
                    timeout=settings.timeout,
                )
            )
            self._evaluations[key] = task
        return await asyncio.shield(task)

    # Names -------------------------------------------------------------------------------------

    def target(self, document: Document, name: Name) -> tuple[Place, Name] | None:
        """Where ``name`` is finally declared: in this file, or, through an ``import agent``, the
        agent (or its function) in the file it comes from, loaded as a run loads it."""
        outline = document.outline()
        if outline is None or document.path is None:
            return None
        if name.kind == "member":
            owner = name.node.object
            if not hasattr(owner, "name"):
                return None
            owner_name = outline.declaration_of(Name("name", owner.name, 0, 0, name.agent, False, owner))
            if owner_name is None:
                return None
            found = self._imported_agent(document, owner_name) if owner_name.kind == "import" else None
            agent_outline, agent_name = found if found is not None else (outline, owner_name.name)
            for declared in agent_outline.declarations():
                if declared.kind == "function" and declared.agent == agent_name and declared.name == name.name:
                    return _place(agent_outline, declared), declared
            return None
        found_here = outline.declaration_of(name)
        if found_here is None:
            return None
        declared = found_here
        if declared.kind == "import" and declared.node.resource == "agent":
            found = self._imported_agent(document, declared)
            if found is not None:
                other, agent = found
                for candidate in other.declarations():
                    if candidate.kind == "agent" and candidate.name == agent:
                        return _place(other, candidate), candidate
        return _place(outline, declared), declared

    def _imported_agent(self, document: Document, item: Name) -> tuple[Outline, str] | None:
        """The outline of the file ``import agent`` ``item`` names, and the agent's name, as the
        loader finds it (``None`` when the program does not load)."""
        from ..agentscript import parse

        loaded = document.loaded()
        for agent in () if loaded is None else loaded.agents:
            if agent.name == item.name and agent.file is not None:
                key = (agent.file.name, agent.file.text)
                found = self._imported_outlines.get(key)
                if found is None:
                    if len(self._imported_outlines) > 32:
                        self._imported_outlines.clear()
                    found = self._imported_outlines[key] = Outline(parse(agent.file.text, agent.file.name))
                return found, agent.name
        return None

    def candidates(self, place: Place) -> Iterable[Document]:
        """The documents references are looked for in: every open one, and the target's file."""
        yield from list(self.documents.values())
        if not any(document.path == place.path for document in self.documents.values()):
            yield Document(from_fs_path(place.path) or place.path, place.path, place.text, None)


def _checked(document: Document) -> list[Finding]:
    """``asrender check``'s findings on the document; with a finding in another file, the document's
    outline too (the import lines such findings came through), so publishing needs no parse."""
    findings = check_source(document.text, document.path)
    if any(finding.file != document.path for finding in findings):
        document.outline()
    return findings


def _place(outline: Outline, name: Name) -> Place:
    return Place(outline.program.path or "", outline.source, name.start, name.end)


def _position(at: tuple[int, int]) -> lsp.Position:
    return lsp.Position(line=at[0], character=at[1])


def _path_of(uri: str) -> str | None:
    """The file a ``file:`` URI names (``None`` for an unsaved buffer)."""
    parts = urlsplit(uri)
    return unquote(parts.path) if parts.scheme == "file" else None
