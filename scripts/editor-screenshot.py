"""Take docs/editors-neovim-hover.png: Neovim in a terminal, attached to `asrender lsp`, showing the
hover on the README example's `generate` (run from the repository root, after `pip install -e
'.[test]' pyte`, with Debian's neovim and chromium installed): python scripts/editor-screenshot.py

Neovim runs in a pseudo-terminal of 110 x 44 cells with a minimal configuration (the one
docs/editors.md gives, and K for the hover); its output is read by pyte, a terminal emulator, and
the screen it holds is drawn as HTML and photographed in Chromium.
"""

from __future__ import annotations

import html
import importlib
import os
import pty
import select
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pyte
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
launch = importlib.import_module("chromium").launch  # the browser tests' Chromium and flags (tests/chromium.py)
COLUMNS, LINES = 110, 44
INIT = """
vim.opt.termguicolors = true
vim.opt.number = true
vim.cmd("highlight NormalFloat guibg=#2c313a guifg=#dcdfe4")
vim.api.nvim_create_autocmd({ "BufRead", "BufNewFile" }, { pattern = "*.as", command = "setfiletype agentscript" })
vim.api.nvim_create_autocmd("FileType", {
  pattern = "agentscript",
  callback = function(args)
    local client = vim.lsp.start_client({ name = "asrender", cmd = { %(python)s, "-m", "promptwire", "lsp" },
      root_dir = vim.fn.fnamemodify(args.file, ":p:h") })
    vim.lsp.buf_attach_client(args.buf, client)
    vim.keymap.set("n", "K", vim.lsp.buf.hover, { buffer = args.buf })
  end,
})
"""
PALETTE = {
    "black": "#1e1e1e", "red": "#e06c75", "green": "#98c379", "brown": "#e5c07b", "blue": "#61afef",
    "magenta": "#c678dd", "cyan": "#56b6c2", "white": "#dcdfe4", "default": "#dcdfe4",
}  # fmt: skip


def run_neovim(folder: Path) -> pyte.Screen:
    screen = pyte.Screen(COLUMNS, LINES)
    stream = pyte.ByteStream(screen)
    config = folder.parent / "config"
    (config / "nvim").mkdir(parents=True)
    (config / "nvim" / "init.lua").write_text(INIT % {"python": f'"{sys.executable}"'})
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "XDG_CONFIG_HOME": str(config),
        "COLUMNS": str(COLUMNS),
        "LINES": str(LINES),
    }
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(folder)
        os.execvpe("nvim", ["nvim", "-n", "+12", "evidence-qa.as"], env)
    import fcntl
    import struct
    import termios

    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))

    def pump(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    stream.feed(os.read(fd, 65536))
                except OSError:
                    return

    pump(10)  # the server starts and checks the file
    os.write(fd, b"0fgK")  # to `generate` on line 12, then the hover
    pump(6)
    screen = _copy(screen)
    os.write(fd, b"\x1b\x1b:qa!\r")
    pump(1)
    os.waitpid(pid, 0)
    return screen


def _copy(screen: pyte.Screen) -> pyte.Screen:
    """The screen as it is now (quitting redraws it)."""
    copy = pyte.Screen(screen.columns, screen.lines)
    for y in range(screen.lines):
        for x in range(screen.columns):
            copy.buffer[y][x] = screen.buffer[y][x]
    return copy


def as_html(screen: pyte.Screen) -> str:
    rows = []
    for y in range(screen.lines):
        cells = []
        for x in range(screen.columns):
            char = screen.buffer[y][x]
            fg = _colour(char.fg, "default")
            bg = _colour(char.bg, "black")
            if char.reverse:
                fg, bg = bg, fg
            weight = "bold" if char.bold else "normal"
            cells.append(
                f'<span style="color:{fg};background:{bg};font-weight:{weight}">{html.escape(char.data or " ")}</span>'
            )
        rows.append(f"<div>{''.join(cells)}</div>")
    style = (
        "body{margin:0;background:#1e1e1e} pre{margin:0;padding:8px;font:14px DejaVu Sans Mono,monospace}"
        " div{height:18px;white-space:pre} span{display:inline-block;height:18px;line-height:18px}"
    )
    return f"<!doctype html><html><head><style>{style}</style></head><body><pre>{''.join(rows)}</pre></body></html>"


def _colour(value: str, default: str) -> str:
    if value in PALETTE:
        return PALETTE[value if value != "default" or default != "black" else "black"]
    if len(value) == 6 and all(c in "0123456789abcdefABCDEF" for c in value):
        return f"#{value}"
    return PALETTE[default]


def main() -> None:
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "examples"
        folder.mkdir()
        for name in ("evidence-qa.as", "evidence-qa.input.json", "evidence-qa.responses.json"):
            shutil.copy(ROOT / "examples" / name, folder / name)
        screen = run_neovim(folder)
        page_file = Path(temporary) / "screen.html"
        page_file.write_text(as_html(screen), encoding="utf-8")
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1100, "height": 800})
            page.goto(page_file.as_uri())
            page.locator("pre").screenshot(path=str(ROOT / "docs" / "editors-neovim-hover.png"))
            browser.close()


if __name__ == "__main__":
    main()
