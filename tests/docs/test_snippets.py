"""Every snippet of README.md and docs/*.md runs, as written, or is on a list that says why not.

Each fenced block must name its language. What each language means here:

* ``python``: a page's blocks run in order, in one module (named ``my_plugin``, as the plugin
  snippets call their module), with the OpenAI, Anthropic and Ollama SDKs and the guide's own
  adapter pointed at the local fake provider, in an empty folder.
* ``sh``: each command runs (``&&`` and ``\\``-continued lines as a shell reads them): ``asrender``
  through its ``main()``, in a folder holding a copy of ``examples/`` and the files the page names
  (``tests/docs/pages/PAGE/``), exiting 0 unless ``EXIT`` says otherwise.
* ``console``: a transcript: its ``$ asrender`` command runs as above and prints what is shown,
  ``...`` standing for lines left out.
* ``agentscript``: a program, checked as ``asrender check`` checks it; one whose first line is a
  comment ``// asrender NAME.as ...`` is saved as ``NAME.as`` and run by that command.
* ``yaml``: prompt data, rendered as ``asrender FILE.yaml`` renders it.
* ``text``, ``json``, ``toml``: what a command prints or a file holds, not run (the tests beside
  each page hold those that show real output to the code).
* ``lua``, ``elisp``: an editor's own configuration (docs/editors.md), not run here:
  tests/lsp/test_editors_doc.py holds its settings to the server's.

What does not run here is in ``SKIPPED`` (a command or block, and the reason: it needs the network,
a real provider or the suite itself) or ``RUN_ELSEWHERE`` (the test that runs it with what it needs).
An entry that matches nothing fails, so the lists stay true.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
import types
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from promptwire.calls import telemetry
from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_servers import FakeProvider, fake_provider

ROOT = Path(__file__).resolve().parents[2]
PAGES = ["README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md"))]
FILES = Path(__file__).with_name("pages")

RUN = frozenset({"python", "sh", "console", "agentscript", "yaml"})
SHOWN = frozenset({"text", "json", "toml", "lua", "elisp"})

SKIPPED: dict[tuple[str, str], str] = {
    ("README.md", "python3 -m venv .venv"): "makes the environment the commands below install into",
    ("README.md", ". .venv/bin/activate"): "enters that environment",
    ("README.md", "python3 -m pip install -e ."): "installs from PyPI (network); .ci/run installs the same",
    ("README.md", "python3 -m pip install -e '.[test]'"): (
        "installs from PyPI (network); test_the_readme_test_command_is_what_ci_runs holds it to .ci/run"
    ),
    ("README.md", "HYPOTHESIS_PROFILE=ci python3 -m pytest"): "runs this suite; .ci/run runs it",
    ("README.md", "bash scripts/real-model-setup.sh"): "builds llama-server and fetches model weights (network)",
    ("README.md", "python3 -m pytest -m real_model"): "needs the model that setup fetches (the real_model tier)",
    ("docs/telemetry.md", "pip install"): "installs from PyPI (network)",
    ("docs/editors.md", "python3 -m pip install -e '.[lsp]'"): "installs from PyPI (network)",
    ("docs/embedding.md", "python -m promptwire.testing.provider_servers --port 8900"): (
        "serves until stopped; tests/adapters/test_fake_provider_command.py starts it on a free port"
    ),
    (
        "docs/embedding.md",
        "OPENAI_BASE_URL=http://127.0.0.1:8900/v1",
    ): "runs the reader's own tests against that server",
    ("docs/plugins.md", "python -m promptwire.testing.provider_servers --port 8900"): (
        "serves until stopped; tests/adapters/test_fake_provider_command.py starts it on a free port"
    ),
    ("docs/plugins.md", "OPENAI_API_KEY=x asrender examples/evidence-qa.as --provider openai"): (
        "sends to that server; tests/adapters/test_fake_provider_command.py runs every example against it"
    ),
    ("docs/plugins.md", "python -m promptwire.testing.conformance --adapter compat"): (
        "writes a plugin's expected files; tests/adapters/test_conformance_corpus.py runs it for the echo plugin"
    ),
    ("docs/editors.md", "asrender lsp"): "serves an editor on standard input until it exits; tests/lsp drives it",
    ("docs/telemetry.md", "OTEL_SERVICE_NAME=triage opentelemetry-instrument"): (
        "exports to an OpenTelemetry collector over OTLP (network); test_the_telemetry_snippet_runs covers the spans"
    ),
    (
        "docs/batch.md",
        "asrender batch classify.as --inputs rows.jsonl --out rounds.jsonl --batch-file openai round2",
    ): (
        "needs round 1's answers from OpenAI's Batch API (network); tests/asrender/test_batch_files.py "
        "drives the rounds against the fake provider's batch endpoints"
    ),
    ("docs/batch.md", "import ray"): "reads and writes s3:// on a Ray cluster (network)",
    ("docs/batch.md", "from ray.data.llm import"): "sends to api.openai.com from a Ray cluster (network)",
    ("docs/inspector.md", "asrender serve"): (
        "serves until stopped; tests/asrender/test_inspector_page.py starts it on a free port"
    ),
    ("docs/security.md", "HYPOTHESIS_PROFILE=ci PROMPTWIRE_FUZZ_EXAMPLES=3000"): (
        "runs the fuzz targets of this suite itself, for a long time"
    ),
}
"""(page, how the command or the block starts) -> why it is not run here."""

RUN_ELSEWHERE: dict[tuple[str, str], str] = {
    ("docs/cli.md", "$ asrender spam.as"): "tests/asrender/test_run_display.py",
}
"""(page, how the block starts) -> the test file that runs it (against a fake provider answering
as the transcript shows): that file must read the page."""

EXIT: dict[tuple[str, str], int] = {
    ("docs/prompt-snapshots.md", "asrender snapshot prompts/"): 1,  # as its comment says: new prompts
    ("docs/prompt-snapshots.md", "asrender snapshot prompts/ --format messages"): 1,  # a new format
}
"""(page, the whole command) -> the exit status the page says it has, when not 0."""


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    language: str
    text: str


def blocks(page: str) -> list[Block]:
    """The fenced blocks of ``page``, with the line their fence opens on."""
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    found, index = [], 0
    while index < len(lines):
        opened = re.fullmatch(r"\s*```(\S*)\s*", lines[index])
        if opened:
            end = next(i for i in range(index + 1, len(lines)) if re.fullmatch(r"\s*```\s*", lines[i]))
            found.append(Block(page, index + 1, opened.group(1), "\n".join(lines[index + 1 : end]) + "\n"))
            index = end
        index += 1
    return found


def commands(block: Block) -> list[str]:
    """The commands of a shell block, as written, one per ``&&`` part, comments and blanks left out."""
    joined = block.text.replace("\\\n", " ")
    found = []
    for line in joined.splitlines():
        part: list[str] = []
        for word in [*shlex.split(line, comments=True), "&&"]:
            if word != "&&":
                part.append(word)
            elif part:
                found.append(shlex.join(part))
                part = []
    return found


def _skip_reason(page: str, text: str) -> str | None:
    return next(
        (reason for (where, start), reason in SKIPPED.items() if where == page and text.startswith(start)), None
    )


def _elsewhere(page: str, text: str) -> str | None:
    return next(
        (test for (where, start), test in RUN_ELSEWHERE.items() if where == page and text.startswith(start)), None
    )


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    """The fake provider, where every SDK and the guide's adapters look for their provider."""
    with fake_provider() as server:
        for name, value in {
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "sk-test",
            "ANTHROPIC_BASE_URL": server.root,
            "ANTHROPIC_API_KEY": "sk-ant-test",
            "OLLAMA_HOST": server.root,
            "COMPAT_BASE_URL": server.base_url,
            "COMPAT_API_KEY": "sk-compat-test",
        }.items():
            monkeypatch.setenv(name, value)
        yield server


