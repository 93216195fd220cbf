"""The inspector page's picker follows the folder while the page is open, in headless Chromium
(Debian's ``chromium`` driven by Playwright; nothing downloads a browser). A program added shows
up in the picker; the program shown going away is said in the status line, and coming back brings
the page back. ``tests/asrender/test_inspector_page.py`` drives the rest of the page. Without
Chromium or Playwright these tests are skipped and say what is missing; CI installs both and
requires them (PROMPTWIRE_REQUIRE_BROWSER=1)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from promptwire.frontend.asrender.inspector.server import InspectorServer

from chromium import WAIT_MS

SIBLINGS = (".as", ".input.json", ".responses.json")
pytestmark = pytest.mark.programs("evidence-qa", "strict-invoice")


@pytest.fixture
def page(browser: Any, server: InspectorServer) -> Iterator[Any]:
    """The page of the inspector on ``folder``, its tab closed before the server stops."""
    context = browser.new_context(viewport={"width": 1200, "height": 800})
    try:
        opened = context.new_page()
        opened.goto(server.url)
        opened.wait_for_selector('.column[data-format="agentscript"] pre.render', timeout=WAIT_MS)
        yield opened
    finally:
        context.close()


def _choices(page: Any) -> list[str]:
    names: list[str] = page.eval_on_selector_all("#programs option", "options => options.map(o => o.value)")
    return names


def test_a_program_added_to_the_folder_joins_the_picker(page: Any, folder: Path) -> None:
    assert _choices(page) == ["evidence-qa.as", "strict-invoice.as"]
    assert page.input_value("#programs") == "evidence-qa.as"
    for suffix in SIBLINGS:
        shutil.copy2(folder / f"strict-invoice{suffix}", folder / f"added{suffix}")
    page.wait_for_function("() => document.querySelectorAll('#programs option').length === 3", timeout=WAIT_MS)
    assert _choices(page) == ["added.as", "evidence-qa.as", "strict-invoice.as"]
    assert page.input_value("#programs") == "evidence-qa.as"  # still showing the same program
    page.select_option("#programs", "added.as")
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('added.as · updated')", timeout=WAIT_MS
    )
    assert "Extract the invoice fields." in page.text_content('.column[data-format="agentscript"] pre.render')


def test_the_program_shown_going_away_is_said_and_its_return_brings_the_page_back(page: Any, folder: Path) -> None:
    program = folder / "evidence-qa.as"
    kept = program.read_bytes()
    program.unlink()
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.includes(\"no program 'evidence-qa.as' here\")",
        timeout=WAIT_MS,
    )
    assert _choices(page) == ["strict-invoice.as"]
    program.write_bytes(kept)
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('evidence-qa.as · updated')",
        timeout=WAIT_MS,
    )
    assert _choices(page) == ["evidence-qa.as", "strict-invoice.as"]
    assert page.input_value("#programs") == "evidence-qa.as"
    assert page.query_selector("#context tr.clipped") is not None
