"""A real editor: headless Neovim opens an example with one error, attaches ``asrender lsp`` as its
built-in client does, reads back the diagnostic, fixes the line and reads the hover on the
``generate``: the calls as ``asrender`` prints them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

SESSION = Path(__file__).with_name("nvim_session.lua")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_neovim_shows_the_diagnostic_and_the_hover(nvim: str, tmp_path: Path) -> None:
    for name in ("evidence-qa.as", "evidence-qa.input.json", "evidence-qa.responses.json"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    program = tmp_path / "evidence-qa.as"
    fixed = program.read_text().splitlines()[11]
    program.write_text(program.read_text().replace("attempts: 2", "attempts: 0"))
    out = tmp_path / "result.json"
    env = {
        **os.environ,
        "PROGRAM": str(program),
        "OUT": str(out),
        "SERVER": json.dumps([sys.executable, "-m", "promptwire", "lsp"]),
        "HOVER_LINE": "11",
        "HOVER_CHARACTER": "20",
        "FIXED": fixed,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),  # no user configuration, no plugins
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    subprocess.run(
        [nvim, "--headless", "--clean", "-n", "-c", f"luafile {SESSION}"],
        env=env,
        cwd=tmp_path,
        timeout=180,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=True,
    )
    result = json.loads(out.read_text())
    [diagnostic] = result["diagnostics"]
    column = program.read_text().splitlines()[11].index("0 }")
    assert (diagnostic["line"], diagnostic["col"], diagnostic["code"]) == (11, column, "INVALID_GENERATE_ATTEMPTS")
    assert diagnostic["message"] == "generate attempts must be a positive integer"
    assert result["cleared"] is True
    hover = result["hover"]
    assert hover.startswith("**generate at line 12, column 18** (input from evidence-qa.input.json;")
    assert f"=== {program}:12:18 agent Researcher attempt 2 ===\n--- system ---\nYou are Careful Researcher." in hover
