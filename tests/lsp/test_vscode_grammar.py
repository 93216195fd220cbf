"""The VS Code extension's TextMate grammar, checked against every example program: at the start of
each token the language's own lexer finds, the grammar gives the scope of that token's class.

The grammar uses only single-line ``match`` rules written in the part of Oniguruma's syntax that
Python's ``re`` reads the same way, so the rules are applied here as TextMate applies them: at each
point, the rule whose match starts first wins, ties to the rule listed first; a rule's captures
scope their groups.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.agentscript.lexer import KEYWORDS, tokenize

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"
PROGRAMS = sorted((ROOT / "examples").rglob("*.as"))
TYPES = {"string", "number", "boolean", "json", "list"}
CONSTANTS = {"true", "false", "none"}


def _rules(grammar: dict[str, Any], patterns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The grammar's ``match`` rules in order, includes expanded."""
    rules = []
    for pattern in patterns:
        if "include" in pattern:
            rules += _rules(grammar, [grammar["repository"][pattern["include"][1:]]])
        elif "patterns" in pattern:
            rules += _rules(grammar, pattern["patterns"])
        else:
            rules.append({**pattern, "regex": re.compile(pattern["match"])})
    return rules


def scopes(text: str) -> dict[int, str]:
    """The scope the grammar gives each offset of ``text`` that it scopes."""
    grammar = json.loads((EXTENSION / "syntaxes" / "agentscript.tmLanguage.json").read_text(encoding="utf-8"))
    rules = _rules(grammar, grammar["patterns"])
    found: dict[int, str] = {}
    for start_of_line, line in _lines(text):
        at = 0
        while at < len(line):
            best = None
            for rule in rules:
                match = rule["regex"].search(line, at)
                if match and match.end() > match.start() and (best is None or match.start() < best[1].start()):
                    best = (rule, match)
            if best is None:
                break
            rule, match = best
            if "name" in rule:
                for offset in range(match.start(), match.end()):
                    found[start_of_line + offset] = rule["name"]
            for group, capture in rule.get("captures", {}).items():
                if match.group(int(group)) is not None:
                    for offset in range(match.start(int(group)), match.end(int(group))):
                        found[start_of_line + offset] = capture["name"]
            at = match.end()
    return found


def _lines(text: str) -> list[tuple[int, str]]:
    lines, offset = [], 0
    for line in text.split("\n"):
        lines.append((offset, line))
        offset += len(line) + 1
    return lines


def _expected(kind: str, value: str) -> str:
    """The scope prefix a keyword, string, number or symbol token of the lexer must get."""
    if kind == "string":
        return "string.quoted."
    if kind == "number":
        return "constant.numeric."
    if kind == "keyword" and value in TYPES:
        return "support.type."
    if kind == "keyword" and value in CONSTANTS:
        return "constant.language."
    if kind == "keyword" and value in {"main", "agent", "func"}:
        return "storage.type."
    if kind == "keyword":
        return "keyword."
    return "keyword.operator." if value in {"==", "!=", "->", "=", "!", "<", "*", "-"} else ""


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda path: path.name)
def test_every_token_gets_its_class_scope(program: Path) -> None:
    text = program.read_text(encoding="utf-8")
    given = scopes(text)
    checked = 0
    for token in tokenize(text, str(program)):
        if token.kind == "eof":
            continue
        scope = given.get(token.offset, "")
        if token.kind == "identifier":
            # A name, a declared name, or the resource word of an import (a name to the lexer).
            assert scope.startswith(("variable.", "entity.name.", "storage.type.resource.")), (token, scope)
        else:
            assert scope.startswith(_expected(token.kind, token.value)), (token, scope)
        checked += 1
    assert checked > 50
    # Comments: every '//' outside a string starts a comment scope.
    for match in re.finditer(r"//", text):
        if not given.get(match.start(), "").startswith("string."):
            assert given.get(match.start(), "").startswith("comment.line.")


def test_declared_names_get_declaration_scopes() -> None:
    text = (ROOT / "examples" / "newsroom" / "newsroom.as").read_text(encoding="utf-8")
    given = scopes(text)
    assert given[text.index("Critic")] == "entity.name.type.import.agentscript"
    assert given[text.index("Editor")] == "entity.name.type.agent.agentscript"
    assert given[text.index("agent Critic")] == "storage.type.resource.agentscript"


def test_the_grammar_knows_every_keyword() -> None:
    grammar = (EXTENSION / "syntaxes" / "agentscript.tmLanguage.json").read_text(encoding="utf-8")
    assert all(re.search(rf"[|(:]{word}[|)]", grammar) for word in KEYWORDS), sorted(
        word for word in KEYWORDS if not re.search(rf"[|(:]{word}[|)]", grammar)
    )


def test_the_extension_starts_asrender_lsp_for_as_files() -> None:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    assert manifest["contributes"]["languages"][0]["extensions"] == [".as"]
    assert manifest["contributes"]["configuration"]["properties"]["asrender.command"]["default"] == ["asrender", "lsp"]
    assert manifest["contributes"]["grammars"][0]["path"] == "./syntaxes/agentscript.tmLanguage.json"
    json.loads((EXTENSION / "language-configuration.json").read_text(encoding="utf-8"))
