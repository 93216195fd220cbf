"""Each request the server answers, registered on it: one handler per LSP method."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types as lsp
from pygls.uris import from_fs_path

from ..agentscript.syntax import ANONYMOUS_MAIN_AGENT, ANONYMOUS_MAIN_FUNC
from .completion import completions
from .documents import Document
from .evaluation import EvaluationFailed
from .hovers import calls_text, declaration_text, section_text, signature
from .outline import Name, Outline
from .server import SHOW_PROMPT

if TYPE_CHECKING:
    from ..agentscript.positions import Span
    from .server import AgentScriptServer

__all__ = ["register"]

T = TypeVar("T")

SYMBOL_KINDS = {
    "agent": lsp.SymbolKind.Class,
    "function": lsp.SymbolKind.Method,
    "import": lsp.SymbolKind.Module,
    "label": lsp.SymbolKind.Field,
}


def register(server: AgentScriptServer) -> None:
    """Register every handler on ``server``."""

    @server.feature(lsp.INITIALIZE)
    def initialize(params: lsp.InitializeParams) -> None:
        server.settings = server.settings.updated(params.initialization_options)

    @server.feature(lsp.SHUTDOWN)
    def shutdown(params: None) -> None:
        """No evaluation outlives the session."""
        from .evaluation import kill_all

        kill_all()

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def configuration(params: lsp.DidChangeConfigurationParams) -> None:
        server.settings = server.settings.updated(params.settings)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        document = params.text_document
        server.opened(document.uri, document.text, document.version)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        server.changed(params.text_document.uri, params.text_document.version)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        server.closed(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(params: lsp.HoverParams) -> lsp.Hover | None:
        document = server.documents.get(params.text_document.uri)
        outline = None if document is None else await _outline(server, document)
        if document is None or outline is None:
            return None
        offset = server.offset_at(document, params.position)
        name = outline.at(offset)
        if name is not None and name.kind != "label":
            found = server.target(document, name)
            if found is not None and found[1].kind in ("agent", "function", "import"):
                place, declared = found
                line, column = _reference_position(place.text, place.start)
                text = declaration_text(place.path, line, column, signature(declared.node))
                return _markdown(text, server.range_of(document.text, name.start, name.end))
        site = outline.site_at(offset)
        if name is not None and name.kind == "label":
            site = next((s for s in outline.sites if any(label == name for label in s.labels)), None)
        if site is None:
            return None
        try:
            evaluation = await server.evaluation(document)
        except EvaluationFailed as exc:
            return _markdown(f"Cannot show the prompt: {exc}", None)
        start = site.node.span.start
        calls = evaluation.at(document.path or "", start.line, start.column)
        label = name if name is not None and name.kind == "label" else None
        if label is not None:
            section = section_text(evaluation, calls, label.name)
            if section is None:
                section = f"No call of the next generate had a context section [{label.name}] in the run."
            return _markdown(section, server.range_of(document.text, label.start, label.end))
        span = site.node.span
        heading = f"generate at line {start.line}, column {start.column}"
        return _markdown(calls_text(evaluation, calls, heading), server.range_of(document.text, *_keyword(span)))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    async def definition(params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        document = server.documents.get(params.text_document.uri)
        outline = None if document is None else await _outline(server, document)
        if document is None or outline is None:
            return None
        name = outline.at(server.offset_at(document, params.position))
        found = None if name is None else server.target(document, name)
        if found is None:
            return None
        place = found[0]
        return [
            lsp.Location(from_fs_path(place.path) or place.path, server.range_of(place.text, place.start, place.end))
        ]

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    async def references(params: lsp.ReferenceParams) -> list[lsp.Location] | None:
        document = server.documents.get(params.text_document.uri)
        outline = None if document is None else await _outline(server, document)
        if document is None or outline is None:
            return None
        name = outline.at(server.offset_at(document, params.position))
        found = None if name is None else server.target(document, name)
        if found is None:
            return None
        place = found[0]
        locations: list[lsp.Location] = []
        for candidate in server.candidates(place):
            other = candidate.outline()
            if other is None:
                continue
            for used in other.names:
                target = server.target(candidate, used)
                if target is None or target[0] != place:
                    continue
                if used.declared and used.kind != "import" and not params.context.include_declaration:
                    continue
                locations.append(lsp.Location(candidate.uri, server.range_of(candidate.text, used.start, used.end)))
        return locations

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def symbols(params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol] | None:
        document = server.documents.get(params.text_document.uri)
        outline = None if document is None else await _outline(server, document)
        if document is None or outline is None:
            return None
        return _symbols(server, document.text, outline)

    @server.feature(lsp.TEXT_DOCUMENT_FOLDING_RANGE)
    async def folding(params: lsp.FoldingRangeParams) -> list[lsp.FoldingRange] | None:
        document = server.documents.get(params.text_document.uri)
        outline = None if document is None else await _outline(server, document)
        if document is None or outline is None:
            return None
        placement = server.placement(document.text)
        ranges = []
        for start, end in outline.folds:
            first, last = placement.position(start)[0], placement.position(end)[0]
            if last > first:
                ranges.append(lsp.FoldingRange(start_line=first, end_line=last))
        return ranges

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
    async def completion(params: lsp.CompletionParams) -> lsp.CompletionList | None:
        document = server.documents.get(params.text_document.uri)
        if document is None:
            return None
        offset = server.offset_at(document, params.position)
        items = await _in_thread(lambda: completions(server, document, offset))
        return lsp.CompletionList(is_incomplete=False, items=items)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(params: lsp.CodeLensParams) -> list[lsp.CodeLens] | None:
        document = server.documents.get(params.text_document.uri)
        outline = None if document is None else await _outline(server, document)
        if document is None or outline is None:
            return None
        lenses = []
        for site in outline.sites:
            at = server.range_of(document.text, *_keyword(site.node.span))
            arguments = [document.uri, at.start.line, at.start.character]
            lenses.append(
                lsp.CodeLens(
                    range=at, command=lsp.Command(title="Show prompt", command=SHOW_PROMPT, arguments=arguments)
                )
            )
        return lenses

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix])
    )
    def code_actions(params: lsp.CodeActionParams) -> list[lsp.CodeAction] | None:
        """A quick fix for each diagnostic in range that has one obvious fix (:mod:`.quick_fixes`)."""
        from .quick_fixes import fix

        document = server.documents.get(params.text_document.uri)
        if document is None:
            return None
        program = document.program
        models = [] if program is None else [item.name for item in program.imports if item.resource == "llm"]
        actions = []
        for diagnostic in params.context.diagnostics:
            if diagnostic.source != "asrender" or not isinstance(diagnostic.code, str):
                continue
            start = server.offset_at(document, diagnostic.range.start)
            found = fix(diagnostic.code, diagnostic.message, document.text, start, models)
            if found is None:
                continue
            begin, end, replacement = found
            edit = lsp.TextEdit(range=server.range_of(document.text, begin, end), new_text=replacement)
            actions.append(
                lsp.CodeAction(
                    title=f"Change to '{replacement}'",
                    kind=lsp.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=True,
                    edit=lsp.WorkspaceEdit(changes={document.uri: [edit]}),
                )
            )
        return actions

    @server.command(SHOW_PROMPT)
    async def show_prompt(uri: str, line: int, character: int) -> str:
        """Every call the ``generate`` at the position made in the run, retries included, as
        ``asrender`` prints them in the chosen format."""
        document = server.documents.get(uri)
        outline = None if document is None else await _outline(server, document)
        if document is None or outline is None:
            return "The file is not open, or does not parse."
        site = outline.site_at(server.offset_at(document, lsp.Position(line=line, character=character)))
        if site is None:
            return "There is no generate here."
        try:
            evaluation = await server.evaluation(document)
        except EvaluationFailed as exc:
            return f"Cannot show the prompt: {exc}"
        start = site.node.span.start
        calls = evaluation.at(document.path or "", start.line, start.column)
        return "".join(call.block for call in calls) or calls_text(evaluation, calls, "generate")


async def _outline(server: AgentScriptServer, document: Document) -> Outline | None:
    """The document's outline, parsed in a worker thread the first time (a large file takes a while)."""
    return await _in_thread(document.outline)


