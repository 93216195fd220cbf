"""A file's text as AgentScript reads it: UTF-8, every character as stored.

AgentScript reads a file with Node's ``readFile(path, "utf8")``: no newline translation (``\\r\\n``
and a lone ``\\r`` stay), a byte-order mark stays as U+FEFF, and bytes that are not UTF-8 become
U+FFFD, one for each maximal ill-formed sequence (Python's ``"replace"`` handler does the same).
Python's text mode would turn ``\\r\\n`` into ``\\n``, and the prompt, and every budget counted over
it, would differ. ``import file`` and the file tools (``File.read``, ``Grep``, ``Sed``) read through
:func:`read_file_text`.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["read_file_text"]


def read_file_text(path: Path) -> str:
    """The text of ``path``, exactly as stored; an ``OSError`` when it cannot be read."""
    return path.read_bytes().decode("utf-8", "replace")
