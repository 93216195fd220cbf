"""Take the screenshots of `asrender serve` in docs/ (run from the repository root, after
`pip install -e '.[test]'`, with Debian's chromium installed): python scripts/inspector-screenshots.py"""

from __future__ import annotations

import importlib
import shutil
import sys
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from promptwire.frontend.asrender.inspector.server import make_server

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
launch = importlib.import_module("chromium").launch  # the browser tests' Chromium and flags (tests/chromium.py)


def main() -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "examples"
        shutil.copytree(ROOT / "examples", folder, ignore=shutil.ignore_patterns("plugins", "*.jsonl"))
        (folder / "broken.as").write_text(
            (folder / "strict-invoice.as").read_text().replace('input: "Extract', 'input: "Extract" + ')
        )
        with make_server(folder) as server, sync_playwright() as playwright:
            threading.Thread(target=server.serve_forever, daemon=True).start()
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(server.url)
            page.select_option("#programs", "evidence-qa.as")
            page.wait_for_selector("#context tr.clipped")
            page.check('input[name=format][value="request:anthropic"]')
            page.screenshot(path=str(ROOT / "docs" / "inspector-formats.png"), full_page=False)
            page.select_option("#diff-a", "agentscript")
            page.select_option("#diff-b", "agens")
            page.click("#diff-run")
            page.wait_for_selector("#diff-output .hunk")
            page.evaluate("document.querySelector('#context').scrollIntoView()")
            page.screenshot(path=str(ROOT / "docs" / "inspector-context-diff.png"), full_page=False)
            page.select_option("#programs", "broken.as")
            page.wait_for_selector("#error", state="visible")
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(
                path=str(ROOT / "docs" / "inspector-error.png"), clip={"x": 0, "y": 0, "width": 1500, "height": 260}
            )
            browser.close()
            server.shutdown()


if __name__ == "__main__":
    main()
