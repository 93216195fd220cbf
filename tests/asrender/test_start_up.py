"""What each ``asrender`` command imports, pinned: start-up time is part of the product.

Each command runs in a fresh interpreter, which then lists ``sys.modules``. ``check`` and ``parse``
load the language and nothing of the prompt model (no pydantic, no plugin host, no interpreter);
every run, offline or dry, loads no provider SDK, HTTP client, schema validator, template engine,
YAML reader, asyncio (only an awaited call needs it) or OpenTelemetry (only ``--otel`` does). The
README's example is the program (a shape, budgets, canned replies).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from promptwire.core.records import FACTORY

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RUN = ["evidence-qa.as", "--input-file", "evidence-qa.input.json", "--responses", "evidence-qa.responses.json"]
NEVER_ON_A_RUN = {
    "openai",
    "anthropic",
    "ollama",
    "httpx",
    "jsonschema",
    "jinja2",
    "yaml",
    "agently",
    "asyncio",
    "opentelemetry",  # only --otel asks for it
}
LANGUAGE_ONLY = {
    "promptwire",
    "promptwire._module_entry",  # python -m promptwire takes the current folder off sys.path
    "promptwire.core",
    "promptwire.core.confined",
    "promptwire.core.errors",
    "promptwire.core.exports",
    "promptwire.core.json_text",
    "promptwire.core.nesting",
    "promptwire.core.permissions",
    "promptwire.core.printable",
    "promptwire.core.records",  # dataclass_record: dataclasses made without compiling their methods (stdlib only)
    "promptwire.core.rendered",
    "promptwire.core.secrets",  # errors.py masks keys in every message it makes (stdlib only)
    "promptwire.core.text_files",
    "promptwire.core.timeout",
    "promptwire.core.units",
    "promptwire.frontend",
    "promptwire.frontend.agentscript",
    "promptwire.frontend.agentscript.analyzer",
    "promptwire.frontend.agentscript.diagnostics",
    "promptwire.frontend.agentscript.lexer",
    "promptwire.frontend.agentscript.loader",
    "promptwire.frontend.agentscript.parser",
    "promptwire.frontend.agentscript.positions",
    "promptwire.frontend.agentscript.syntax",
    "promptwire.frontend.agentscript.syntax_json",
    "promptwire.frontend.asrender",
    "promptwire.frontend.asrender.cli",
    "promptwire.frontend.asrender.commands",
    "promptwire.frontend.asrender.flags",
    "promptwire.frontend.asrender.terminal",
    "promptwire.renderers",
    "promptwire.renderers.agentscript",
    "promptwire.renderers.agentscript.clipping",
    "promptwire.renderers.agentscript.jsjson",
    "promptwire.renderers.agentscript.renderer",
    "promptwire.renderers.agentscript.shape",
    "promptwire.renderers.base",
}
"""Every promptwire module ``check`` and ``parse`` may import: the language, the command line, the
light parts of the core (with the permission record, stdlib-only, that imported agents are read
through) and AgentScript's value rules (the parser reads numbers and strings by them)."""

README_EXAMPLE = LANGUAGE_ONLY | {
    "promptwire.adapters",
    "promptwire.adapters.offline",
    "promptwire.calls",
    "promptwire.calls.generate",
    "promptwire.calls.links",
    "promptwire.calls.targets",
    "promptwire.calls.watch",
    "promptwire.core.budget",
    "promptwire.core.call",
    "promptwire.core.coercion",
    "promptwire.core.contract",
    "promptwire.core.model_uri",
    "promptwire.core.prompt",
    "promptwire.core.references",
    "promptwire.core.stepping",
    "promptwire.frontend.agentscript.interpreter",
    "promptwire.frontend.agentscript.trace",
    "promptwire.frontend.agentscript.unparse",
    "promptwire.frontend.asrender.beside",
    "promptwire.frontend.asrender.display",
    "promptwire.frontend.asrender.progress",
    "promptwire.frontend.asrender.show",
    "promptwire.plugins",
    "promptwire.plugins.builtins",
    "promptwire.plugins.entry_points",
    "promptwire.plugins.lazy",
    "promptwire.plugins.manager",
    "promptwire.plugins.registry",
    "promptwire.renderers.messages",
    "promptwire.renderers.parts",
    "promptwire.runs",
    "promptwire.runs.inputs",
    "promptwire.runs.options",
    "promptwire.runs.run",
}
"""Every promptwire module the README's example in the messages format (benchmarks/cold_start.py's
start-up row) may import, with no plugin installed: the language, the run engine, the offline
adapter, the prompt model, the plugin host (the format is looked up in its registry) and the one
format asked for. Not a provider's machinery (``adapters.base``: the offline adapter needs none of
it), no tool scheme, no other format. A module added to this path is added here, knowingly: start-up
time is the sum of what the path imports (issue 41)."""

LISTING = (
    "import contextlib, io, json, sys\n"
    "from promptwire.frontend.asrender.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    status = main(sys.argv[1:])\n"
    "print(json.dumps([status, sorted(sys.modules)]))\n"
)


