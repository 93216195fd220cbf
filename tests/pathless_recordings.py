"""A recording as promptwire wrote it before the Gemini and Bedrock adapters said their endpoint
path: each record's ``path`` empty, and its digest made with that empty path (the digest's formula,
:func:`promptwire.calls.recording.request_digest`, is the same). Files users kept from then must
still replay."""

from __future__ import annotations

import json
from typing import Any

from promptwire.calls.recording import request_digest
from promptwire.core.json_text import to_bytes

PATHLESS = frozenset({"gemini", "bedrock"})
"""The providers whose calls were recorded without their path."""


def pathless(text: str) -> str:
    """``text`` (a recording) with the ``path`` and digest of each Gemini and Bedrock record as
    they were written then (the other providers' records as they are: they had their path)."""
    header, *records = (json.loads(line) for line in text.splitlines())
    records = [_pathless(record) if record["provider"] in PATHLESS else record for record in records]
    return "".join(json.dumps(data) + "\n" for data in (header, *records))


def _pathless(record: dict[str, Any]) -> dict[str, Any]:
    body = record["request"]
    outside = record["model"] if record["model"] != body.get("model") else None
    digest = request_digest(record["provider"], "", to_bytes(body), outside)
    return {**record, "path": "", "digest": digest}