def _folder(page: str, tmp_path: Path) -> Path:
    """A folder with a copy of the examples and the files the page's commands name."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("plugins", "*.jsonl"))
    own = FILES / Path(page).stem
    if own.is_dir():
        shutil.copytree(own, tmp_path, dirs_exist_ok=True)
    return tmp_path


def _asrender(command: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    words = shlex.split(command)
    assert words[0] == "asrender", f"not a command this test runs: {command}"
    code = main(words[1:])
    out, err = capsys.readouterr()
    return code, out, err


def _pattern(shown: str) -> re.Pattern[str]:
    """A transcript's output as a pattern: ``...`` stands for lines left out."""
    parts = [r"(?:.*\n)*?" if line == "...\n" else re.escape(line) for line in shown.splitlines(keepends=True)]
    return re.compile("".join(parts))


def _run_python(page: str, found: list[Block], monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("my_plugin")
    monkeypatch.setitem(sys.modules, "my_plugin", module)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the warnings a snippet shows are its page's tests' business
            for block in found:
                try:
                    exec(compile(block.text, f"{page}:{block.line}", "exec"), module.__dict__)
                except Exception as exc:
                    raise AssertionError(f"{page}:{block.line}: the snippet fails: {exc!r}") from exc
    finally:
        telemetry.disable()  # telemetry.md's snippet turns it on for the process


def _run_shell(block: Block, capsys: pytest.CaptureFixture[str]) -> None:
    for command in commands(block):
        if _skip_reason(block.page, command):
            continue
        code, _, err = _asrender(command, capsys)
        expected = EXIT.get((block.page, command), 0)
        assert code == expected, f"{block.page}:{block.line}: {command}\nexit {code}\n{err}"
        assert "Traceback" not in err


def _run_console(block: Block, capsys: pytest.CaptureFixture[str]) -> None:
    command, shown = block.text.split("\n", 1)
    assert command.startswith("$ "), f"{block.page}:{block.line}: a transcript starts with '$ command'"
    code, out, err = _asrender(command[2:], capsys)
    assert code == 0, err
    assert _pattern(shown).fullmatch(out), f"{block.page}:{block.line}: the transcript is not what runs:\n{out}"


def _run_program(block: Block, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = block.text.split("\n", 1)[0]
    if first.startswith("// asrender "):
        command = first.removeprefix("// ")
        (folder / shlex.split(command)[1]).write_text(block.text, encoding="utf-8")
    else:
        (folder / "snippet.as").write_text(block.text, encoding="utf-8")
        command = "asrender check snippet.as"
    code, _, err = _asrender(command, capsys)
    assert code == 0, f"{block.page}:{block.line}: {command}\n{err}"


def _run_prompt_data(block: Block, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "snippet.yaml").write_text(block.text, encoding="utf-8")
    code, out, err = _asrender("asrender snippet.yaml --output text", capsys)
    assert code == 0 and out, f"{block.page}:{block.line}: the prompt data does not render:\n{err}"


def test_every_block_names_a_language_this_test_knows() -> None:
    unknown = [
        f"{b.page}:{b.line} ({b.language or 'none'})" for p in PAGES for b in blocks(p) if b.language not in RUN | SHOWN
    ]
    assert unknown == [], "tag each block: " + ", ".join(sorted(RUN | SHOWN))


def test_every_list_entry_names_a_snippet_and_what_runs_elsewhere_reads_its_page() -> None:
    starts = {
        (b.page, text)
        for p in PAGES
        for b in blocks(p)
        if b.language in RUN
        for text in (commands(b) if b.language == "sh" else [b.text])
    }
    for page, start in [*SKIPPED, *RUN_ELSEWHERE]:
        assert any(where == page and text.startswith(start) for where, text in starts), (page, start)
    for (page, _), test in RUN_ELSEWHERE.items():
        assert Path(page).name in (ROOT / test).read_text(encoding="utf-8"), f"{test} does not read {page}"
    for page, command in EXIT:
        assert (page, command) in starts, (page, command)


def test_the_readme_test_command_is_what_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    between = re.search(
        r"# --- README test command .*?---\n(.*?)# --- end of the README test command ---", ci, re.DOTALL
    )
    assert between is not None, ".ci/run marks the README test command"
    shown = [text for b in blocks("README.md") if b.language == "sh" for text in [b.text] if "pytest" in text]
    assert between.group(1) in shown


@pytest.mark.parametrize("page", PAGES)
def test_the_snippets_of_a_page_run(
    page: str,
    provider: FakeProvider,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = [b for b in blocks(page) if b.language in RUN and not _elsewhere(page, b.text)]
    python = [b for b in found if b.language == "python" and not _skip_reason(page, b.text)]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "python").mkdir()
    monkeypatch.chdir(tmp_path / "python")  # where a snippet writes its files
    _run_python(page, python, monkeypatch)
    folder = _folder(page, tmp_path / "shell")
    monkeypatch.chdir(folder)
    for block in found:
        if block.language == "sh":
            _run_shell(block, capsys)
        elif block.language == "console":
            _run_console(block, capsys)
        elif block.language == "agentscript":
            _run_program(block, folder, capsys)
        elif block.language == "yaml":
            _run_prompt_data(block, folder, capsys)
