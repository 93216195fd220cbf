"""A file's text as AgentScript reads it: UTF-8, every character as stored.

AgentScript reads a file with Node's ``readFile(path, "utf8")``: no newline translation (``\\r\\n``
and a lone ``\\r`` stay), a byte-order mark stays as U+FEFF, and bytes that are not UTF-8 become
U+FFFD, one for each maximal ill-formed sequence (Python's ``"replace"`` handler does the same).
Python's text mode would turn ``\\r\\n`` into ``\\n``, and the prompt, and every budget counted over
it, would differ. ``import file`` and the file tools (``File.read``, ``Grep``, ``Sed``) decode what
they read (through the run's :class:`~promptwire.core.permissions.Permissions`) with
:func:`decode_text`.
"""

from __future__ import annotations

__all__ = ["decode_text"]


def decode_text(data: bytes | bytearray) -> str:
    """The text of a file's bytes, exactly as stored (see the module docstring)."""
    return bytes(data).decode("utf-8", "replace")
