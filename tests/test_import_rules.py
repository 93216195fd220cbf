"""The layering of DESIGN.md, checked on the source: a stage never reaches back into a later one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMMAND_LINE = {
    "core",
    "plugins",
    "calls",
    "runs",
    "frontend/agentscript",
    "frontend/asrender",
    "frontend/lsp",
    "renderers",
    "adapters",
    "tools",
}
ALLOWED = {
    "core": {"core"},
    "renderers": {"core", "renderers"},
    "adapters": {"core", "adapters"},
    "plugins": {"core", "plugins"},  # built-ins are named as strings and imported lazily
    "tools": {"core", "tools"},  # a scheme is a plugin: it knows the interface, not the interpreter
    "testing": {"core", "testing"},  # helpers for users' and plugin authors' tests
    # The call side: the attempt loop, the links around a send, routing, watchers. It knows the data
    # and the plugin host (which adapter serves a scheme); never a format, a language or the CLI.
    "calls": {"core", "calls", "plugins"},
    # The language makes model calls; it knows nothing of runs or the command line.
    "frontend/agentscript": {"core", "plugins", "calls", "frontend/agentscript"},
    # A run of a program or a prompt file, one row or many: what the library and the CLI share.
    "runs": {"core", "plugins", "calls", "runs", "frontend/agentscript"},
    # The command line is the top floor: it may use everything below it; ``asrender lsp``, the
    # language server, is one of its commands, beside the inspector.
    "frontend/asrender": COMMAND_LINE,
    "frontend/lsp": COMMAND_LINE,
}
# AgentScript's value rules (JavaScript's JSON printing, UTF-16 budgets, shapes) belong to the
# language, which has two halves: the renderer that prints its prompts and the `.as` front end.
# They live with the renderer; the language and a run read them there and nothing else of renderers/.
# A run's canned replies are its own data: a run builds the offline adapter that answers them
# itself, rather than asking the generic plugin proxy for an offline-only method.
# A batch written for a provider's batch API instead of sent is a run's to write and read back
# (adapters.batch_files: the providers' file formats, and their entries as the replies and errors
# the adapters give), as a run's canned replies are.
ALLOWED_PACKAGES = {
    "frontend/agentscript": {"renderers.agentscript"},
    "runs": {"renderers.agentscript", "adapters.offline", "adapters.batch_files"},
}
TOP_LEVEL = {"core", "renderers", "adapters", "plugins", "tools", "calls", "runs", "frontend/agentscript"}
"""What the package's own top-level modules (the library's front door: ``api.py``, ``batch.py``,
``plugin.py``, ``__init__.py``) may import: everything but the command line's folder."""
HEAVY = {"openai", "anthropic", "ollama", "jsonschema", "jinja2", "httpx", "opentelemetry"}


def _modules(layer: str) -> list[Path]:
    return sorted((ROOT / layer).rglob("*.py"))


def _folder(target: tuple[str, ...]) -> str:
    """The layer a module path belongs to: ``frontend`` is two (the language and the CLI)."""
    return "/".join(target[:2]) if target[0] == "frontend" and len(target) > 1 else target[0]


def _imported_packages(path: Path) -> set[tuple[str, ...]]:
    """The package paths (inside promptwire) that ``path`` imports from, e.g. ``("renderers", "agens")``."""
    package = path.relative_to(ROOT).parent.parts
    targets: set[tuple[str, ...]] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)]
            target = (*base, *(node.module.split(".") if node.module else []))
            if target:
                targets.add(target)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("promptwire."):
            targets.add(tuple(node.module.split(".")[1:]))
        elif isinstance(node, ast.Import):
            targets.update(tuple(a.name.split(".")[1:]) for a in node.names if a.name.startswith("promptwire."))
    return targets


def _allowed(layer: str, target: tuple[str, ...]) -> bool:
    return _folder(target) in ALLOWED[layer] or ".".join(target[:2]) in ALLOWED_PACKAGES.get(layer, set())


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_what_it_may(layer: str) -> None:
    for path in _modules(layer):
        refused = sorted(".".join(t) for t in _imported_packages(path) if not _allowed(layer, t))
        assert not refused, f"{path.relative_to(ROOT)} imports {refused}"


def test_every_folder_of_the_package_has_a_layer() -> None:
    folders = {path.parent.name for path in ROOT.glob("*/__init__.py")} | {
        f"frontend/{path.parent.name}" for path in ROOT.glob("frontend/*/__init__.py")
    }
    assert folders - {"frontend"} <= set(ALLOWED)


def test_the_library_never_imports_the_command_line() -> None:
    # api.py, batch.py, plugin.py and the package's __init__: ``promptwire.generate`` must not run
    # through ``frontend/asrender``. Only the console entry (``__main__``) starts the command.
    for path in sorted(ROOT.glob("*.py")):
        if path.name == "__main__.py":
            continue
        own = {module.stem for module in ROOT.glob("*.py")}  # the front door's modules import each other
        refused = sorted(".".join(t) for t in _imported_packages(path) if _folder(t) not in TOP_LEVEL | own)
        assert not refused, f"{path.name} imports {refused}"


def _module_graph() -> dict[str, set[str]]:
    """Each module of the package to the modules it imports (anywhere in it, ``TYPE_CHECKING`` and
    function-level imports included: a circle drawn by types is still a type in the wrong file)."""
    modules: dict[str, Path] = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[0] in {"tests", "benchmarks", "examples", "snapshots", "scripts", "build"} or parts[0].startswith("."):
            continue
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        package = [part for part in package if part]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - (node.level - 1)]
                    target = ".".join([*base, *(node.module.split(".") if node.module else [])])
                elif node.module and node.module.startswith("promptwire."):
                    target = node.module.removeprefix("promptwire.")
                else:
                    continue
                for alias in node.names:
                    submodule = f"{target}.{alias.name}".lstrip(".")
                    if submodule in modules:
                        graph[name].add(submodule)
                    elif target in modules:
                        graph[name].add(target)
    return graph


