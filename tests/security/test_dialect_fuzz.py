"""Prompt data in every dialect, fuzzed through every reader and every built-in format: whatever the
data, a render comes out (and prints as ``asrender`` prints it: its display, its JSON, its text),
or a :class:`PromptwireError` says why; never another exception, never past the alarm, never more
memory than a bounded multiple of the data's size.

Two targets. In process: near-valid data built from each dialect's own field names (the core
prompt's JSON Schema, Agens' message fields, Agently's prompt keys) mixed with arbitrary JSON-ish
values, through ``promptwire.render`` (the ``prompt`` reader) and the ``agens`` and ``agently``
readers, then each format. As files: the same data written as JSON or YAML (now and then damaged
with anchors, aliases, tags and stray tokens), through ``asrender render FILE --from READER``:
exit status 0 or 1 and stderr made of ``asrender:`` lines only, never ``internal error``.

Each target must reach the renderers: at least the fraction ``MIN_RENDERED`` of the near-valid
data must render in some format (measured each run; ``pytest -s`` prints it).
``PROMPTWIRE_FUZZ_EXAMPLES`` sets the count for a volume run.
"""

from __future__ import annotations

import json
import tracemalloc
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fuzz_data import AGENS, AGENTLY, JSONISH, PROMPT, made
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import promptwire
from promptwire.core.errors import PromptwireError
from promptwire.core.rendered import RenderedPrompt, warning_lines
from promptwire.frontend.asrender.terminal import json_text
from promptwire.plugins import default_host
from promptwire.plugins.builtins import RENDERERS

from fuzzing import SECONDS, asrender, check_stderr, within
from hypothesis_profile import fuzz_examples

DIALECTS = {"prompt": PROMPT, "agens": AGENS, "agently": AGENTLY}
FORMATS = tuple(RENDERERS)
TEMPLATE = "{% block system %}{{ prompt.system }}{% endblock %}{% block user %}{{ prompt | tojson }}{% endblock %}"
OPTIONS: dict[str, dict[str, Any]] = {"template": {"source": TEMPLATE}}
"""What a format needs to render at all (the template format renders the user's template)."""
MIN_RENDERED = {"in process": 0.4, "as files": 0.25}
"""The least fraction of near-valid data that must render (in some format; as a file, in the one
drawn, with the output drawn): a target whose data all fails validation would test only the
validation. Measured under the ci profile: in process 55-76 %, undamaged files 56-91 % (a file
the fuzzer damaged is meant to be refused, and is not counted)."""
MIN_SAMPLE = 30
"""The fewest near-valid inputs whose rendered fraction is held to ``MIN_RENDERED``. The ``ci``
profile (CI, the README's test command) draws 33 to 41 undamaged near-valid files per dialect and
hundreds in process; the quick ``dev`` profile draws a handful of files (seen: 6), where one input
more or less moves the fraction by 5 to 15 points, so there a target must only reach the renderers."""
MEMORY_PER_BYTE = 400
MEMORY_BASE = 32 * 2**20
"""The memory bound: a read and every render together may allocate at most this many bytes per
byte of the data (as JSON), plus this much."""


def _size(data: Any) -> int:
    """The data's size as written (about its JSON's length): a part used in several places counts
    once, as a YAML alias or a shared Python list is written once."""
    seen: set[int] = set()
    stack, total = [data], 0
    while stack:
        value = stack.pop()
        if isinstance(value, dict | list | tuple):
            total += 2
            if id(value) not in seen:
                seen.add(id(value))
                stack.extend([*value.keys(), *value.values()] if isinstance(value, dict) else value)
        elif isinstance(value, int):
            total += value.bit_length() // 3 + 1  # repr() refuses 5000 digits
        else:
            total += len(repr(value))
    return total


def _printed(rendered: RenderedPrompt) -> None:
    """Everything ``asrender render`` prints of a render, each output it has."""
    rendered.display()
    json_text(rendered.to_dict())
    warning_lines(rendered.warnings)


def _read_and_render(dialect: str, data: Any, strict: bool) -> int:
    """How many formats render ``data`` read as ``dialect`` (0 when reading refuses it). Anything
    but a PromptwireError propagates and fails the target."""
    host = default_host()
    if dialect != "prompt":
        try:
            data = host.reader(dialect).read(data)
        except PromptwireError as refused:
            event(f"{dialect}: refused at reading ({type(refused).__name__})")
            return 0
    rendered = 0
    for name in FORMATS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _printed(promptwire.render(data, name, strict=strict, **OPTIONS.get(name, {})))
            rendered += 1
        except PromptwireError as refused:
            event(f"{dialect} in {name}: {type(refused).__name__}")
    return rendered


@pytest.fixture(scope="module")
def tally() -> Iterator[Counter[str]]:
    """Counts each target's inputs, and its near-valid ones and those that render (checked against
    MIN_RENDERED); printed at the end (``pytest -s``: a volume run's figures)."""
    counts: Counter[str] = Counter()
    yield counts
    print("\nrendered in some format:", {key: counts[key] for key in sorted(counts)})


