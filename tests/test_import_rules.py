"""The layering of DESIGN.md, checked on the source: a stage never reaches back into a later one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = {
    "core": {"core"},
    "renderers": {"core", "renderers"},
    "adapters": {"core", "adapters"},
    "plugins": {"core", "plugins"},  # built-ins are named as strings and imported lazily
    "frontend": {"core", "plugins", "frontend"},
}
HEAVY = {"openai", "anthropic", "ollama", "jsonschema", "jinja2", "httpx"}


def _modules(layer: str) -> list[Path]:
    return sorted((ROOT / layer).rglob("*.py"))


def _imported_layers(path: Path) -> set[str]:
    package = path.relative_to(ROOT).parent.parts
    layers = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)]
            target = [*base, *(node.module.split(".") if node.module else [])]
            if target:
                layers.add(target[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("promptwire."):
            layers.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            layers.update(alias.name.split(".")[1] for alias in node.names if alias.name.startswith("promptwire."))
    return layers


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_what_it_may(layer: str) -> None:
    for path in _modules(layer):
        assert _imported_layers(path) <= ALLOWED[layer], path.relative_to(ROOT)


def test_no_module_imports_provider_sdks_at_module_level() -> None:
    for layer in ALLOWED:
        for path in _modules(layer):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names = [node.module]
                assert not {name.split(".")[0] for name in names} & HEAVY, path.relative_to(ROOT)