def test_the_package_has_no_import_circle() -> None:
    graph = _module_graph()
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        if name in path:
            circle = [*path[path.index(name) :], name]
            pytest.fail("import circle: " + " -> ".join(circle))
        if name in done:
            return
        for imported in sorted(graph[name]):
            visit(imported, [*path, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


DIALECT_WORDS = ("AgentScript", "__main_agent", "list[", "JSON.stringify", "JSON.parse", "9007199254740992")
"""Words of a dialect's own rules: its name in text it prints, its anonymous agent, its type syntax,
JavaScript's JSON functions and its largest exact integer."""


def _code_strings_and_numbers(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string the code uses and every 2**53 it writes, with its line: docstrings (a string
    standing alone as a statement) say which dialect a rule serves, and are left out."""
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and id(node) not in docstrings:
            if isinstance(node.value, str):
                found.append((node.lineno, node.value))
            elif isinstance(node.value, int) and not isinstance(node.value, bool):
                found.append((node.lineno, str(node.value)))
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Pow)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.right, ast.Constant)
        ):
            found.append((node.lineno, str(node.left.value**node.right.value)))
    return found


def test_the_core_holds_no_dialects_rules() -> None:
    # JavaScript's JSON printing and UTF-16 budgets are AgentScript's; readers live in renderers/.
    assert not {"jsjson.py", "clipping.py", "reader.py"} & {path.name for path in _modules("core")}
    # Nor their content: the debug text, the anonymous agent, the type syntax, the number rule.
    for path in _modules("core"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, text in _code_strings_and_numbers(tree):
            words = [word for word in DIALECT_WORDS if word in text]
            assert not words, f"{path.relative_to(ROOT)}:{line} holds {words}"


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


def test_every_package_is_listed_for_installation() -> None:
    # A package missing from pyproject works in an editable checkout and is absent from a wheel.
    import tomllib

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    layers = {layer.split("/")[0] for layer in ALLOWED}
    found = {
        ".".join(("promptwire", *init.parent.relative_to(ROOT).parts))
        for init in ROOT.rglob("__init__.py")
        if init.parent == ROOT or init.relative_to(ROOT).parts[0] in layers
    }
    # A folder of data only (the conformance corpus's) is listed for its data, which pyproject names.
    data_folders = {name for name in listed - found if not any(ROOT.joinpath(*name.split(".")[1:]).glob("*.py"))}
    assert data_folders <= set(setuptools["package-data"])
    assert found == listed - data_folders


def test_the_inspector_page_ships_as_package_data() -> None:
    # The server reads page.html beside it; a wheel holds only the data files pyproject lists.
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]
    assert "page.html" in data["promptwire.frontend.asrender.inspector"]
    assert (
        (ROOT / "frontend" / "asrender" / "inspector" / "page.html")
        .read_text(encoding="utf-8")
        .startswith("<!doctype html>")
    )


LAZY_PACKAGES = ["__init__.py", "core/__init__.py", "frontend/__init__.py"]


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_a_lazy_package_lists_each_name_alike_in_its_three_places(package: str) -> None:
    # A name is written three times: imported for type checkers (which need the import and a
    # literal __all__ to see it exported), in __all__, and in _HOMES (where it loads from). They
    # must agree, and each name's home must be the module the type checkers import it from.
    tree = ast.parse((ROOT / package).read_text(encoding="utf-8"))
    typed: dict[str, str] = {}
    listed: list[str] = []
    homes: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imported in node.body:
                assert isinstance(imported, ast.ImportFrom)
                for alias in imported.names:
                    typed[alias.asname or alias.name] = "." * imported.level + (imported.module or "")
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and target.id == "__all__":
                listed = ast.literal_eval(node.value)  # type: ignore[arg-type]
            elif isinstance(target, ast.Name) and target.id == "_HOMES":
                assert node.value is not None
                homes = _literal_homes(node.value)
    assert sorted(typed) == sorted(listed) == sorted(homes)
    assert typed == homes


def _literal_homes(node: ast.expr) -> dict[str, str]:
    """``_HOMES`` as written: a dict of ``name: home`` entries and ``**dict.fromkeys((names), home)``."""
    assert isinstance(node, ast.Dict)
    homes: dict[str, str] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if key is None:  # **dict.fromkeys((...), ".home")
            assert isinstance(value, ast.Call)
            names, home = (ast.literal_eval(argument) for argument in value.args)
            homes.update(dict.fromkeys(names, home))
        else:
            homes[ast.literal_eval(key)] = ast.literal_eval(value)
    return homes


def test_the_floors_in_docs_architecture_are_the_ones_held_here() -> None:
    # docs/architecture.md tells a maintainer what each floor may import: the same table as ALLOWED.
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("<!-- floors: checked against tests/test_import_rules.py -->", 1)[1].split("\n\n", 1)[0]
    documented: dict[str, set[str]] = {}
    for row in table.strip().splitlines()[2:]:
        floor, may, _ = (cell.strip() for cell in row.strip("|").split("|", 2))
        layers = may.split("(", 1)[0]
        documented[floor.strip("`")] = {layer.strip() for layer in layers.split(",") if layer.strip()}
    assert set(documented) == set(ALLOWED)
    for floor, layers in documented.items():
        if layers == {"everything below"}:
            assert ALLOWED[floor] >= set(ALLOWED) - {"testing"}, floor
        else:
            assert layers == ALLOWED[floor], floor
