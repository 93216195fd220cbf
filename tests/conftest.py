from __future__ import annotations

import sys
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

sys.path.insert(0, str(Path(__file__).resolve().parent))

from snapshot_ext import RawTextSnapshot


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """Every snapshot in this suite is raw text under the top-level ``snapshots/`` folder."""
    return snapshot.use_extension(RawTextSnapshot)
