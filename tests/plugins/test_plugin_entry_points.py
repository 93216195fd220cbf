"""Installed plugins: entry points found, loaded by pluggy, narrowed by PROMPTWIRE_PLUGINS, failures named.

Each test lays out distributions the way pip installs them (a module plus a ``.dist-info`` with
``entry_points.txt``) in a temporary folder put on ``sys.path``, so discovery is the real one.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

import promptwire
from promptwire import PluginHost
from promptwire.core.errors import PluginWarning, RegistrationError

from agentscript_source import as_program

WHISPER = """
from promptwire import hookimpl, RenderedPrompt
from promptwire.core import Message

class Whisper:
    name = "whisper"
    description = "the instruction in lower case"
    fields = frozenset({"instruction"})

    def render(self, prompt, **options):
        text = str(prompt.instruction).lower()
        return RenderedPrompt(format=self.name, messages=(Message("user", text),), text=text)

@hookimpl
def register_renderers(register):
    register(Whisper())
"""

SCHEMES = """
from types import SimpleNamespace
from promptwire import hookimpl

@hookimpl
def register_tool_schemes(register):
    register(SimpleNamespace(name="s3", description="objects in S3"))
"""

Install = Callable[..., Path]


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Install]:
    """``install(dist, version, module, source, entry_point)``: one installed plugin distribution."""
    modules: list[str] = []
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("PROMPTWIRE_PLUGINS", raising=False)
    # Plugins installed in the test environment (the example echo plugin) are hidden: these tests
    # see an environment where promptwire and what they install are all there is.
    everything = metadata.distributions
    ours = ("promptwire",)

    def installed_here(**kwargs: Any) -> Iterator[metadata.Distribution]:
        for dist in everything(**kwargs):
            if dist.metadata["Name"] in ours or Path(str(dist.locate_file(""))) == tmp_path:
                yield dist

    monkeypatch.setattr(metadata, "distributions", installed_here)

    def install(dist: str, version: str, module: str, source: str, entry_point: str) -> Path:
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
        dist_info = tmp_path / f"{dist.replace('-', '_')}-{version}.dist-info"
        dist_info.mkdir()
        (dist_info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
        (dist_info / "entry_points.txt").write_text(f"[promptwire]\n{entry_point} = {module}\n")
        modules.append(module)
        return tmp_path / f"{module}.py"

    yield install
    for module in modules:
        sys.modules.pop(module, None)


@pytest.fixture
def whisper(install: Install) -> Path:
    return install("pw-shout", "1.2.3", "pw_shout", WHISPER, "whisper")


def test_entry_point_plugin_loads_like_an_installed_distribution(whisper: Path) -> None:
    host = PluginHost()
    assert promptwire.render({"instruction": "HeLLo"}, "whisper", host=host).text == "hello"
    info = host.plugins()[-1]
    assert (info.name, info.version, info.hooks) == ("whisper", "1.2.3", ("register_renderers",))
    assert info.registers["renderers"] == ["whisper"]


def test_entry_points_load_after_builtins_and_before_plugins_passed_in(whisper: Path, install: Install) -> None:
    install("pw-schemes", "0.4", "pw_schemes", SCHEMES, "schemes")

    class Passed:
        pass

    names = [info.name for info in PluginHost(plugins=[Passed]).plugins()]
    assert names[0] == "promptwire"
    assert names[-1] == "Passed"
    assert set(names[1:-1]) == {"whisper", "schemes"}


def test_allow_list_unset_loads_all(whisper: Path) -> None:
    assert "whisper" in PluginHost().names("renderers")


def test_allow_list_empty_loads_none_but_the_builtins(whisper: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMPTWIRE_PLUGINS", "")
    host = PluginHost()
    assert [info.name for info in host.plugins()] == ["promptwire"]
    assert host.names("renderers") == ("agentscript", "agens", "agently", "messages", "conversation", "template")


def test_allow_list_loads_only_the_named_entry_points(
    whisper: Path, install: Install, monkeypatch: pytest.MonkeyPatch
) -> None:
    install("pw-schemes", "0.4", "pw_schemes", SCHEMES, "schemes")
    monkeypatch.setenv("PROMPTWIRE_PLUGINS", " schemes , not-installed,")
    with pytest.warns(PluginWarning, match=r"^PROMPTWIRE_PLUGINS names 'not-installed', which no installed plugin is$"):
        host = PluginHost()
    assert [info.name for info in host.plugins()] == ["promptwire", "schemes"]
    assert host.tool_scheme("s3").description == "objects in S3"
    assert "whisper" not in host.names("renderers")
    assert "pw_shout" not in sys.modules  # left out means not even imported


def test_allow_argument_overrides_the_environment(whisper: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMPTWIRE_PLUGINS", "")
    assert "whisper" in PluginHost(allow=["whisper"]).names("renderers")
    monkeypatch.setenv("PROMPTWIRE_PLUGINS", "whisper")
    assert "whisper" not in PluginHost(allow=[]).names("renderers")


def test_a_name_left_out_does_not_block_a_plugin_passed_in(whisper: Path) -> None:
    class StandIn:
        __name__ = "whisper"  # what an instance plugin is registered as

    with pytest.warns(PluginWarning, match=r"^the allow-list names 'other', which no installed plugin is$"):
        host = PluginHost(allow=["other"], plugins=[StandIn()])
    assert [info.name for info in host.plugins()] == ["promptwire", "whisper"]


def test_broken_entry_point_is_left_out_named_in_a_warning(whisper: Path) -> None:
    whisper.write_text("raise RuntimeError('boom')\n")
    with pytest.warns(PluginWarning) as caught:
        host = PluginHost()
    assert [str(warning.message) for warning in caught] == [
        "plugin 'whisper' (pw_shout) failed to load: RuntimeError: boom "
        "(set PROMPTWIRE_PLUGINS to the plugins to load, without it)"
    ]
    assert [(b.name, b.target, b.version, b.error) for b in host.broken] == [
        ("whisper", "pw_shout", "1.2.3", "RuntimeError: boom")
    ]
    listed = host.plugins()[-1]
    assert (listed.name, listed.version, listed.error) == ("whisper", "1.2.3", "RuntimeError: boom")
    assert listed.to_dict()["error"] == "RuntimeError: boom" and listed.to_dict()["renderers"] == []


def test_a_broken_entry_point_leaves_the_good_ones_loaded(whisper: Path, install: Install) -> None:
    install("pw-broken", "0.1", "pw_broken", "import no_such_module_anywhere\n", "broken")
    install("pw-schemes", "0.4", "pw_schemes", SCHEMES, "schemes")
    with pytest.warns(PluginWarning, match=r"^plugin 'broken' \(pw_broken\) failed to load: ModuleNotFoundError"):
        host = PluginHost()
    assert "whisper" in host.names("renderers") and "s3" in host.names("tool_schemes")
    assert "agens" in host.names("renderers")  # the built-ins, above all
    assert [info.name for info in host.plugins() if info.error is not None] == ["broken"]


def test_a_name_nobody_registered_names_the_plugin_that_failed(whisper: Path, install: Install) -> None:
    install("pw-broken", "0.1", "pw_broken", "raise ImportError('boom')\n", "broken")
    with pytest.warns(PluginWarning):
        host = PluginHost()
    assert host.renderer("whisper").name == "whisper"
    with pytest.raises(RegistrationError) as info:
        host.adapter("mistral")
    assert str(info.value).startswith("unknown adapter 'mistral' (available: ")
    assert "and plugin 'broken' (pw_broken) failed to load: ImportError: boom" in str(info.value)


def test_entry_point_with_an_invalid_hook_function_is_named(install: Install) -> None:
    source = "from promptwire import hookimpl\n\n@hookimpl\ndef register_renderers(registry):\n    pass\n"
    install("pw-invalid", "0.1", "pw_invalid", source, "invalid")
    with pytest.warns(PluginWarning, match=r"^plugin 'invalid' \(pw_invalid\) failed to load: PluginValidationError"):
        host = PluginHost()
    assert [broken.name for broken in host.broken] == ["invalid"]


def test_a_name_in_the_allow_list_that_no_plugin_has_is_a_warning(
    whisper: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROMPTWIRE_PLUGINS", "whisper,nope")
    with pytest.warns(PluginWarning) as caught:
        host = PluginHost()
    assert [str(warning.message) for warning in caught] == [
        "PROMPTWIRE_PLUGINS names 'nope', which no installed plugin is"
    ]
    assert "whisper" in host.names("renderers")


def test_broken_entry_point_left_out_of_the_allow_list_is_never_imported(
    whisper: Path, install: Install, monkeypatch: pytest.MonkeyPatch
) -> None:
    install("pw-broken", "0.1", "pw_broken", "raise RuntimeError('boom')\n", "broken")
    monkeypatch.setenv("PROMPTWIRE_PLUGINS", "whisper")
    assert "whisper" in PluginHost().names("renderers")


BUCKETS = """
from promptwire import hookimpl
from promptwire.core.tools import ToolError, ToolOutcome