async def _in_thread(work: Callable[[], T]) -> T:
    return await asyncio.to_thread(work)


def _keyword(span: Span) -> tuple[int, int]:
    """The offsets of a ``generate`` keyword: where the node starts, eight characters long."""
    return span.start_offset, span.start_offset + len("generate")


def _reference_position(text: str, offset: int) -> tuple[int, int]:
    """AgentScript's 1-based line and UTF-16 column of ``offset``, as ``asrender`` prints positions."""
    from ..agentscript.positions import LineMap

    position = LineMap(text).at(offset)
    return position.line, position.column


def _markdown(text: str, at: lsp.Range | None) -> lsp.Hover:
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text), range=at)


def _symbols(server: AgentScriptServer, text: str, outline: Outline) -> list[lsp.DocumentSymbol]:
    """Imports, and agents holding their functions, each holding its generates and their labels."""

    def symbol(
        name: str, kind: lsp.SymbolKind, span: tuple[int, int], chosen: tuple[int, int], detail: str | None = None
    ) -> tuple[lsp.DocumentSymbol, list[lsp.DocumentSymbol]]:
        children: list[lsp.DocumentSymbol] = []
        made = lsp.DocumentSymbol(
            name=name,
            kind=kind,
            range=server.range_of(text, *span),
            selection_range=server.range_of(text, *chosen),
            detail=detail,
            children=children,
        )
        return made, children

    declared = {id(name.node): name for name in outline.declarations() if name.kind != "label"}
    found: list[lsp.DocumentSymbol] = []
    for item in outline.program.imports:
        name = declared[id(item)]
        found.append(
            symbol(item.name, SYMBOL_KINDS["import"], _span(item.span), (name.start, name.end), item.resource)[0]
        )
    inside: dict[int, list[lsp.DocumentSymbol]] = {}
    for agent in outline.program.agents:
        at = declared.get(id(agent))
        made, functions = symbol(
            _shown(agent.name), SYMBOL_KINDS["agent"], _span(agent.span), _chosen(at, agent.span), "agent"
        )
        found.append(made)
        for function in agent.functions:
            at = declared.get(id(function))
            made, inside[id(function)] = symbol(
                _shown(function.name),
                SYMBOL_KINDS["function"],
                _span(function.span),
                _chosen(at, function.span),
                signature(function),
            )
            functions.append(made)
    for site in outline.sites:
        labels = ", ".join(label.name for label in site.labels)
        made, children = symbol(
            "generate", lsp.SymbolKind.Event, _span(site.node.span), _keyword(site.node.span), labels
        )
        children += [
            symbol(
                label.name, SYMBOL_KINDS["label"], (label.start, label.end), (label.start, label.end), "context label"
            )[0]
            for label in site.labels
        ]
        inside[id(site.function)].append(made)
    return found


def _shown(name: str) -> str:
    """A declaration's name as a symbol: an unnamed main agent or func as ``main agent``/``main func``."""
    return {ANONYMOUS_MAIN_AGENT: "main agent", ANONYMOUS_MAIN_FUNC: "main func"}.get(name, name)


def _span(span: Span) -> tuple[int, int]:
    return span.start_offset, span.end_offset


def _chosen(name: Name | None, span: Span) -> tuple[int, int]:
    """The name's offsets, or where an unnamed (main) declaration starts."""
    return (name.start, name.end) if name is not None else (span.start_offset, span.start_offset)
