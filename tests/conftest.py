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


class _CheckoutIsNotATestPackage:
    """Collect the checkout root as a plain directory, never as a test package.

    The root holds the package's ``__init__.py``. Left alone, pytest would import it while collecting,
    under the checkout folder's name (``main``: a second copy of the package; ``promptwire-main``, as
    a ZIP download unpacks: no valid name at all). Tests import the installed ``promptwire`` only.
    """

    @pytest.hookimpl(tryfirst=True)
    def pytest_collect_directory(self, path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        if path == parent.config.rootpath:
            return pytest.Dir.from_parent(parent, path=path)
        return None


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_CheckoutIsNotATestPackage(), "promptwire-checkout-root")