def _assert_reaches_the_renderers(counts: Counter[str], dialect: str, where: str) -> None:
    key = f"{dialect} {where}"
    tried, rendered = counts[f"{key} near-valid"], counts[f"{key} near-valid rendered"]
    assert rendered, f"none of {tried} near-valid {key} rendered"
    if tried >= MIN_SAMPLE:  # a fraction of a handful says nothing: the quick profile draws a handful
        assert rendered / tried >= MIN_RENDERED[where], f"only {rendered} of {tried} near-valid {key} rendered"


@pytest.mark.parametrize("dialect", DIALECTS)
def test_prompt_data_renders_in_every_format_or_is_a_promptwire_error(dialect: str, tally: Counter[str]) -> None:
    key = f"{dialect} in process"

    @settings(max_examples=fuzz_examples(4), deadline=None)
    @given(
        st.one_of(DIALECTS[dialect].map(lambda data: (True, data)), JSONISH.map(lambda data: (False, data))),
        st.booleans(),
    )
    def fuzz(drawn: tuple[bool, Any], strict: bool) -> None:
        near, recipe = drawn
        data = made(recipe)
        size = _size(data)
        tracemalloc.start()
        try:
            with within(SECONDS, (dialect, recipe)):
                rendered = _read_and_render(dialect, data, strict)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak <= MEMORY_PER_BYTE * size + MEMORY_BASE, (dialect, size, peak, recipe)
        tally[f"{key} inputs"] += 1
        if near:
            tally[f"{key} near-valid"] += 1
            tally[f"{key} near-valid rendered"] += rendered > 0
        event(f"rendered in {rendered} of {len(FORMATS)} formats")

    fuzz()
    _assert_reaches_the_renderers(tally, dialect, "in process")


# --- as files, through asrender ------------------------------------------------------------------

YAML_DAMAGE = [
    "&a ", "*a", "*a ", "!!set ", "!!binary ", "!!python/object:os.system ", "!!timestamp ", "<<: *a\n", "? ",
    "- ", ": ", "{", "}", "[", "]", "\n", "\t", "'", '"', "#", "%YAML 1.1\n---\n", "---\n", "...\n", "|\n", ">-\n",
    "\ufeff", "\x85", "\x00", "1.10", "!!str ",
]  # fmt: skip


def _as_text(data: Any, as_json: bool, draw: st.DrawFn) -> tuple[str, bool]:
    """``data`` as a prompt file's text: JSON (ASCII-escaped, or not) or YAML, damaged now and then;
    and whether it was damaged."""
    if as_json:
        text = json.dumps(data, ensure_ascii=draw(st.booleans()), default=repr)
    else:
        text = yaml.safe_dump(data, allow_unicode=draw(st.booleans()), sort_keys=False)
    damaged = draw(st.integers(0, 3)) == 0
    if damaged:
        for _ in range(draw(st.integers(1, 3))):
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.sampled_from(YAML_DAMAGE)) + text[at:]
    return text, damaged


@st.composite
def prompt_files(draw: st.DrawFn, dialect: str) -> tuple[bool, str, bool]:
    """Whether the file is near-valid (near-valid data, written whole: damage is meant to be
    refused, so a damaged file does not count towards the floor), the file's text, and whether it
    is named ``.json``."""
    near = draw(st.booleans())
    data = draw(DIALECTS[dialect] if near else JSONISH)
    as_json = draw(st.booleans())
    try:
        text, damaged = _as_text(made(data, shared=not as_json), as_json, draw)
    except (ValueError, RecursionError, yaml.YAMLError):  # a value the writer cannot write
        text, damaged = repr(data), True
    return near and not damaged, text, as_json


@pytest.mark.parametrize("dialect", DIALECTS)
def test_prompt_files_render_or_are_refused_in_asrender_lines(
    dialect: str, tally: Counter[str], tmp_path: Path
) -> None:
    key = f"{dialect} as files"

    @settings(max_examples=fuzz_examples(2), deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(prompt_files(dialect), st.sampled_from(FORMATS), st.sampled_from(["display", "json", "text"]))
    def fuzz(file: tuple[bool, str, bool], format_name: str, output: str) -> None:
        near, text, as_json = file
        path = tmp_path / ("p.json" if as_json else "p.yaml")
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        argv = ["render", str(path), "--from", dialect, "--format", format_name, "-O", output]
        if format_name == "template":
            argv += ["-o", f"source={TEMPLATE}"]
        code, _, err = asrender(argv)
        assert code in (0, 1), (argv, text, code, err)
        check_stderr(err)
        tally[f"{key} inputs"] += 1
        if near:
            tally[f"{key} near-valid"] += 1
            tally[f"{key} near-valid rendered"] += code == 0
        event(f"exit {code}")

    fuzz()
    _assert_reaches_the_renderers(tally, dialect, "as files")