class Buckets:
    name = "s3"
    description = "objects in a bucket (kept in memory, for the test)"
    kinds = frozenset({"tool"})

    def __init__(self):
        self.objects = {"reports/q3.txt": "revenue up"}

    def call_tool(self, request, context):
        (args,) = request.args
        key = request.uri.removeprefix("s3://").rstrip("/") + "/" + args["key"]
        if request.method != "get":
            raise ToolError(f"no method {request.method!r}")
        if key not in self.objects:
            raise ToolError(f"no object {key}")
        return ToolOutcome(self.objects[key])

    def call_memory(self, request, context):
        raise ToolError("not a memory")

@hookimpl
def register_tool_schemes(register):
    register(Buckets())
"""

BUCKET_PROGRAM = as_program("Reports.get({ key: input.name })", 'import tool Reports from "s3://reports"')


def test_a_third_party_tool_scheme_installed_by_entry_point_serves_programs(install: Install) -> None:
    from promptwire.frontend.agentscript.interpreter import RunError
    from promptwire.runs.run import run

    install("pw-buckets", "2.0", "pw_buckets", BUCKETS, "buckets")
    host = PluginHost()
    result = run(BUCKET_PROGRAM, {"name": "q3.txt"}, host=host, path="s3.as")
    assert result.value == "revenue up"
    (event,) = result.trace
    assert (event["kind"], event["data"]["scheme"], event["data"]["uri"]) == ("tool", "s3", "s3://reports")
    assert host.plugins()[-1].registers["tool_schemes"] == ["s3"]
    with pytest.raises(RunError, match=r"Tool Reports\.get \(s3://reports\) failed: no object reports/q4\.txt"):
        run(BUCKET_PROGRAM, {"name": "q4.txt"}, host=host, path="s3.as")
    as_memory = BUCKET_PROGRAM.replace("import tool", "import memory").replace(".get(", ".query(")
    with pytest.raises(RunError, match="Unsupported memory URI scheme 's3'"):
        run(as_memory, {"name": "x"}, host=host, path="s3.as")


def test_a_broken_plugin_is_listed_marked_and_other_commands_warn_and_go_on(
    install: Install, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plugins load the first time a command needs something registered: an offline run in
    AgentScript's format needs nothing, so a plugin that fails to import is not even seen; a
    command that loads plugins warns, names the one that failed and goes on; ``asrender plugins``
    lists every plugin, the broken one marked, and exits 1."""
    from promptwire.frontend.asrender.cli import main
    from promptwire.plugins.manager import default_host

    install("pw-broken", "0.1", "pw_broken", "raise RuntimeError('boom')\n", "broken")
    examples = Path(__file__).resolve().parents[2] / "examples"
    monkeypatch.chdir(examples)
    run = ["evidence-qa.as", "--input-file", "evidence-qa.input.json", "--responses", "evidence-qa.responses.json"]
    warning = (
        "asrender: warning: plugin 'broken' (pw_broken) failed to load: RuntimeError: boom "
        "(set PROMPTWIRE_PLUGINS to the plugins to load, without it)\n"
    )
    default_host.cache_clear()
    try:
        assert main(run) == 0
        assert "answered offline" in capsys.readouterr().out
        assert main([*run, "--format", "agens"]) == 0
        out, err = capsys.readouterr()
        assert "## Input" in out and err.startswith(warning)
        default_host.cache_clear()
        assert main(["plugins"]) == 1
        out, err = capsys.readouterr()
        assert out.startswith("promptwire ") and "\nbroken 0.1\n  BROKEN, not loaded: RuntimeError: boom\n" in out
        assert err == warning
        default_host.cache_clear()
        assert main([*run, "--provider", "mistral"]) == 1  # it needs the broken plugin's names
        assert "unknown adapter 'mistral'" in capsys.readouterr().err
    finally:
        default_host.cache_clear()
