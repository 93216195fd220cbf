"""The child process of an evaluation: one offline run of a program in a scratch copy of its folder.

Run as ``python -m promptwire.frontend.lsp.scratch_run``; it reads ``{"path", "source", "format",
"provider"}`` as JSON on stdin and writes what :mod:`.evaluation` reads as JSON on stdout. The run
is the inspector's (:func:`..asrender.snapshot.run_beside` in :func:`..asrender.snapshot.scratch_copy`):
the program's folder copied to a temporary folder, the editor's text written over the program's copy,
the sibling ``NAME.input.json`` and ``NAME.responses.json`` used where they exist, and the run
allowed to read and write that copy and nothing else (no network, no environment). With a
provider, a dry run builds its requests; nothing is ever sent. Paths of the copy are written back
as the user's own in everything it prints.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

__all__ = ["main"]


def main() -> int:
    request = json.loads(sys.stdin.read())
    json.dump(evaluated(Path(request["path"]), request["source"], request["format"], request["provider"]), sys.stdout)
    return 0


def evaluated(program: Path, source: str, format_name: str, provider: str | None) -> dict[str, Any]:
    """Every call of the run, as ``asrender`` prints it, and where its input and replies came from."""
    from ...core.errors import PromptwireError
    from ...plugins.manager import default_host
    from ...runs.options import RunOptions
    from ..agentscript.diagnostics import CheckError
    from ..asrender.beside import siblings
    from ..asrender.snapshot import run_beside, scratch_copy

    host = default_host()
    home = program.parent
    left_out: list[str] = []
    options = RunOptions(format=format_name)
    if provider:
        options = replace(options, adapter=provider, dry_run=True)
    input_file, responses, recording = siblings(program)
    answer: dict[str, Any] = {
        "input": input_file.name if input_file.is_file() else None,
        "replies": next((file.name for file in (responses, recording) if file.is_file()), None),
        "left_out": left_out,
        "calls": [],
        "error": None,
    }
    with scratch_copy(home, "asrender-lsp-", left_out) as folder:
        copy = folder / program.name
        copy.write_text(source, encoding="utf-8", newline="")
        try:
            result = run_beside(copy, options, host, folder=folder)
            calls = result.calls
        except (PromptwireError, CheckError, OSError, ValueError, RecursionError) as exc:
            calls = list(getattr(exc, "calls", ()))
            answer["error"] = _unscratched(str(exc), folder, home)
        answer["calls"] = [_call(call, options, host, folder, home) for call in calls]
    return answer


def _call(call: Any, options: Any, host: Any, folder: Path, home: Path) -> dict[str, Any]:
    from ...renderers.agentscript.renderer import context_clips
    from ...runs.run import RunResult, call_block, request_dict, shown
    from ..asrender.display import reply_sections

    rendered = shown(RunResult(None, [], [call], (options.format, options.options)), options, host)[0]
    block = call_block(call, rendered)
    if options.dry_run:
        block += _request_block(request_dict(call, options.adapter))
    block += reply_sections(call)
    clips = context_clips(call.prompt)
    return {
        "file": _unscratched(call.site.file, folder, home),
        "line": call.site.line,
        "column": call.site.column,
        "attempt": call.attempt,
        "block": _unscratched(block, folder, home),
        "context": [
            {
                "label": item.label,
                "source": item.source,
                "budget": None if item.budget is None else str(item.budget),
                "text": clip.text,
                "shown": clip.clipped_size,
                "original": clip.original_size,
                "clipped": clip.clipped,
            }
            for item, clip in zip(call.prompt.context, clips, strict=True)
        ],
    }


def _request_block(request: dict[str, Any]) -> str:
    """A dry run's request under its call, as ``asrender --dry-run`` prints it: provider, model,
    body and the adapter's notes (tests/lsp compares the two)."""
    from ..asrender.terminal import json_text

    block = f"--- request: {request['provider']} {request['model']} ---\n{json_text(request['body'])}\n"
    return block + "".join(f"note: {note}\n" for note in request["notes"])


def _unscratched(text: str, folder: Path, home: Path) -> str:
    """``text`` with the copy's paths written as the user's files."""
    return text.replace(f"{folder}{os.sep}", f"{home}{os.sep}").replace(str(folder), str(home))


if __name__ == "__main__":
    raise SystemExit(main())
