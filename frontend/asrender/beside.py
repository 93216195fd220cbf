"""The files beside a program ``NAME.as`` that a run of it uses: ``NAME.input.json`` (its input),
``NAME.responses.json`` (canned model replies) and ``NAME.recording.jsonl`` (a real run recorded
with ``--record``).

``asrender snapshot`` and ``asrender serve`` always run a program with them
(:func:`promptwire.frontend.asrender.snapshot.run_beside`); a plain ``asrender NAME.as`` takes the
input and the canned replies where its flags leave them open (:func:`open_siblings`) and says so on
stderr, so the README's ``asrender examples/evidence-qa.as`` needs no ``--input-file`` and no
``--responses``. Each is read through the run's permissions, as the program's own imports are: a
sibling that is a link out of the folder, a FIFO or a file under /proc is refused, not read.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ...core.text_files import UnreadableFileError, decode
from ...runs.inputs import canned_responses, program_input

if TYPE_CHECKING:
    from ...core.permissions import Permissions
    from ...runs.options import RunOptions

__all__ = ["RECORDING_SUFFIX", "open_siblings", "read_beside", "siblings"]

RECORDING_SUFFIX: Final = "recording.jsonl"
"""``NAME.recording.jsonl`` beside ``NAME.as``: a real run of it (``asrender NAME.as --provider P
--record NAME.recording.jsonl``), replayed by ``asrender snapshot`` and the inspector."""


def siblings(program: Path) -> tuple[Path, Path, Path]:
    """``NAME.input.json``, ``NAME.responses.json`` and ``NAME.recording.jsonl`` beside program ``NAME.as``."""
    return (
        program.with_name(f"{program.stem}.input.json"),
        program.with_name(f"{program.stem}.responses.json"),
        program.with_name(f"{program.stem}.{RECORDING_SUFFIX}"),
    )


def read_beside(tools: Permissions, path: Path) -> str | None:
    """The text of a file the run may read (``None`` when there is none), as a program's source is
    read: UTF-8, a leading byte-order mark dropped."""
    try:
        return decode(tools.read_bytes(path), str(path))
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise UnreadableFileError(str(path), "is a directory, not a file") from None
    except OSError as exc:
        raise UnreadableFileError(str(path), f"cannot read ({exc.strerror or exc})") from None


def open_siblings(
    program: str, options: RunOptions, *, input_open: bool, replies_open: bool, max_bytes: int
) -> tuple[RunOptions, dict[str, Any] | None, str | None]:
    """What ``asrender NAME.as`` takes from beside the program: its input when ``input_open`` (no
    ``--input`` nor ``--input-file``), its canned replies when ``replies_open`` (no ``--responses``
    and the run is offline: a provider's run is answered by the provider). Returns the options with
    the replies, the input (``None``: none found) and the line to tell the user (``None``: none
    used). ``options.tools`` is what the files are read through."""
    tools = options.tools
    if tools is None or not (input_open or replies_open):
        return options, None, None
    input_path, replies_path, _ = siblings(Path(program))
    used: list[str] = []
    input_value = None
    if input_open and (text := read_beside(tools, Path(os.path.abspath(input_path)))) is not None:
        input_value = program_input(None, str(input_path), max_bytes, text=text)
        used.append(str(input_path))
    if replies_open and (text := read_beside(tools, Path(os.path.abspath(replies_path)))) is not None:
        options = replace(options, responses=canned_responses(str(replies_path), max_bytes, text=text))
        used.append(str(replies_path))
    if not used:
        return options, input_value, None
    flags = " or ".join(
        flag for flag, path in (("--input-file", input_path), ("--responses", replies_path)) if str(path) in used
    )
    return options, input_value, f"using {' and '.join(used)}, found beside the program (give {flags} for others)"