def _imported(*args: str, env: dict[str, str] | None = None) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", LISTING, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=EXAMPLES,
        check=True,
        env=None if env is None else {**os.environ, **env},
    )
    status, modules = json.loads(done.stdout.splitlines()[-1])
    assert status == 0, done.stderr
    return set(modules)


def _outside_the_standard_library(modules: set[str]) -> set[str]:
    """Top-level packages that are neither the standard library's nor the interpreter's own set-up
    (an editable install's finder, setuptools' hook)."""
    tops = {name.split(".")[0] for name in modules}
    return {top for top in tops - set(sys.stdlib_module_names) if not top.startswith("_")}


@pytest.mark.parametrize("command", ["check", "parse"])
def test_check_and_parse_import_the_language_and_no_prompt_model(command: str) -> None:
    modules = _imported(command, "evidence-qa.as")
    assert _outside_the_standard_library(modules) == {"promptwire"}  # no pydantic, no pluggy
    ours = {name for name in modules if name.split(".")[0] == "promptwire"}
    assert ours <= LANGUAGE_ONLY, sorted(ours - LANGUAGE_ONLY)


@pytest.mark.parametrize(
    "flags",
    [[], ["--format", "messages"], ["--provider", "openai", "--dry-run"], ["--provider", "anthropic", "--dry-run"]],
    ids=["offline", "messages", "dry-run-openai", "dry-run-anthropic"],
)
def test_a_run_imports_no_sdk_http_client_validator_templates_or_yaml(flags: list[str]) -> None:
    modules = _imported(*RUN, *flags)
    assert not NEVER_ON_A_RUN & {name.split(".")[0] for name in modules}
    assert "promptwire.frontend.agentscript.interpreter" in modules  # the program did run
    assert "promptwire.calls.recording" not in modules  # canned replies are no recording, and nothing records
    assert "promptwire.frontend.asrender.text_form" not in modules  # only --output text asks for it
    if not flags:  # routing is for a provider's run; plugins for a registry this run never asks
        assert "promptwire.calls.routing" not in modules
        assert not {"pluggy", "promptwire.plugins.manager"} & modules
    # Only the format asked for is loaded, besides AgentScript's own (the text a program sends).
    formats = {
        name.split(".")[2] for name in modules if name.startswith("promptwire.renderers.") and name.count(".") >= 2
    }
    assert formats <= {"agentscript", "base", "messages", "parts"}


def test_the_readme_example_as_messages_imports_what_it_uses_and_no_more() -> None:
    """No plugin loads (the README's install has none), so the host fills its registries from the
    built-ins without pluggy: pluggy's import and manager were 12M of the example's instructions."""
    modules = _imported(*RUN, "--format", "messages", env={"PROMPTWIRE_PLUGINS": ""})
    ours = {name for name in modules if name.split(".")[0] == "promptwire"}
    assert ours <= README_EXAMPLE, sorted(ours - README_EXAMPLE)
    assert _outside_the_standard_library(modules) == {
        "promptwire",
        "pydantic",
        "pydantic_core",
        "annotated_types",
        "typing_extensions",
        "typing_inspection",
    }


def test_an_installed_plugin_brings_pluggy_in() -> None:
    """The development install has the example plugin: a run loads it, through pluggy."""
    modules = _imported(*RUN, "--format", "messages", env={"PROMPTWIRE_PLUGINS": "echo"})
    assert {"pluggy", "promptwire.plugins.hookspecs", "promptwire_echo"} <= modules


AFTER_THE_EXAMPLE = (
    "import contextlib, io, json, sys\n"
    "from promptwire.frontend.asrender.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    status = main(sys.argv[2:])\n"
    "print(json.dumps([status, eval(sys.argv[1])]))\n"
)


