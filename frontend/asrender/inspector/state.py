"""What the inspector shows for one program, as JSON: every model call (each generate site and
attempt, run offline with the program's sibling input and canned replies) rendered in every
registered format, the exact request of each provider with its notes (a dry run: nothing is sent
and no SDK is imported), the context items with their budgets and clipping, text sizes, the
warnings for fields a format cannot express, and the stored render from ``asrender snapshot``.

A program that does not parse or fails to run gives its error instead, located (line, column and
the compiler-style text with its caret), so the page can show it where the calls would be.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from ....core.call import ModelCall
from ....core.errors import PromptwireError, SourceError
from ....plugins.manager import PluginHost, default_host
from ....renderers.agentscript.clipping import Clip
from ....renderers.agentscript.jsjson import utf16_len
from ....runs.options import RunOptions
from ....runs.run import call_heading, request_dict
from ...agentscript.diagnostics import CheckError
from ..display import reply_sections
from ..snapshot import StoreUnusable, programs, run_beside, scratch_copy, siblings, stored_render

__all__ = ["PROVIDERS", "fingerprint", "program_list", "program_state"]

PROVIDERS = ("openai", "anthropic", "ollama")
"""The providers whose exact requests the page shows (dry runs)."""


def program_list(root: Path) -> list[str]:
    """The programs the page can show: ``root`` itself when it is a file, else every ``.as`` under it."""
    if root.is_file():
        return [root.name]
    return [path.relative_to(root).as_posix() for path in programs(root)]


def _program_path(root: Path, name: str) -> Path:
    return root if root.is_file() else root / name


def fingerprint(root: Path, name: str) -> str:
    """Changes whenever the program or its input or replies change: what the page polls."""
    parts = []
    for path in (_program_path(root, name), *siblings(_program_path(root, name))):
        try:
            stat = path.stat()
            parts.append(f"{stat.st_mtime_ns}:{stat.st_size}")
        except OSError:
            parts.append("-")
    return "/".join(parts)


def options_by_format(host: PluginHost, options: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``asrender serve -o KEY=VALUE``: each option given to every format whose ``render`` names
    it (``template`` to the template format); one that no format names is a ``ValueError``."""
    formats = {name: host.renderer_options(name) or frozenset() for name in host.names("renderers")}
    by_format: dict[str, dict[str, Any]] = {}
    for key, value in options.items():
        takers = [name for name, accepted in formats.items() if key in accepted]
        if not takers:
            raise ValueError(f"no format takes the option {key!r}")
        for name in takers:
            by_format.setdefault(name, {})[key] = value
    return by_format


