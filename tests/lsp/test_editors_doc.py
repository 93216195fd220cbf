"""docs/editors.md and the VS Code extension stay true to the server: the settings they name are
the server's, with its defaults, and the screenshot the page shows is there."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path

from promptwire.frontend.lsp.server import SHOW_PROMPT, Settings

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")


def test_the_settings_table_is_the_servers_settings() -> None:
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \|", PAGE, flags=re.MULTILINE)
    shown = {name: default for name, default in rows}
    defaults = {f.name: f.default for f in fields(Settings)}
    assert set(shown) == set(defaults)
    for name, default in defaults.items():
        assert shown[name] == (
            "none" if default is None else f"`{json.dumps(default) if isinstance(default, str) else f'{default:g}'}`"
        )


def test_the_vscode_extension_offers_the_servers_settings() -> None:
    manifest = json.loads((ROOT / "editors" / "vscode" / "package.json").read_text(encoding="utf-8"))
    properties = manifest["contributes"]["configuration"]["properties"]
    offered = {
        name.removeprefix("asrender."): spec["default"]
        for name, spec in properties.items()
        if name != "asrender.command"
    }
    assert offered == {f.name: f.default for f in fields(Settings)}
    assert SHOW_PROMPT in (ROOT / "editors" / "vscode" / "extension.js").read_text(encoding="utf-8")


def test_the_pages_images_are_there() -> None:
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", PAGE):
        assert (ROOT / "docs" / image).is_file(), image
