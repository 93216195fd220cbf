"""``asrender serve``'s page end to end in headless Chromium: Debian's ``chromium`` driven by
Playwright (nothing downloads a browser of its own). Without them these tests are skipped and say
what is missing; CI installs both and requires them (PROMPTWIRE_REQUIRE_BROWSER=1)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chromium import WAIT_MS


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _serve(path: Path) -> Iterator[str]:
    """``asrender serve`` in a process of its own, as a user starts it; stopped at the end."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "promptwire", "serve", str(path), "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    assert line == f"asrender: serving http://127.0.0.1:{port}/ (read-only; Ctrl-C stops)\n", line
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def page(browser: Any, folder: Path) -> Iterator[Any]:
    for url in _serve(folder):
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        opened = context.new_page()
        opened.goto(url)
        opened.wait_for_selector('.column[data-format="agentscript"] pre.render', timeout=WAIT_MS)
        yield opened
        context.close()


def _render(page: Any, view: str) -> str:
    text: str = page.text_content(f'.column[data-format="{view}"] pre.render')
    return text


def test_the_page_shows_each_call_in_formats_side_by_side(page: Any) -> None:
    assert page.text_content("#calls .call[aria-pressed=true]") == "code-review.as:15:18 agent Reviewer attempt 1"
    assert _render(page, "agentscript").startswith("--- system ---\nYou are Senior Code Reviewer.")
    assert _render(page, "request:openai").startswith('{\n  "model": "gpt-4.1-mini",\n  "messages": [')
    page.check('input[name=format][value="request:anthropic"]')
    notes = page.text_content('.column[data-format="request:anthropic"] .notes')
    assert "temperature" in notes or "max_tokens" in notes
    page.uncheck('input[name=format][value="messages"]')
    shown = page.eval_on_selector_all(".column", "columns => columns.map(c => c.dataset.format)")
    assert shown == ["agentscript", "request:openai", "request:anthropic"]
    counts = page.text_content('.column[data-format="agentscript"] .counts')
    assert counts.endswith(" UTF-16") and " chars · " in counts


def test_the_picker_switches_programs_and_clipped_items_are_marked(page: Any) -> None:
    page.select_option("#programs", "evidence-qa.as")
    page.wait_for_selector("#context tr.clipped", timeout=WAIT_MS)
    rows = page.eval_on_selector_all(
        "#context tr.item", "rows => rows.map(r => [r.cells[0].textContent, r.classList.contains('clipped')])"
    )
    assert rows == [["question", False], ["evidence", True], ["analyst notes", True]]
    assert page.text_content("#context tr.clipped .badge") == "clipped"
    page.click("#calls .call >> nth=1")
    assert "Previous generation failed." in _render(page, "agentscript")


def test_an_edit_shows_up_and_an_error_is_shown_with_its_caret(page: Any, folder: Path) -> None:
    page.select_option("#programs", "strict-invoice.as")
    page.wait_for_function(
        "() => document.querySelector('.column[data-format=agentscript] pre').textContent.includes('Invoice')"
    )
    program = folder / "strict-invoice.as"
    good = program.read_text()
    time.sleep(0.01)  # a new modification time, whatever the file system's resolution
    program.write_text(good.replace("Extract the invoice fields.", "Extract every field of the invoice."))
    page.wait_for_function(
        "() => document.querySelector('.column[data-format=agentscript] pre').textContent"
        ".includes('Extract every field of the invoice.')",
        timeout=WAIT_MS,
    )
    program.write_text(good.replace('generate({ input: "Extract', 'generate({ input: "Extract" + '))
    page.wait_for_selector("#error", state="visible", timeout=WAIT_MS)
    text = page.text_content("#error-text")
    head, source, caret = text.splitlines()[:3]
    assert head.startswith("strict-invoice.as:") and "error" in head
    column = int(head.split(":")[2])
    assert caret.rstrip().endswith("^") and len(caret.rstrip()) - len(source) + len(source.lstrip(" 0123456789|")) > 0
    assert page.get_attribute("#error", "data-column") == str(column)
    assert page.query_selector_all(".column") == []
    program.write_text(good)
    page.wait_for_selector("#error", state="hidden", timeout=WAIT_MS)
    assert "Extract the invoice fields." in _render(page, "agentscript")


def test_a_diff_between_two_formats(page: Any) -> None:
    page.select_option("#diff-a", "agentscript")
    page.select_option("#diff-b", "agens")
    page.click("#diff-run")
    page.wait_for_selector("#diff-output .hunk", timeout=WAIT_MS)
    assert page.text_content("#diff-output div >> nth=0") == "--- agentscript"
    assert page.query_selector_all("#diff-output .add") and page.query_selector_all("#diff-output .del")
