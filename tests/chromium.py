"""Debian's headless Chromium as the inspector's browser tests and ``scripts/inspector-screenshots.py``
drive it through Playwright (nothing downloads a browser of its own): where it is, and the flags
that keep it from reaching the network or a display."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 10_000
"""How long a test waits for the page to show something."""


def launch(playwright: Any) -> Any:
    """The browser, started by ``playwright`` (a ``sync_playwright()`` context)."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
