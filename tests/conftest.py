from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from hypothesis import settings
from syrupy.assertion import SnapshotAssertion

from chromium import CHROMIUM, launch
from snapshot_ext import RawTextSnapshot

# One Hypothesis profile a run, named by HYPOTHESIS_PROFILE. Both start from Hypothesis' own ``ci``
# profile: derandomized (the same examples every run, so a failure comes back on a rerun, and on
# another machine), no example database, no deadline (a shared machine's timing is not a property
# of the code) and no too_slow health check. ``ci``, what .ci/run and the README's test command use,
# runs 100 examples a test; ``dev``, the default for a quick local run, a quarter of that. A test
# that needs a different count asks for a multiple (hypothesis_profile.examples).
settings.register_profile("ci", settings.get_profile("ci"), max_examples=100)
settings.register_profile("dev", settings.get_profile("ci"), max_examples=25)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

PROVIDER_ENVIRONMENT = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OLLAMA_HOST",
    "OLLAMA_BASE_URL",
    "OLLAMA_API_KEY",
    "ECHO_URL",
    "PROMPTWIRE_PLUGINS",
)
"""What the adapters and the plugin host read from the environment: a developer's shell (a real key,
a local Ollama) must not change what a test sees, so each test starts without them and sets its own."""


@pytest.fixture(autouse=True)
def _no_provider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROVIDER_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """Every snapshot in this suite is raw text under the top-level ``snapshots/`` folder."""
    return snapshot.use_extension(RawTextSnapshot)


REQUIRE_BROWSER = os.environ.get("PROMPTWIRE_REQUIRE_BROWSER") == "1"
"""Set by .ci/run, which installs Chromium: there a missing browser fails the browser tests."""


def _no_browser(reason: str) -> NoReturn:
    if REQUIRE_BROWSER:
        pytest.fail(f"{reason} (PROMPTWIRE_REQUIRE_BROWSER=1 requires the browser tests)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium for the inspector page's tests. Without it or Playwright they are skipped,
    saying what is missing, unless PROMPTWIRE_REQUIRE_BROWSER=1 (CI) makes that a failure."""
    if not CHROMIUM.is_file():
        _no_browser(f"{CHROMIUM} is missing: apt-get install chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _no_browser("playwright is missing: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        launched = launch(playwright)
        yield launched
        launched.close()


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


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def folder(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A copy of examples/ of the test's own, for the inspector: every program with its input, its
    replies and the files its tools read; or, in a module marked ``pytest.mark.programs(name, ...)``,
    only those programs with their input and replies."""
    copy = tmp_path / "programs"
    chosen = request.node.get_closest_marker("programs")
    if chosen is None:
        shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("plugins", "*.jsonl"))
        return copy
    copy.mkdir()
    for name in chosen.args:
        for path in EXAMPLES.glob(f"{name}.*"):
            shutil.copy2(path, copy / path.name)
    return copy


@pytest.fixture
def server(folder: Path) -> Iterator[Any]:
    """``asrender serve`` on the test's ``folder``, in a thread, stopped at the end."""
    from threading import Thread

    from promptwire.frontend.asrender.inspector.server import make_server

    with make_server(folder) as running:
        thread = Thread(target=running.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        yield running
        running.shutdown()
        thread.join(timeout=5)
