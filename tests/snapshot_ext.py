"""Golden snapshots stored as the raw text a model reads, one file per snapshot, under ``snapshots/``.

Binary mode on purpose: text mode would translate ``\\r\\n`` and a byte-exact format must keep it.
A reviewer opens ``snapshots/<test file>/<test name>.txt`` and reads the prompt itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

SNAPSHOT_ROOT = Path(__file__).resolve().parent.parent / "snapshots"


class RawTextSnapshot(SingleFileSnapshotExtension):
    file_extension = "txt"
    _write_mode = WriteMode.BINARY

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        return str(SNAPSHOT_ROOT / test_location.basename)

    def serialize(self, data: Any, **kwargs: Any) -> bytes:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")  # a clip may split a surrogate pair, as JS does
        serialized: bytes = super().serialize(data, **kwargs)
        return serialized
