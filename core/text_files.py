"""Reading text files, in the two ways promptwire reads them.

* **A file a program reads** (``import file``, the file tools ``File.read``, ``Grep``, ``Sed``), as
  the reference reads it with Node's ``readFile(path, "utf8")``: every character as stored. No
  newline translation (``\\r\\n`` and a lone ``\\r`` stay), a byte-order mark stays as U+FEFF, and
  bytes that are not UTF-8 become U+FFFD, one for each maximal ill-formed sequence (Python's
  ``"replace"`` handler does the same): :func:`decode_text` of the bytes the run's
  :class:`~promptwire.core.permissions.Permissions` read.
* **A file someone hands promptwire** (a program's source, a prompt file, an input, canned replies):
  strict UTF-8 (a bad byte is an error naming its offset), a leading byte-order mark dropped, line
  ends as written, and no more than a size limit read: :func:`read_text`.

Python's text mode would turn ``\\r\\n`` into ``\\n`` in both, and the prompt, and every budget counted
over it, would differ.
"""

from __future__ import annotations

import sys
from typing import IO

from .errors import PromptwireError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_INPUT_SIZE",
    "UnreadableFileError",
    "decode",
    "decode_text",
    "read_limited",
    "read_text",
]

DEFAULT_MAX_BYTES = 64 * 1024 * 1024
"""Files larger than this are refused unless the caller raises the limit."""

MAX_INPUT_SIZE = 64 * 1024**3
"""The highest limit a caller may set (``asrender --max-input-size 64G``): a file is read whole into
memory, and a limit past what an index can count was an internal error."""


class UnreadableFileError(PromptwireError):
    """A file that cannot be read as text: ``label: reason`` (``reason`` is kept on its own too)."""

    def __init__(self, label: str, reason: str) -> None:
        self.reason = reason
        super().__init__(f"{label}: {reason}")


def decode_text(data: bytes | bytearray) -> str:
    """The text of a file a program reads, exactly as stored (see the module docstring)."""
    return bytes(data).decode("utf-8", "replace")


def read_limited(stream: IO[bytes], label: str, max_bytes: int) -> bytes:
    """Read at most ``max_bytes`` bytes, refusing more without reading the rest (``/dev/zero``).
    Read a megabyte at a time: one read of ``max_bytes`` would ask for all of it at once."""
    chunks: list[bytes] = []
    total = 0
    while total <= max_bytes:
        chunk = stream.read(min(1 << 20, max_bytes + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise UnreadableFileError(
            label, f"larger than the input limit of {max_bytes} bytes (raise it with --max-input-size)"
        )
    return data


def read_text(file: str, label: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The UTF-8 text of ``file`` (``-``: standard input), at most ``max_bytes`` bytes of it."""
    try:
        if file == "-":
            data = read_limited(sys.stdin.buffer, label, max_bytes)
        else:
            with open(file, "rb") as stream:
                data = read_limited(stream, label, max_bytes)
    except FileNotFoundError:
        raise UnreadableFileError(label, "no such file") from None
    except IsADirectoryError:
        raise UnreadableFileError(label, "is a directory, not a file") from None
    except OSError as exc:
        raise UnreadableFileError(label, f"cannot read ({exc.strerror})") from None
    return decode(data, label)


def decode(data: bytes, label: str) -> str:
    """UTF-8 text, a leading byte-order mark dropped; bad bytes are reported by their offset."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFileError(label, f"not UTF-8 text at byte {exc.start}") from None
    return text[1:] if text.startswith("\ufeff") else text