def program_state(
    root: Path, name: str, host: PluginHost | None = None, *, format_options: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Everything the page shows for program ``name`` (one of :func:`program_list`), each format
    rendered with its ``format_options`` (:func:`options_by_format`)."""
    host = host or default_host()
    program = _program_path(root, name)
    state: dict[str, Any] = {"file": name, "version": fingerprint(root, name), "error": None, "calls": []}
    left_out: list[str] = []  # what the scratch copy left out, and why
    state["left_out"] = left_out
    state["formats"] = list(host.names("renderers"))
    state["providers"] = list(PROVIDERS)
    folder: Path | None = None  # the scratch copy, once made
    home = root if root.is_dir() else root.parent
    try:
        with scratch_copy(home, "asrender-serve-", left_out) as folder:
            copy = folder / program.relative_to(home)
            options = RunOptions()  # run_beside's permissions: the copy, nothing else
            offline = run_beside(copy, options, host, folder=folder)
            dry_runs = {
                p: run_beside(copy, replace(options, adapter=p, dry_run=True), host, folder=folder) for p in PROVIDERS
            }
    except SourceError as exc:
        text = _unscratched(str(exc), folder)
        file = _unscratched(exc.file, folder)
        state["error"] = {"text": text, "file": file, "line": exc.line, "column": exc.column, "message": exc.message}
        return state
    except CheckError as exc:
        first = exc.diagnostics[0] if exc.diagnostics else None
        state["error"] = {
            "text": _unscratched(str(exc), folder),
            "file": None if first is None else _unscratched(exc.file_of(first), folder),
            "line": None if first is None else first.line,
            "column": None if first is None else first.column,
            "message": "" if first is None else first.message,
            "diagnostics": [
                {
                    "code": d.code,
                    "file": _unscratched(exc.file_of(d), folder),
                    "line": d.line,
                    "column": d.column,
                    "message": d.message,
                }
                for d in exc.diagnostics
            ],
        }
        return state
    except (PromptwireError, OSError, ValueError) as exc:
        text = _unscratched(f"{name}: {exc}", folder)
        message = _unscratched(str(exc), folder)
        state["error"] = {"text": text, "file": None, "line": None, "column": None, "message": message}
        return state
    stored = _stored_renders(root, name, state["formats"])
    for index, call in enumerate(offline.calls):
        entry = _call_state(call, host, state["formats"], format_options or {})
        entry["site"] = _unscratched(entry["site"], folder)
        entry["title"] = _unscratched(entry["title"], folder)
        entry["requests"] = {p: _request_state(result.calls, index) for p, result in dry_runs.items()}
        entry["stored"] = {fmt: _stored_call(text, index, reply_sections(call)) for fmt, text in stored.items()}
        state["calls"].append(entry)
    return state


def _unscratched(text: str, folder: Path | None) -> str:
    """``text`` with the scratch folder's paths written relative to it: the page names the user's
    files, not their copies."""
    if folder is None:
        return text
    return text.replace(f"{folder}{os.sep}", "").replace(str(folder), ".")


def _call_state(
    call: ModelCall, host: PluginHost, formats: list[str], options: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    from ....renderers.agentscript.renderer import context_clips

    renders: dict[str, Any] = {}
    for name in formats:
        try:
            rendered = host.renderer(name).render(call.prompt, **options.get(name, {}))
        except (PromptwireError, TypeError, ValueError) as exc:
            renders[name] = {"error": str(exc)}
            continue
        text = rendered.display()
        renders[name] = {
            "display": text,
            "chars": len(text),
            "utf16": utf16_len(text),
            "warnings": [warning.field for warning in rendered.warnings],
        }
    clips = context_clips(call.prompt)
    return {
        "site": str(call.site),
        "agent": call.site.agent or None,
        "attempt": call.attempt,
        "title": call_heading(call),
        "renders": renders,
        "context": [_context_state(item, clipped) for item, clipped in zip(call.prompt.context, clips, strict=True)],
    }


def _context_state(item: Any, clipped: Clip) -> dict[str, Any]:
    budget = item.budget
    return {
        "label": item.label,
        "source": item.source,
        "budget": None if budget is None else budget.context_limit,
        "budget_text": None if budget is None else str(budget),
        "shown": clipped.clipped_size,
        "original": clipped.original_size,
        "clipped": clipped.clipped,
    }


def _request_state(calls: list[ModelCall], index: int) -> dict[str, Any]:
    if index >= len(calls):
        return {"error": "this call was not reached in the dry run"}
    request = request_dict(calls[index], "")
    return {"model": request["model"], "body": request["body"], "notes": request["notes"]}


def _stored_renders(root: Path, name: str, formats: list[str]) -> dict[str, str]:
    """The renders ``asrender snapshot`` stored for this program, by format (one that cannot be
    read, a link out of the folder say, is not shown)."""
    found = {}
    for fmt in formats:
        try:
            text = stored_render(root if root.is_dir() else root.parent, name, fmt)
        except StoreUnusable:
            continue
        if text is not None:
            found[fmt] = text
    return found


def _stored_call(text: str, index: int, reply: str) -> str | None:
    """Call ``index``'s block in a stored render (blocks start with ``=== ``), without its heading
    and, when it is the one the call got now, without its ``reply`` (what ``asrender`` shows under
    a prompt): the page compares prompts; a reply that changed stays, and shows in the diff."""
    blocks = [block for block in re.split(r"(?m)^(?==== )", text) if block]
    if index >= len(blocks):
        return None
    body = blocks[index].split("\n", 1)[1] if "\n" in blocks[index] else ""
    return body.removesuffix(reply) if reply else body