def _after_the_example(expression: str) -> Any:
    """The value of ``expression`` in a fresh interpreter that ran the README example as messages."""
    done = subprocess.run(
        [sys.executable, "-c", AFTER_THE_EXAMPLE, expression, *RUN, "--format", "messages"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=EXAMPLES,
        check=True,
    )
    status, value = json.loads(done.stdout.splitlines()[-1])
    assert status == 0, done.stderr
    return value


def test_the_readme_example_builds_no_validator_for_the_prompt() -> None:
    """A program's prompt is assembled from models the interpreter validated itself
    (``assembled_prompt``): the prompt's own validator, with the schemas of the turns, parts and
    tools the example leaves empty, is built by no run (20M instructions of its start-up)."""
    assert _after_the_example("sys.modules['promptwire.core.prompt'].Prompt.__pydantic_complete__") is False


def test_the_readme_example_compiles_no_pattern_for_text_it_does_not_have() -> None:
    """The patterns of surrogates and unsafe characters are compiled when first asked for (2-4M
    instructions each: the compiler sets each code point of their ranges): the example's text is
    ASCII, printed to no terminal, so none is. Nor are the patterns of what the example does not
    have (0.5-0.9M each): a character outside the BMP, a URL's password, a failed call's body, text
    on standard input, data read from text, a budget written as text."""
    patterns = [
        "sys.modules['promptwire.core.printable'].half_characters",
        "sys.modules['promptwire.core.json_text']._surrogates",
        "sys.modules['promptwire.core.json_text']._unsafe_in_json",
        "sys.modules['promptwire.frontend.asrender.terminal']._unsafe_in_text",
        "sys.modules['promptwire.frontend.agentscript.positions']._astral",
        "sys.modules['promptwire.core.secrets']._userinfo",
        "sys.modules['promptwire.core.errors']._spaces",
        "sys.modules['promptwire.runs.inputs']._program_start",
        "sys.modules['promptwire.runs.inputs']._json_openers",
        "sys.modules['promptwire.core.budget']._budget_text",
    ]
    compiled = "[" + ", ".join(f"{pattern}.cache_info().currsize" for pattern in patterns) + "]"
    assert _after_the_example(compiled) == [0] * len(patterns)


@pytest.mark.parametrize("module", sorted(README_EXAMPLE))
def test_every_dataclass_on_the_readme_path_has_a_docstring(module: str) -> None:
    """``dataclass`` writes the docstring of a class that has none from ``inspect.signature``, at
    import: each class on the path pays it (3M instructions for the syntax tree's nodes alone)."""
    classes = [
        value
        for value in vars(importlib.import_module(module)).values()
        if isinstance(value, type) and value.__module__ == module and dataclasses.is_dataclass(value)
    ]
    generated = [cls.__name__ for cls in classes if (cls.__doc__ or "").startswith(f"{cls.__name__}(")]
    assert not generated


@pytest.mark.parametrize("module", sorted(README_EXAMPLE))
def test_a_hand_written_dataclass_init_takes_the_fields_as_dataclass_would(module: str) -> None:
    """A dataclass on the path may write its ``__init__`` by hand (``init=False``), since the one
    ``dataclass`` generates is compiled from source at every import: it must then take exactly the
    fields, in order, with their annotations and defaults, and store each (a field added without it
    fails here)."""
    classes = [
        value
        for value in vars(importlib.import_module(module)).values()
        if isinstance(value, type)
        and value.__module__ == module
        and dataclasses.is_dataclass(value)
        and value.__init__.__code__.co_filename != "<string>"  # not compiled by dataclass  # type: ignore[misc]
    ]
    for cls in classes:
        fields = [field for field in dataclasses.fields(cls) if field.init]
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
        assert [(p.name, p.annotation, p.default, p.kind) for p in parameters] == [
            (
                field.name,
                field.type,
                _default(field),
                inspect.Parameter.KEYWORD_ONLY if field.kw_only else inspect.Parameter.POSITIONAL_OR_KEYWORD,
            )
            for field in fields
        ], cls.__name__
        if hasattr(cls, "__post_init__"):  # it reads the fields: the signature is what can be checked
            continue
        markers = [object() for _ in fields]
        made = cls(**{field.name: marker for field, marker in zip(fields, markers, strict=True)})
        assert [getattr(made, field.name) for field in fields] == markers, cls.__name__
        for field in fields:  # a factory's field left out holds what the factory makes
            if field.default_factory is not dataclasses.MISSING:
                given = {
                    other.name: marker for other, marker in zip(fields, markers, strict=True) if other is not field
                }
                made, fresh = getattr(cls(**given), field.name), field.default_factory()
                same = made == fresh or type(fresh).__eq__ is object.__eq__  # equal, or compared by identity
                assert type(made) is type(fresh) and same, (cls.__name__, field.name)


def _default(field: dataclasses.Field[object]) -> object:
    """A hand-written ``__init__``'s default for ``field``: its own, ``FACTORY`` for a factory's."""
    if field.default_factory is not dataclasses.MISSING:
        return FACTORY
    return inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default


def test_a_program_that_calls_no_tool_imports_no_tool_machinery() -> None:
    """Tools come with the programs that call them (a plugin importing ``promptwire.plugin`` brings
    them in its own right, so none is loaded here)."""
    modules = _imported(*RUN, env={"PROMPTWIRE_PLUGINS": ""})
    assert "promptwire.frontend.agentscript.interpreter" in modules
    assert "promptwire.core.tools" not in modules


@pytest.mark.parametrize(
    ("args", "status"),
    [(RUN, 0), ([*RUN, "--output", "json"], 0), (["evidence-qa.as", "--input", "{"], 1)],
    ids=["display", "json", "bad-input"],
)
def test_the_command_as_a_process_prints_all_that_main_prints(
    args: list[str], status: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m promptwire`` (the ``asrender`` script's ``console``) tunes the garbage collector
    for a short process and freezes what is left at the end: the output must still be all there,
    byte for byte what :func:`main` prints in-process, with the same exit status."""
    from promptwire.frontend.asrender.cli import main

    monkeypatch.chdir(EXAMPLES)
    assert main(args) == status
    printed = capsys.readouterr()
    done = subprocess.run(
        [sys.executable, "-m", "promptwire", *args], capture_output=True, text=True, timeout=60, cwd=EXAMPLES
    )
    assert (done.returncode, done.stdout, done.stderr) == (status, printed.out, printed.err)
    assert len(done.stdout if status == 0 else done.stderr) > 40
